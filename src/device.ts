/**
 * Device requests: the adapter's own limits (WebGPU's defaults are far lower: 128 MiB per
 * storage binding), the optional features we use when present, and what the adapter is, kept
 * beside the device so a caller can tell a software adapter from a GPU.
 */
import { NoAdapterError } from './errors.js';

/** What kind of adapter a device came from. */
export interface AdapterSummary {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  /** True for a software (fallback) adapter such as SwiftShader. */
  isFallbackAdapter: boolean;
}

export interface DeviceOptions {
  powerPreference?: GPUPowerPreference;
  /** Ask for a software adapter. */
  forceFallbackAdapter?: boolean;
  /** Label of the device. */
  label?: string;
}

/** Features used when the adapter has them; none is required. */
export const OPTIONAL_FEATURES: readonly GPUFeatureName[] = ['timestamp-query', 'subgroups'];

const summaries = new WeakMap<GPUDevice, AdapterSummary>();

export function summarizeAdapter(adapter: GPUAdapter): AdapterSummary {
  const info = adapter.info as GPUAdapterInfo & { isFallbackAdapter?: boolean };
  return {
    vendor: info.vendor ?? '',
    architecture: info.architecture ?? '',
    device: info.device ?? '',
    description: info.description ?? '',
    isFallbackAdapter: Boolean(info.isFallbackAdapter ?? (adapter as GPUAdapter & { isFallbackAdapter?: boolean }).isFallbackAdapter),
  };
}

/** The adapter a device was made from, when this library made it (or the device reports it). */
export function describeDevice(device: GPUDevice): AdapterSummary | undefined {
  const known = summaries.get(device);
  if (known) return known;
  const info = (device as GPUDevice & { adapterInfo?: GPUAdapterInfo }).adapterInfo as (GPUAdapterInfo & { isFallbackAdapter?: boolean }) | undefined;
  if (!info) return undefined;
  return {
    vendor: info.vendor ?? '',
    architecture: info.architecture ?? '',
    device: info.device ?? '',
    description: info.description ?? '',
    isFallbackAdapter: Boolean(info.isFallbackAdapter),
  };
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

/** Requests an adapter and a device with the adapter's limits from a `GPU` (navigator.gpu or dawn.node's). */
export async function requestDeviceFrom(gpu: GPU, options: DeviceOptions = {}, noAdapterHelp = ''): Promise<GPUDevice> {
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
  summaries.set(device, summarizeAdapter(adapter));
  return device;
}

export const BROWSER_HELP =
  'WebGPU needs Chrome or Edge 113+, Safari 26+ or Firefox 141+; on Linux, start Chrome with ' +
  '--enable-unsafe-webgpu --enable-features=Vulkan.';

const NODE_HINT = 'In Node, pass a device from requestNodeDevice() (webgpu-collide/node).';

/** A device from `navigator.gpu`, for the browser. */
export async function requestBrowserDevice(options: DeviceOptions = {}): Promise<GPUDevice> {
  const gpu = (globalThis as { navigator?: { gpu?: GPU } }).navigator?.gpu;
  const help = typeof window === 'undefined' ? `${BROWSER_HELP} ${NODE_HINT}` : BROWSER_HELP;
  if (!gpu) throw new NoAdapterError(`WebGPU is not available here (no navigator.gpu). ${help}`);
  return requestDeviceFrom(gpu, options, help);
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
