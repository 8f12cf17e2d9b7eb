/**
 * The results the GPU-resident calls leave on the GPU (EncodedPairs, EncodedHits): their buffers,
 * the status a kernel writes (a broken scene promise, whether the call ran), and their read-back.
 */
import { CapacityError, InvalidInputError } from '../errors.js';
import { BufferUsage } from '../gpu/flags.js';
import { GrowableBuffer, createBuffer, readBuffer, readRanges, copyMapped, type ReadRange } from '../gpu/buffers.js';
import { PairList } from '../gpu/pairList.js';
import { PairCounter } from '../layout.js';
import { ResidentStatus } from '../../shaders/resident/layout.js';
import { CastHitRecord } from '../../shaders/passes/layout.js';
import { RULES } from '../checks.js';
import {
  toRaycastResult,
  toSphereCastResult,
  trueTotal,
  type HitRecords,
  type RaycastResult,
  type SphereCastResult,
  type RaycastAllHits,
  type SphereCastAllHits,
} from '../castQueries.js';

/** What a result holds of its recorder until the call has run: the pool's lease (src/resident/pool.ts). */
export interface Lease {
  release(): void;
}

/**
 * Throws if a result's status words (ResidentStatus) say the call has not run (its encoder not
 * submitted yet), or the spheres broke the promised scene bounds.
 */
export function checkStatusWords(words: Uint32Array, maxRadius: number, call: number): void {
  if (words[ResidentStatus.offsets.call / 4] !== call) {
    throw new InvalidInputError(
      'encoder',
      -1,
      RULES.submitFirst,
      'the call has not run: read() after submitting the encoder it was recorded into',
    );
  }
  const violations = words[ResidentStatus.offsets.violations / 4];
  if (violations > 0) {
    const first = words[ResidentStatus.offsets.firstViolation / 4];
    throw new InvalidInputError(
      'spheres',
      first,
      RULES.sceneBounds,
      `${violations} sphere(s) with a radius above scene.maxRadius = ${maxRadius}, or a value not finite`,
    );
  }
}

/** Whether the status words say the call numbered `call` ran (then its lease can go back). */
export function ran(words: Uint32Array, call: number): boolean {
  return words[ResidentStatus.offsets.call / 4] === call;
}

export function statusBuffer(device: GPUDevice, label: string): GPUBuffer {
  return createBuffer(
    device,
    `${label} status`,
    ResidentStatus.size,
    BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST,
  );
}

/** The initial status: no violation, the first one at 0xffffffff (atomicMin lowers it). */
export const CLEAN_STATUS = (() => {
  const words = new Uint32Array(ResidentStatus.size / 4);
  words[ResidentStatus.offsets.firstViolation / 4] = 0xffffffff;
  return words;
})();

/**
 * Pairs a result reads in the round trip that reads its count when its last read saw fewer
 * (PairList.readCounted): a second round trip costs a good part of a small one-shot call
 * (measured: docs/PERFORMANCE.md, "What the design rests on").
 */
export const SPECULATIVE_PAIRS = 4096;
/** The same for all-hits results' records (32 kB of CastHitRecords). */
export const SPECULATIVE_HITS = 32768 / CastHitRecord.size;

/**
 * Pairs left on the GPU: `pairs` holds vec2<u32> records, the first min(count, capacity) of them
 * valid; `counter` the true count (PairCounter: count, then its high word); `dispatch` indirect
 * arguments (x, y, 1) covering min(count, capacity) records at the workgroup size asked for,
 * folded to 2-D past the device's limit (the consumer's index: (x + y·nx)·size + local). Valid
 * until the next call encoded into it. Owns every buffer its `read()` and a consumer read.
 *
 * @category GPU-resident
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
  lease?: Lease;

  /** @internal Made by the Collider's encode calls. */
  constructor(device: GPUDevice, capacity: number, label = 'encoded pairs') {
    this.list = new PairList(device, label);
    this.list.reserve(capacity);
    this.dispatch = createBuffer(
      device,
      `${label} dispatch`,
      12,
      BufferUsage.STORAGE | BufferUsage.INDIRECT | BufferUsage.COPY_SRC,
    );
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
    const { count, pairs, also } = await this.list.readCounted(this.expected(), undefined, [
      { source: this.status, offset: 0, size: ResidentStatus.size },
    ]);
    this.lastCount = count;
    const words = new Uint32Array(also[0]);
    if (ran(words, this.call)) this.lease?.release();
    checkStatusWords(words, this.maxRadius, this.call);
    if (!pairs)
      throw new CapacityError(
        'pairs',
        count,
        this.capacity,
        'encode into this result again (it grows to the count) or pass a larger options.capacity',
      );
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

/**
 * What an EncodedHits' `read()` gives: the one-shot call's result of its kind.
 *
 * @category GPU-resident
 */
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
 *
 * @category GPU-resident
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
  lease?: Lease;

  /** @internal Made by the Collider's encode calls. */
  constructor(
    private readonly device: GPUDevice,
    label = 'encoded hits',
  ) {
    this.records = new GrowableBuffer(device, `${label} records`, BufferUsage.STORAGE | BufferUsage.COPY_SRC);
    this.status = statusBuffer(device, label);
    this.counts = new GrowableBuffer(
      device,
      `${label} offsets`,
      BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST,
    );
    this.total = createBuffer(
      device,
      `${label} total`,
      PairCounter.size,
      BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST,
    );
    this.dispatch = createBuffer(
      device,
      `${label} dispatch`,
      12,
      BufferUsage.STORAGE | BufferUsage.INDIRECT | BufferUsage.COPY_SRC,
    );
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
    if (!hits)
      throw new CapacityError(
        'hits',
        total,
        this.capacity,
        'encode into this result again (it grows to the total) or pass a larger options.capacity',
      );
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
    const statusOf = (bytes: ArrayBuffer[]): Uint32Array | undefined =>
      withStatus ? new Uint32Array(bytes[0].slice(0)) : undefined;
    const recordBytes = CastHitRecord.size;
    if (!this.allHits) {
      return readRanges(
        this.device,
        [...also, { source: this.records.buffer, offset: 0, size: recordBytes * this.count }],
        (bytes) => ({
          total: this.count,
          hits: { records: new Float32Array(bytes[also.length].slice(0)) },
          status: statusOf(bytes),
        }),
      );
    }
    const ahead = Math.min(this.capacity, Math.max(SPECULATIVE_HITS, Math.ceil(1.25 * this.lastCount)));
    let have = 0;
    const read = await readRanges(
      this.device,
      [
        ...also,
        { source: this.counts.buffer, offset: 0, size: 4 * (this.count + 1) },
        { source: this.records.buffer, offset: 0, size: recordBytes * ahead },
      ],
      (bytes): { total: number; hits?: HitRecords; status?: Uint32Array } => {
        const offsets = new Uint32Array(bytes[also.length].slice(0));
        const total = trueTotal(offsets);
        if (total > this.capacity) return { total, status: statusOf(bytes) };
        have = Math.min(total, ahead);
        const records = new Float32Array(copyMapped(bytes[also.length + 1], have * recordBytes, total * recordBytes));
        return { total, hits: { records, offsets }, status: statusOf(bytes) };
      },
    );
    this.lastCount = read.total;
    if (read.hits && read.total > have) {
      await readBuffer(
        this.device,
        this.records.buffer,
        recordBytes * have,
        recordBytes * (read.total - have),
        read.hits.records.subarray((have * recordBytes) / 4),
      );
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
