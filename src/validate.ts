/**
 * Input validation at the API boundary. Each check names the argument, the record and the rule
 * (InvalidInputError), so a caller can find the bad record without reading our code.
 *
 * The sphere check also gathers, in the same single pass, what the grid broad phase needs to
 * plan itself: the bounds of the centres and a histogram of the radii by power of two.
 */
import { InvalidInputError, CapacityError } from './errors.js';
import { STRIDE } from './layout.js';
import { ceilLog2Bits, LOG2_BINS, LOG2_BIAS } from './grid/level.js';

/** Rules, worded once so that messages and tests agree. */
export const RULES = {
  type: 'must be a Float32Array',
  stride: 'length must be a multiple of the record stride',
  finite: 'every value must be finite (no NaN or Infinity)',
  radius: 'radius must be >= 0',
  halfExtent: 'half extents must be >= 0',
  minMax: 'min must be <= max on every axis',
  quaternion: 'rotation quaternion must not be zero',
  capacity: 'more records than the device can hold',
  option: 'option out of range',
  detached: 'buffer is detached',
} as const;

export function checkFloat32Array(argument: string, value: unknown, stride: number): Float32Array {
  if (!(value instanceof Float32Array)) {
    const got = value === null ? 'null' : Array.isArray(value) ? 'Array' : typeof value === 'object' ? (value as object).constructor?.name ?? 'object' : typeof value;
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

/** What one pass over the spheres learns for the grid planner. */
export interface SphereStats {
  count: number;
  /** Bounds of the centres (not of the spheres). Infinity/-Infinity when empty. */
  min: [number, number, number];
  max: [number, number, number];
  maxRadius: number;
  /** hist[c + LOG2_BIAS] = number of radii r with ceil(log2 r) = c (zero and subnormal radii count in the lowest bin). */
  log2Hist: Uint32Array;
  /** Largest radius in each histogram bin. */
  log2MaxRadius: Float32Array;
}

/**
 * Validates a sphere array (x, y, z, radius per record) and gathers its stats in the same pass.
 * Throws on the first bad record. `maxRecords` is the device's limit for this argument.
 */
export function validateSpheres(argument: string, value: unknown, maxRecords = Infinity): SphereStats {
  const spheres = checkFloat32Array(argument, value, STRIDE.sphere);
  const count = spheres.length / STRIDE.sphere;
  if (count > maxRecords) {
    throw new CapacityError(`${argument}: ${RULES.capacity}`, count, maxRecords);
  }
  const bits = new Uint32Array(spheres.buffer, spheres.byteOffset, spheres.length);
  const log2Hist = new Uint32Array(LOG2_BINS);
  const log2MaxRadius = new Float32Array(LOG2_BINS);
  let minX = Infinity, minY = Infinity, minZ = Infinity;
  let maxX = -Infinity, maxY = -Infinity, maxZ = -Infinity;
  let maxRadius = 0;
  for (let i = 0, o = 0; i < count; i++, o += 4) {
    const x = spheres[o], y = spheres[o + 1], z = spheres[o + 2], r = spheres[o + 3];
    // x - x is 0 for finite x and NaN for NaN or ±Infinity: one test per value.
    if (x - x !== 0 || y - y !== 0 || z - z !== 0 || r - r !== 0) {
      throw new InvalidInputError(argument, i, RULES.finite, `got ${x}, ${y}, ${z}, ${r}`);
    }
    if (r < 0) throw new InvalidInputError(argument, i, RULES.radius, `got ${r}`);
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
    if (z < minZ) minZ = z;
    if (z > maxZ) maxZ = z;
    const bin = ceilLog2Bits(bits[o + 3]) + LOG2_BIAS;
    log2Hist[bin]++;
    if (r > log2MaxRadius[bin]) log2MaxRadius[bin] = r;
    if (r > maxRadius) maxRadius = r;
  }
  return { count, min: [minX, minY, minZ], max: [maxX, maxY, maxZ], maxRadius, log2Hist, log2MaxRadius };
}

/** A positive integer option (or undefined). */
export function checkPositiveInteger(argument: string, value: unknown, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max) {
    throw new InvalidInputError(argument, -1, RULES.option, `expected an integer in [0, ${max}], got ${String(value)}`);
  }
  return value;
}

export function checkOneOf<T extends string>(argument: string, value: unknown, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !allowed.includes(value as T)) {
    throw new InvalidInputError(argument, -1, RULES.option, `expected one of ${allowed.map((a) => `'${a}'`).join(', ')}, got ${JSON.stringify(value)}`);
  }
  return value as T;
}
