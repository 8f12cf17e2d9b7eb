/**
 * Runs before `npm test` and `npm run example`: is there a WebGPU adapter for dawn.node?
 * If not, and we are root on a Debian/Ubuntu machine, install SwiftShader (it comes with
 * Debian's Chromium) and the Vulkan loader; otherwise say exactly what to install, and fail.
 */
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { requestNodeDevice, describeDevice, NODE_HELP } from '../src/node.js';

async function probe(): Promise<string | null> {
  try {
    const device = await requestNodeDevice();
    const info = describeDevice(device);
    device.destroy();
    return `${info?.description || info?.vendor || 'unknown adapter'}${info?.isFallbackAdapter ? ' (software)' : ''}`;
  } catch (error) {
    console.error(`No WebGPU adapter: ${(error as Error).message}`);
    return null;
  }
}

let adapter = await probe();
if (!adapter) {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (root && existsSync('/usr/bin/apt-get')) {
    console.log('Installing SwiftShader (chromium) and the Vulkan loader: apt-get install -y chromium libvulkan1');
    execSync('apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium libvulkan1', {
      stdio: 'inherit',
    });
    adapter = await probe();
  }
}
if (!adapter) {
  console.error(`\n${NODE_HELP}\n`);
  process.exit(1);
}
console.log(`WebGPU adapter: ${adapter}`);
