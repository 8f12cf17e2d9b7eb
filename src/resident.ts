/**
 * GPU-resident queries: inputs already in GPUBuffers, everything recorded into the caller's
 * encoder, results left on the GPU for the caller's next kernel (with indirect dispatch
 * arguments sized from the count), read back only if the caller asks.
 *
 * The host cannot see spheres on the GPU, so the caller states what the broad phases plan by
 * (`scene`: the bounds of the centres and the largest radius). Only the radius bound matters for
 * the answer; a kernel checks it (and that every value is finite) and `read()` refuses an answer
 * built on a broken promise. Bounds that are too small or too large only cost time.
 *
 * A recorder (ResidentQueries) holds the broad phases, kernels and parameter buffers of a
 * recording. The one-shot calls keep one of their own; the encoded calls lease one from their
 * Collider's ResidentPool per call: the result holds the lease until its `read()` has seen the
 * call run, it is encoded into again or destroyed, so that any number of encoded calls, of one
 * Collider or several, can share a submission (each with its own parameters and working
 * buffers), and encoded calls never share a buffer with one-shot calls in flight.
 */
import { CapacityError, InvalidInputError } from './errors.js';
import { BufferUsage } from './gpu/flags.js';
import { GrowableBuffer, createBuffer, readBuffer, readRanges, bindingLimit, type ReadRange } from './gpu/buffers.js';
import { PairList } from './gpu/pairList.js';
import { computePipeline, setPipelineAndGroup, recordPass } from './gpu/pipeline.js';
import { ceilDiv } from './gpu/dispatch.js';
import { CastPass } from './passes/casts.js';
import { residentCheckShader, residentCheckBindings, residentDispatchShader, residentDispatchBindings } from '../shaders/resident.wgsl.js';
import { ResidentParams, ResidentStatus, PairCounter, CastHitRecord, GPU_STRIDE, PAIR_BYTES, packStruct } from './layout.js';
import { createBroadPhases, destroyBroadPhases, chooseBroadphase, checkServes, WITHOUT_SPHERES, type BroadPhase, type BroadPhases, type CastShape, type QueryShape } from './broadphase/index.js';
import { checkOneOf, checkPositiveInteger, checkBoolean, checkNumber, RULES, MAX_MAGNITUDE, type SphereStats } from './validate.js';
import { LOG2_BIAS, LOG2_BINS, ceilLog2Bits } from './grid/level.js';
import { BROADPHASES, type Broadphase } from './options.js';
import { toRaycastResult, toSphereCastResult, trueTotal, type HitRecords, type RaycastResult, type SphereCastResult, type RaycastAllHits, type SphereCastAllHits, type CastReach } from './castQueries.js';
import { ExclusiveScanPass, scanBufferBytes } from './passes/scan.js';
import { planGrid, type BoxSample, type GridPlan, type PlanOptions } from './grid/plan.js';
import { GpuTimer } from './gpu/timer.js';
import type { BoxKind } from './queryKinds.js';
import type { CastMode } from './queryKinds.js';
import { WORKGROUP_SIZE } from './gpu/workgroups.js';

/** Records already on the GPU: `count` of them from byte `offset` (a multiple of 4) of `buffer`. */
export interface GpuRecords {
  /** The buffer holding the records. */
  buffer: GPUBuffer;
  /** How many records. */
  count: number;
  /** Bytes into `buffer` (default 0). At 0 the buffer is read in place (it needs STORAGE usage); elsewhere it is copied first (COPY_SRC). */
  offset?: number;
}

/** What the broad phases plan by, for spheres the host cannot see. */
export interface SceneBounds {
  /** Bounds of the sphere centres (x, y, z). Spheres outside them are still found, more slowly. */
  min: ArrayLike<number>;
  /** The other corner: every component at least min's. */
  max: ArrayLike<number>;
  /** The largest radius: every radius must be at most this (checked on the GPU; `read()` throws otherwise). */
  maxRadius: number;
}

/** Options of `encodeSpherePairs` and the box-pair forms. */
export interface EncodeOptions {
  /** Required: the scene's bounds and largest radius. */
  scene: SceneBounds;
  /** 'auto' (default: as the one-shot calls decide, from the scene's promise: all-pairs below 256 spheres, the sweep for a long thin scene, else the grid), 'all-pairs', 'grid', 'sweep', 'bvh'. */
  broadphase?: Broadphase;
  /** Pairs the result holds at first (default 4 per sphere). A result encoded into again grows to the count its last `read()` saw. */
  capacity?: number;
  /** The previous result of this call, to reuse its buffers: a call per frame then allocates nothing. */
  into?: EncodedPairs;
  /** Threads a workgroup of the kernel that will consume the pairs: the indirect arguments are sized by it (default 64). */
  workgroupSize?: number;
  /** Time the GPU stages into this timer (its `resolve` and `read` are the caller's). */
  timer?: GpuTimer;
}

/** Options of `encodeRaycast` and `encodeSphereCast`. */
export interface EncodeCastOptions {
  /** Required: the scene's bounds and largest radius. */
  scene: SceneBounds;
  /** 'auto' (default: all-pairs below 256 spheres, else the grid where walking it costs less than testing every sphere, each cast weighed as `maxLength`), 'all-pairs', 'grid', 'bvh' ('sweep' does not serve casts). */
  broadphase?: Broadphase;
  /** The longest ray (|AB|), for the rounding slack of the walks and 'auto''s estimate (default: twice the scene's diagonal). */
  maxLength?: number;
  /** The largest |coordinate| of any A or B (default: the scene's, plus its diagonal). */
  maxAbs?: number;
  /** The previous result of this call, to reuse its buffers. */
  into?: EncodedHits;
  /**
   * Every hit of every cast instead of the nearest: `offsets` holds the exclusive scan of the
   * per-cast counts (the total last) and `hits` the records, cast by cast, each cast's by
   * distance then index. Default false.
   */
  allHits?: boolean;
  /** With allHits: hits the result holds at first (default 4 per cast). A result encoded into again grows to the total its last `read()` saw. */
  capacity?: number;
  /** Threads a workgroup of the kernel that will consume the hits: the indirect arguments are sized by it (default 64). */
  workgroupSize?: number;
  /** Time the GPU stages into this timer. */
  timer?: GpuTimer;
}

/**
 * Throws if a result's status words (ResidentStatus) say the call has not run (its encoder not
 * submitted yet), or the spheres broke the promised scene bounds.
 */
function checkStatusWords(words: Uint32Array, maxRadius: number, call: number): void {
  if (words[ResidentStatus.offsets.call / 4] !== call) {
    throw new InvalidInputError('encoder', -1, RULES.submitFirst, 'the call has not run: read() after submitting the encoder it was recorded into');
  }
  const violations = words[ResidentStatus.offsets.violations / 4];
  if (violations > 0) {
    const first = words[ResidentStatus.offsets.firstViolation / 4];
    throw new InvalidInputError('spheres', first, RULES.sceneBounds, `${violations} sphere(s) with a radius above scene.maxRadius = ${maxRadius}, or a value not finite`);
  }
}

/** Whether the status words say the call numbered `call` ran (then its lease can go back). */
function ran(words: Uint32Array, call: number): boolean {
  return words[ResidentStatus.offsets.call / 4] === call;
}

function statusBuffer(device: GPUDevice, label: string): GPUBuffer {
  return createBuffer(device, `${label} status`, ResidentStatus.size, BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST);
}

/** The initial status: no violation, the first one at 0xffffffff (atomicMin lowers it). */
const CLEAN_STATUS = (() => {
  const words = new Uint32Array(ResidentStatus.size / 4);
  words[ResidentStatus.offsets.firstViolation / 4] = 0xffffffff;
  return words;
})();

/**
 * Pairs a result reads in the round trip that reads its count when its last read saw fewer
 * (PairList.readCounted): a second round trip costs 0.7 ms on SwiftShader, a third of a
 * one-shot call over 1,000 spheres.
 */
const SPECULATIVE_PAIRS = 4096;
/** The same for all-hits results' records (32 kB of CastHitRecords). */
const SPECULATIVE_HITS = 32768 / CastHitRecord.size;

/**
 * Pairs left on the GPU: `pairs` holds vec2<u32> records, the first min(count, capacity) of them
 * valid; `counter` the true count (PairCounter: count, then its high word); `dispatch` indirect
 * arguments (x, y, 1) covering min(count, capacity) records at the workgroup size asked for,
 * folded to 2-D past the device's limit (the consumer's index: (x + y·nx)·size + local). Valid
 * until the next call encoded into it. Owns every buffer its `read()` and a consumer read.
 */
export class EncodedPairs {
  /** @internal The pair list the broad phases append to. */
  readonly list: PairList;
  /** Indirect dispatch arguments (3 u32: x, y, 1) for the kernel that consumes the pairs. */
  readonly dispatch: GPUBuffer;
  /** ResidentStatus: how many spheres broke the scene's promise, and the first of them. */
  readonly status: GPUBuffer;
  /** The true count the last `read()` saw (the next encode into this result grows to it). */
  lastCount = 0;
  /** @internal The scene's promised largest radius, for the error message. */
  maxRadius = 0;
  /** @internal The recording that made the result (ResidentParams.call). */
  call = 0;
  /** @internal The recorder its last encoded call ran on, held until the call is known to have run. */
  lease?: RecorderLease;

  /** @internal Made by the Collider's encode calls. */
  constructor(device: GPUDevice, capacity: number, label = 'encoded pairs') {
    this.list = new PairList(device, label);
    this.list.reserve(capacity);
    this.dispatch = createBuffer(device, `${label} dispatch`, 12, BufferUsage.STORAGE | BufferUsage.INDIRECT | BufferUsage.COPY_SRC);
    this.status = statusBuffer(device, label);
  }

  /** The pair records (vec2<u32>: i, j for sphere pairs; sphere, box for box pairs). */
  get pairs(): GPUBuffer {
    return this.list.pairs.buffer;
  }

  /** The PairCounter buffer: the true count. */
  get counter(): GPUBuffer {
    return this.list.counter;
  }

  /** Pairs `pairs` can hold. */
  get capacity(): number {
    return this.list.capacity;
  }

  /**
   * Reads the pairs back (after the encoder was submitted): [i0, j0, i1, j1, ...]. Throws
   * InvalidInputError if a sphere broke the scene's promise, CapacityError with the true count if
   * the pairs did not fit (encode into this result again: it grows to that count).
   */
  async read(): Promise<Uint32Array> {
    // The status, the count and the pairs in one round trip (PairList.readCounted).
    const { count, pairs, also } = await this.list.readCounted(this.expected(), undefined, [{ source: this.status, offset: 0, size: ResidentStatus.size }]);
    this.lastCount = count;
    const words = new Uint32Array(also[0]);
    if (ran(words, this.call)) this.lease?.release();
    checkStatusWords(words, this.maxRadius, this.call);
    if (!pairs) throw new CapacityError('pairs', count, this.capacity, 'encode into this result again (it grows to the count) or pass a larger options.capacity');
    return pairs;
  }

  /**
   * @internal The true count and the counted pairs if they fit (into `out` when it holds them),
   * in one round trip when they number no more than expected; no status check. The one-shot
   * calls grow and run again when they did not fit.
   */
  async readCounted(out?: Uint32Array): Promise<{ count: number; pairs?: Uint32Array }> {
    const { count, pairs } = await this.list.readCounted(this.expected(), out);
    this.lastCount = count;
    return { count, pairs };
  }

  /** Pairs to read with the count: a quarter more than the last read saw, or at least SPECULATIVE_PAIRS (32 kB). */
  private expected(): number {
    return Math.max(SPECULATIVE_PAIRS, Math.ceil(1.25 * this.lastCount));
  }

  /** Frees the result's buffers (and gives back the recorder its last call ran on). */
  destroy(): void {
    this.lease?.release();
    this.list.destroy();
    this.dispatch.destroy();
    this.status.destroy();
  }
}

/** What an EncodedHits' `read()` gives: the one-shot call's result of its kind. */
export type HitsResult = RaycastResult | SphereCastResult | RaycastAllHits | SphereCastAllHits;

/**
 * Hits left on the GPU. Nearest hits: one CastHitRecord per cast in `hits` (index −1 for a
 * miss). All hits: `offsets` holds count + 1 u32, the exclusive scan of the per-cast hit counts
 * (cast k's hits are records offsets[k] .. offsets[k+1] − 1, by distance then index; the last
 * word is the total, modulo 2^32), and `hits` the first min(total, capacity) records; a cast
 * whose hits do not all fit writes none. `total` holds the total as a PairCounter (count, 0) and
 * `dispatch` indirect arguments (x, y, 1) covering min(total, capacity) records (nearest: the
 * casts) at the workgroup size asked for, folded to 2-D past the device's limit. Valid until
 * the next call encoded into it.
 */
export class EncodedHits<R extends HitsResult = HitsResult> {
  /** @internal The records' buffer, grown as casts need. */
  readonly records: GrowableBuffer;
  /** ResidentStatus: how many spheres broke the scene's promise, and the first of them. */
  readonly status: GPUBuffer;
  /** @internal The per-cast hit counts, scanned into offsets (all hits). */
  readonly counts: GrowableBuffer;
  /** The total of an all-hits encode as a PairCounter (count, 0); nearest: the casts. */
  readonly total: GPUBuffer;
  /** Indirect dispatch arguments (3 u32: x, y, 1) for the kernel that consumes the hits. */
  readonly dispatch: GPUBuffer;
  /** Casts of the last encode. */
  count = 0;
  /** Whether the last encode found every hit (`offsets` valid) or the nearest. */
  allHits = false;
  /** Hit records `hits` can hold (all hits). */
  capacity = 0;
  /** The total the last `read()` saw (all hits; the next encode into this result grows to it). */
  lastCount = 0;
  /** @internal The scene's promised largest radius, for the error message. */
  maxRadius = 0;
  /** @internal Which call made the records (how `read` names their fields). */
  kind: 'raycast' | 'sphereCast' = 'raycast';
  /** @internal The recording that made the result (ResidentParams.call). */
  call = 0;
  /** @internal The recorder its last encoded call ran on, held until the call is known to have run. */
  lease?: RecorderLease;

  /** @internal Made by the Collider's encode calls. */
  constructor(private readonly device: GPUDevice, label = 'encoded hits') {
    this.records = new GrowableBuffer(device, `${label} records`, BufferUsage.STORAGE | BufferUsage.COPY_SRC);
    this.status = statusBuffer(device, label);
    this.counts = new GrowableBuffer(device, `${label} offsets`, BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST);
    this.total = createBuffer(device, `${label} total`, PairCounter.size, BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST);
    this.dispatch = createBuffer(device, `${label} dispatch`, 12, BufferUsage.STORAGE | BufferUsage.INDIRECT | BufferUsage.COPY_SRC);
  }

  /** The CastHitRecords: one per cast (nearest), or every hit cast by cast (all hits). */
  get hits(): GPUBuffer {
    return this.records.buffer;
  }

  /** All hits: count + 1 u32, the exclusive scan of the per-cast hit counts (the total last). */
  get offsets(): GPUBuffer {
    return this.counts.buffer;
  }

  /**
   * Reads the hits back (after the encoder was submitted), as the one-shot call's result
   * (`offsets` too for all hits). Throws InvalidInputError if a sphere broke the scene's
   * promise, CapacityError with the true total if all hits did not fit (encode into this result
   * again: it grows to that total).
   */
  async read(): Promise<R> {
    // The status with the records (and offsets) in one round trip.
    const { total, hits, status } = await this.readAll(true);
    if (ran(status!, this.call)) this.lease?.release();
    checkStatusWords(status!, this.maxRadius, this.call);
    if (!hits) throw new CapacityError('hits', total, this.capacity, 'encode into this result again (it grows to the total) or pass a larger options.capacity');
    return (this.kind === 'raycast' ? toRaycastResult : toSphereCastResult)(hits) as R;
  }

  /**
   * @internal The raw records: nearest hits, one per cast; all hits, the offsets and the records
   * if their true total fit (in one round trip when they number no more than expected, as
   * EncodedPairs reads). No status check.
   */
  async readCounted(): Promise<{ total: number; hits?: HitRecords }> {
    const { total, hits } = await this.readAll(false);
    return { total, hits };
  }

  private async readAll(withStatus: boolean): Promise<{ total: number; hits?: HitRecords; status?: Uint32Array }> {
    const also: ReadRange[] = withStatus ? [{ source: this.status, offset: 0, size: ResidentStatus.size }] : [];
    const statusOf = (bytes: ArrayBuffer[]): Uint32Array | undefined => (withStatus ? new Uint32Array(bytes[0].slice(0)) : undefined);
    const recordBytes = CastHitRecord.size;
    if (!this.allHits) {
      return readRanges(this.device, [...also, { source: this.records.buffer, offset: 0, size: recordBytes * this.count }], (bytes) => ({
        total: this.count,
        hits: { records: new Float32Array(bytes[also.length].slice(0)) },
        status: statusOf(bytes),
      }));
    }
    const ahead = Math.min(this.capacity, Math.max(SPECULATIVE_HITS, Math.ceil(1.25 * this.lastCount)));
    let have = 0;
    const read = await readRanges(this.device, [
      ...also,
      { source: this.counts.buffer, offset: 0, size: 4 * (this.count + 1) },
      { source: this.records.buffer, offset: 0, size: recordBytes * ahead },
    ], (bytes): { total: number; hits?: HitRecords; status?: Uint32Array } => {
      const offsets = new Uint32Array(bytes[also.length].slice(0));
      const total = trueTotal(offsets);
      if (total > this.capacity) return { total, status: statusOf(bytes) };
      const records = new Float32Array((total * recordBytes) / 4);
      have = Math.min(total, ahead);
      records.set(new Float32Array(bytes[also.length + 1], 0, (have * recordBytes) / 4));
      return { total, hits: { records, offsets }, status: statusOf(bytes) };
    });
    this.lastCount = read.total;
    if (read.hits && read.total > have) {
      await readBuffer(this.device, this.records.buffer, recordBytes * have, recordBytes * (read.total - have), read.hits.records.subarray((have * recordBytes) / 4));
    }
    return read;
  }

  /** Frees the result's buffers (and gives back the recorder its last call ran on). */
  destroy(): void {
    this.lease?.release();
    this.records.destroy();
    this.status.destroy();
    this.counts.destroy();
    this.total.destroy();
    this.dispatch.destroy();
  }
}

/** Statistics for the broad phases from a scene's promise: every radius in the top octave. */
export function statsFromScene(scene: SceneBounds, count: number): SphereStats {
  const min: [number, number, number] = [scene.min[0], scene.min[1], scene.min[2]];
  const max: [number, number, number] = [scene.max[0], scene.max[1], scene.max[2]];
  const log2Hist = new Uint32Array(LOG2_BINS);
  const log2MaxRadius = new Float32Array(LOG2_BINS);
  const bin = ceilLog2Bits(new Uint32Array(new Float32Array([scene.maxRadius]).buffer)[0]) + LOG2_BIAS;
  log2Hist[bin] = count;
  log2MaxRadius[bin] = scene.maxRadius;
  const variance = [0, 1, 2].map((a) => (max[a] - min[a]) ** 2 / 12) as [number, number, number];
  return { count, min, max, maxRadius: scene.maxRadius, log2Hist, log2MaxRadius, variance };
}

function checkScene(scene: unknown): SceneBounds {
  const s = scene as SceneBounds | undefined;
  const vector = (name: 'min' | 'max'): void => {
    const v = s?.[name];
    if (!v || typeof v !== 'object' || (v as ArrayLike<number>).length !== 3 || !Array.from(v as ArrayLike<number>).every((x) => typeof x === 'number' && Math.abs(x) <= MAX_MAGNITUDE)) {
      throw new InvalidInputError(`options.scene.${name}`, -1, RULES.vector, 'three finite numbers, at most 2^60 in magnitude');
    }
  };
  if (!s || typeof s !== 'object') throw new InvalidInputError('options.scene', -1, RULES.option, 'the scene bounds { min, max, maxRadius } are required for spheres on the GPU');
  vector('min');
  vector('max');
  for (let a = 0; a < 3; a++) if (!(s.min[a] <= s.max[a])) throw new InvalidInputError('options.scene', -1, RULES.minMax, `axis ${'xyz'[a]}`);
  if (typeof s.maxRadius !== 'number' || !(s.maxRadius >= 0) || s.maxRadius > MAX_MAGNITUDE) throw new InvalidInputError('options.scene.maxRadius', -1, RULES.option, `a finite number >= 0, got ${String(s.maxRadius)}`);
  return s;
}

/** An encode call's `timer`: a GpuTimer of the caller's, or undefined. */
function checkTimer(argument: string, value: unknown): GpuTimer | undefined {
  if (value === undefined || value instanceof GpuTimer) return value;
  throw new InvalidInputError(argument, -1, RULES.option, `a GpuTimer, got ${String(value)}`);
}

function checkRecords(argument: string, value: unknown, recordBytes: number, maxRecords: number): GpuRecords & { offset: number } {
  const r = value as GpuRecords | undefined;
  const buffer = r?.buffer as GPUBuffer | undefined;
  if (!r || typeof r !== 'object' || !buffer || typeof buffer.size !== 'number' || typeof buffer.usage !== 'number') {
    throw new InvalidInputError(argument, -1, RULES.gpuRecords, 'expected { buffer: GPUBuffer, count, offset? }');
  }
  const count = checkPositiveInteger(`${argument}.count`, r.count) ?? NaN;
  if (Number.isNaN(count)) throw new InvalidInputError(`${argument}.count`, -1, RULES.option, 'required');
  // As the one-shot calls: more records than a binding holds (the collider's limits) is a capacity.
  if (count > maxRecords) throw new CapacityError(argument, count, maxRecords, 'more records than the device can bind (limits; maxBindingBytes)');
  const offset = checkPositiveInteger(`${argument}.offset`, r.offset) ?? 0;
  if (offset % 4 !== 0) throw new InvalidInputError(`${argument}.offset`, -1, RULES.option, `a multiple of 4, got ${offset}`);
  if (offset + count * recordBytes > buffer.size) {
    throw new InvalidInputError(argument, -1, RULES.gpuRecords, `${count} records of ${recordBytes} bytes from byte ${offset} pass the buffer's ${buffer.size} bytes`);
  }
  const needs = offset === 0 ? BufferUsage.STORAGE : BufferUsage.COPY_SRC;
  if ((buffer.usage & needs) === 0) throw new InvalidInputError(argument, -1, RULES.gpuRecords, `the buffer needs ${offset === 0 ? 'STORAGE' : 'COPY_SRC'} usage`);
  return { buffer, count, offset };
}

/** A pair search, its inputs checked (by the encode call or, for a one-shot call, on the host). */
export interface PairJob {
  /** The spheres' statistics: exact from the host, or from the scene's promise. */
  stats: SphereStats;
  /** A box query's boxes, sampled on the host (boxSampleOf), when it has them: the grid plans its cells for them. */
  boxes?: BoxSample;
  broadphase: Broadphase;
  /** Pairs the result holds at first. */
  capacity: number;
  into?: EncodedPairs;
  workgroupSize: number;
  timer?: GpuTimer;
  /** The promised largest radius, checked on the GPU; undefined when the host validated the spheres. */
  promisedRadius?: number;
  /** Whether to write the result's indirect arguments (default true; a one-shot call reads the result back instead). */
  dispatchArguments?: boolean;
  /** The broad phase was built over these inputs by the previous recording (a run again after an overflow): search only. */
  reuseBuild?: boolean;
}

/** A cast batch's search, its inputs checked. */
export interface CastJobSpec {
  kind: 'raycast' | 'sphereCast';
  stats: SphereStats;
  /** What 'auto' weighs: the casts, and their total length (or a bound on it). */
  shape: CastShape;
  /** What the walks' rounding slack depends on (each broad phase's castSlack). */
  reach: CastReach;
  broadphase: Broadphase;
  allHits: boolean;
  /** All hits: records the result holds at first. */
  capacity: number;
  into?: EncodedHits;
  workgroupSize: number;
  timer?: GpuTimer;
  promisedRadius?: number;
  dispatchArguments?: boolean;
  reuseBuild?: boolean;
}

type Submit = (record: (encoder: GPUCommandEncoder) => void) => Promise<void>;

/**
 * Where a one-shot caller keeps the result its searches record into: set as soon as an attempt
 * records (before its submission settles), so that whatever happens next (a rerun, a
 * CapacityError, a destroy while the call runs) the owner holds every buffer it must free, and
 * the next attempt or call reuses it.
 */
export interface ResultSlot<T> {
  result?: T;
}

/**
 * Records a pair search with `record` and submits it until the pairs fit: the true count is read
 * first, and when it passes the list, the search runs again (`again`: over the structure
 * already built) into the same result, grown to it. A count past `maxPairs` (the caller's cap)
 * or `deviceMaxPairs` throws CapacityError with that count. `slot` holds the result throughout.
 */
export async function collectPairs(
  submit: Submit, record: (encoder: GPUCommandEncoder, capacity: number, again: boolean, into: EncodedPairs | undefined) => EncodedPairs,
  slot: ResultSlot<EncodedPairs>, capacity: number, maxPairs: number, deviceMaxPairs: number, out?: Uint32Array,
): Promise<Uint32Array> {
  for (let again = false; ; again = true) {
    await submit((encoder) => (slot.result = record(encoder, capacity, again, slot.result)));
    const { count, pairs } = await slot.result!.readCounted(out);
    if (count > maxPairs) throw new CapacityError('pairs', count, maxPairs, 'raise options.maxPairs');
    if (count > deviceMaxPairs) throw new CapacityError('pairs', count, deviceMaxPairs, 'the device cannot hold that many pairs in one buffer');
    if (pairs) return pairs;
    capacity = count;
  }
}

/** `collectPairs` for all hits (nearest hits always fit: one record a cast). */
export async function collectHits(
  submit: Submit, record: (encoder: GPUCommandEncoder, capacity: number, again: boolean, into: EncodedHits | undefined) => EncodedHits,
  slot: ResultSlot<EncodedHits>, capacity: number, maxHits: number, deviceMaxHits: number,
): Promise<HitRecords> {
  for (let again = false; ; again = true) {
    await submit((encoder) => (slot.result = record(encoder, capacity, again, slot.result)));
    const { total, hits } = await slot.result!.readCounted();
    if (total > maxHits) throw new CapacityError('hits', total, maxHits, 'raise options.maxHits');
    if (total > deviceMaxHits) throw new CapacityError('hits', total, deviceMaxHits, 'the device cannot hold that many hits in one buffer');
    if (hits) return hits;
    capacity = total;
  }
}

/**
 * Records queries over records already on the GPU: the encode calls' validation in front of
 * `recordPairs` and `recordCasts`, which the one-shot calls (inputs validated on the host,
 * uploaded into the Collider's buffers) and the particle world's queries call directly. Each
 * owner keeps its own instance, so that encoded calls and one-shot calls in flight never share
 * a buffer.
 */
export class ResidentQueries {
  private readonly broadphases: BroadPhases;
  private readonly kernels: CastPass;
  private readonly scan: ExclusiveScanPass;
  private readonly params: GPUBuffer;
  private readonly checkPipeline: GPUComputePipeline;
  private readonly dispatchPipeline: GPUComputePipeline;
  /** Copies of inputs given at a nonzero offset. */
  private readonly spheres: GrowableBuffer;
  private readonly others: GrowableBuffer;
  private readonly maxRecords: number;

  constructor(
    private readonly device: GPUDevice,
    private readonly maxWorkgroupsPerDimension: number,
    private readonly planOptions: PlanOptions,
    label = 'resident',
    /** The largest binding a buffer of the calls may have (the Collider's `maxBindingBytes`). */
    private readonly bindingBytes = bindingLimit(device),
  ) {
    this.broadphases = createBroadPhases({ device, maxWorkgroupsPerDimension }, planOptions, `${label} grid`);
    this.kernels = new CastPass(device, maxWorkgroupsPerDimension);
    this.scan = new ExclusiveScanPass(device, maxWorkgroupsPerDimension, 'hit count scan');
    this.params = createBuffer(device, `${label} params`, ResidentParams.size, BufferUsage.UNIFORM | BufferUsage.COPY_DST);
    this.checkPipeline = computePipeline(device, 'residentCheck', [residentCheckBindings.layout(device, 'residentCheck')], residentCheckShader(), 'residentCheck', { WG: WORKGROUP_SIZE.residentCheck });
    this.dispatchPipeline = computePipeline(device, 'residentDispatch', [residentDispatchBindings.layout(device, 'residentDispatch')], residentDispatchShader(), 'residentDispatch');
    const usage = BufferUsage.STORAGE | BufferUsage.COPY_DST;
    this.spheres = new GrowableBuffer(device, `${label} spheres copy`, usage);
    this.others = new GrowableBuffer(device, `${label} records copy`, usage);
    this.maxRecords = Math.floor(bindingBytes / 16); // spheres (limits.maxSpheres)
  }

  /** The grid plan the grid broad phase would use for these statistics (and boxes, for a box query): src/grid/plan.ts. */
  planFor(stats: SphereStats, boxes?: BoxSample): GridPlan {
    return planGrid(stats, this.planOptions, boxes);
  }

  /** The broad phase a query runs on: the caller's choice, or 'auto''s. */
  phaseFor(requested: Broadphase, shape: Omit<QueryShape, 'gridPlan'> & { stats: SphereStats }): BroadPhase {
    checkServes(requested, shape.query);
    return this.broadphases[chooseBroadphase(requested, { ...shape, gridPlan: () => this.planFor(shape.stats) })];
  }

  /** The records' buffer to bind: the caller's at offset 0, else a copy recorded into `encoder`. */
  private source(encoder: GPUCommandEncoder, records: GpuRecords, bytes: number, copy: GrowableBuffer): GPUBuffer {
    if (!records.offset) return records.buffer;
    const target = copy.ensure(Math.max(bytes, 16));
    if (bytes > 0) encoder.copyBufferToBuffer(records.buffer, records.offset, target, 0, bytes);
    return target;
  }

  /**
   * Resets `status` and writes the parameters (through the queue: this recorder's, which no
   * other call uses until this one is known to have run), and with a promised radius records
   * the check of the spheres against it. Returns the recording's number.
   */
  private check(encoder: GPUCommandEncoder, spheres: GPUBuffer, count: number, status: GPUBuffer, values: { capacity: number; workgroupSize: number; promisedRadius?: number }): number {
    this.device.queue.writeBuffer(status, 0, CLEAN_STATUS);
    const { promisedRadius, ...rest } = values;
    const call = nextRecording();
    this.device.queue.writeBuffer(this.params, 0, packStruct(ResidentParams, { sphereCount: count, maxDimension: this.maxWorkgroupsPerDimension, maxRadius: promisedRadius ?? 0, call, ...rest }));
    if (promisedRadius !== undefined && count > 0) {
      recordPass(encoder, 'resident check', this.checkPipeline, residentCheckBindings.bind(this.device, 'residentCheck', { params: this.params, spheres, status }), ceilDiv(count, WORKGROUP_SIZE.residentCheck), this.maxWorkgroupsPerDimension);
    }
    return call;
  }

  /** Sphere pairs (boxes undefined) or sphere–box pairs (`kind` and boxes in the GPU layout): the encode calls' validation. */
  encodePairs(encoder: GPUCommandEncoder, spheresIn: unknown, options: EncodeOptions, box?: { kind: BoxKind; boxes: unknown; argument: string }): EncodedPairs {
    const spheres = checkRecords('spheres', spheresIn, 16, this.maxRecords);
    if (!options || typeof options !== 'object') throw new InvalidInputError('options', -1, RULES.option, 'the options with { scene } are required');
    const scene = checkScene(options.scene);
    const stride = box ? 4 * (box.kind === 'aabb' ? GPU_STRIDE.aabb : GPU_STRIDE.orientedBox) : 0;
    // Boxes of either kind as many as the Collider's limits.maxBoxes (the oriented box's record).
    const boxes = box ? checkRecords(box.argument, box.boxes, stride, Math.floor(this.bindingBytes / (4 * GPU_STRIDE.orientedBox))) : undefined;
    const workgroupSize = checkPositiveInteger('options.workgroupSize', options.workgroupSize, 1024) || 64;
    const timer = checkTimer('options.timer', options.timer);
    const maxPairs = Math.floor(this.bindingBytes / PAIR_BYTES);
    const asked = checkPositiveInteger('options.capacity', options.capacity, maxPairs);
    const into = options.into;
    if (into !== undefined && !(into instanceof EncodedPairs)) throw new InvalidInputError('options.into', -1, RULES.option, 'a result of an earlier encode call');
    const broadphase = checkOneOf('options.broadphase', options.broadphase, BROADPHASES) ?? 'auto';
    const capacity = asked ?? 4 * Math.max(spheres.count, 1);
    const stats = statsFromScene(scene, spheres.count);
    return this.recordPairs(encoder, spheres, box && boxes ? { kind: box.kind, records: boxes } : undefined, {
      stats, broadphase, capacity, into, workgroupSize, timer, promisedRadius: scene.maxRadius,
    });
  }

  /**
   * Records a pair search over checked inputs: the check (with a promise), the broad phase's build
   * and search into the result's list (cleared first; it grows to the capacity asked for or to
   * the count the result's last read saw), and the indirect arguments from the count.
   */
  recordPairs(encoder: GPUCommandEncoder, spheres: GpuRecords, box: { kind: BoxKind; records: GpuRecords } | undefined, job: PairJob): EncodedPairs {
    const maxPairs = Math.floor(this.bindingBytes / PAIR_BYTES);
    const capacity = Math.min(Math.max(job.capacity, job.into?.lastCount ?? 0, 1), maxPairs);
    const m = box?.records.count ?? 0;
    const phase = this.phaseFor(job.broadphase, { query: box ? 'boxes' : 'pairs', sphereCount: spheres.count, boxCount: box ? m : undefined, stats: job.stats });
    const result = job.into ?? new EncodedPairs(this.device, capacity);
    result.list.reserve(capacity);
    result.maxRadius = job.promisedRadius ?? 0;
    const sphereBuffer = this.source(encoder, spheres, 16 * spheres.count, this.spheres);
    result.call = this.check(encoder, sphereBuffer, spheres.count, result.status, { capacity: result.capacity, workgroupSize: job.workgroupSize, promisedRadius: job.promisedRadius });
    result.list.clear(encoder);
    if (spheres.count > 0 && (!box || m > 0)) {
      if (!job.reuseBuild) {
        phase.prepare(job.stats, box ? job.boxes : undefined);
        phase.encodeBuild(encoder, sphereBuffer, job.timer);
      }
      if (box) {
        const stride = 4 * (box.kind === 'aabb' ? GPU_STRIDE.aabb : GPU_STRIDE.orientedBox);
        phase.encodeBoxPairs(encoder, box.kind, this.source(encoder, box.records, stride * m, this.others), m, result.list, job.timer);
      } else {
        phase.encodeSpherePairs(encoder, result.list, job.timer);
      }
    }
    if (job.dispatchArguments !== false) this.encodeDispatch(encoder, result.counter, result.dispatch, result.status);
    return result;
  }

  /** Indirect arguments from a PairCounter-shaped count, by the params' capacity and workgroup size; the recording's number into the status. */
  private encodeDispatch(encoder: GPUCommandEncoder, counter: GPUBuffer, dispatch: GPUBuffer, status: GPUBuffer): void {
    const pass = encoder.beginComputePass({ label: 'resident dispatch arguments' });
    setPipelineAndGroup(pass, this.dispatchPipeline, residentDispatchBindings.bind(this.device, 'residentDispatch', { params: this.params, counter: { buffer: counter, size: PairCounter.size }, args: dispatch, status }));
    pass.dispatchWorkgroups(1);
    pass.end();
  }

  /** Nearest-hit raycasts (radius 0 in the records) or sphere casts, in the GPU cast layout: the encode calls' validation. */
  encodeCasts(encoder: GPUCommandEncoder, kind: 'raycast' | 'sphereCast', castsIn: unknown, spheresIn: unknown, options: EncodeCastOptions): EncodedHits {
    const argument = kind === 'raycast' ? 'rays' : 'casts';
    // As limits.maxCasts: a nearest hit a cast, one CastHitRecord each.
    const casts = checkRecords(argument, castsIn, 4 * GPU_STRIDE.cast, Math.floor(this.bindingBytes / CastHitRecord.size));
    const spheres = checkRecords('spheres', spheresIn, 16, this.maxRecords);
    if (!options || typeof options !== 'object') throw new InvalidInputError('options', -1, RULES.option, 'the options with { scene } are required');
    const scene = checkScene(options.scene);
    const into = options.into;
    if (into !== undefined && !(into instanceof EncodedHits)) throw new InvalidInputError('options.into', -1, RULES.option, 'a result of an earlier encode call');
    const broadphase = checkOneOf('options.broadphase', options.broadphase, BROADPHASES) ?? 'auto';
    const sceneAbs = Math.max(...[0, 1, 2].flatMap((a) => [Math.abs(scene.min[a]), Math.abs(scene.max[a])]));
    const diagonal = Math.hypot(...[0, 1, 2].map((a) => scene.max[a] - scene.min[a]));
    const maxAbs = Math.max(sceneAbs, checkNumber('options.maxAbs', options.maxAbs, 0, MAX_MAGNITUDE) ?? sceneAbs + diagonal);
    // A segment between two points within 2^60 of the origin is shorter than 4 · 2^60.
    const maxLength = checkNumber('options.maxLength', options.maxLength, 0, 4 * MAX_MAGNITUDE) ?? 2 * diagonal + scene.maxRadius;
    const allHits = checkBoolean('options.allHits', options.allHits) ?? false;
    const workgroupSize = checkPositiveInteger('options.workgroupSize', options.workgroupSize, 1024) || 64;
    const timer = checkTimer('options.timer', options.timer);
    const maxHits = Math.floor(this.bindingBytes / CastHitRecord.size);
    const asked = checkPositiveInteger('options.capacity', options.capacity, maxHits);
    return this.recordCasts(encoder, casts, spheres, {
      kind, stats: statsFromScene(scene, spheres.count),
      // The host cannot see the casts: 'auto' weighs them as if every one were of the longest length.
      shape: { count: casts.count, totalLength: casts.count * maxLength },
      reach: { maxAbs, maxLength, maxRadius: scene.maxRadius },
      broadphase, allHits, capacity: asked ?? 4 * Math.max(casts.count, 1), into, workgroupSize, timer, promisedRadius: scene.maxRadius,
    });
  }

  /**
   * Records a cast batch's search over checked inputs: nearest hits (one record per cast), or
   * all hits (count, scan of the counts into offsets, write; a cast whose hits pass the
   * capacity writes none; the total copied into the result's `total`), then the indirect
   * arguments.
   */
  recordCasts(encoder: GPUCommandEncoder, casts: GpuRecords, spheres: GpuRecords, job: CastJobSpec): EncodedHits {
    const maxHits = Math.floor(this.bindingBytes / CastHitRecord.size);
    const phase = this.phaseFor(job.broadphase, { query: 'casts', sphereCount: spheres.count, casts: job.shape, stats: job.stats });
    const result = job.into ?? new EncodedHits(this.device);
    result.kind = job.kind;
    result.count = casts.count;
    result.allHits = job.allHits;
    result.maxRadius = job.promisedRadius ?? 0;
    result.capacity = job.allHits ? Math.min(Math.max(job.capacity, result.lastCount, 1), maxHits) : casts.count;
    const hits = result.records.ensure(Math.max(CastHitRecord.size * result.capacity, 16));
    // The buffer may have grown past the capacity asked for: it holds what it holds.
    if (job.allHits) result.capacity = Math.min(Math.floor(hits.size / CastHitRecord.size), maxHits);
    const counts = result.counts.ensure(scanBufferBytes(casts.count));
    const sphereBuffer = this.source(encoder, spheres, 16 * spheres.count, this.spheres);
    const castBuffer = this.source(encoder, casts, 4 * GPU_STRIDE.cast * casts.count, this.others);
    result.call = this.check(encoder, sphereBuffer, spheres.count, result.status, { capacity: result.capacity, workgroupSize: job.workgroupSize, promisedRadius: job.promisedRadius });
    // The total: all hits copy the scan's last word in below; nearest hits are the casts.
    this.device.queue.writeBuffer(result.total, 0, new Uint32Array([job.allHits ? 0 : casts.count, 0]));
    if (casts.count > 0) {
      // No spheres: every cast misses, which the phase that builds nothing finds over zero spheres.
      const use = spheres.count === 0 ? this.broadphases[WITHOUT_SPHERES] : phase;
      this.kernels.setParams(casts.count, spheres.count, use.castSlack(job.reach));
      if (!job.reuseBuild) {
        use.prepare(job.stats);
        use.encodeBuild(encoder, sphereBuffer, job.timer);
      }
      const run = (mode: CastMode): void => use.encodeCasts(encoder, { kernels: this.kernels, mode, casts: castBuffer, castCount: casts.count, targets: { hits, counts } }, job.timer);
      if (job.allHits) {
        run('count');
        this.scan.encode(encoder, counts, casts.count, job.timer);
        run('write');
        encoder.copyBufferToBuffer(counts, 4 * casts.count, result.total, PairCounter.offsets.count, 4);
      } else {
        run('nearest');
      }
    } else if (job.allHits) {
      encoder.clearBuffer(counts, 0, 4);
    }
    if (job.dispatchArguments !== false) this.encodeDispatch(encoder, result.total, result.dispatch, result.status);
    return result;
  }

  destroy(): void {
    destroyBroadPhases(this.broadphases);
    this.kernels.destroy();
    this.scan.destroy();
    this.params.destroy();
    this.spheres.destroy();
    this.others.destroy();
  }
}

/** Recordings so far, over every recorder (ResidentParams.call of the latest). */
let recordings = 0;

/** The next recording's number: from 1 (a status the call never reached says 0), wrapping past 2^32 - 1. */
function nextRecording(): number {
  recordings = (recordings % 0xffffffff) + 1;
  return recordings;
}

/**
 * A recorder lent to one encoded result: given back when the result's `read()` has seen its call
 * run, when the result is encoded into on another recorder, destroyed, or garbage-collected.
 * Until then no other call records on it, so nothing it wrote (parameters through the queue,
 * working buffers that may grow) changes under a call that may not be submitted yet.
 */
export class RecorderLease {
  private released = false;

  /** @internal */
  constructor(
    readonly pool: ResidentPool,
    readonly recorder: ResidentQueries,
  ) {}

  get held(): boolean {
    return !this.released;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    leases.unregister(this);
    this.pool.giveBack(this.recorder);
  }
}

/** A result dropped without read() or destroy() gives its recorder back when it is collected. */
const leases = new FinalizationRegistry<RecorderLease>((lease) => lease.release());

/**
 * The encoded calls' recorders of one Collider: each call takes a free one (or makes one) and its
 * result holds it (RecorderLease), so that encoded calls recorded into one submission never share
 * parameters or working buffers. A result encoded into again (`into`) keeps its recorder: a call
 * per frame into the same results makes nothing new. The pool grows to the most results holding
 * a recorder at once.
 */
export class ResidentPool {
  private readonly free: ResidentQueries[] = [];
  private readonly made: ResidentQueries[] = [];
  private destroyed = false;

  constructor(private readonly make: () => ResidentQueries) {}

  /** Recorders made so far (for tests). */
  get size(): number {
    return this.made.length;
  }

  /** Recorders free now (for tests). */
  get idle(): number {
    return this.free.length;
  }

  /** `ResidentQueries.encodePairs` on the result's recorder, or a free one. */
  encodePairs(encoder: GPUCommandEncoder, spheres: unknown, options: EncodeOptions, box?: { kind: BoxKind; boxes: unknown; argument: string }): EncodedPairs {
    return this.leased(options, EncodedPairs, (recorder) => recorder.encodePairs(encoder, spheres, options, box));
  }

  /** `ResidentQueries.encodeCasts` on the result's recorder, or a free one. */
  encodeCasts(encoder: GPUCommandEncoder, kind: 'raycast' | 'sphereCast', casts: unknown, spheres: unknown, options: EncodeCastOptions): EncodedHits {
    return this.leased(options, EncodedHits, (recorder) => recorder.encodeCasts(encoder, kind, casts, spheres, options));
  }

  private leased<T extends EncodedPairs | EncodedHits>(options: unknown, type: abstract new (...args: never[]) => T, record: (recorder: ResidentQueries) => T): T {
    const into = options && typeof options === 'object' ? (options as { into?: unknown }).into : undefined;
    const held = into instanceof type && into.lease?.held && into.lease.pool === this ? into.lease : undefined;
    const recorder = held?.recorder ?? this.take();
    let result: T;
    try {
      result = record(recorder);
    } catch (error) {
      if (!held) this.giveBack(recorder);
      throw error;
    }
    if (!held) {
      result.lease?.release(); // another pool's, or one given back already
      const lease = new RecorderLease(this, recorder);
      leases.register(result, lease, lease);
      result.lease = lease;
    }
    return result;
  }

  private take(): ResidentQueries {
    const recorder = this.free.pop();
    if (recorder) return recorder;
    const made = this.make();
    this.made.push(made);
    return made;
  }

  /** @internal A lease's recorder, free again (destroyed with the pool, which destroys every one). */
  giveBack(recorder: ResidentQueries): void {
    if (!this.destroyed) this.free.push(recorder);
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    for (const recorder of this.made) recorder.destroy();
    this.made.length = 0;
    this.free.length = 0;
  }
}
