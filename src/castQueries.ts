/**
 * Running raycasts and sphere casts against spheres already on the GPU, through whichever broad
 * phase was built over them (src/broadphase), and turning the hit records into the contract's results. Shared by
 * the Collider (spheres from the caller) and the ParticleWorld (its own particles).
 */
import { CapacityError } from './errors.js';
import { BufferUsage } from './gpu/flags.js';
import { GrowableBuffer, upload, readBuffer } from './gpu/buffers.js';
import { CastPass } from './passes/casts.js';
import { ExclusiveScanPass } from './passes/scan.js';
import { CastHitRecord } from './layout.js';
import { checkOneOf, checkPositiveInteger, checkBoolean, type CastBatch } from './validate.js';
import { BROADPHASES, type Broadphase, type CastOptions } from './options.js';
import type { BroadPhase } from './broadphase/types.js';
import type { GpuTimer } from './gpu/timer.js';
import type { CastMode } from '../shaders/casts.wgsl.js';

export const HIT_BYTES = CastHitRecord.size;
const HIT_FLOATS = HIT_BYTES / 4;

/** Nearest hit per ray: index −1 and NaN distance and point for a miss. */
export interface RaycastResult {
  /** The sphere hit by each ray, or −1 for a miss. */
  index: Int32Array;
  /** |AD|, the distance from A to the hit point. */
  distance: Float32Array;
  /** The hit point D, xyz per ray. */
  point: Float32Array;
}

/** Nearest hit per sphere cast: index −1 and NaN elsewhere for a miss. */
export interface SphereCastResult {
  /** The sphere hit by each cast, or −1 for a miss. */
  index: Int32Array;
  /** |AC|, the distance the sphere travels to the contact. */
  distance: Float32Array;
  /** C, the cast sphere's centre at contact, xyz per cast. */
  center: Float32Array;
  /** E, the contact point, xyz per cast. */
  contact: Float32Array;
}

/** Every hit: those of ray k are entries offsets[k] .. offsets[k+1] − 1, by distance then index. */
export interface AllHits {
  /** One more entry than there are casts; the last is the number of hits. */
  offsets: Uint32Array;
}
/** Every hit of every ray (`raycast(..., { allHits: true })`); `index` holds no −1. */
export type RaycastAllHits = AllHits & RaycastResult;
/** Every hit of every sphere cast (`sphereCast(..., { allHits: true })`); `index` holds no −1. */
export type SphereCastAllHits = AllHits & SphereCastResult;

/** Raw hit records (CastHitRecord each) and, for all hits, the per-cast offsets. */
export interface HitRecords {
  records: Float32Array;
  offsets?: Uint32Array;
}

/** Records → { index, distance, point } (a miss: −1 and NaN). */
export function toRaycastResult({ records, offsets }: HitRecords): RaycastResult | RaycastAllHits {
  const { index, distance, point } = unpack(records);
  const result: RaycastResult = { index, distance, point };
  return offsets ? { offsets, ...result } : result;
}

/** Records → { index, distance, center, contact } (a miss: −1 and NaN). */
export function toSphereCastResult({ records, offsets }: HitRecords): SphereCastResult | SphereCastAllHits {
  const { index, distance, point, contact } = unpack(records);
  const result: SphereCastResult = { index, distance, center: point, contact };
  return offsets ? { offsets, ...result } : result;
}

function unpack(records: Float32Array): { index: Int32Array; distance: Float32Array; point: Float32Array; contact: Float32Array } {
  const hits = records.length / HIT_FLOATS;
  const ints = new Int32Array(records.buffer, records.byteOffset, records.length);
  const out = { index: new Int32Array(hits), distance: new Float32Array(hits), point: new Float32Array(3 * hits), contact: new Float32Array(3 * hits) };
  for (let k = 0; k < hits; k++) {
    const o = HIT_FLOATS * k;
    const index = ints[o + CastHitRecord.offsets.index / 4];
    out.index[k] = index;
    const hit = index >= 0;
    out.distance[k] = hit ? records[o + CastHitRecord.offsets.distance / 4] : NaN;
    for (let a = 0; a < 3; a++) {
      out.point[3 * k + a] = hit ? records[o + CastHitRecord.offsets.point / 4 + a] : NaN;
      out.contact[3 * k + a] = hit ? records[o + CastHitRecord.offsets.contact / 4 + a] : NaN;
    }
  }
  return out;
}

/** Records of `count` misses (no spheres to hit). */
export function missRecords(count: number): Float32Array {
  const records = new Float32Array(HIT_FLOATS * count);
  const ints = new Int32Array(records.buffer);
  for (let k = 0; k < count; k++) ints[HIT_FLOATS * k + CastHitRecord.offsets.index / 4] = -1;
  return records;
}

/** A cast call's options, validated. */
export interface CastCall {
  broadphase: Broadphase;
  allHits: boolean;
  maxHits: number;
  profile: boolean;
}

export function castCall(options: CastOptions): CastCall {
  return {
    broadphase: checkOneOf('options.broadphase', options.broadphase, BROADPHASES) ?? 'auto',
    allHits: checkBoolean('options.allHits', options.allHits) ?? false,
    maxHits: checkPositiveInteger('options.maxHits', options.maxHits) ?? Infinity,
    profile: checkBoolean('options.profile', options.profile) ?? false,
  };
}

/** The answer when there are no casts or no spheres: every cast misses. */
export function noHits(count: number, allHits: boolean): HitRecords {
  return allHits ? { records: new Float32Array(0), offsets: new Uint32Array(count + 1) } : { records: missRecords(count) };
}

/** Rounding in positions of this size: what the walk adds to every reach. */
export function castSlack(batch: CastBatch, sphereAbs: number, maxRadius: number): number {
  return (Math.max(batch.maxAbs, sphereAbs) + batch.maxLength + maxRadius) * 2 ** -20;
}

/**
 * The number of hits behind exclusive-scan offsets, exactly: the scan adds u32s and wraps past
 * 2^32, but no single cast has 2^32 hits, so each step offsets[k+1] − offsets[k] taken mod 2^32
 * is that cast's count; their sum (in doubles) is the true total however far it wrapped.
 */
export function trueTotal(offsets: Uint32Array): number {
  let total = 0;
  for (let k = 0; k + 1 < offsets.length; k++) total += (offsets[k + 1] - offsets[k]) >>> 0;
  return total;
}

export type Submit = (record: (encoder: GPUCommandEncoder) => void) => Promise<void>;

/** The cast kernels with their buffers; `uploadCasts`, then `run` over a source. */
export class CastQueries {
  readonly pass: CastPass;
  private readonly scan: ExclusiveScanPass;
  private readonly casts: GrowableBuffer;
  private readonly hits: GrowableBuffer;
  private readonly counts: GrowableBuffer;
  /** Hits found by the last all-hits run: the next starts with room for as many. */
  private hitHint = 0;

  constructor(
    private readonly device: GPUDevice,
    maxWorkgroupsPerDimension: number,
    private readonly maxHits: number,
  ) {
    const usage = BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC;
    this.pass = new CastPass(device, maxWorkgroupsPerDimension);
    this.scan = new ExclusiveScanPass(device, maxWorkgroupsPerDimension, 'hit count scan');
    this.casts = new GrowableBuffer(device, 'input casts', usage);
    this.hits = new GrowableBuffer(device, 'cast hits', usage);
    this.counts = new GrowableBuffer(device, 'cast hit counts', usage);
  }

  /** Queue writes of the casts and the kernel parameters (before the submission that runs them). */
  uploadCasts(batch: CastBatch, sphereCount: number, slack: number): void {
    upload(this.device, this.casts.ensure(Math.max(batch.packed.byteLength, 4)), batch.packed);
    this.pass.setParams(batch.count, sphereCount, slack);
  }

  /**
   * Runs the uploaded casts against the spheres of a built broad phase: the nearest hit of each (one record per cast), or
   * every hit: a count kernel, a scan of the counts, a write kernel; if the hits exceed the
   * buffer, it grows and the write runs again. `maxHits` (the caller's cap) or the device's
   * largest buffer exceeded: CapacityError with the true total.
   */
  async run(submit: Submit, phase: BroadPhase, count: number, allHits: boolean, maxHits: number, timer?: GpuTimer): Promise<HitRecords> {
    const casts = this.casts.buffer;
    const counts = this.counts.ensure(4 * (count + 1));
    if (!allHits) {
      const hits = this.hits.ensure(HIT_BYTES * count);
      await submit((encoder) => phase.encodeCasts(encoder, { kernels: this.pass, mode: 'nearest', casts, castCount: count, targets: { hits, counts } }, timer));
      return { records: new Float32Array(await readBuffer(this.device, hits, 0, HIT_BYTES * count)) };
    }
    let room = Math.min(Math.max(this.hitHint, count), this.maxHits);
    const encode = (encoder: GPUCommandEncoder, mode: CastMode): void => {
      const targets = { hits: this.hits.ensure(HIT_BYTES * Math.max(room, 1)), counts };
      phase.encodeCasts(encoder, { kernels: this.pass, mode, casts, castCount: count, targets }, timer);
    };
    await submit((encoder) => {
      encode(encoder, 'count');
      this.scan.encode(encoder, counts, count, timer);
      encode(encoder, 'write');
    });
    const offsets = new Uint32Array(await readBuffer(this.device, counts, 0, 4 * (count + 1)));
    const total = trueTotal(offsets);
    if (total > maxHits) throw new CapacityError('hits', total, maxHits, 'raise options.maxHits');
    if (total > this.maxHits) throw new CapacityError('hits', total, this.maxHits, 'the device cannot hold that many hits in one buffer');
    if (total > this.hits.buffer.size / HIT_BYTES) {
      room = total;
      await submit((encoder) => encode(encoder, 'write'));
    }
    this.hitHint = total;
    const records = new Float32Array(await readBuffer(this.device, this.hits.buffer, 0, HIT_BYTES * total));
    return { records, offsets };
  }

  destroy(): void {
    this.pass.destroy();
    this.scan.destroy();
    this.casts.destroy();
    this.hits.destroy();
    this.counts.destroy();
  }
}
