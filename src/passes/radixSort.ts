/**
 * RadixSortPass: stable LSD radix sort of u32 keys, alone or with u32 values, on the GPU
 * (shaders/passes/radixSort.wgsl.ts). Reduce-then-scan: per digit pass, the digit counts of every unit
 * of consecutive keys, one exclusive scan of all of them (ExclusiveScanPass), and a stable
 * scatter that walks each unit in order. Three strategies, one layout (the shader says more):
 * - 'thread': a unit is 1,024 keys of one thread; no workgroup memory, no barrier, no atomic.
 * - 'workgroup': a unit is a 2,048-key tile of a 128-thread workgroup, ranked 128 keys a round
 *   with a bit mask per digit in workgroup memory.
 * - 'subgroup' (only with the `subgroups` feature): a unit is 1,024 keys walked by a subgroup
 *   of any size, equal digits matched with ballots, counts advanced by atomics.
 * 'auto' (the default) takes 'thread' on a software adapter (the fastest on SwiftShader, where
 * workgroup memory and barriers are dear: docs/PERFORMANCE.md, "Radix sort and scan") and
 * 'workgroup' on a GPU, where 'thread' has too few threads (n / 1,024).
 *
 * The sort is in place: the sorted keys (and values) end in the caller's buffers. Digits are
 * 8 bits, so `keyBits` low bits of the key take ceil(keyBits / 8) passes (32 bits: 4, 30-bit
 * Morton codes: 4, 20-bit cell ids: 3); bits above `keyBits` are ignored (keys that agree on the
 * low bits keep their input order). Passes alternate between the caller's buffers and the
 * pass's own scratch; after an odd number of passes a copy brings the result back, so the
 * caller's buffers then need COPY_DST.
 *
 * Bytes moved per key and digit pass: 4 read by count (a vec4u at a time in 'thread', which
 * counts a unit in private memory and writes its column once), 4 read and 4 written by the scatter
 * (8 + 8 with values), plus the counts: 256 per unit, zeroed or written, scanned (~12 bytes a
 * count) and read, ~20 bytes a count: 5 bytes a key for 1,024-key units, 2.5 for 2,048-key
 * tiles. About 17 bytes a key a pass alone, 25 with values ('thread'); 14.5 and 22.5
 * ('workgroup'); 'subgroup' clears instead of writing and reads the counts back through atomics,
 * about as 'thread'. 8 (16) more once after an odd number of passes. ('thread' also updates a
 * count per key in count and scatter, in the thread's own column: cache traffic; 'subgroup' one
 * atomic per distinct digit in a round.)
 *
 * The pass owns its pipelines, bind group layouts and scratch (keys, values, counts, the
 * scan's levels), sized for the largest count seen: calls that do not grow it allocate nothing.
 * It records into the caller's encoder and never submits. Its parameters are written with
 * `queue.writeBuffer` when they change, so one submission may hold several sorts only if they
 * share count and keyBits (as for ExclusiveScanPass).
 */
import {
  radixSortShader,
  radixSortBindings,
  radixKeysBindings,
  radixPairsBindings,
  radixSubgroupKeysBindings,
  radixSubgroupPairsBindings,
  RADIX_WG,
  RADIX_TILE,
  RADIX_BITS,
  RADIX_BINS,
  RADIX_WORKGROUP_BYTES,
  RADIX_CHUNK,
  RADIX_THREAD_WG,
  RADIX_SUBGROUP_WG,
  radixSortSubgroupShader,
  radixSortSubgroupBindings,
} from '../../shaders/passes/radixSort.wgsl.js';
import { ExclusiveScanPass, scanBufferBytes } from './scan.js';
import { computePipeline, setPipelineAndGroup } from '../gpu/pipeline.js';
import { BufferUsage } from '../gpu/flags.js';
import { bindingLimit, createBuffer } from '../gpu/buffers.js';
import { dispatchFolded, ceilDiv } from '../gpu/dispatch.js';
import { CapacityError } from '../errors.js';
import { shadersRunOnCpu } from '../device.js';
import type { GpuTimer } from '../gpu/timer.js';

/** Keys per unit: a thread's chunk ('thread') or a workgroup's tile ('workgroup'). */
export const RADIX_SORT_UNIT = { thread: RADIX_CHUNK, workgroup: RADIX_TILE, subgroup: RADIX_CHUNK } as const;
/** The scratch grows in multiples of this many keys (a whole number of units of either kind). */
const GRANULE = Math.max(RADIX_CHUNK, RADIX_TILE);

export type RadixSortStrategy = keyof typeof RADIX_SORT_UNIT;

export interface RadixSortPassOptions {
  /**
   * 'thread', 'workgroup', 'subgroup' (see the module's comment) or 'auto' (default): 'thread'
   * on a software adapter or one that does not say what it is, 'workgroup' on any other.
   * 'subgroup' needs the device's `subgroups` feature; without it 'auto' decides.
   */
  strategy?: RadixSortStrategy | 'auto';
  /** Defaults to the device's maxComputeWorkgroupsPerDimension (tests force small values). */
  maxWorkgroupsPerDimension?: number;
  label?: string;
}

/** Digit passes for `keyBits` low bits of the keys (8 bits a pass). */
export const radixPasses = (keyBits: number): number => Math.ceil(keyBits / RADIX_BITS);

export interface RadixSortEncodeOptions {
  /** u32 values sorted along with the keys (at least `count` of them). Default: keys only. */
  values?: GPUBuffer;
  /** How many low bits of each key to sort by, 0–32 (default 32); higher bits are ignored. */
  keyBits?: number;
  /** Timestamps per stage (histogram, scan and scatter of each pass). */
  timer?: GpuTimer;
}

interface Variant {
  layout: GPUBindGroupLayout;
  count: GPUComputePipeline;
  scatter: GPUComputePipeline;
}

/**
 * 'thread' where shaders run on a CPU (SwiftShader, llvmpipe: workgroup memory and barriers are
 * dear there, storage accesses cheap) or where the adapter does not say (Firefox reports
 * nothing); 'workgroup' on a GPU, where 'thread' has too few threads (n / 1,024) to fill it.
 */
export function autoStrategy(device: GPUDevice): RadixSortStrategy {
  return shadersRunOnCpu(device) ? 'thread' : 'workgroup';
}

/** Uniform slots, one per digit pass, at the largest offset alignment WebGPU allows. */
const PARAM_STRIDE = 256;
const MAX_PASSES = 32 / RADIX_BITS;

export class RadixSortPass {
  readonly strategy: RadixSortStrategy;
  readonly label: string;
  private readonly maxWorkgroupsPerDimension: number;
  private readonly variants: Partial<Record<'keys' | 'pairs', Variant>> = {};
  private readonly params: GPUBuffer;
  /** 'subgroup': the next unit of each count and scatter kernel (two per pass). */
  private readonly unitCounters: GPUBuffer;
  /** 16 bytes bound as the keys' vec4u view where the keys' buffer has fewer (a sort of 2 or 3 keys). */
  private readonly noKeys: GPUBuffer;
  private readonly written: string[] = [];
  /** One scan per bin count (the last pass of keyBits not a multiple of 8 has fewer bins). */
  private readonly scans = new Map<number, ExclusiveScanPass>();
  /** Keys the scratch holds, a multiple of GRANULE. */
  private capacity = 0;
  private scratchKeys: GPUBuffer | null = null;
  private scratchValues: GPUBuffer | null = null;
  private hist: GPUBuffer | null = null;
  private groups: { key: unknown[]; groups: GPUBindGroup[] } | null = null;

  constructor(
    private readonly device: GPUDevice,
    options: RadixSortPassOptions = {},
  ) {
    const asked = options.strategy ?? 'auto';
    this.strategy =
      asked === 'auto' || (asked === 'subgroup' && !device.features.has('subgroups')) ? autoStrategy(device) : asked;
    this.label = options.label ?? 'radix sort';
    this.maxWorkgroupsPerDimension =
      options.maxWorkgroupsPerDimension ?? device.limits.maxComputeWorkgroupsPerDimension;
    const { label } = this;
    const { limits } = device;
    const wg = { thread: RADIX_THREAD_WG, workgroup: RADIX_WG, subgroup: RADIX_SUBGROUP_WG }[this.strategy];
    if (limits.maxComputeInvocationsPerWorkgroup < wg || limits.maxComputeWorkgroupSizeX < wg) {
      throw new CapacityError(
        'radix sort workgroup size',
        wg,
        Math.min(limits.maxComputeInvocationsPerWorkgroup, limits.maxComputeWorkgroupSizeX),
      );
    }
    if (this.strategy === 'workgroup' && limits.maxComputeWorkgroupStorageSize < RADIX_WORKGROUP_BYTES) {
      throw new CapacityError(
        'radix sort workgroup memory (bytes)',
        RADIX_WORKGROUP_BYTES,
        limits.maxComputeWorkgroupStorageSize,
      );
    }
    this.params = createBuffer(
      device,
      `${label} params`,
      PARAM_STRIDE * MAX_PASSES,
      BufferUsage.UNIFORM | BufferUsage.COPY_DST,
    );
    this.unitCounters = createBuffer(
      device,
      `${label} unit counters`,
      4 * 2 * MAX_PASSES,
      BufferUsage.STORAGE | BufferUsage.COPY_DST,
    );
    this.noKeys = createBuffer(device, `${label} no keys`, 16, BufferUsage.STORAGE);
  }

  /**
   * The keys' vec4u view (keysIn4): the whole vec4s of the first `bytes` (the 'thread' count
   * reads the rest through keysIn), at least one.
   */
  private asVec4(buffer: GPUBuffer, bytes: number): GPUBufferBinding {
    const size = Math.max(16, bytes - (bytes % 16));
    return size <= buffer.size ? { buffer, size } : { buffer: this.noKeys, size: 16 };
  }

  /** Keys the scratch holds now (0 before the first sort); grows, never shrinks. */
  get capacityKeys(): number {
    return this.capacity;
  }

  /** The largest count one call can sort on this device (its scratch must fit one binding). */
  get maxCount(): number {
    return Math.floor(bindingLimit(this.device) / 4 / GRANULE) * GRANULE;
  }

  private variant(values: boolean): Variant {
    const name = values ? 'pairs' : 'keys';
    let v = this.variants[name];
    if (!v) {
      const subgroup = this.strategy === 'subgroup';
      const layout = (subgroup ? radixSortSubgroupBindings(values) : radixSortBindings(values)).layout(
        this.device,
        `${this.label} ${name}`,
      );
      const code = subgroup ? radixSortSubgroupShader({ values }) : radixSortShader({ values });
      const suffix = { thread: 'Thread', workgroup: 'Tile', subgroup: 'Subgroup' }[this.strategy];
      v = {
        layout,
        count: computePipeline(this.device, `${this.label} count`, [layout], code, `radixCount${suffix}`),
        scatter: computePipeline(this.device, `${this.label} scatter`, [layout], code, `radixScatter${suffix}`),
      };
      this.variants[name] = v;
    }
    return v;
  }

  /** Grows the scratch to hold `count` keys (and values); keeps it when it already does. */
  private ensure(count: number, values: boolean): void {
    if (count > this.capacity) {
      const grown = Math.max(count, Math.floor(this.capacity * 1.25));
      this.capacity = Math.min(Math.ceil(grown / GRANULE) * GRANULE, this.maxCount);
      this.scratchKeys?.destroy();
      this.scratchValues?.destroy();
      this.hist?.destroy();
      this.scratchKeys = null;
      this.scratchValues = null;
      this.hist = null;
      this.groups = null;
    }
    const usage = BufferUsage.STORAGE | BufferUsage.COPY_SRC;
    this.scratchKeys ??= createBuffer(this.device, `${this.label} scratch keys`, 4 * this.capacity, usage);
    if (values)
      this.scratchValues ??= createBuffer(this.device, `${this.label} scratch values`, 4 * this.capacity, usage);
    this.hist ??= createBuffer(
      this.device,
      `${this.label} counts`,
      scanBufferBytes(RADIX_BINS * (this.capacity / RADIX_SORT_UNIT[this.strategy])),
      BufferUsage.STORAGE | BufferUsage.COPY_DST,
    );
  }

  private scanFor(bins: number): ExclusiveScanPass {
    let scan = this.scans.get(bins);
    if (!scan) {
      scan = new ExclusiveScanPass(this.device, this.maxWorkgroupsPerDimension, `${this.label} scan`);
      this.scans.set(bins, scan);
    }
    return scan;
  }

  /**
   * Records the sort of the first `count` keys of `keys` (with `options.values`, the same count
   * of values moves with them) into `encoder`. The result is in `keys` (and `values`).
   */
  encode(encoder: GPUCommandEncoder, keys: GPUBuffer, count: number, options: RadixSortEncodeOptions = {}): void {
    const { values, keyBits = 32, timer } = options;
    if (!Number.isInteger(count) || count < 0)
      throw new RangeError(`${this.label}: count must be a non-negative integer, got ${count}`);
    if (!Number.isInteger(keyBits) || keyBits < 0 || keyBits > 32)
      throw new RangeError(`${this.label}: keyBits must be an integer in 0–32, got ${keyBits}`);
    if (4 * count > keys.size)
      throw new CapacityError(`${this.label} keys`, count, Math.floor(keys.size / 4), 'the keys buffer is too small');
    if (values && 4 * count > values.size)
      throw new CapacityError(
        `${this.label} values`,
        count,
        Math.floor(values.size / 4),
        'the values buffer is too small',
      );
    if (values === keys) throw new RangeError(`${this.label}: keys and values must be different buffers`);
    if (count > this.maxCount)
      throw new CapacityError(`${this.label} keys`, count, this.maxCount, 'the largest storage binding of the device');
    const passes = radixPasses(keyBits);
    if (count <= 1 || passes === 0) return;

    const withValues = values !== undefined;
    const variant = this.variant(withValues);
    this.ensure(count, withValues);
    const unitKeys = RADIX_SORT_UNIT[this.strategy];
    const units = this.capacity / unitKeys;
    const usedUnits = ceilDiv(count, unitKeys);
    const subgroup = this.strategy === 'subgroup';
    // 'subgroup': about one subgroup per unit if subgroups have the adapter's smallest size
    // (they take units from a counter, so any size works with any dispatch).
    const minLanes =
      (this.device as GPUDevice & { adapterInfo?: { subgroupMinSize?: number } }).adapterInfo?.subgroupMinSize ?? 4;
    const workgroups = (u: number): number =>
      this.strategy === 'thread'
        ? ceilDiv(u, RADIX_THREAD_WG)
        : subgroup
          ? ceilDiv(u * minLanes, RADIX_SUBGROUP_WG)
          : u;

    // Parameters per pass: count, units (the counts' row stride), shift, mask.
    for (let k = 0; k < passes; k++) {
      const bits = Math.min(RADIX_BITS, keyBits - RADIX_BITS * k);
      const p = new Uint32Array([count, units, RADIX_BITS * k, 2 ** bits - 1]);
      const text = p.join(',');
      if (this.written[k] !== text) {
        this.device.queue.writeBuffer(this.params, PARAM_STRIDE * k, p);
        this.written[k] = text;
      }
    }

    // Bind groups: even passes read the caller's buffers and write the scratch, odd ones back.
    const scratchKeys = this.scratchKeys!;
    const scratchValues = this.scratchValues;
    const hist = this.hist!;
    const bytes = 4 * count;
    const key = [variant, keys, values, count, scratchKeys, scratchValues, hist];
    if (!this.groups || this.groups.key.length !== key.length || this.groups.key.some((x, i) => x !== key[i])) {
      const groups: GPUBindGroup[] = [];
      for (let k = 0; k < MAX_PASSES; k++) {
        const caller = { keys: { buffer: keys, size: bytes }, values: values && { buffer: values, size: bytes } };
        const scratch = {
          keys: { buffer: scratchKeys, size: bytes },
          values: scratchValues && { buffer: scratchValues, size: bytes },
        };
        const [src, dst] = k % 2 === 0 ? [caller, scratch] : [scratch, caller];
        const label = `${this.label} pass ${k}`;
        const base = {
          params: { buffer: this.params, offset: PARAM_STRIDE * k, size: 16 },
          keysIn: src.keys,
          keysIn4: this.asVec4(src.keys.buffer, bytes),
          keysOut: dst.keys,
          hist,
        };
        const moved = withValues ? { valuesIn: src.values!, valuesOut: dst.values! } : undefined;
        const unitCounters = this.unitCounters;
        groups.push(
          subgroup
            ? moved
              ? radixSubgroupPairsBindings.bind(this.device, label, { ...base, unitCounters, ...moved })
              : radixSubgroupKeysBindings.bind(this.device, label, { ...base, unitCounters })
            : moved
              ? radixPairsBindings.bind(this.device, label, { ...base, ...moved })
              : radixKeysBindings.bind(this.device, label, base),
        );
      }
      this.groups = { key, groups };
    }

    if (subgroup) encoder.clearBuffer(this.unitCounters);
    for (let k = 0; k < passes; k++) {
      const bits = Math.min(RADIX_BITS, keyBits - RADIX_BITS * k);
      const group = this.groups.groups[k];
      // 'subgroup' counts with atomics, into counts cleared first (only the keys' units count).
      if (subgroup) encoder.clearBuffer(hist, 0, 4 * 2 ** bits * units);
      let pass = encoder.beginComputePass(timer?.pass(`${this.label} count`) ?? { label: `${this.label} count ${k}` });
      setPipelineAndGroup(pass, variant.count, group);
      // Every unit of the capacity writes its counts (zeros past the keys): the scan's size
      // then stays fixed while the capacity does.
      dispatchFolded(pass, workgroups(subgroup ? usedUnits : units), this.maxWorkgroupsPerDimension);
      pass.end();
      this.scanFor(2 ** bits).encode(encoder, hist, 2 ** bits * units, timer);
      pass = encoder.beginComputePass(timer?.pass(`${this.label} scatter`) ?? { label: `${this.label} scatter ${k}` });
      setPipelineAndGroup(pass, variant.scatter, group);
      dispatchFolded(pass, workgroups(usedUnits), this.maxWorkgroupsPerDimension);
      pass.end();
    }
    if (passes % 2 === 1) {
      encoder.copyBufferToBuffer(scratchKeys, 0, keys, 0, bytes);
      if (values) encoder.copyBufferToBuffer(scratchValues!, 0, values, 0, bytes);
    }
  }

  destroy(): void {
    for (const scan of this.scans.values()) scan.destroy();
    this.scans.clear();
    this.params.destroy();
    this.unitCounters.destroy();
    this.noKeys.destroy();
    this.scratchKeys?.destroy();
    this.scratchValues?.destroy();
    this.hist?.destroy();
    this.scratchKeys = this.scratchValues = this.hist = null;
    this.groups = null;
    this.capacity = 0;
  }
}
