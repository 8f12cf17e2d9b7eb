/**
 * Input validation at the API boundary. Each check names the argument, the record and the rule
 * (InvalidInputError), so a caller can find the bad record without reading our code.
 *
 * The sphere check also gathers, in the same single pass, what the grid broad phase needs to
 * plan itself: the bounds of the centres and a histogram of the radii by power of two.
 */
import { InvalidInputError, CapacityError } from './errors.js';
import { STRIDE, GPU_STRIDE } from './layout.js';
import { ceilLog2Bits, LOG2_BINS, LOG2_BIAS } from './spatial/level.js';
import { BOX_SAMPLE, type BoxSample, type SphereStats } from './spatial/stats.js';
import { OctaveSamples, octaveDensity } from './spatial/spacing.js';

export type { SphereStats } from './spatial/stats.js';

/**
 * The rules input is checked against, worded once so that messages and tests agree: an
 * {@link InvalidInputError}'s `rule` is one of these phrases (match with
 * `error.rule === RULES.finite`, never on the message).
 */
export const RULES = {
  type: 'must be a Float32Array',
  device: 'must be a GPUDevice',
  stride: 'length must be a multiple of the record stride',
  finite: 'every value must be finite (no NaN or Infinity)',
  radius: 'radius must be >= 0',
  halfExtent: 'half extents must be >= 0',
  minMax: 'min must be <= max on every axis',
  quaternion: 'rotation quaternion must not be zero',
  capacity: 'more records than the device can hold',
  option: 'option out of range',
  detached: 'buffer is detached',
  count: 'record count must match the spheres',
  inverseMass: 'inverse mass must be >= 0',
  defaultMass:
    'the default inverse mass (1 / volume) must be a normal f32: pass inverseMasses for radii outside about [1e-13, 2.6e12]',
  outside: 'centre must lie inside the world bounds',
  bounds: 'bounds must be 6 finite numbers with min < max on every axis',
  vector: 'must be finite numbers',
  magnitude: 'magnitude must be at most 2^60 (1.15e18), so that squared distances fit in f32',
  tiny: 'a nonzero radius or extent must be at least 2^-60 (8.7e-19), so that its square is a normal f32',
  gpuRecords: 'must be { buffer: GPUBuffer, count, offset? } within the buffer, with the usage the call needs',
  sceneBounds: 'every radius must be at most options.scene.maxRadius and every value finite',
  out: 'must be the typed array the result field is: Uint32Array for pairs and offsets, Int32Array for index, Float32Array for distances and points',
  submitFirst: 'read an encoded result after submitting the encoder its call was recorded into',
  encoder: 'must be a GPUCommandEncoder',
} as const;

/**
 * The largest magnitude a coordinate, radius, extent or velocity may have: squares of sums of
 * two such values (2^122) and their sums of three still fit f32 (2^128). Beyond it a kernel would
 * overflow to Infinity and answer wrongly, so it is an input error.
 */
export const MAX_MAGNITUDE = 2 ** 60;

/** The smallest nonzero radius, half extent or cast radius: its square is still a normal f32. */
export const MIN_SIZE = 2 ** -60;

/** Throws for a value that is NaN, ±Infinity or beyond MAX_MAGNITUDE. */
function checkValue(argument: string, index: number, v: number, what: string): void {
  if (Math.abs(v) <= MAX_MAGNITUDE) return;
  throw new InvalidInputError(argument, index, v - v !== 0 ? RULES.finite : RULES.magnitude, `${what} is ${v}`);
}

/** Throws for a radius or extent that is nonzero but so small that its square underflows f32. */
function checkSize(argument: string, index: number, v: number, what: string): void {
  if (v !== 0 && Math.abs(v) < MIN_SIZE) throw new InvalidInputError(argument, index, RULES.tiny, `${what} is ${v}`);
}

export { checkValue };

export function checkFloat32Array(argument: string, value: unknown, stride: number): Float32Array {
  if (!(value instanceof Float32Array)) {
    const got =
      value === null
        ? 'null'
        : Array.isArray(value)
          ? 'Array'
          : typeof value === 'object'
            ? ((value as object).constructor?.name ?? 'object')
            : typeof value;
    throw new InvalidInputError(argument, -1, RULES.type, `got ${got}`);
  }
  // A detached ArrayBuffer reads as length 0; say so instead of silently treating it as empty.
  if (value.buffer.byteLength === 0 && isDetached(value.buffer)) {
    throw new InvalidInputError(argument, -1, RULES.detached);
  }
  if (value.length % stride !== 0) {
    throw new InvalidInputError(argument, -1, RULES.stride, `length ${value.length} is not a multiple of ${stride}`);
  }
  return value;
}

/** A detached buffer reports byteLength 0 and refuses new views; an empty one accepts them. */
function isDetached(buffer: ArrayBufferLike): boolean {
  try {
    new Uint8Array(buffer);
    return false;
  } catch {
    return true;
  }
}

/**
 * Validates a sphere array (x, y, z, radius per record) and gathers its stats in the same pass.
 * Throws on the first bad record. `maxRecords` is the limit for this argument (the device's,
 * or a world's capacity), `beyond` the CapacityError's hint past it.
 */
export function validateSpheres(
  argument: string,
  value: unknown,
  maxRecords = Infinity,
  beyond: string = RULES.capacity,
): SphereStats {
  const spheres = checkFloat32Array(argument, value, STRIDE.sphere);
  const count = spheres.length / STRIDE.sphere;
  if (count > maxRecords) {
    throw new CapacityError(argument, count, maxRecords, beyond);
  }
  const bits = new Uint32Array(spheres.buffer, spheres.byteOffset, spheres.length);
  const log2Hist = new Uint32Array(LOG2_BINS);
  const log2MaxRadius = new Float32Array(LOG2_BINS);
  const binBounds = new Float64Array(6 * LOG2_BINS);
  for (let b = 0; b < LOG2_BINS; b++) binBounds.fill(Infinity, 6 * b, 6 * b + 3).fill(-Infinity, 6 * b + 3, 6 * b + 6);
  const samples = new OctaveSamples(LOG2_BINS);
  const sampleStride = samples.stride;
  // Sums of the centres shifted by the first one (no cancellation far from the origin).
  const x0 = count > 0 ? spheres[0] : 0,
    y0 = count > 0 ? spheres[1] : 0,
    z0 = count > 0 ? spheres[2] : 0;
  let sx = 0,
    sy = 0,
    sz = 0,
    sxx = 0,
    syy = 0,
    szz = 0;
  for (let i = 0, o = 0; i < count; i++, o += 4) {
    const x = spheres[o],
      y = spheres[o + 1],
      z = spheres[o + 2],
      r = spheres[o + 3];
    // One comparison per value: false for NaN, ±Infinity and magnitudes past the limit.
    if (
      !(
        Math.abs(x) <= MAX_MAGNITUDE &&
        Math.abs(y) <= MAX_MAGNITUDE &&
        Math.abs(z) <= MAX_MAGNITUDE &&
        Math.abs(r) <= MAX_MAGNITUDE
      )
    ) {
      for (const [what, v] of [
        ['x', x],
        ['y', y],
        ['z', z],
        ['radius', r],
      ] as const)
        checkValue(argument, i, v, what);
    }
    if (r < 0) throw new InvalidInputError(argument, i, RULES.radius, `got ${r}`);
    if (r !== 0 && r < MIN_SIZE) checkSize(argument, i, r, 'radius');
    // The bounds and largest radius per octave (the scene's are theirs, after the loop).
    const bin = ceilLog2Bits(bits[o + 3]) + LOG2_BIAS;
    const member = log2Hist[bin]++;
    if ((member & (sampleStride[bin] - 1)) === 0) samples.keep(bin, member, i);
    if (r > log2MaxRadius[bin]) log2MaxRadius[bin] = r;
    const k = 6 * bin;
    if (x < binBounds[k]) binBounds[k] = x;
    if (y < binBounds[k + 1]) binBounds[k + 1] = y;
    if (z < binBounds[k + 2]) binBounds[k + 2] = z;
    if (x > binBounds[k + 3]) binBounds[k + 3] = x;
    if (y > binBounds[k + 4]) binBounds[k + 4] = y;
    if (z > binBounds[k + 5]) binBounds[k + 5] = z;
    const dx = x - x0,
      dy = y - y0,
      dz = z - z0;
    sx += dx;
    sy += dy;
    sz += dz;
    sxx += dx * dx;
    syy += dy * dy;
    szz += dz * dz;
  }
  const min: [number, number, number] = [Infinity, Infinity, Infinity];
  const max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  let maxRadius = 0;
  for (let bin = 0; bin < LOG2_BINS; bin++) {
    if (log2Hist[bin] === 0) continue;
    for (let a = 0; a < 3; a++) {
      min[a] = Math.min(min[a], binBounds[6 * bin + a]);
      max[a] = Math.max(max[a], binBounds[6 * bin + 3 + a]);
    }
    maxRadius = Math.max(maxRadius, log2MaxRadius[bin]);
  }
  const variance = (sum: number, squares: number): number =>
    count > 0 ? Math.max(0, squares / count - (sum / count) ** 2) : 0;
  const { binSpacing, centres: sampleCentres } = octaveDensity(spheres, samples, log2Hist);
  return {
    count,
    min,
    max,
    maxRadius,
    log2Hist,
    log2MaxRadius,
    variance: [variance(sx, sxx), variance(sy, syy), variance(sz, szz)],
    binBounds,
    binSpacing,
    sampleCentres,
  };
}

function checkCount(argument: string, count: number, maxRecords: number): void {
  if (count > maxRecords) throw new CapacityError(argument, count, maxRecords, RULES.capacity);
}

/**
 * Validates AABBs (minX, minY, minZ, maxX, maxY, maxZ) and packs them for the GPU as
 * (min, 0), (max, 0).
 */
export function validateAabbs(argument: string, value: unknown, maxRecords = Infinity): Float32Array {
  const boxes = checkFloat32Array(argument, value, STRIDE.aabb);
  const count = boxes.length / STRIDE.aabb;
  checkCount(argument, count, maxRecords);
  const packed = new Float32Array(GPU_STRIDE.aabb * count);
  for (let k = 0; k < count; k++) {
    const o = STRIDE.aabb * k;
    for (let a = 0; a < 6; a++) {
      const v = boxes[o + a];
      checkValue(argument, k, v, `value ${a}`);
    }
    for (let a = 0; a < 3; a++) {
      if (boxes[o + a] > boxes[o + 3 + a]) {
        throw new InvalidInputError(
          argument,
          k,
          RULES.minMax,
          `axis ${'xyz'[a]}: min ${boxes[o + a]} > max ${boxes[o + 3 + a]}`,
        );
      }
      packed[GPU_STRIDE.aabb * k + a] = boxes[o + a];
      packed[GPU_STRIDE.aabb * k + 4 + a] = boxes[o + 3 + a];
    }
  }
  return packed;
}

/**
 * Validates oriented boxes (centre, half extents, rotation quaternion x, y, z, w) and packs them
 * for the GPU as (centre, 0), (half extents, 0), (unit quaternion). The quaternion is normalised
 * here, in double precision; a zero one is an error.
 */
export function validateOrientedBoxes(argument: string, value: unknown, maxRecords = Infinity): Float32Array {
  const boxes = checkFloat32Array(argument, value, STRIDE.orientedBox);
  const count = boxes.length / STRIDE.orientedBox;
  checkCount(argument, count, maxRecords);
  const packed = new Float32Array(GPU_STRIDE.orientedBox * count);
  for (let k = 0; k < count; k++) {
    const o = STRIDE.orientedBox * k;
    const p = GPU_STRIDE.orientedBox * k;
    for (let a = 0; a < 10; a++) {
      const v = boxes[o + a];
      // The quaternion is normalised in double precision, so only its finiteness matters.
      if (a < 6) checkValue(argument, k, v, `value ${a}`);
      else if (v - v !== 0) throw new InvalidInputError(argument, k, RULES.finite, `value ${a} is ${v}`);
    }
    for (let a = 0; a < 3; a++) {
      if (boxes[o + 3 + a] < 0)
        throw new InvalidInputError(argument, k, RULES.halfExtent, `axis ${'xyz'[a]}: ${boxes[o + 3 + a]}`);
      checkSize(argument, k, boxes[o + 3 + a], `half extent ${'xyz'[a]}`);
      packed[p + a] = boxes[o + a];
      packed[p + 4 + a] = boxes[o + 3 + a];
    }
    const length = Math.hypot(boxes[o + 6], boxes[o + 7], boxes[o + 8], boxes[o + 9]);
    if (length === 0) throw new InvalidInputError(argument, k, RULES.quaternion);
    for (let a = 0; a < 4; a++) packed[p + 8 + a] = boxes[o + 6 + a] / length;
  }
  return packed;
}

/**
 * What a box query's grid plans its cells for (src/spatial/plan.ts, estimateBoxCost): the enclosing
 * AABBs of up to BOX_SAMPLE boxes, evenly spaced through `packed` (validated boxes in the GPU
 * layout; an oriented box's half extent on world axis a is Σ_b |R_ab| h_b).
 */
export function boxSampleOf(kind: 'aabb' | 'obb', packed: Float32Array): BoxSample {
  const stride = kind === 'aabb' ? GPU_STRIDE.aabb : GPU_STRIDE.orientedBox;
  const count = packed.length / stride;
  const sampled = Math.min(count, BOX_SAMPLE);
  const lo = new Float64Array(3 * sampled);
  const hi = new Float64Array(3 * sampled);
  for (let s = 0; s < sampled; s++) {
    const o = stride * Math.floor((s * count) / sampled);
    if (kind === 'aabb') {
      for (let a = 0; a < 3; a++) {
        lo[3 * s + a] = packed[o + a];
        hi[3 * s + a] = packed[o + 4 + a];
      }
      continue;
    }
    const [x, y, z, w] = [packed[o + 8], packed[o + 9], packed[o + 10], packed[o + 11]];
    const h = [packed[o + 4], packed[o + 5], packed[o + 6]];
    // The rotation's rows (world axis a) against the box's axes b.
    const R = [
      [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
      [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
      [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ];
    for (let a = 0; a < 3; a++) {
      const e = Math.abs(R[a][0]) * h[0] + Math.abs(R[a][1]) * h[1] + Math.abs(R[a][2]) * h[2];
      lo[3 * s + a] = packed[o + a] - e;
      hi[3 * s + a] = packed[o + a] + e;
    }
  }
  return { count, lo, hi };
}

/** What validation of rays or casts learns: the packed records and their extent. */
export interface CastBatch {
  packed: Float32Array;
  count: number;
  /** Largest |coordinate| of any A or B. */
  maxAbs: number;
  /** Longest |AB|. */
  maxLength: number;
  /** Sum of |AB|. */
  totalLength: number;
}

/**
 * Validates rays (A, B: stride 6) or sphere casts (A, B, radius: stride 7) and packs them for
 * the GPU as (A, radius), (B, 0).
 */
export function validateCasts(argument: string, value: unknown, stride: 6 | 7, maxRecords = Infinity): CastBatch {
  const casts = checkFloat32Array(argument, value, stride);
  const count = casts.length / stride;
  checkCount(argument, count, maxRecords);
  const packed = new Float32Array(GPU_STRIDE.cast * count);
  let maxAbs = 0;
  let maxLength = 0;
  let totalLength = 0;
  for (let k = 0; k < count; k++) {
    const o = stride * k;
    for (let a = 0; a < stride; a++) {
      const v = casts[o + a];
      checkValue(argument, k, v, `value ${a}`);
      if (a < 6) maxAbs = Math.max(maxAbs, Math.abs(v));
    }
    if (stride === 7 && casts[o + 6] < 0) throw new InvalidInputError(argument, k, RULES.radius, `got ${casts[o + 6]}`);
    if (stride === 7) checkSize(argument, k, casts[o + 6], 'radius');
    const p = GPU_STRIDE.cast * k;
    packed[p] = casts[o];
    packed[p + 1] = casts[o + 1];
    packed[p + 2] = casts[o + 2];
    packed[p + 3] = stride === 7 ? casts[o + 6] : 0;
    packed[p + 4] = casts[o + 3];
    packed[p + 5] = casts[o + 4];
    packed[p + 6] = casts[o + 5];
    const length = Math.hypot(casts[o + 3] - casts[o], casts[o + 4] - casts[o + 1], casts[o + 5] - casts[o + 2]);
    // A segment shorter than 2^-60 would have an f32 length that underflows: refused like a radius that small.
    checkSize(argument, k, length, 'length |AB|');
    maxLength = Math.max(maxLength, length);
    totalLength += length;
  }
  return { packed, count, maxAbs, maxLength, totalLength };
}

/**
 * The grid tuning a Collider or a ParticleWorld accepts (`options.grid`): levelStep an integer
 * number of octaves per level in 1–8, denseFactor a finite number ≥ 0 (0: always hashed). Anything else would drop
 * pairs (a fractional step) or fail deep inside the plan.
 */
export function checkGridOptions(argument: string, value: unknown): { levelStep?: number; denseFactor?: number } {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null)
    throw new InvalidInputError(
      argument,
      -1,
      RULES.option,
      `expected an object, got ${value === null ? 'null' : typeof value}`,
    );
  const grid = value as { levelStep?: unknown; denseFactor?: unknown };
  const levelStep = grid.levelStep;
  if (
    levelStep !== undefined &&
    (typeof levelStep !== 'number' || !Number.isInteger(levelStep) || levelStep < 1 || levelStep > 8)
  ) {
    throw new InvalidInputError(
      `${argument}.levelStep`,
      -1,
      RULES.option,
      `expected an integer in [1, 8], got ${String(levelStep)}`,
    );
  }
  const denseFactor = checkNumber(`${argument}.denseFactor`, grid.denseFactor, 0, 2 ** 32);
  return { levelStep: levelStep as number | undefined, denseFactor };
}

/**
 * `options.device`, when given, must be a GPUDevice (duck-typed: its queue and createBuffer; the
 * GPUDevice class is not a global in every host). Undefined asks the host for one.
 */
export function checkDevice(argument: string, value: unknown): GPUDevice | undefined {
  if (value === undefined) return undefined;
  const device = value as { queue?: unknown; createBuffer?: unknown; createComputePipeline?: unknown };
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof device.createBuffer !== 'function' ||
    typeof device.createComputePipeline !== 'function' ||
    typeof device.queue !== 'object'
  ) {
    const got =
      value === null
        ? 'null'
        : typeof value === 'object'
          ? ((value as object).constructor?.name ?? 'object')
          : typeof value;
    throw new InvalidInputError(argument, -1, RULES.device, `got ${got}`);
  }
  return value as GPUDevice;
}

/** A finite number option in [min, max] (or undefined). */
export function checkNumber(
  argument: string,
  value: unknown,
  min: number,
  max: number,
  minExclusive = false,
): number | undefined {
  if (value === undefined) return undefined;
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value < min ||
    value > max ||
    (minExclusive && value === min)
  ) {
    const range = `${minExclusive ? '(' : '['}${min}, ${max}]`;
    throw new InvalidInputError(
      argument,
      -1,
      RULES.option,
      `expected a finite number in ${range}, got ${String(value)}`,
    );
  }
  return value;
}

/** A vector of `length` finite numbers (array or typed array), or undefined. */
export function checkVector(
  argument: string,
  value: unknown,
  length: number,
  rule: string = RULES.vector,
): number[] | undefined {
  if (value === undefined) return undefined;
  const list = ArrayBuffer.isView(value) ? Array.from(value as unknown as ArrayLike<number>) : value;
  if (
    !Array.isArray(list) ||
    list.length !== length ||
    !list.every((v) => typeof v === 'number' && Number.isFinite(v))
  ) {
    throw new InvalidInputError(argument, -1, rule, `expected ${length} finite numbers, got ${String(value)}`);
  }
  return list as number[];
}

/** An optional result array of the caller's: a Uint32Array (not detached). */
export function checkOutArray(argument: string, value: unknown): Uint32Array | undefined;
export function checkOutArray<T extends Uint32Array | Int32Array | Float32Array>(
  argument: string,
  value: unknown,
  type: { new (length: number): T },
): T | undefined;
export function checkOutArray(
  argument: string,
  value: unknown,
  type: { new (length: number): ArrayBufferView } = Uint32Array,
): ArrayBufferView | undefined {
  if (value === undefined) return undefined;
  if (!(value instanceof type)) {
    const got =
      value === null
        ? 'null'
        : typeof value === 'object'
          ? ((value as object).constructor?.name ?? 'object')
          : typeof value;
    throw new InvalidInputError(argument, -1, RULES.out, `got ${got}`);
  }
  if (value.buffer.byteLength === 0 && isDetached(value.buffer))
    throw new InvalidInputError(argument, -1, RULES.detached);
  return value;
}

/**
 * A call's options argument: an object, or undefined for none ({}). Anything else (null, a
 * number) is an option error naming the argument, not a TypeError from reading its fields.
 */
export function checkOptions<T extends object>(argument: string, value: T | undefined): T {
  if (value === undefined) return {} as T;
  if (typeof value !== 'object' || value === null) {
    throw new InvalidInputError(
      argument,
      -1,
      RULES.option,
      `expected an options object or undefined, got ${value === null ? 'null' : typeof value}`,
    );
  }
  return value;
}

/** A boolean option (or undefined). */
export function checkBoolean(argument: string, value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean')
    throw new InvalidInputError(argument, -1, RULES.option, `expected true or false, got ${JSON.stringify(value)}`);
  return value;
}

/** The caller's command encoder of an encode call (checked before anything is recorded or changed). */
export function checkEncoder(value: unknown): GPUCommandEncoder {
  const encoder = value as GPUCommandEncoder | undefined;
  if (
    !encoder ||
    typeof encoder !== 'object' ||
    typeof encoder.beginComputePass !== 'function' ||
    typeof encoder.copyBufferToBuffer !== 'function'
  ) {
    throw new InvalidInputError('encoder', -1, RULES.encoder, `got ${String(value)}`);
  }
  return encoder;
}

/** An integer option in [min, max] (or undefined); min is 0 unless given. */
export function checkPositiveInteger(
  argument: string,
  value: unknown,
  max = Number.MAX_SAFE_INTEGER,
  min = 0,
): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new InvalidInputError(
      argument,
      -1,
      RULES.option,
      `expected an integer in [${min}, ${max}], got ${String(value)}`,
    );
  }
  return value;
}

export function checkOneOf<T extends string>(argument: string, value: unknown, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !allowed.includes(value as T)) {
    throw new InvalidInputError(
      argument,
      -1,
      RULES.option,
      `expected one of ${allowed.map((a) => `'${a}'`).join(', ')}, got ${JSON.stringify(value)}`,
    );
  }
  return value as T;
}
