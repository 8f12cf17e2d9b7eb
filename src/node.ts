/// <reference types="@webgpu/types" preserve="true" />
/**
 * `webgpu-collide/node`: a WebGPU device in Node from dawn.node (the `webgpu` package).
 *
 * - The hardware adapter when there is one; else the software one (SwiftShader). When no Vulkan
 *   driver is configured and none is found, we look for SwiftShader's ICD where Debian's Chromium
 *   and Chrome install it, point the Vulkan loader at it, and ask again.
 * - Dawn's instance (the object `create()` returns) must outlive every device made from it, and
 *   every callback still queued for a destroyed one: if it is collected too early, the process
 *   dies in Dawn at the next garbage collection (SIGSEGV or `std::system_error` in
 *   `CallbackTaskManager::Flush`). Releasing it when a device was lost was not late enough: a
 *   device destroyed with calls in flight still had callbacks queued. So, as a browser keeps one
 *   `navigator.gpu`, we keep one instance per set of instance options for the life of the process
 *   and make every device from it.
 *   A device made from your own `create()` (from `webgpu`) instead of `requestNodeDevice()`
 *   needs the same care: keep the object `create()` returned referenced until every device made
 *   from it is destroyed and its work is done (e.g. in a module-level variable).
 * - Timestamps are unquantized (`disable-dawn-features=timestamp_quantization`).
 *
 * Needs the optional peer dependency: `npm install webgpu@0.6.2`. Everything from
 * `webgpu-collide` is re-exported here.
 *
 * @packageDocumentation
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

/** What to install when dawn.node finds no adapter (part of NoAdapterError's message). */
export const NODE_HELP =
  'dawn.node needs a Vulkan driver. On a machine without a GPU, install SwiftShader (it comes with Chromium): ' +
  '`sudo apt-get install -y chromium libvulkan1` (Debian/Ubuntu), then, if it is not found by itself, ' +
  '`export VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json`.';

/** Options of {@link requestNodeDevice}: the adapter's, and dawn.node's own. */
export interface NodeDeviceOptions extends DeviceOptions {
  /** Extra dawn.node instance options, e.g. 'enable-dawn-features=...'. */
  dawnOptions?: string[];
  /** Milliseconds to wait for an adapter before giving up (default 30 s). */
  timeoutMs?: number;
}

/** What describeDevice reports as the engine of a device from here. */
const DAWN_NODE = { engine: 'Dawn', host: `Node ${process.versions.node} (dawn.node)` } as const;

/** Dawn instances, one per instance options and Vulkan driver, kept for the life of the process. */
const instances = new Map<string, GPU>();

/** How many Dawn instances this process holds (for tests: devices share them). */
export function dawnInstanceCount(): number {
  return instances.size;
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

  const attempt = (): Promise<GPUDevice> => {
    const key = JSON.stringify([instanceOptions, process.env.VK_ICD_FILENAMES ?? '', process.env.VK_DRIVER_FILES ?? '']);
    let gpu = instances.get(key);
    if (!gpu) {
      gpu = dawn.create(instanceOptions);
      instances.set(key, gpu);
    }
    return withTimeout(requestDeviceFrom(gpu, options, NODE_HELP, DAWN_NODE), timeoutMs, 'dawn.node');
  };

  try {
    return await attempt();
  } catch (error) {
    const driverChosen = process.env.VK_ICD_FILENAMES || process.env.VK_DRIVER_FILES;
    const icd = SWIFTSHADER_ICDS.find((path) => existsSync(path));
    if (!(error instanceof NoAdapterError) || driverChosen || !icd) throw error;
    // No adapter from the default drivers: fall back to SwiftShader. The Vulkan loader reads
    // this when the next instance is created.
    process.env.VK_ICD_FILENAMES = icd;
    return attempt();
  }
}
