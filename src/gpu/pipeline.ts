/**
 * Explicit bind group layouts and compute pipelines. Every kernel declares its bindings once,
 * by name (src/gpu/kernel.ts), which gives their WGSL, layout and bind groups through
 * `bindGroupLayout` and `bindGroup` here. Nothing uses `layout: 'auto'`, so a bind group can be shared
 * between pipelines of one pass.
 *
 * Layouts and pipelines are cached per device: a second collider or world on the same device
 * compiles nothing (compiling is the slow part of creating one, on SwiftShader tens of ms a
 * pipeline), and creating and destroying them repeatedly does not grow memory.
 */
import { ShaderStage } from './flags.js';
import { arrayStride } from '../layout.js';
import { shadersRunOnCpu } from '../device.js';
import { dispatchFolded, type Dispatcher } from './dispatch.js';
import type { GpuTimer } from './timer.js';

/**
 * A binding's kind: its buffer type in the layout. 'dynamic-uniform' is a uniform whose offset
 * is given when the group is set (`setPipelineAndGroup`'s `offsets`): one bind group serves
 * many slots of one buffer.
 */
export type BindingKind = 'uniform' | 'storage' | 'read-only-storage' | 'dynamic-uniform';

interface DeviceCache {
  layouts: Map<string, GPUBindGroupLayout>;
  layoutIds: WeakMap<GPUBindGroupLayout, number>;
  pipelines: Map<string, GPUComputePipeline>;
}

const caches = new WeakMap<GPUDevice, DeviceCache>();

function cacheOf(device: GPUDevice): DeviceCache {
  let cache = caches.get(device);
  if (!cache) {
    cache = { layouts: new Map(), layoutIds: new WeakMap(), pipelines: new Map() };
    caches.set(device, cache);
  }
  return cache;
}

export function bindGroupLayout(device: GPUDevice, label: string, kinds: readonly BindingKind[]): GPUBindGroupLayout {
  const cache = cacheOf(device);
  const key = kinds.join(',');
  let layout = cache.layouts.get(key);
  if (!layout) {
    layout = device.createBindGroupLayout({
      label,
      entries: kinds.map((kind, binding) => ({
        binding,
        visibility: ShaderStage.COMPUTE,
        buffer: kind === 'dynamic-uniform' ? { type: 'uniform' as const, hasDynamicOffset: true } : { type: kind },
      })),
    });
    cache.layouts.set(key, layout);
    cache.layoutIds.set(layout, cache.layouts.size);
  }
  return layout;
}

/**
 * The pipeline a pass keeps under `key` (a variant: a grid layout, a cast mode…), made by
 * `make` on first use. (Compiling is cached per device anyway; this spares the code generation.)
 */
export function variant<K>(
  pipelines: Map<K, GPUComputePipeline>,
  key: K,
  make: () => GPUComputePipeline,
): GPUComputePipeline {
  let pipeline = pipelines.get(key);
  if (!pipeline) {
    pipeline = make();
    pipelines.set(key, pipeline);
  }
  return pipeline;
}

export type BindingResource = GPUBuffer | { buffer: GPUBuffer; offset?: number; size?: number };

export function bindGroup(
  device: GPUDevice,
  label: string,
  layout: GPUBindGroupLayout,
  resources: readonly BindingResource[],
): GPUBindGroup {
  const group = device.createBindGroup({
    label,
    layout,
    entries: resources.map((resource, binding) => ({
      binding,
      resource: 'buffer' in resource ? resource : { buffer: resource },
    })),
  });
  groupResources.set(group, resources);
  return group;
}

export function computePipeline(
  device: GPUDevice,
  label: string,
  layouts: readonly GPUBindGroupLayout[],
  code: string,
  entryPoint: string,
  constants?: Record<string, number>,
): GPUComputePipeline {
  const cache = cacheOf(device);
  const ids = layouts.map((layout) => cache.layoutIds.get(layout) ?? -1);
  const key = `${ids.join(',')}|${entryPoint}|${JSON.stringify(constants ?? {})}|${code}`;
  let pipeline = ids.includes(-1) ? undefined : cache.pipelines.get(key);
  if (!pipeline) {
    const module = device.createShaderModule({ label, code });
    pipeline = device.createComputePipeline({
      label,
      layout: device.createPipelineLayout({ label, bindGroupLayouts: [...layouts] }),
      compute: { module, entryPoint, constants },
    });
    if (!ids.includes(-1)) cache.pipelines.set(key, pipeline);
    const arrays = runtimeArrays(code);
    if (arrays.length > 0)
      sizable.set(pipeline, {
        device,
        label,
        bindGroupLayouts: [...layouts],
        code,
        entryPoint,
        constants,
        arrays,
        variants: new Map(),
        runsSinceCompile: 0,
        compiles: 0,
      });
  }
  return pipeline;
}

/*
 * Fixed-size arrays on software adapters.
 *
 * WebGPU bounds every index into a storage array. For `array<T>`, whose length is the
 * binding's, Tint clamps the index with `arrayLength()` at every access, and SwiftShader works
 * that length out anew each time; for `array<T, N>` the clamp is a `min` with a constant. So on
 * an adapter whose shaders run on the CPU, a pipeline is compiled again for the sizes of the
 * buffers it is bound to: each `array<T>` of group 0 declared `array<T, N>`, N the whole
 * elements the binding holds (what `arrayLength()` returns), and `arrayLength(&name)` replaced
 * by N. Every access stays bounded to the same binding, with the same result, and the grid
 * pairs, the casts and the particle step run faster (measured on SwiftShader: docs/PERFORMANCE.md).
 * (Dawn's `disable_robustness` gains three to four times as much, but it also turns off the
 * Vulkan driver's bounds checks: a shader's stray index could then touch the process's memory.)
 *
 * A kernel whose bound sizes keep changing would compile again and again: it keeps
 * MAX_SIZED_VARIANTS sizes, and past them compiles a new one (dropping the least recently used)
 * only once it has run RECOMPILE_AFTER_RUNS times since it last compiled, and at most
 * MAX_SIZED_COMPILES times in all; otherwise it runs runtime-sized. Buffers that grow (scenes
 * that grow, a pair list that fills) so move to their new sizes, while sizes that alternate cost
 * a compile at most every RECOMPILE_AFTER_RUNS runs, and only for a while.
 * Buffers grow in size classes (src/gpu/buffers.ts, sizeClass) and a scan's chunk sums are sized
 * for its buffer rather than its count, so the sizes a kernel meets are few. Small bindings
 * stay runtime-sized (below MIN_SIZED_ELEMENTS, compiling costs more than it saves). On a GPU,
 * `arrayLength()` is cheap and nothing is rewritten.
 */

/** The fewest elements the largest array of a binding set must hold for the pipeline to be sized. */
export const MIN_SIZED_ELEMENTS = 4096;
/**
 * The most sized variants a pipeline keeps at once. A pipeline is shared by every pass on the
 * device that runs the same code (the scans of a collider's grid, of a world's grid and of its
 * contact lists are one pipeline), so this and the limits below are theirs together.
 */
export const MAX_SIZED_VARIANTS = 8;
/**
 * Runs of a pipeline, since it last compiled a sized variant, before it compiles another that
 * would drop one of its MAX_SIZED_VARIANTS (a compile costs tens of ms on SwiftShader, the
 * sizing saves a few percent of a run).
 */
export const RECOMPILE_AFTER_RUNS = 64;
/** The most sized variants a pipeline ever compiles (a compile is a hitch of tens of ms). */
export const MAX_SIZED_COMPILES = 16;

interface RuntimeArray {
  binding: number;
  name: string;
  type: string;
  stride: number;
  /** Where the declaration's `array<T>` starts and ends in the code. */
  start: number;
  end: number;
}

interface Sizable {
  device: GPUDevice;
  label: string;
  bindGroupLayouts: GPUBindGroupLayout[];
  code: string;
  entryPoint: string;
  constants?: Record<string, number>;
  arrays: RuntimeArray[];
  /** Sized variants by their lengths, least recently used first. */
  variants: Map<string, GPUComputePipeline>;
  /** Runs since the last sized compile. */
  runsSinceCompile: number;
  /** Sized variants compiled so far. */
  compiles: number;
}

const sizable = new WeakMap<GPUComputePipeline, Sizable>();
const groupResources = new WeakMap<GPUBindGroup, readonly BindingResource[]>();
const sizing = new WeakMap<GPUDevice, boolean>();
let sizedCompiles = 0;

/** Whether pipelines on `device` are sized to their bindings (its shaders run on the CPU). */
export function sizesArrays(device: GPUDevice): boolean {
  let on = sizing.get(device);
  if (on === undefined) {
    on = shadersRunOnCpu(device);
    sizing.set(device, on);
  }
  return on;
}

/** For tests and benchmarks: turn the sizing of arrays on or off for a device. */
export function setArraySizing(device: GPUDevice, on: boolean): void {
  sizing.set(device, on);
}

/** How many sized pipelines this process has compiled (for tests and benchmarks). */
export function sizedPipelineCount(): number {
  return sizedCompiles;
}

const DECLARATION =
  /@group\(0\)\s*@binding\((\d+)\)\s*var<storage(?:,\s*(?:read|read_write))?>\s*(\w+)\s*:\s*(array<(atomic<u32>|\w+)>)/g;

/** The runtime-sized arrays of group 0 in `code` whose element type has a known stride. */
export function runtimeArrays(code: string): RuntimeArray[] {
  const arrays: RuntimeArray[] = [];
  for (const match of code.matchAll(DECLARATION)) {
    const stride = arrayStride(match[4]);
    if (stride === undefined) continue;
    const start = match.index + match[0].length - match[3].length;
    arrays.push({
      binding: Number(match[1]),
      name: match[2],
      type: match[4],
      stride,
      start,
      end: start + match[3].length,
    });
  }
  return arrays;
}

/** `code` with each array given a length in `lengths` (0: left runtime-sized) declared with it. */
export function sizeArrays(code: string, arrays: readonly RuntimeArray[], lengths: readonly number[]): string {
  let out = '';
  let at = 0;
  const sized: [string, number][] = [];
  arrays.forEach((array, i) => {
    if (lengths[i] <= 0) return;
    out += `${code.slice(at, array.start)}array<${array.type}, ${lengths[i]}>`;
    at = array.end;
    sized.push([array.name, lengths[i]]);
  });
  out += code.slice(at);
  for (const [name, length] of sized) {
    out = out.replace(new RegExp(`arrayLength\\(\\s*&\\s*${name}\\s*\\)`, 'g'), `${length}u`);
  }
  return out;
}

function bindingBytes(resource: BindingResource | undefined): number {
  if (!resource) return 0;
  if ('buffer' in resource) return resource.size ?? resource.buffer.size - (resource.offset ?? 0);
  return resource.size;
}

/**
 * The pipeline to run with `group`: on a software adapter, `pipeline` compiled for the sizes
 * of the buffers in `group` (see above), else `pipeline` itself.
 */
export function pipelineFor(pipeline: GPUComputePipeline, group: GPUBindGroup): GPUComputePipeline {
  const entry = sizable.get(pipeline);
  if (!entry || !sizesArrays(entry.device)) return pipeline;
  const resources = groupResources.get(group);
  if (!resources) return pipeline;
  const lengths = entry.arrays.map((array) => Math.floor(bindingBytes(resources[array.binding]) / array.stride));
  if (Math.max(...lengths) < MIN_SIZED_ELEMENTS) return pipeline;
  const key = lengths.join(',');
  entry.runsSinceCompile++;
  let variant = entry.variants.get(key);
  if (variant) {
    entry.variants.delete(key); // now the most recently used
  } else {
    if (entry.compiles >= MAX_SIZED_COMPILES) return pipeline;
    if (entry.variants.size >= MAX_SIZED_VARIANTS) {
      if (entry.runsSinceCompile < RECOMPILE_AFTER_RUNS) return pipeline;
      entry.variants.delete(entry.variants.keys().next().value!);
    }
    entry.runsSinceCompile = 0;
    entry.compiles++;
    const { device, label, code, entryPoint, constants } = entry;
    const module = device.createShaderModule({
      label: `${label} (sized)`,
      code: sizeArrays(code, entry.arrays, lengths),
    });
    variant = device.createComputePipeline({
      label: `${label} (sized)`,
      layout: device.createPipelineLayout({ label, bindGroupLayouts: entry.bindGroupLayouts }),
      compute: { module, entryPoint, constants },
    });
    sizedCompiles++;
  }
  entry.variants.set(key, variant);
  return variant;
}

/** Sets `pipeline` (sized to `group` where arrays are sized) and `group` at 0 on `pass`. */
export function setPipelineAndGroup(
  pass: GPUComputePassEncoder,
  pipeline: GPUComputePipeline,
  group: GPUBindGroup,
  offsets?: readonly number[],
): void {
  pass.setPipeline(pipelineFor(pipeline, group));
  if (offsets) pass.setBindGroup(0, group, offsets);
  else pass.setBindGroup(0, group);
}

/**
 * Records a compute pass of one dispatch: `pipeline` with `group` over `groups` workgroups,
 * folded past `maxPerDimension` (or recorded by `dispatch`, for a caller that gates the pass),
 * labelled `label` and timed under that name when `timer` is given.
 */
export function recordPass(
  encoder: GPUCommandEncoder,
  label: string,
  pipeline: GPUComputePipeline,
  group: GPUBindGroup,
  groups: number,
  maxPerDimension: number,
  timer?: GpuTimer,
  dispatch?: Dispatcher,
): void {
  const pass = encoder.beginComputePass(timer?.pass(label) ?? { label });
  setPipelineAndGroup(pass, pipeline, group);
  if (dispatch) dispatch(pass, groups);
  else dispatchFolded(pass, groups, maxPerDimension);
  pass.end();
}
