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
import { RULES, MAX_MAGNITUDE, MIN_SIZE, checkValue, checkSize, checkFloat32Array } from './checks.js';

export type { SphereStats } from './spatial/stats.js';
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
      // The message only for a bad value: built for every value, it was most of the check's time.
      if (!(Math.abs(v) <= MAX_MAGNITUDE)) checkValue(argument, k, v, `value ${a}`);
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
      if (a < 6) {
        if (!(Math.abs(v) <= MAX_MAGNITUDE)) checkValue(argument, k, v, `value ${a}`);
      } else if (v - v !== 0) throw new InvalidInputError(argument, k, RULES.finite, `value ${a} is ${v}`);
    }
    for (let a = 0; a < 3; a++) {
      if (boxes[o + 3 + a] < 0)
        throw new InvalidInputError(argument, k, RULES.halfExtent, `axis ${'xyz'[a]}: ${boxes[o + 3 + a]}`);
      if (boxes[o + 3 + a] < MIN_SIZE) checkSize(argument, k, boxes[o + 3 + a], `half extent ${'xyz'[a]}`);
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
      const v = Math.abs(casts[o + a]);
      // The message only for a bad value: built for every value, it was most of the check's time.
      if (!(v <= MAX_MAGNITUDE)) checkValue(argument, k, casts[o + a], `value ${a}`);
      if (a < 6 && v > maxAbs) maxAbs = v;
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
    // Squares in double precision: coordinates within 2^60 cannot overflow them, and a length
    // from 2^-60 up cannot underflow (Math.hypot, which guards both, cost a third of the check).
    const dx = casts[o + 3] - casts[o];
    const dy = casts[o + 4] - casts[o + 1];
    const dz = casts[o + 5] - casts[o + 2];
    const length = Math.sqrt(dx * dx + dy * dy + dz * dz);
    // A segment shorter than 2^-60 would have an f32 length that underflows: refused like a radius that small.
    checkSize(argument, k, length, 'length |AB|');
    if (length > maxLength) maxLength = length;
    totalLength += length;
  }
  return { packed, count, maxAbs, maxLength, totalLength };
}
