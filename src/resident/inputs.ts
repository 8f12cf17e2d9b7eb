/**
 * The GPU-resident calls' inputs: records already on the GPU, the scene the caller promises, the
 * encode options, and their checks at the API boundary.
 */
import { CapacityError, InvalidInputError } from '../errors.js';
import { BufferUsage } from '../gpu/flags.js';
import type { SphereStats } from '../validate.js';
import { checkPositiveInteger, RULES, MAX_MAGNITUDE } from '../checks.js';
import { LOG2_BIAS, LOG2_BINS, ceilLog2Bits } from '../spatial/level.js';
import type { Broadphase } from '../options.js';
import { GpuTimer } from '../gpu/timer.js';
import type { EncodedPairs, EncodedHits } from './results.js';

/**
 * Records already on the GPU: `count` of them from byte `offset` (a multiple of 4) of `buffer`.
 *
 * @category GPU-resident
 */
export interface GpuRecords {
  /** The buffer holding the records. */
  buffer: GPUBuffer;
  /** How many records. */
  count: number;
  /** Bytes into `buffer` (default 0). At 0 the buffer is read in place (it needs STORAGE usage); elsewhere it is copied first (COPY_SRC). */
  offset?: number;
}

/**
 * What the broad phases plan by, for spheres the host cannot see.
 *
 * @category GPU-resident
 */
export interface SceneBounds {
  /** Bounds of the sphere centres (x, y, z). Spheres outside them are still found, more slowly. */
  min: ArrayLike<number>;
  /** The other corner: every component at least min's. */
  max: ArrayLike<number>;
  /** The largest radius: every radius must be at most this (checked on the GPU; `read()` throws otherwise). */
  maxRadius: number;
}

/**
 * Options of `encodeSpherePairs` and the box-pair forms.
 *
 * @category GPU-resident
 */
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

/**
 * Options of `encodeRaycast` and `encodeSphereCast`.
 *
 * @category GPU-resident
 */
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

export function checkScene(scene: unknown): SceneBounds {
  const s = scene as SceneBounds | undefined;
  const vector = (name: 'min' | 'max'): void => {
    const v = s?.[name];
    if (
      !v ||
      typeof v !== 'object' ||
      (v as ArrayLike<number>).length !== 3 ||
      !Array.from(v as ArrayLike<number>).every((x) => typeof x === 'number' && Math.abs(x) <= MAX_MAGNITUDE)
    ) {
      throw new InvalidInputError(
        `options.scene.${name}`,
        -1,
        RULES.vector,
        'three finite numbers, at most 2^60 in magnitude',
      );
    }
  };
  if (!s || typeof s !== 'object')
    throw new InvalidInputError(
      'options.scene',
      -1,
      RULES.option,
      'the scene bounds { min, max, maxRadius } are required for spheres on the GPU',
    );
  vector('min');
  vector('max');
  for (let a = 0; a < 3; a++)
    if (!(s.min[a] <= s.max[a])) throw new InvalidInputError('options.scene', -1, RULES.minMax, `axis ${'xyz'[a]}`);
  if (typeof s.maxRadius !== 'number' || !(s.maxRadius >= 0) || s.maxRadius > MAX_MAGNITUDE)
    throw new InvalidInputError(
      'options.scene.maxRadius',
      -1,
      RULES.option,
      `a finite number >= 0, got ${String(s.maxRadius)}`,
    );
  return s;
}

/** An encode call's `timer`: a GpuTimer of the caller's, or undefined. */
export function checkTimer(argument: string, value: unknown): GpuTimer | undefined {
  if (value === undefined || value instanceof GpuTimer) return value;
  throw new InvalidInputError(argument, -1, RULES.option, `a GpuTimer, got ${String(value)}`);
}

export function checkRecords(
  argument: string,
  value: unknown,
  recordBytes: number,
  maxRecords: number,
): GpuRecords & { offset: number } {
  const r = value as GpuRecords | undefined;
  const buffer = r?.buffer as GPUBuffer | undefined;
  if (!r || typeof r !== 'object' || !buffer || typeof buffer.size !== 'number' || typeof buffer.usage !== 'number') {
    throw new InvalidInputError(argument, -1, RULES.gpuRecords, 'expected { buffer: GPUBuffer, count, offset? }');
  }
  const count = checkPositiveInteger(`${argument}.count`, r.count) ?? NaN;
  if (Number.isNaN(count)) throw new InvalidInputError(`${argument}.count`, -1, RULES.option, 'required');
  // As the one-shot calls: more records than a binding holds (the collider's limits) is a capacity.
  if (count > maxRecords)
    throw new CapacityError(
      argument,
      count,
      maxRecords,
      'more records than the device can bind (limits; maxBindingBytes)',
    );
  const offset = checkPositiveInteger(`${argument}.offset`, r.offset) ?? 0;
  if (offset % 4 !== 0)
    throw new InvalidInputError(`${argument}.offset`, -1, RULES.option, `a multiple of 4, got ${offset}`);
  if (offset + count * recordBytes > buffer.size) {
    throw new InvalidInputError(
      argument,
      -1,
      RULES.gpuRecords,
      `${count} records of ${recordBytes} bytes from byte ${offset} pass the buffer's ${buffer.size} bytes`,
    );
  }
  const needs = offset === 0 ? BufferUsage.STORAGE : BufferUsage.COPY_SRC;
  if ((buffer.usage & needs) === 0)
    throw new InvalidInputError(
      argument,
      -1,
      RULES.gpuRecords,
      `the buffer needs ${offset === 0 ? 'STORAGE' : 'COPY_SRC'} usage`,
    );
  return { buffer, count, offset };
}
