/**
 * `webgpu-collide/node`: a WebGPU device in Node from dawn.node (the `webgpu` package).
 *
 * - The hardware adapter when there is one; else the software one (SwiftShader). When no Vulkan
 *   driver is configured and none is found, we look for SwiftShader's ICD where Debian's Chromium
 *   and Chrome install it, point the Vulkan loader at it, and ask again.
 * - Dawn's instance (the object `create()` returns) must outlive every device made from it: if it
 *   is collected while a device is in use, the process dies in Dawn at the next garbage
 *   collection (PLATFORM.md). We hold it in `liveInstances` until the device is lost or
 *   destroyed.
 * - Timestamps are unquantized (`disable-dawn-features=timestamp_quantization`).
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { NoAdapterError } from './errors.js';
import { requestDeviceFrom, type DeviceOptions } from './device.js';

export * from './index.js';

/** Where SwiftShader's Vulkan ICD is found on common Linux installs. */
export const SWIFTSHADER_ICDS = [
  '/usr/lib/chromium/vk_swiftshader_icd.json',
  '/usr/lib/chromium-browser/vk_swiftshader_icd.json',
  '/opt/google/chrome/vk_swiftshader_icd.json',
];

export const NODE_HELP =
  'dawn.node needs a Vulkan driver. On a machine without a GPU, install SwiftShader (it comes with Chromium): ' +
  '`sudo apt-get install -y chromium libvulkan1` (Debian/Ubuntu), then, if it is not found by itself, ' +
  '`export VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json`.';

export interface NodeDeviceOptions extends DeviceOptions {
  /** Extra dawn.node instance options, e.g. 'enable-dawn-features=...'. */
  dawnOptions?: string[];
  /** Milliseconds to wait for an adapter before giving up (default 30 s). */
  timeoutMs?: number;
}

/** Dawn instances kept alive while a device made from them lives. */
const liveInstances = new Map<GPUDevice, GPU>();

/** Number of devices whose Dawn instance is being kept alive (for tests). */
export function liveDeviceCount(): number {
  return liveInstances.size;
}

type DawnModule = { create(options: string[]): GPU };

async function loadDawn(): Promise<DawnModule> {
  try {
    return (await import('webgpu')) as unknown as DawnModule;
  } catch (error) {
    throw new NoAdapterError(`Cannot load dawn.node: install it with \`npm install webgpu@0.6.2\` (${(error as Error).message}).`);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new NoAdapterError(`${what} did not answer within ${ms} ms. ${NODE_HELP}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * A GPUDevice from dawn.node, with the adapter's limits. `describeDevice(device)` says which
 * adapter it is (`isFallbackAdapter` is true on SwiftShader). Destroy it when done: a live
 * device keeps Node's event loop busy.
 */
export async function requestNodeDevice(options: NodeDeviceOptions = {}): Promise<GPUDevice> {
  const dawn = await loadDawn();
  // The Vulkan loader complains on every instance when this is unset; it only needs a directory.
  process.env.XDG_RUNTIME_DIR ??= tmpdir();
  const instanceOptions = ['disable-dawn-features=timestamp_quantization', ...(options.dawnOptions ?? [])];
  const timeoutMs = options.timeoutMs ?? 30_000;

  const attempt = async (): Promise<{ gpu: GPU; device: GPUDevice }> => {
    const gpu = dawn.create(instanceOptions);
    const device = await withTimeout(requestDeviceFrom(gpu, options, NODE_HELP), timeoutMs, 'dawn.node');
    return { gpu, device };
  };

  let result: { gpu: GPU; device: GPUDevice };
  try {
    result = await attempt();
  } catch (error) {
    const driverChosen = process.env.VK_ICD_FILENAMES || process.env.VK_DRIVER_FILES;
    const icd = SWIFTSHADER_ICDS.find((path) => existsSync(path));
    if (!(error instanceof NoAdapterError) || driverChosen || !icd) throw error;
    // No adapter from the default drivers: fall back to SwiftShader. The Vulkan loader reads
    // this when the next instance is created.
    process.env.VK_ICD_FILENAMES = icd;
    result = await attempt();
  }
  const { gpu, device } = result;
  liveInstances.set(device, gpu);
  void device.lost.then(() => liveInstances.delete(device));
  return device;
}
