/**
 * Planning the grid broad phase on the CPU, from the stats that validation gathered in its one
 * pass over the spheres. The GPU passes and the CPU reference grid both run from a plan, so the
 * two build exactly the same grid.
 *
 * The grid has levels: level k has cubic cells of side 2^(e0 + step·k) and holds the spheres
 * whose diameter fits a cell but not the level below's (the finest level also takes the
 * smaller ones, the coarsest the larger ones). `step`, the octaves of radius per level, is
 * chosen by a cost estimate (estimateCost): one octave per level for a narrow radius range,
 * coarser steps when radii spread over many octaves. A sphere finds its partners by visiting, in its
 * own level and in every coarser non-empty level b, the cells that overlap its box
 * p ± (r + maxRadius_b). Pairs within a level are reported by the member that comes first in
 * cell order; pairs across levels by the finer member. So a few giants sit alone in a coarse
 * level: small spheres look them up in ≤ 27 coarse cells each, and nothing is quadratic.
 *
 * Correctness never depends on the cell size: `cellOf` is monotonic in each coordinate (a
 * rounded subtraction and multiplication, a floor and a clamp), so a sphere inside another's
 * box always falls in a cell inside the box's cell range. Cell sizes only decide the cost.
 *
 * Each level covers only where its own spheres are, when validation gathered the centres'
 * bounds per octave (one-shot queries): a blob of 50,000 tiny spheres inside a box of large ones
 * gets a level of cells its own size over the blob alone, so its spheres are not tested against
 * each other as if they shared a cell. A particle world's particles move, so its levels all
 * cover its bounds.
 *
 * Points and tiny spheres do not choose the finest cells. A radius-0 sphere's octave is −127,
 * so, left to the smallest radius, level 0 would sink as far as the other rules let it (15
 * octaves below the largest radius, or 2^24 cells per axis), and anything that walks every level
 * (a world's particles, a box, a cast) would walk (2r / cell)² rows of it: 10^9 for r = 0.5 in
 * cells of 2^-15. So no level has finer cells than those that cover its bounds with
 * CELLS_PER_SPHERE cells per sphere of the level (finer cells separate evenly spread spheres no
 * better). A world, whose levels all span its bounds, applies that floor to level 0 alone, with
 * all N particles, and only when the radii spread over more than SPREAD_OCTAVES: the spheres
 * below that size share level 0, and the cost estimate chooses the levels above it.
 *
 * A box query plans for its boxes (planGrid's `boxes`): its spheres are not paired with each
 * other, so the estimate that chooses is the boxes' walk (estimateBoxCost: rows and candidates
 * of a sample of the boxes, and the buckets to scan), over the same plans and plans with cells up
 * to MAX_BOX_COARSEN octaves coarser. Points on a lattice keep cells of their spacing / 8 for
 * pairs, where a box a few spacings across would walk hundreds of rows; a box query takes
 * cells nearer the boxes' size.
 *
 * Cells map to buckets. When the levels' cells are few enough (≤ denseFactor × N), the grid is
 * dense: one bucket per cell, the bucket of a cell its linear index. Otherwise (a sparse scene,
 * far outliers) there are a power of two of buckets, about 2N: rows of cells (fixed level, y, z)
 * are placed by a hash and cells along x stay consecutive. Collisions are harmless: candidates
 * are filtered by their true cell, and a bucket range is never walked twice for one row.
 */
import { LOG2_BIAS, LOG2_BINS, MAX_LEVELS, MAX_CELLS_PER_AXIS, ceilLog2 } from './level.js';
import type { SphereStats, BoxSample } from './stats.js';
import type { GridLevelPlan, GridPlan, PlanOptions } from './planTypes.js';

export { BOX_SAMPLE, type BoxSample } from './stats.js';

export type { GridLevelPlan, GridPlan, PlanOptions } from './planTypes.js';

export const nextPow2 = (n: number): number => 2 ** Math.ceil(Math.log2(Math.max(1, n)));
const prevPow2 = (n: number): number => 2 ** Math.floor(Math.log2(Math.max(1, n)));
const f32 = Math.fround;
const F32_MAX = 3.4028234663852886e38;

/**
 * Relative costs in the estimate that chooses the levels and the cell size: visiting a row of
 * cells (two dependent reads of cellStart, loop set-up) against testing one candidate (a
 * 16-byte read and the test). Fitted on SwiftShader from the uniform scene at 100k with cells
 * of 2 and 4 radii (bench/, docs/PERFORMANCE.md): about equal. On a GPU both are one or two
 * memory transactions, so equal weights are a fair guess there too.
 */
export const ROW_COST = 1;
export const CANDIDATE_COST = 1;
/**
 * A hashed grid filters every candidate by its own cell and loses the dense grid's locality;
 * on SwiftShader a hashed narrow phase runs about 2–3× the estimate of the same visits dense.
 */
export const HASHED_COST_FACTOR = 2.5;
/**
 * Level 0 never has finer cells than those that cover the bounds with this many cells per sphere
 * (cells are powers of two, so it has between 1/8 of that and that many). Scenes with radii of
 * one size, or small radii packed as densely as the bounds suggest, keep their own cells; points
 * and spheres far smaller than the spacing of the rest share cells of that spacing / 8.
 */
export const CELLS_PER_SPHERE = 512;
/**
 * Radii spanning at most this many octaves (the smallest's ceilLog2 at most 6 below the
 * largest's: 1:100 mixtures included) size the cells by themselves, as the cost estimate chooses:
 * a sphere of the largest radius then walks at most about (2^6 + 2)² rows in any finer level.
 * Wider spreads (points, dust among boulders) bring in the CELLS_PER_SPHERE floor.
 */
export const SPREAD_OCTAVES = 6;

/**
 * The scan of the bucket offsets against a row or candidate visit: on SwiftShader 531k buckets
 * scan in about 2.2 ms where a visit costs about 90 ns (100k spheres, uniform), so a bucket is
 * about 0.05 of a visit. Only box queries weigh it (estimateBoxCost), since they choose among
 * cell sizes that change the bucket count by 8× an octave.
 */
export const BUCKET_COST = 0.05;
/** How many octaves coarser than the pair plans' cells a box query's plan may take. */
export const MAX_BOX_COARSEN = 12;
/**
 * The grid plan for these spheres: for sphere pairs (and casts, and a world), the cheapest by
 * estimateCost; for a box query (`boxes`), the cheapest by estimateBoxCost among the same plans
 * and those with cells up to MAX_BOX_COARSEN octaves coarser.
 */
export function planGrid(stats: SphereStats, options: PlanOptions = {}, boxes?: BoxSample): GridPlan {
  const cFloor = stats.binBounds ? -Infinity : countFloor(stats);
  let best: GridPlan | null = null;
  let bestCost = Infinity;
  const estimate = boxes
    ? (plan: GridPlan): number => estimateBoxCost(plan, stats, boxes)
    : (plan: GridPlan): number => estimateCost(plan, stats);
  // Levels one octave of radius apart (step 1) keep candidates few but make small spheres visit
  // many levels; coarser steps trade those rows for candidates. Take the cheapest estimate.
  let bestShape = { step: 1, shift: 0, cellShift: 0 };
  const consider = (shape: typeof bestShape, coarsen = 0): GridPlan => {
    const plan = planWithStep(stats, options, shape.step, shape.shift, shape.cellShift, cFloor, coarsen);
    const cost = estimate(plan);
    if (cost < bestCost * 0.95) {
      best = plan;
      bestCost = cost;
      bestShape = shape;
    }
    return plan;
  };
  for (const cellShift of [0, 1]) {
    if (options.levelStep !== undefined) {
      consider({ step: options.levelStep, shift: 0, cellShift });
      continue;
    }
    for (let step = 1; step <= 24; step++) {
      let single = false;
      for (let shift = 0; shift < step; shift++) {
        if (consider({ step, shift, cellShift }).levels.length === 1) single = true;
      }
      if (single) break; // one level holds every radius: coarser steps change nothing
    }
  }
  if (boxes && boxes.lo.length > 0) {
    // Then the best of those with every level's cells coarser, an octave at a time, while the
    // finest level's cells stay within half the boxes' median extent: the estimate spreads an
    // octave's spheres over its bounds, and clusters far apart (one bounds for all) would make
    // cells larger than the boxes look cheaper than they are.
    const shape = bestShape;
    const sampled = boxes.lo.length / 3;
    const extents = Array.from(
      { length: sampled },
      (_, k) =>
        (boxes.hi[3 * k] -
          boxes.lo[3 * k] +
          boxes.hi[3 * k + 1] -
          boxes.lo[3 * k + 1] +
          boxes.hi[3 * k + 2] -
          boxes.lo[3 * k + 2]) /
        3,
    ).sort((a, b) => a - b);
    const largest = extents[Math.floor(sampled / 2)] / 2;
    for (let coarsen = 1; coarsen <= MAX_BOX_COARSEN; coarsen++) {
      const plan = planWithStep(stats, options, shape.step, shape.shift, shape.cellShift, cFloor, coarsen);
      const finest = plan.levels.find((l) => l.count > 0);
      if (!finest || finest.cellSize > largest) break;
      consider(shape, coarsen);
      if (plan.levels.every((l) => l.count === 0 || l.dims.every((d) => d === 1))) break; // one cell a level: coarser changes nothing
    }
  }
  return best!;
}

/** The level of radius bin c (ceilLog2 r) in a plan: the twin of WGSL `sphereLevel`. */
export function levelOfLog2(c: number, levelBias: number, levelStep: number, levelCount: number): number {
  const d = c - levelBias;
  if (d <= 0) return 0;
  return Math.min(Math.floor((d + levelStep - 1) / levelStep), levelCount - 1);
}

/** Cells per axis of a level with cells of side 2^e from `origin` to `max` (the plan's `dims`). */
function dimsAt(max: readonly number[], origin: readonly number[], e: number): [number, number, number] {
  const inv = 2 ** -e;
  return [0, 1, 2].map((a) => Math.min(Math.floor(f32(f32(max[a] - origin[a]) * inv)) + 1, MAX_CELLS_PER_AXIS)) as [
    number,
    number,
    number,
  ];
}

/**
 * The smallest cell exponent e whose cells cover [origin, max] with at most `budget` cells;
 * −Infinity when every size does (the centres at one point).
 */
function floorExponent(max: readonly number[], origin: readonly number[], budget: number): number {
  let extent = 0;
  for (let a = 0; a < 3; a++) extent = Math.max(extent, f32(max[a] - origin[a]));
  if (!(extent > 0)) return -Infinity;
  const cells = (e: number): number => dimsAt(max, origin, e).reduce((p, d) => p * d, 1);
  // Cells of 2^(ceilLog2(extent) + 1) leave one per axis; halve them while the budget allows.
  let e = ceilLog2(extent) + 1;
  while (e > -125 && cells(e - 1) <= budget) e--;
  return e;
}

/**
 * The smallest cell exponent e whose cells are at least spacing / ∛CELLS_PER_SPHERE (so about
 * CELLS_PER_SPHERE cells a sphere where the spheres lie); −Infinity for a spacing of 0 (centres
 * that coincide) or none measured (Infinity, NaN).
 */
function spacingExponent(spacing: number): number {
  return spacing > 0 && spacing < Infinity ? Math.ceil(Math.log2(spacing / Math.cbrt(CELLS_PER_SPHERE))) : -Infinity;
}

/**
 * The lowest octave c0 may take so that level 0's cells (2^(c0 + 1) or larger) cover the bounds
 * with at most CELLS_PER_SPHERE × N cells; −Infinity when any cell size does (no spheres, or all
 * centres at one point).
 */
export function countFloor(stats: SphereStats): number {
  const { count, min } = stats;
  if (count === 0) return -Infinity;
  return floorExponent(stats.max, [f32(min[0]), f32(min[1]), f32(min[2])], CELLS_PER_SPHERE * count) - 1;
}

/**
 * A plan with `step` octaves per level, level 0 taking the `shift + 1` smallest octaves (at or
 * above `cFloor`, see countFloor, when the radii spread wide), and cells 2^cellShift times the
 * smallest that fit their level's largest sphere (then 2^coarsen times that: box queries).
 */
function planWithStep(
  stats: SphereStats,
  options: PlanOptions,
  step: number,
  shift: number,
  cellShift: number,
  cFloor: number,
  coarsen = 0,
): GridPlan {
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

  // Level 0 holds ceilLog2(r) ≤ c0; level L holds c0 + step·(L−1) < ceilLog2(r) ≤ c0 + step·L,
  // with cells of side 2^(c0 + step·L + 1). Level 0 takes the `shift + 1` smallest octaves from
  // the smallest radius' or, when the radii spread over more than SPREAD_OCTAVES and it is
  // higher, cFloor (points and tiny spheres, whatever their octave, share cells of the scene's
  // spacing / 8: see countFloor), though never past the largest radius; c0 is raised further so
  // that (1) at most MAX_LEVELS levels reach the largest radius, (2) level 0 has at most 2^24
  // cells per axis (so every centre lands in its own cell, none clamped into an edge cell with
  // the rest: all-zero radii and far outliers included), (3) cell sizes stay normal floats.
  let extent = 0;
  for (let a = 0; a < 3; a++) extent = Math.max(extent, count ? f32(max[a] - min[a]) : 0);
  const cExtent = extent > 0 ? ceilLog2(extent) : -LOG2_BIAS;
  const cLow = cMin < cMax - SPREAD_OCTAVES ? Math.max(cMin, cFloor) : cMin;
  const c0 = Math.max(
    Math.min(cLow + shift, cMax),
    cMax - step * (MAX_LEVELS - 1),
    cExtent - Math.log2(MAX_CELLS_PER_AXIS) - 1,
    -121,
  );
  const levelCount = Math.max(1, Math.ceil((cMax - c0) / step) + 1);

  // Each level's members, largest radius and centres' bounds (from its octaves' bounds, or all
  // the centres' when the stats have none per octave).
  const members = Array.from({ length: levelCount }, () => ({
    count: 0,
    maxRadius: 0,
    spacing: Infinity,
    lo: [Infinity, Infinity, Infinity],
    hi: [-Infinity, -Infinity, -Infinity],
  }));
  const { binBounds, binSpacing } = stats;
  for (let bin = 0; bin < LOG2_BINS; bin++) {
    const n = stats.log2Hist[bin];
    if (n === 0) continue;
    const m = members[levelOfLog2(bin - LOG2_BIAS, c0, step, levelCount)];
    m.count += n;
    m.maxRadius = Math.max(m.maxRadius, stats.log2MaxRadius[bin]);
    // The densest of its octaves' spacings (an octave too small to measure adds none).
    if (binSpacing && binSpacing[bin] >= 0) m.spacing = Math.min(m.spacing, binSpacing[bin]);
    for (let a = 0; a < 3; a++) {
      m.lo[a] = Math.min(m.lo[a], binBounds ? binBounds[6 * bin + a] : min[a]);
      m.hi[a] = Math.max(m.hi[a], binBounds ? binBounds[6 * bin + 3 + a] : max[a]);
    }
  }
  const levels: GridLevelPlan[] = members.map((m, k) => {
    // The GPU reads the origin as f32: round it here so the CPU twin's cells are the GPU's.
    const origin: [number, number, number] = m.count ? [f32(m.lo[0]), f32(m.lo[1]), f32(m.lo[2])] : [0, 0, 0];
    // The top level needs cells no larger than its largest radius' octave asks for, unless the
    // extent asks for coarser ones (level 0 then holds every radius); with bounds per level, no
    // finer than CELLS_PER_SPHERE cells a sphere where its spheres lie: the finer of that floor
    // over the level's bounds and over its measured spacing (a few far outliers or far-apart
    // clusters inflate the bounds, and a floor from them alone could put 200,000 spheres in one cell).
    let e = Math.min(c0 + step * k, Math.max(cMax, c0), 126 - cellShift) + 1 + cellShift;
    if (binBounds && m.count)
      e = Math.min(
        Math.max(e, Math.min(floorExponent(m.hi, origin, CELLS_PER_SPHERE * m.count), spacingExponent(m.spacing))),
        127,
      );
    e = Math.min(e + coarsen, 127);
    const dims: [number, number, number] = m.count ? dimsAt(m.hi, origin, e) : [1, 1, 1];
    const lower: [number, number, number] = binBounds && m.count ? origin : [-F32_MAX, -F32_MAX, -F32_MAX];
    const upper: [number, number, number] =
      binBounds && m.count ? [f32(m.hi[0]), f32(m.hi[1]), f32(m.hi[2])] : [F32_MAX, F32_MAX, F32_MAX];
    return {
      origin,
      lower,
      upper,
      cellSize: 2 ** e,
      invCellSize: 2 ** -e,
      maxRadius: m.maxRadius,
      count: m.count,
      dims,
      keyBase: 0,
    };
  });

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

  return { sphereCount: count, levelBias: c0, levelStep: step, levels, bucketCount, bucketMask, dense };
}

/** The stats' non-empty octaves of radius: count, largest radius, level in `plan`, centres' bounds (the scene's without bounds per octave). */
function octaveBins(
  plan: GridPlan,
  stats: SphereStats,
): { count: number; radius: number; level: number; lo: number[]; hi: number[] }[] {
  const bins: { count: number; radius: number; level: number; lo: number[]; hi: number[] }[] = [];
  for (let bin = 0; bin < LOG2_BINS; bin++) {
    const count = stats.log2Hist[bin];
    if (count === 0) continue;
    const b = stats.binBounds;
    bins.push({
      count,
      radius: stats.log2MaxRadius[bin],
      level: levelOfLog2(bin - LOG2_BIAS, plan.levelBias, plan.levelStep, plan.levels.length),
      lo: b ? [b[6 * bin], b[6 * bin + 1], b[6 * bin + 2]] : stats.min,
      hi: b ? [b[6 * bin + 3], b[6 * bin + 4], b[6 * bin + 5]] : stats.max,
    });
  }
  return bins;
}

/**
 * Work the narrow phase would do with `plan`: for each octave of radius (a bin of the stats'
 * histogram) and each coarser-or-equal non-empty level b, the rows and candidates a typical
 * sphere of that octave visits in b. Candidates come from each octave j of level b whose bounds
 * meet the visiting octave's, as if its spheres spread evenly over its own bounds (each axis at
 * least a cell of b thick): so a blob of tiny spheres binned with large ones over the whole
 * scene costs what it would, its spheres sharing a few cells. Without bounds per octave (a
 * world) every octave spreads over the scene. Only used to compare plans of the same scene.
 */
export function estimateCost(plan: GridPlan, stats: SphereStats): number {
  const bins = octaveBins(plan, stats);
  const meet = (p: (typeof bins)[number], q: (typeof bins)[number], pad: number): boolean =>
    [0, 1, 2].every((a) => p.lo[a] <= q.hi[a] + pad && q.lo[a] <= p.hi[a] + pad);
  let cost = 0;
  for (const visitor of bins) {
    const radius = 0.75 * visitor.radius;
    for (let b = visitor.level; b < plan.levels.length; b++) {
      const lb = plan.levels[b];
      if (lb.count === 0) continue;
      const span = (2 * (radius + lb.maxRadius)) / lb.cellSize + 1;
      const perAxis = lb.dims.map((d) => Math.min(span, d));
      const rows = perAxis[1] * perAxis[2];
      const visited = rows * perAxis[0] * lb.cellSize ** 3;
      let candidates = 0;
      for (const other of bins) {
        if (other.level !== b || !meet(visitor, other, radius + lb.maxRadius)) continue;
        let volume = 1;
        for (let a = 0; a < 3; a++) volume *= Math.max(other.hi[a] - other.lo[a], lb.cellSize);
        candidates += Math.min(other.count, (other.count * visited) / volume);
      }
      cost += visitor.count * (ROW_COST * rows + CANDIDATE_COST * candidates) * (visitor.level === b ? 0.5 : 1);
    }
  }
  return plan.dense ? cost : cost * HASHED_COST_FACTOR;
}

/**
 * Work a box query's narrow phase would do with `plan`, in the units of estimateCost, plus the
 * scan of its buckets (BUCKET_COST each). Each sampled box, in each non-empty level its bounds
 * grown by the level's largest radius meet (the kernel skips the others), visits the rows of
 * cells that grown box covers within the level, or, when those rows outnumber the level's
 * spheres, the level's spheres directly (the kernel's levelScan). Its candidates come from each
 * octave of radius in the level, as if that octave's spheres spread evenly over its own centres'
 * bounds (each axis at least a cell thick), in proportion to the part of those bounds the cells
 * visited cover: so a box over a blob of tiny spheres in one coarse cell costs the blob. Scaled
 * from the sample to every box. Only used to compare plans of the same query.
 */
export function estimateBoxCost(plan: GridPlan, stats: SphereStats, boxes: BoxSample): number {
  const sampled = boxes.lo.length / 3;
  const bins = octaveBins(plan, stats);
  let walk = 0;
  for (let b = 0; b < plan.levels.length; b++) {
    const level = plan.levels[b];
    if (level.count === 0) continue;
    const c = level.cellSize;
    const R = level.maxRadius;
    const mine = bins.filter((bin) => bin.level === b);
    for (let k = 0; k < sampled; k++) {
      // The grown box, within the level's bounds (±F32_MAX for a world's levels).
      const lo = [0, 1, 2].map((a) => Math.max(boxes.lo[3 * k + a] - R, level.lower[a]));
      const hi = [0, 1, 2].map((a) => Math.min(boxes.hi[3 * k + a] + R, level.upper[a]));
      if (lo.some((v, a) => v > hi[a])) continue;
      const span = [0, 1, 2].map((a) => Math.min((hi[a] - lo[a]) / c + 1, level.dims[a]));
      const rows = span[1] * span[2];
      if (rows > level.count) {
        walk += CANDIDATE_COST * level.count;
        continue;
      }
      let candidates = 0;
      for (const bin of mine) {
        let part = 1;
        for (let a = 0; a < 3; a++) {
          // The bin's extent on this axis, at least a cell, and the cells visited (half a cell past the box each side, on average).
          const mid = 0.5 * (bin.lo[a] + bin.hi[a]);
          const half = 0.5 * Math.max(bin.hi[a] - bin.lo[a], c);
          const cover = Math.min(hi[a] + 0.5 * c, mid + half) - Math.max(lo[a] - 0.5 * c, mid - half);
          part *= Math.max(cover, 0) / (2 * half);
        }
        candidates += bin.count * Math.min(part, 1);
      }
      walk += ROW_COST * rows + CANDIDATE_COST * candidates;
    }
  }
  walk *= sampled > 0 ? boxes.count / sampled : 0;
  return BUCKET_COST * plan.bucketCount + (plan.dense ? walk : walk * HASHED_COST_FACTOR);
}
