/**
 * ExclusiveScanPass: in-place exclusive prefix sum of `count` u32 values in a buffer that holds
 * at least scanBufferBytes(count) bytes (the total lands after the values; what lies past it is
 * left as it was). Reduce-then-scan, recursing over the chunk
 * sums until they fit one chunk, in one of two variants (shaders/passes/scan.wgsl.ts): 'serial' (a
 * thread's 32 values, no barrier) where shaders run on a CPU, 'tiled' (a workgroup's 2,048
 * values read coalesced through workgroup memory) on a GPU. The pass owns its pipelines, its
 * bind group layout and the buffers of every recursion level; it records into a caller's
 * encoder.
 */
import { scanShader, scanBindings, SCAN_UNITS, SCAN_ALIGN, type ScanVariant } from '../../shaders/passes/scan.wgsl.js';
import { shadersRunOnCpu } from '../device.js';
import { packStruct } from '../layout.js';
import { ScanParams } from '../../shaders/passes/layout.js';
import { computePipeline, setPipelineAndGroup } from '../gpu/pipeline.js';
import { BufferUsage } from '../gpu/flags.js';
import { createBuffer, createUniform } from '../gpu/buffers.js';
import { dispatchFolded, ceilDiv, type Dispatcher, type SkipSwitch } from '../gpu/dispatch.js';
import type { GpuTimer } from '../gpu/timer.js';

interface Level {
  count: number;
  chunks: number;
  params: GPUBuffer;
  sums: GPUBuffer; // chunks + 1 values: the next level's data
  group: GPUBindGroup;
  /** Whether a switch was copied into its params' skip (then a later ungated scan clears it). */
  gated: boolean;
}

export type { ScanVariant } from '../../shaders/passes/scan.wgsl.js';

/**
 * The bytes a buffer scanned over `count` values must hold: the values and the total after them,
 * rounded up to SCAN_ALIGN ('serial' reads and writes four values at once; what lies past the
 * total in that last group is left as it was).
 */
export function scanBufferBytes(count: number): number {
  return SCAN_ALIGN * ceilDiv(4 * (count + 1), SCAN_ALIGN);
}

const preferred = new WeakMap<GPUDevice, ScanVariant>();

/**
 * Makes 'auto' take `variant` on `device` for every scan made afterwards (the grid's, the
 * sort's, the particle solver's, the casts'), or its own choice again with undefined. For
 * tests (the 'tiled' variant under every caller on a software adapter) and tools; not part of
 * the package's API.
 */
export function preferScanVariant(device: GPUDevice, variant: ScanVariant | undefined): void {
  if (variant) preferred.set(device, variant);
  else preferred.delete(device);
}

/** 'serial' where shaders run on a CPU (or the adapter does not say), 'tiled' on a GPU (unless preferScanVariant says otherwise). */
export function autoScanVariant(device: GPUDevice): ScanVariant {
  return preferred.get(device) ?? (shadersRunOnCpu(device) ? 'serial' : 'tiled');
}

export class ExclusiveScanPass {
  readonly layout: GPUBindGroupLayout;
  /** The variant this pass runs ('auto' resolved). */
  readonly variant: ScanVariant;
  /** Values a chunk holds, and chunks a workgroup takes, for the variant. */
  private readonly unit: { chunk: number; chunksPerWorkgroup: number };
  private readonly reduce: GPUComputePipeline;
  private readonly downsweep: GPUComputePipeline;
  private readonly dummy: GPUBuffer;
  /** Recursion levels for the current (data buffer, count); rebuilt when either changes. */
  private levels: Level[] = [];
  private boundTo: { data: GPUBuffer; count: number; capacity: number } | null = null;

  constructor(
    private readonly device: GPUDevice,
    private readonly maxWorkgroupsPerDimension: number,
    readonly label = 'scan',
    variant: ScanVariant | 'auto' = 'auto',
  ) {
    this.variant = variant === 'auto' ? autoScanVariant(device) : variant;
    this.unit = SCAN_UNITS[this.variant];
    this.layout = scanBindings[this.variant].layout(device, label);
    const code = scanShader({ variant: this.variant });
    this.reduce = computePipeline(device, `${label} reduce`, [this.layout], code, 'scanReduce');
    this.downsweep = computePipeline(device, `${label} downsweep`, [this.layout], code, 'scanDownsweep');
    this.dummy = createBuffer(device, `${label} no offsets`, 4, BufferUsage.STORAGE);
  }

  /** Prepares the levels for scanning `count` values of `data` (which holds count + 1), of at most `capacity`. */
  private bind(data: GPUBuffer, count: number, capacity: number): void {
    if (
      this.boundTo &&
      this.boundTo.data === data &&
      this.boundTo.count === count &&
      this.boundTo.capacity === capacity
    )
      return;
    this.releaseLevels();
    let buffer = data;
    let n = count;
    for (let depth = 0; ; depth++) {
      const chunks = ceilDiv(n, this.unit.chunk);
      const multi = chunks > 1;
      const params = createUniform(
        this.device,
        `${this.label} params ${depth}`,
        packStruct(ScanParams, { count: n, useOffsets: multi ? 1 : 0, skip: 0 }),
      );
      // Sized for the most values the level is ever scanned with, not for this count: scans of
      // different counts in one buffer (a grid's cellStart, which only grows) then bind the same
      // sizes, and share the pipelines compiled for them (src/gpu/pipeline.ts, sized arrays).
      const most = depth === 0 ? Math.max(capacity, n) : Math.max(buffer.size / 4 - 1, n);
      const sumsBytes = scanBufferBytes(ceilDiv(most, this.unit.chunk));
      const sums = multi
        ? createBuffer(this.device, `${this.label} chunk sums ${depth}`, sumsBytes, BufferUsage.STORAGE)
        : this.dummy;
      const group = scanBindings[this.variant].bind(this.device, `${this.label} level ${depth}`, {
        params,
        data: buffer,
        chunkSums: sums,
      });
      this.levels.push({ count: n, chunks, params, sums, group, gated: false });
      if (!multi) break;
      buffer = sums;
      n = chunks;
    }
    this.boundTo = { data, count, capacity };
  }

  /**
   * Records the scan of `count` values of `data` (at least scanBufferBytes(count) long) into
   * `encoder`.
   * Bytes moved: about 12·count (read twice, written once) plus the levels above (~3% more
   * for 'serial', ~0.05% for 'tiled').
   * With `skip`, the scan does nothing where that u32 is nonzero when the submission runs (it is
   * copied into every level's params first); without it, the levels' skip is 0. `dispatch`
   * records each dispatch (a caller that gates it indirectly; default: folded past the limit).
   * `capacity`: the most values `data` is ever scanned with (default: all it holds but the
   * total), which sizes the levels' buffers.
   */
  encode(
    encoder: GPUCommandEncoder,
    data: GPUBuffer,
    count: number,
    timer?: GpuTimer,
    skip?: SkipSwitch,
    dispatch?: Dispatcher,
    capacity = data.size / 4 - 1,
  ): void {
    if (data.size < scanBufferBytes(count)) {
      throw new Error(
        `${this.label}: a scan of ${count} values needs a buffer of ${scanBufferBytes(count)} bytes (scanBufferBytes), got ${data.size}`,
      );
    }
    const run =
      dispatch ??
      ((pass: GPUComputePassEncoder, groups: number): void =>
        dispatchFolded(pass, groups, this.maxWorkgroupsPerDimension));
    if (count === 0) {
      encoder.clearBuffer(data, 0, 4);
      return;
    }
    this.bind(data, count, capacity);
    for (const level of this.levels) {
      if (skip) encoder.copyBufferToBuffer(skip.buffer, skip.offset, level.params, ScanParams.offsets.skip, 4);
      else if (level.gated) encoder.clearBuffer(level.params, ScanParams.offsets.skip, 4);
      level.gated = Boolean(skip);
    }
    const pass = encoder.beginComputePass(timer?.pass(this.label) ?? { label: this.label });
    // Up the levels: reduce each chunk into the level above.
    for (const level of this.levels) {
      if (level.chunks === 1) break;
      setPipelineAndGroup(pass, this.reduce, level.group);
      run(pass, ceilDiv(level.chunks, this.unit.chunksPerWorkgroup));
    }
    // Down the levels: the top is one chunk; each level below starts from its chunk's offset.
    for (let k = this.levels.length - 1; k >= 0; k--) {
      const level = this.levels[k];
      setPipelineAndGroup(pass, this.downsweep, level.group);
      run(pass, ceilDiv(level.chunks, this.unit.chunksPerWorkgroup));
    }
    pass.end();
  }

  private releaseLevels(): void {
    for (const level of this.levels) {
      level.params.destroy();
      if (level.sums !== this.dummy) level.sums.destroy();
    }
    this.levels = [];
    this.boundTo = null;
  }

  destroy(): void {
    this.releaseLevels();
    this.dummy.destroy();
  }
}
