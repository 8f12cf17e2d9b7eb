/**
 * Planning the grid broad phase on the CPU, from the stats that validation gathered in its one
 * pass over the spheres. The GPU passes and the CPU reference grid both run from a plan, so the
 * two build exactly the same grid.
 *
 * The grid has levels: level k has cubic cells of side 2^(e0+k) and holds the spheres whose
 * radius r ≤ 2^(e0+k-1), i.e. whose diameter fits a cell (the finest level also takes the
 * smaller ones, the coarsest the larger ones). A sphere finds its partners by visiting, in its
 * own level and in every coarser non-empty level b, the cells that overlap its box
 * p ± (r + maxRadius_b). Pairs within a level are reported by the member that comes first in
 * cell order; pairs across levels by the finer member. So a few giants sit alone in a coarse
 * level: small spheres look them up in ≤ 27 coarse cells each, and nothing is quadratic.
 *
 * Correctness never depends on the cell size: `cellOf` is monotonic in each coordinate (a
 * rounded subtraction and multiplication, a floor and a clamp), so a sphere inside another's
 * box always falls in a cell inside the box's cell range. Cell sizes only decide the cost.
 *
 * Cells map to buckets. When the levels' cells are few enough (≤ denseFactor × N), the grid is
 * dense: one bucket per cell, the bucket of a cell its linear index. Otherwise (a sparse scene,
 * far outliers) there are a power of two of buckets, about 2N: rows of cells (fixed level, y, z)
 * are placed by a hash and cells along x stay consecutive. Collisions are harmless: candidates
 * are filtered by their true cell, and a bucket range is never walked twice for one row.
 */
import { LOG2_BIAS, LOG2_BINS, MAX_LEVELS, MAX_CELLS_PER_AXIS, ceilLog2 } from './level.js';
import { packStruct, GridParams } from '../layout.js';
import type { SphereStats } from '../validate.js';

export interface GridLevelPlan {
  /** Cell side, a power of two. */
  cellSize: number;
  invCellSize: number;
  /** Largest radius among the spheres of this level (0 when empty). */
  maxRadius: number;
  count: number;
  /** Cells per axis (cell coordinates are clamped into [0, dims - 1]). */
  dims: [number, number, number];
  /** Dense mode: the bucket of this level's first cell. */
  keyBase: number;
}

export interface GridPlan {
  sphereCount: number;
  /** The local origin: the minimum corner of the centres' bounds. */
  origin: [number, number, number];
  /** A sphere's level is clamp(ceilLog2(r) - levelBias, 0, levels.length - 1). */
  levelBias: number;
  levels: GridLevelPlan[];
  /** Number of buckets: the number of cells when dense, else a power of two. */
  bucketCount: number;
  /** Bucket of a cell = (rowKey + x) & bucketMask: all ones when dense, bucketCount − 1 when hashed. */
  bucketMask: number;
  /** True when every cell has its own bucket (no hashing, no collisions). */
  dense: boolean;
}

export interface PlanOptions {
  /** Use the dense layout while total cells ≤ denseFactor × sphere count. Default 8. */
  denseFactor?: number;
  /** Most buckets the device can hold (a power of two). */
  maxBuckets?: number;
}

export const nextPow2 = (n: number): number => 2 ** Math.ceil(Math.log2(Math.max(1, n)));
const prevPow2 = (n: number): number => 2 ** Math.floor(Math.log2(Math.max(1, n)));
const f32 = Math.fround;

export function planGrid(stats: SphereStats, options: PlanOptions = {}): GridPlan {
  const { count, min, max } = stats;
  const denseFactor = options.denseFactor ?? 8;
  const maxBuckets = prevPow2(options.maxBuckets ?? 2 ** 28);

  let cMin = Infinity;
  let cMax = -Infinity;
  for (let bin = 0; bin < LOG2_BINS; bin++) {
    if (stats.log2Hist[bin] === 0) continue;
    cMin = Math.min(cMin, bin - LOG2_BIAS);
    cMax = Math.max(cMax, bin - LOG2_BIAS);
  }
  if (count === 0) cMin = cMax = -LOG2_BIAS;

  // Level 0 holds ceilLog2(r) ≤ c0; its cell side is 2^(c0+1). Raise c0 so that (1) at most
  // MAX_LEVELS levels reach the largest radius, (2) level 0 has at most 2^24 cells per axis,
  // (3) cell sizes stay normal floats.
  let extent = 0;
  for (let a = 0; a < 3; a++) extent = Math.max(extent, count ? f32(max[a] - min[a]) : 0);
  const cExtent = extent > 0 ? ceilLog2(extent) : -LOG2_BIAS;
  const c0 = Math.max(cMin, cMax - (MAX_LEVELS - 1), cExtent - Math.log2(MAX_CELLS_PER_AXIS) - 1, -121);
  const levelCount = Math.max(1, cMax - c0 + 1);

  const origin: [number, number, number] = count ? [min[0], min[1], min[2]] : [0, 0, 0];
  const levels: GridLevelPlan[] = [];
  for (let k = 0; k < levelCount; k++) {
    const e = Math.min(c0 + 1 + k, 127);
    const cellSize = 2 ** e;
    const invCellSize = 2 ** -e;
    const dims = [0, 1, 2].map((a) =>
      count ? Math.min(Math.floor(f32(f32(max[a] - origin[a]) * invCellSize)) + 1, MAX_CELLS_PER_AXIS) : 1,
    ) as [number, number, number];
    levels.push({ cellSize, invCellSize, maxRadius: 0, count: 0, dims, keyBase: 0 });
  }
  for (let bin = 0; bin < LOG2_BINS; bin++) {
    const n = stats.log2Hist[bin];
    if (n === 0) continue;
    const level = levels[Math.min(Math.max(bin - LOG2_BIAS - c0, 0), levelCount - 1)];
    level.count += n;
    level.maxRadius = Math.max(level.maxRadius, stats.log2MaxRadius[bin]);
  }

  let totalCells = 0;
  for (const level of levels) {
    if (level.count === 0) continue;
    level.keyBase = totalCells;
    totalCells += level.dims[0] * level.dims[1] * level.dims[2];
  }
  const hashedBuckets = Math.min(nextPow2(Math.max(2 * count, 64)), maxBuckets);
  const dense = totalCells <= Math.max(denseFactor * count, hashedBuckets) && totalCells <= maxBuckets;
  if (!dense) for (const level of levels) level.keyBase = 0;
  const bucketCount = dense ? Math.max(totalCells, 1) : hashedBuckets;
  const bucketMask = dense ? 0xffffffff : hashedBuckets - 1;

  return { sphereCount: count, origin, levelBias: c0, levels, bucketCount, bucketMask, dense };
}

/** The plan as the `GridParams` uniform the shaders read. */
export function gridParamsData(plan: GridPlan): ArrayBuffer {
  return packStruct(GridParams, {
    origin: plan.origin,
    sphereCount: plan.sphereCount,
    bucketMask: plan.bucketMask,
    levelBias: plan.levelBias,
    levelCount: plan.levels.length,
    dense: plan.dense ? 1 : 0,
    levels: plan.levels.map((l) => ({
      dims: l.dims,
      keyBase: l.keyBase,
      cellSize: l.cellSize,
      invCellSize: l.invCellSize,
      maxRadius: l.maxRadius,
      count: l.count,
    })),
  });
}
