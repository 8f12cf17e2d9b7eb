/**
 * `webgpu-collide/node`: a WebGPU device in Node from dawn.node (the `webgpu` package).
 *
 * - The hardware adapter when there is one; else the software one (SwiftShader). When no Vulkan
 *   driver is configured, SwiftShader's ICD, where Debian's Chromium and Chrome install it, is
 *   offered to the Vulkan loader beside the drivers it finds, and Mesa's lavapipe (which Dawn
 *   rejects, with a warning) is hidden from it; if there is still no adapter, we point the loader
 *   at SwiftShader alone and ask again.
 * - Dawn's instance (the object `create()` returns) must outlive every device made from it, and
 *   every callback still queued for a destroyed one: if it is collected too early, the process
 *   dies in Dawn at the next garbage collection (SIGSEGV or `std::system_error` in
 *   `CallbackTaskManager::Flush`). Releasing it when a device is lost is not late enough: a
 *   device destroyed with calls in flight can still have callbacks queued. So, as a browser keeps one
 *   `navigator.gpu`, we keep one instance per set of instance options for the life of the process
 *   and make every device from it.
 *   A device made from your own `create()` (from `webgpu`) instead of `requestNodeDevice()`
 *   needs the same care: keep the object `create()` returned referenced until every device made
 *   from it is destroyed and its work is done (e.g. in a module-level variable).
 * - Timestamps are unquantized (`disable-dawn-features=timestamp_quantization`).
 * - While a promise of a device is pending (a buffer's map, an error scope), dawn.node polls the
 *   device from a `setImmediate` callback that queues itself again, so the thread that waits
 *   keeps a core busy. On a software adapter the shaders run on the same cores, so the library
 *   waits for such a device's promises by sleeping between the polls instead (`waiting`, below).
 *
 * Needs the optional peer dependency: `npm install webgpu@0.6.2`. Everything from
 * `webgpu-collide` is re-exported here.
 *
 * @packageDocumentation
 * @module webgpu-collide/node
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { NoAdapterError, InvalidInputError } from './errors.js';
import { checkOptions, checkOneOf, checkNumber, RULES } from './checks.js';
import { requestDeviceFrom, shadersRunOnCpu, type DeviceOptions } from './device.js';
import { setDeviceWaiter, type DeviceWaiter } from './gpu/wait.js';

export * from './index.js';

/**
 * Where SwiftShader's Vulkan ICD is found on common Linux installs.
 *
 * @category Node
 */
export const SWIFTSHADER_ICDS = [
  '/usr/lib/chromium/vk_swiftshader_icd.json',
  '/usr/lib/chromium-browser/vk_swiftshader_icd.json',
  '/opt/google/chrome/vk_swiftshader_icd.json',
];

/**
 * What to install when dawn.node finds no adapter (part of NoAdapterError's message).
 *
 * @category Node
 */
export const NODE_HELP =
  'dawn.node needs a Vulkan driver. On a machine without a GPU, install SwiftShader (it comes with Chromium): ' +
  '`sudo apt-get install -y chromium libvulkan1` (Debian/Ubuntu), then, if it is not found by itself, ' +
  '`export VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json`.';

/**
 * Options of {@link requestNodeDevice}: the adapter's, and dawn.node's own.
 *
 * @category Node
 */
export interface NodeDeviceOptions extends DeviceOptions {
  /** Extra dawn.node instance options, e.g. 'enable-dawn-features=...'. */
  dawnOptions?: string[];
  /** Milliseconds to wait for an adapter before giving up (default 30 s). */
  timeoutMs?: number;
  /**
   * How the library's calls wait for the device (a readback, an error scope). `'spin'`: as
   * dawn.node does, polling the device in a loop that keeps a core busy (the least latency).
   * `'yield'`: the waiting thread sleeps between polls (from 0.05 ms, doubling up to 0.5 ms),
   * which gives that core to whatever else runs: on a software adapter, the shaders themselves
   * (on a 2-core machine, the half of the CPU that spinning would take). Default
   * `'auto'`: `'yield'` where the shaders run on the CPU (SwiftShader), else `'spin'`.
   * {@link yieldWhileWaiting} sets it for a device made otherwise.
   */
  waiting?: 'auto' | 'yield' | 'spin';
}

/** What describeDevice reports as the engine of a device from here. */
const DAWN_NODE = { engine: 'Dawn', host: `Node ${process.versions.node} (dawn.node)` } as const;

/** Dawn instances, one per instance options and Vulkan driver, kept for the life of the process. */
const instances = new Map<string, GPU>();

/**
 * How many Dawn instances this process holds (for tests: devices share them).
 *
 * @category Node
 */
export function dawnInstanceCount(): number {
  return instances.size;
}

type DawnModule = { create(options: string[]): GPU };

/** The Vulkan loader's variables that choose drivers: when any is set, the user chose, and we leave the choice alone. */
const DRIVER_VARIABLES = [
  'VK_ICD_FILENAMES',
  'VK_DRIVER_FILES',
  'VK_ADD_DRIVER_FILES',
  'VK_LOADER_DRIVERS_SELECT',
  'VK_LOADER_DRIVERS_DISABLE',
] as const;

/**
 * Before a new instance's first adapter request, when the user chose no Vulkan driver and
 * SwiftShader is installed: offers SwiftShader beside the drivers the loader finds
 * (VK_ADD_DRIVER_FILES) and hides Mesa's lavapipe (VK_LOADER_DRIVERS_DISABLE), which this Dawn
 * rejects anyway, printing `Warning: Vulkan shaderUniform*ArrayDynamicIndexing required` on every
 * run. A GPU's driver is still loaded, and Dawn ranks a discrete or integrated GPU before a CPU
 * adapter such as SwiftShader, so a GPU is still picked first. Returns what restores the
 * environment (after the request: the loader reads it when Dawn creates its Vulkan instance), or
 * undefined when it changed nothing. A loader older than 1.3.234 ignores the two variables: then
 * the fallback below finds SwiftShader, after the warning.
 */
function offerSwiftShader(): (() => void) | undefined {
  if (DRIVER_VARIABLES.some((name) => process.env[name])) return undefined;
  const icd = SWIFTSHADER_ICDS.find((path) => existsSync(path));
  if (!icd) return undefined;
  process.env.VK_ADD_DRIVER_FILES = icd;
  process.env.VK_LOADER_DRIVERS_DISABLE = '*lvp_icd*';
  return () => {
    delete process.env.VK_ADD_DRIVER_FILES;
    delete process.env.VK_LOADER_DRIVERS_DISABLE;
  };
}

async function loadDawn(): Promise<DawnModule> {
  try {
    return (await import('webgpu')) as unknown as DawnModule;
  } catch (error) {
    throw new NoAdapterError(
      `Cannot load dawn.node: install it with \`npm install webgpu@0.6.2\` (${(error as Error).message}).`,
    );
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
 *
 * @category Node
 */
export async function requestNodeDevice(options: NodeDeviceOptions = {}): Promise<GPUDevice> {
  options = checkOptions('options', options);
  const waiting = checkOneOf('options.waiting', options.waiting, ['auto', 'yield', 'spin'] as const) ?? 'auto';
  const timeoutMs =
    checkNumber('options.timeoutMs', options.timeoutMs, 0, 2 ** 31 - 1, true) /* setTimeout's range */ ?? 30_000;
  const dawnOptions = options.dawnOptions ?? [];
  // Dawn throws a plain Error for an entry that is not key=value.
  if (!Array.isArray(dawnOptions) || !dawnOptions.every((o) => typeof o === 'string' && /^[^=]+=/.test(o))) {
    throw new InvalidInputError(
      'options.dawnOptions',
      -1,
      RULES.option,
      `expected an array of 'key=value' strings, got ${JSON.stringify(dawnOptions)}`,
    );
  }
  const dawn = await loadDawn();
  // The Vulkan loader complains on every instance when this is unset; it only needs a directory.
  process.env.XDG_RUNTIME_DIR ??= tmpdir();
  const instanceOptions = ['disable-dawn-features=timestamp_quantization', ...dawnOptions];

  const attempt = async (): Promise<GPUDevice> => {
    const key = JSON.stringify([
      instanceOptions,
      process.env.VK_ICD_FILENAMES ?? '',
      process.env.VK_DRIVER_FILES ?? '',
    ]);
    let gpu = instances.get(key);
    let restore: (() => void) | undefined;
    if (!gpu) {
      restore = offerSwiftShader();
      gpu = dawn.create(instanceOptions);
      instances.set(key, gpu);
    }
    try {
      return await withTimeout(requestDeviceFrom(gpu, options, NODE_HELP, DAWN_NODE), timeoutMs, 'dawn.node');
    } finally {
      restore?.();
    }
  };

  let device: GPUDevice;
  try {
    device = await attempt();
  } catch (error) {
    const driverChosen = process.env.VK_ICD_FILENAMES || process.env.VK_DRIVER_FILES;
    const icd = SWIFTSHADER_ICDS.find((path) => existsSync(path));
    if (!(error instanceof NoAdapterError) || driverChosen || !icd) throw error;
    // No adapter from the default drivers: fall back to SwiftShader. The Vulkan loader reads
    // this when the next instance is created.
    process.env.VK_ICD_FILENAMES = icd;
    device = await attempt();
  }
  yieldWhileWaiting(device, waiting === 'yield' || (waiting === 'auto' && shadersRunOnCpu(device)));
  return device;
}

/**
 * How long a yielding wait sleeps between two polls of dawn.node: it doubles from `first` to `last`.
 *
 * @category Node
 */
export const WAIT_SLEEP_MS = {
  /** The first sleep of a wait, in milliseconds (a short kernel is seen done soon). */
  first: 0.05,
  /** The longest, in milliseconds: at most this much is added to a wait's latency. */
  last: 0.5,
} as const;

const sleepCell = new Int32Array(new SharedArrayBuffer(4));
/** The library's waits now pending on devices that yield, and whether the pump runs. */
let yieldingWaits = 0;
let pumping = false;
let sleepMs: number = WAIT_SLEEP_MS.first;

/**
 * One turn of the event loop while a wait is pending: the thread sleeps (Atomics.wait, which
 * gives its core to the driver's threads), then the turn goes on, and dawn.node's own callback
 * in it polls the device and settles what is done. One pump for every pending wait, so
 * concurrent waits sleep once a turn, not once each.
 */
function pump(): void {
  if (yieldingWaits === 0) {
    pumping = false;
    return;
  }
  Atomics.wait(sleepCell, 0, 0, sleepMs);
  sleepMs = Math.min(sleepMs * 2, WAIT_SLEEP_MS.last);
  setImmediate(pump);
}

const yieldingWaiter: DeviceWaiter = async (promise) => {
  yieldingWaits += 1;
  if (!pumping) {
    pumping = true;
    sleepMs = WAIT_SLEEP_MS.first;
    setImmediate(pump);
  }
  try {
    return await promise;
  } finally {
    yieldingWaits -= 1;
  }
};

/**
 * Whether the library's calls on `device` wait by sleeping between dawn.node's polls (true) or
 * let dawn.node poll in a busy loop (false, as a device starts). `requestNodeDevice` sets it by
 * its `waiting` option; call this for a device from your own `create()` (the `webgpu` package)
 * on a software adapter.
 *
 * @category Node
 */
export function yieldWhileWaiting(device: GPUDevice, enabled = true): void {
  setDeviceWaiter(device, enabled ? yieldingWaiter : undefined);
}
