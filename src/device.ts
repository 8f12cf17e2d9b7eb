/**
 * Device requests: the adapter's own limits (WebGPU's defaults are far lower: 128 MiB per
 * storage binding), the optional features we use when present, and what the adapter is, kept
 * beside the device so a caller can tell a software adapter from a GPU.
 */
import { NoAdapterError } from './errors.js';

/**
 * The WebGPU implementation behind a device.
 *
 * @category Devices
 */
export type WebGPUEngine = 'Dawn' | 'wgpu' | 'WebKit' | 'unknown';

/**
 * What kind of adapter a device came from, and which WebGPU implementation runs it.
 *
 * @category Devices
 */
export interface AdapterSummary {
  /** `adapter.info.vendor`, e.g. 'nvidia', 'google' (SwiftShader); '' when not told. */
  vendor: string;
  /** `adapter.info.architecture`, e.g. 'ampere', 'swiftshader'; '' when not told. */
  architecture: string;
  /** `adapter.info.device`: a vendor-specific device name or id; '' when not told. */
  device: string;
  /** `adapter.info.description`: the driver's own description; '' when not told. */
  description: string;
  /** True when the adapter says it is a fallback adapter (Firefox says so of any software driver). */
  isFallbackAdapter: boolean;
  /**
   * The implementation: 'Dawn' (Chrome, Edge, dawn.node), 'wgpu' (Firefox, Deno), 'WebKit'
   * (Safari), 'unknown' (a device this library did not make, in a host it does not know).
   */
  engine: WebGPUEngine;
  /** Where it runs: 'Chrome 142', 'Firefox 153', 'Deno 2.9.6', 'Node 22.12.0 (dawn.node)', ... or ''. */
  host: string;
  /**
   * The driver as the adapter names it (its description, else vendor and architecture), or ''
   * when the adapter says nothing: Firefox leaves `adapter.info` empty, so there the driver
   * cannot be known from inside the page.
   */
  driver: string;
  /** The adapter says it is a fallback adapter, or names a CPU driver (SwiftShader, llvmpipe, WARP). */
  software: boolean;
  /** One line for logs: engine, host, driver, software or not. */
  label: string;
}

/**
 * How to pick the adapter and label the device.
 *
 * @category Devices
 */
export interface DeviceOptions {
  /** 'high-performance' or 'low-power', passed to `requestAdapter`. */
  powerPreference?: GPUPowerPreference;
  /** Ask for a software adapter. */
  forceFallbackAdapter?: boolean;
  /** Label of the device. */
  label?: string;
}

/** Features used when the adapter has them; none is required. */
export const OPTIONAL_FEATURES: readonly GPUFeatureName[] = ['timestamp-query', 'subgroups'];

const summaries = new WeakMap<GPUDevice, AdapterSummary>();

/**
 * An engine and where it runs (see AdapterSummary).
 *
 * @category Devices
 */
export interface WebGPUHost {
  /** The WebGPU implementation. */
  engine: WebGPUEngine;
  /** Where it runs, as in {@link AdapterSummary.host}. */
  host: string;
}

/**
 * The engine from the host: Deno and Firefox run wgpu, Chromium-based browsers and dawn.node run
 * Dawn, Safari runs WebKit's own. In Node, WebGPU comes only from an addon: `hint` says which
 * (requestNodeDevice passes dawn.node's); without one the engine is not guessed.
 */
export function webgpuHost(hint?: WebGPUHost): WebGPUHost {
  const g = globalThis as {
    Deno?: { version?: { deno?: string } };
    navigator?: { userAgent?: string };
    process?: { versions?: { node?: string } };
  };
  const deno = g.Deno?.version?.deno;
  if (deno) return { engine: 'wgpu', host: `Deno ${deno}` };
  const ua = g.navigator?.userAgent ?? '';
  // Node (21+) and Bun have a navigator.userAgent too, which none of these patterns matches.
  if (ua) {
    const firefox = /Firefox\/(\d+)/.exec(ua);
    if (firefox) return { engine: 'wgpu', host: `Firefox ${firefox[1]}` };
    const edge = /Edg\/(\d+)/.exec(ua);
    if (edge) return { engine: 'Dawn', host: `Edge ${edge[1]}` };
    const chrome = /(?:HeadlessChrome|Chrome|Chromium)\/(\d+)/.exec(ua);
    if (chrome) return { engine: 'Dawn', host: `Chrome ${chrome[1]}` };
    const safari = /Version\/(\d+)[^ ]* .*Safari\//.exec(ua);
    if (safari) return { engine: 'WebKit', host: `Safari ${safari[1]}` };
  }
  if (hint) return hint;
  const node = g.process?.versions?.node;
  return { engine: 'unknown', host: node ? `Node ${node}` : ua };
}

const SOFTWARE_DRIVERS = /swiftshader|llvmpipe|lavapipe|softpipe|microsoft basic render|\bwarp\b/i;

function summarize(
  info: Partial<GPUAdapterInfo> & { isFallbackAdapter?: boolean },
  fallback: boolean,
  where: WebGPUHost,
): AdapterSummary {
  const vendor = info.vendor ?? '';
  const architecture = info.architecture ?? '';
  const device = info.device ?? '';
  const description = info.description ?? '';
  const driver = description || [vendor, architecture].filter(Boolean).join(' ');
  const software = fallback || SOFTWARE_DRIVERS.test(`${description} ${architecture} ${vendor}`);
  const kind = software
    ? fallback
      ? 'software (fallback adapter)'
      : 'software'
    : driver
      ? 'hardware'
      : 'not a fallback adapter';
  const label =
    `${where.engine === 'unknown' ? 'WebGPU' : where.engine}${where.host ? ` in ${where.host}` : ''} on ` +
    `${driver || 'an unnamed driver (the adapter does not say)'}, ${kind}`;
  return { vendor, architecture, device, description, isFallbackAdapter: fallback, ...where, driver, software, label };
}

export function summarizeAdapter(adapter: GPUAdapter, hint?: WebGPUHost): AdapterSummary {
  const info = (adapter.info ?? {}) as GPUAdapterInfo & { isFallbackAdapter?: boolean };
  const fallback = Boolean(
    info.isFallbackAdapter ?? (adapter as GPUAdapter & { isFallbackAdapter?: boolean }).isFallbackAdapter,
  );
  return summarize(info, fallback, webgpuHost(hint));
}

/**
 * The adapter a device was made from (when this library made it, or the device reports it) and
 * the engine that runs it. Firefox's adapter says nothing of itself: there `driver` is ''.
 *
 * @category Devices
 */
export function describeDevice(device: GPUDevice): AdapterSummary | undefined {
  const known = summaries.get(device);
  if (known) return known;
  const info = (device as GPUDevice & { adapterInfo?: GPUAdapterInfo }).adapterInfo as
    | (GPUAdapterInfo & { isFallbackAdapter?: boolean })
    | undefined;
  if (!info) return undefined;
  return summarize(info, Boolean(info.isFallbackAdapter), webgpuHost());
}

/**
 * Whether a kernel should be written for shaders run on a CPU: true on a software adapter
 * (SwiftShader, llvmpipe: workgroup memory and barriers are dear there, a thread's serial loop
 * over storage cheap) and where the adapter does not say what it is (Firefox reports nothing),
 * false on a GPU. The passes with a variant for each (the radix sort, the scan) decide by it.
 */
export function shadersRunOnCpu(device: GPUDevice): boolean {
  const info = describeDevice(device);
  if (!info || info.isFallbackAdapter) return true;
  const text = `${info.vendor} ${info.architecture} ${info.device} ${info.description}`;
  return !text.trim() || info.software || /cpu|software/i.test(text);
}

/** Every numeric limit the adapter supports, to request them all. */
export function adapterLimits(adapter: GPUAdapter): Record<string, number> {
  const limits: Record<string, number> = {};
  for (const key in adapter.limits) {
    const value = (adapter.limits as unknown as Record<string, unknown>)[key];
    if (typeof value === 'number') limits[key] = value;
  }
  return limits;
}

/**
 * Requests an adapter and a device with the adapter's limits from a `GPU` (navigator.gpu or
 * dawn.node's); `engine` names the implementation where the host cannot tell (Node).
 */
export async function requestDeviceFrom(
  gpu: GPU,
  options: DeviceOptions = {},
  noAdapterHelp = '',
  engine?: WebGPUHost,
): Promise<GPUDevice> {
  const adapter = await gpu.requestAdapter({
    powerPreference: options.powerPreference ?? 'high-performance',
    forceFallbackAdapter: options.forceFallbackAdapter ?? false,
  });
  if (!adapter) {
    throw new NoAdapterError(`No WebGPU adapter is available.${noAdapterHelp ? ` ${noAdapterHelp}` : ''}`);
  }
  const requiredFeatures = OPTIONAL_FEATURES.filter((f) => adapter.features.has(f));
  const device = await adapter.requestDevice({
    label: options.label ?? 'webgpu-collide',
    requiredFeatures,
    requiredLimits: adapterLimits(adapter),
  });
  summaries.set(device, summarizeAdapter(adapter, engine));
  return device;
}

/**
 * What to do when a browser has no WebGPU (part of NoAdapterError's message).
 *
 * @category Devices
 */
export const BROWSER_HELP =
  'WebGPU needs Chrome or Edge 113+, Safari 26+ or Firefox 141+; on Linux, start Chrome with ' +
  '--enable-unsafe-webgpu --enable-features=Vulkan.';

const NODE_HINT = 'In Node, pass a device from requestNodeDevice() (webgpu-collide/node).';

/**
 * A device from `navigator.gpu` (a browser, Deno, a worker), with the adapter's own limits and
 * the optional features it has (`timestamp-query`, `subgroups`). Throws {@link NoAdapterError},
 * saying what to install or enable, when there is no WebGPU or no adapter.
 *
 * @category Devices
 */
export async function requestBrowserDevice(options: DeviceOptions = {}): Promise<GPUDevice> {
  denoRuntimeDir();
  const gpu = (globalThis as { navigator?: { gpu?: GPU } }).navigator?.gpu;
  const help = typeof window === 'undefined' ? `${BROWSER_HELP} ${NODE_HINT}` : BROWSER_HELP;
  if (!gpu) throw new NoAdapterError(`WebGPU is not available here (no navigator.gpu). ${help}`);
  return requestDeviceFrom(gpu, options, help);
}

interface DenoEnv {
  permissions: { querySync?(descriptor: { name: 'env'; variable?: string }): { state: string } };
  env: { get(name: string): string | undefined; set(name: string, value: string): void };
}

/**
 * In Deno, before the first adapter request: the Vulkan loader prints `error:` lines for every
 * instance when XDG_RUNTIME_DIR is unset (a container, a CI job), then works. Set it to /tmp
 * when it is unset and the script may write the environment (Deno's env permission already
 * granted: never a prompt), as requestNodeDevice does in Node.
 */
function denoRuntimeDir(): void {
  const deno = (globalThis as { Deno?: DenoEnv }).Deno;
  if (!deno?.permissions.querySync) return;
  try {
    if (deno.permissions.querySync({ name: 'env', variable: 'XDG_RUNTIME_DIR' }).state !== 'granted') return;
    if (!deno.env.get('XDG_RUNTIME_DIR')) deno.env.set('XDG_RUNTIME_DIR', '/tmp');
  } catch {
    // No say over the environment here: the loader's message stays, and the device still works.
  }
}

const lostInfos = new WeakMap<GPUDevice, { info: GPUDeviceLostInfo | null }>();

/**
 * Whether a device is lost (its info), tracked by one handler per device. Colliders and worlds
 * ask this instead of each attaching its own handler to `device.lost`: such a handler would keep
 * every collider ever made on the device alive for as long as the device lives.
 */
export function lostInfo(device: GPUDevice): GPUDeviceLostInfo | null {
  let state = lostInfos.get(device);
  if (!state) {
    const created = { info: null as GPUDeviceLostInfo | null };
    state = created;
    lostInfos.set(device, created);
    void device.lost.then((info) => {
      created.info = info;
    });
  }
  return state.info;
}
