/**
 * The integer math that assigns a sphere to a grid level, shared by validation (which builds
 * the radius histogram), the planner and the CPU reference. The WGSL twin is `ceilLog2` in
 * shaders/spatial/grid.wgsl.ts; both read the float's bits, so they agree exactly.
 */

/** Most grid levels a plan uses (cell sizes 2^e0 .. 2^(e0+15)); wider radius ranges share the top. */
export const MAX_LEVELS = 16;

/**
 * Query boxes are inflated by this factor so that rounding in `r_i + maxRadius` can never shrink
 * them below the exact sum (two f32 roundings are at most 2^-23 relative; this is 2^-20).
 */
export const EXT_SCALE = 1 + 2 ** -20;

/** Cells per axis at most (so cell coordinates fit i32 and `f32(dims - 1)` is exact). */
export const MAX_CELLS_PER_AXIS = 2 ** 24;

/** Histogram bins: ceil(log2 r) ranges over -127 (zero and subnormal) .. 128. */
export const LOG2_BIAS = 127;
export const LOG2_BINS = 256;

/**
 * ceil(log2 r) for a non-negative f32 given as its bits: the exponent, plus one when any
 * mantissa bit is set. Zero and subnormals give -127 (they sit in the finest level).
 */
export function ceilLog2Bits(bits: number): number {
  const e = (bits >>> 23) & 0xff;
  if (e === 0) return -127;
  return e - 127 + ((bits & 0x7fffff) !== 0 ? 1 : 0);
}

const scratch = new Float32Array(1);
const scratchBits = new Uint32Array(scratch.buffer);

/** ceil(log2 r) of `r` rounded to f32 (the reference twin of WGSL `ceilLog2`). */
export function ceilLog2(r: number): number {
  scratch[0] = r;
  return ceilLog2Bits(scratchBits[0]);
}

/**
 * Cells per slab when a cast walks the grid along x (shaders/broadphase/grid/casts.wgsl.ts); 1 along y and z.
 * Buckets are consecutive along x, so a slab 4 cells thick costs the rows of a thin one: camera-
 * like rays along x visit 3x fewer rows.
 */
export const SLAB_X = 4;

/**
 * The radius bins (ceilLog2 r) of level b, [lo, hi] inclusive, open-ended (±2^30) at the first
 * and last level: levelOfLog2(c) === b exactly when lo ≤ c ≤ hi.
 */
export function log2RangeOfLevel(
  b: number,
  levelBias: number,
  levelStep: number,
  levelCount: number,
): [number, number] {
  const open = 2 ** 30;
  return [
    b === 0 ? -open : levelBias + (b - 1) * levelStep + 1,
    b === levelCount - 1 ? open : levelBias + b * levelStep,
  ];
}
