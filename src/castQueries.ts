/**
 * The cast calls' results: hit records (CastHitRecord) turned into the contract's arrays, the
 * caller's `out` arrays, the options, the misses, the walks' rounding slack and the true total
 * behind wrapped offsets. The recording itself is src/resident/recorder.ts's `recordCasts`, shared by
 * the Collider (one-shot and encoded) and the ParticleWorld.
 */
import { InvalidInputError } from './errors.js';
import { CastHitRecord } from '../shaders/passes/layout.js';
import type { CastReach } from './spatial/reach.js';
import type { CastBatch } from './validate.js';
import { checkOneOf, checkPositiveInteger, checkBoolean, checkOutArray, RULES } from './checks.js';
import { BROADPHASES, type Broadphase, type CastOptions, type CastOut } from './options.js';

export const HIT_BYTES = CastHitRecord.size;
const HIT_FLOATS = HIT_BYTES / 4;

/**
 * Nearest hit per ray: index −1 and NaN distance and point for a miss.
 *
 * @category Collider
 */
export interface RaycastResult {
  /** The sphere hit by each ray, or −1 for a miss. */
  index: Int32Array;
  /** |AD|, the distance from A to the hit point. */
  distance: Float32Array;
  /** The hit point D, xyz per ray. */
  point: Float32Array;
}

/**
 * Nearest hit per sphere cast: index −1 and NaN elsewhere for a miss.
 *
 * @category Collider
 */
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

/**
 * Every hit: those of ray k are entries offsets[k] .. offsets[k+1] − 1, by distance then index.
 *
 * @category Collider
 */
export interface AllHits {
  /** One more entry than there are casts; the last is the number of hits. */
  offsets: Uint32Array;
}
/**
 * Every hit of every ray (`raycast(..., { allHits: true })`); `index` holds no −1.
 *
 * @category Collider
 */
export type RaycastAllHits = AllHits & RaycastResult;
/**
 * Every hit of every sphere cast (`sphereCast(..., { allHits: true })`); `index` holds no −1.
 *
 * @category Collider
 */
export type SphereCastAllHits = AllHits & SphereCastResult;

/** Raw hit records (CastHitRecord each) and, for all hits, the per-cast offsets. */
export interface HitRecords {
  records: Float32Array;
  offsets?: Uint32Array;
}

/** Records → { index, distance, point } (a miss: −1 and NaN), into `out`'s arrays where they fit. */
export function toRaycastResult({ records, offsets }: HitRecords, out: CastOut = {}): RaycastResult | RaycastAllHits {
  const { index, distance, point } = unpack(records, out, 'point');
  const result: RaycastResult = { index, distance, point };
  return offsets ? { offsets: into(out.offsets, offsets, Uint32Array), ...result } : result;
}

/** Records → { index, distance, center, contact } (a miss: −1 and NaN), into `out`'s arrays where they fit. */
export function toSphereCastResult(
  { records, offsets }: HitRecords,
  out: CastOut = {},
): SphereCastResult | SphereCastAllHits {
  const { index, distance, point, contact } = unpack(records, out, 'center');
  const result: SphereCastResult = { index, distance, center: point, contact: contact! };
  return offsets ? { offsets: into(out.offsets, offsets, Uint32Array), ...result } : result;
}

/** The caller's array when it holds `length` values (its prefix), else a new one. */
function target<T extends Int32Array | Float32Array | Uint32Array>(
  given: T | undefined,
  length: number,
  type: { new (length: number): T },
): T {
  return given && given.length >= length ? (given.subarray(0, length) as T) : new type(length);
}

/** `values` copied into the caller's array when it holds them, else themselves. */
function into<T extends Uint32Array>(given: T | undefined, values: T, type: { new (length: number): T }): T {
  if (!given || given.length < values.length) return values;
  const view = target(given, values.length, type);
  view.set(values);
  return view;
}

/** Unpacks hit records; `points` names the field of the hit points (point or center); sphere casts also fill contact. */
function unpack(
  records: Float32Array,
  out: CastOut,
  points: 'point' | 'center',
): { index: Int32Array; distance: Float32Array; point: Float32Array; contact?: Float32Array } {
  const hits = records.length / HIT_FLOATS;
  const ints = new Int32Array(records.buffer, records.byteOffset, records.length);
  const index = target(out.index, hits, Int32Array);
  const distance = target(out.distance, hits, Float32Array);
  const point = target(out[points], 3 * hits, Float32Array);
  const contact = points === 'center' ? target(out.contact, 3 * hits, Float32Array) : undefined;
  const [at, far, pt, ct] = [
    CastHitRecord.offsets.index / 4,
    CastHitRecord.offsets.distance / 4,
    CastHitRecord.offsets.point / 4,
    CastHitRecord.offsets.contact / 4,
  ];
  for (let k = 0; k < hits; k++) {
    const o = HIT_FLOATS * k;
    const i = ints[o + at];
    index[k] = i;
    const hit = i >= 0;
    distance[k] = hit ? records[o + far] : NaN;
    for (let a = 0; a < 3; a++) {
      point[3 * k + a] = hit ? records[o + pt + a] : NaN;
      if (contact) contact[3 * k + a] = hit ? records[o + ct + a] : NaN;
    }
  }
  return { index, distance, point, contact };
}

/** Which result fields each cast call has (the others are refused in `out`). */
const OUT_FIELDS = {
  raycast: ['index', 'distance', 'point', 'offsets'],
  sphereCast: ['index', 'distance', 'center', 'contact', 'offsets'],
} as const;
const OUT_TYPES = {
  index: Int32Array,
  distance: Float32Array,
  point: Float32Array,
  center: Float32Array,
  contact: Float32Array,
  offsets: Uint32Array,
} as const;

/** Validates a cast call's `options.out` (undefined, or an object of the call's result arrays). */
export function checkCastOut(call: 'raycast' | 'sphereCast', value: unknown): CastOut | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value)) {
    throw new InvalidInputError(
      'options.out',
      -1,
      RULES.option,
      `expected an object of result arrays (${OUT_FIELDS[call].join(', ')}), got ${value === null ? 'null' : ArrayBuffer.isView(value) ? value.constructor.name : typeof value}`,
    );
  }
  const allowed: readonly string[] = OUT_FIELDS[call];
  for (const [key, field] of Object.entries(value)) {
    if (!allowed.includes(key)) {
      throw new InvalidInputError(`options.out.${key}`, -1, RULES.option, `${call} returns ${allowed.join(', ')}`);
    }
    if (field !== undefined)
      checkOutArray(
        `options.out.${key}`,
        field,
        OUT_TYPES[key as keyof typeof OUT_TYPES] as { new (length: number): Float32Array },
      );
  }
  return value as CastOut;
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
  const allHits = checkBoolean('options.allHits', options.allHits) ?? false;
  const maxHits = checkPositiveInteger('options.maxHits', options.maxHits) ?? Infinity;
  return {
    broadphase: checkOneOf('options.broadphase', options.broadphase, BROADPHASES) ?? 'auto',
    allHits,
    // It bounds the hits of an allHits call; nearest hits are one record a cast, hit or miss.
    maxHits: allHits ? maxHits : Infinity,
    profile: checkBoolean('options.profile', options.profile) ?? false,
  };
}

/** The answer when there are no casts or no spheres: every cast misses. */
export function noHits(count: number, allHits: boolean): HitRecords {
  return allHits
    ? { records: new Float32Array(0), offsets: new Uint32Array(count + 1) }
    : { records: missRecords(count) };
}

/** The reach of a batch over spheres whose coordinates are at most `sphereAbs`. */
export function castReach(batch: CastBatch, sphereAbs: number, maxRadius: number): CastReach {
  return { maxAbs: Math.max(batch.maxAbs, sphereAbs), maxLength: batch.maxLength, maxRadius };
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
