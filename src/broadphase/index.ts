/**
 * The broad phases behind one seam (src/broadphase/types.ts) and the rule 'auto' picks by.
 * Adding one: a module here implementing BroadPhase, its name in BROADPHASES (src/options.ts),
 * a line in `createBroadPhases`, and its place in `chooseBroadphase`.
 */
import { CapacityError, InvalidInputError } from '../errors.js';
import { RULES } from '../validate.js';
import { ALL_PAIRS_MAX_SPHERES } from '../passes/allPairs.js';
import { AUTO_GRID_MIN_SPHERES, AUTO_GRID_MIN_BOXES, type Broadphase } from '../options.js';
import { AllPairsBroadPhase } from './allPairs.js';
import { GridBroadPhase } from './grid.js';
import { SweepBroadPhase, sweepAxis } from './sweep.js';
import { BvhBroadPhase } from './bvh.js';
import type { GridPlan, PlanOptions } from '../grid/plan.js';
import type { CastBatch, SphereStats } from '../validate.js';
import { estimateGridCastWork, type CastShapeWithRecords } from './castCost.js';
import { LOG2_BINS, LOG2_BIAS, ceilLog2 } from '../grid/level.js';
import type { BroadPhase, BroadPhaseContext, BroadphaseName, QueryKind } from './types.js';

export type { BroadPhase, BroadPhaseContext, BroadphaseName, QueryKind, CastJob } from './types.js';
export { AllPairsBroadPhase } from './allPairs.js';
export { GridBroadPhase } from './grid.js';
export { SweepBroadPhase, sweepAxis, sweepSlack } from './sweep.js';
export { BvhBroadPhase, bvhMortonGrid, bvhPyramidLevels } from './bvh.js';

/** One instance of each broad phase, made for one owner (a Collider, a world's queries). */
export interface BroadPhases {
  'all-pairs': AllPairsBroadPhase;
  grid: GridBroadPhase;
  sweep: SweepBroadPhase;
  bvh: BvhBroadPhase;
}

export function createBroadPhases(context: BroadPhaseContext, planOptions: PlanOptions, label = 'sphere grid'): BroadPhases {
  return {
    'all-pairs': new AllPairsBroadPhase(context),
    grid: new GridBroadPhase(context, planOptions, label),
    sweep: new SweepBroadPhase(context),
    bvh: new BvhBroadPhase(context),
  };
}

export function destroyBroadPhases(phases: BroadPhases): void {
  for (const phase of Object.values(phases) as BroadPhase[]) phase.destroy();
}

/** What 'auto' knows of a cast batch: how many and their total length, and for one-shot calls the records and their extent. */
export type CastShape = Pick<CastBatch, 'count' | 'totalLength'> & Partial<Pick<CastBatch, 'packed' | 'maxLength' | 'maxAbs'>>;

/** What 'auto' knows of a query. */
export interface QueryShape {
  query: QueryKind;
  sphereCount: number;
  /** Boxes of a box query. */
  boxCount?: number;
  /** The casts of a cast query: how many, and their total length (or a bound on it). */
  casts?: CastShape;
  /** The grid plan the grid would use (asked for only when the grid is a candidate). */
  gridPlan: () => GridPlan;
  /** The spheres' statistics, when the host has them (the sweep is then a candidate for pairs). */
  stats?: SphereStats;
}

/**
 * 'auto' sweeps sphere pairs when each sphere's interval along the sweep axis meets at most this
 * many others (about): measured on SwiftShader at 100k spheres (docs/PERFORMANCE.md), the sweep
 * costs ~0.13 µs a sphere plus ~15 ns a candidate and the grid's walk ~0.7 µs a sphere, so they
 * cross near 38; 'auto' takes the sweep below 32.
 */
export const AUTO_SWEEP_MAX_CANDIDATES = 32;
/** …and only when the scene is this many times longer along the sweep axis than across it (so ties along the axis, as in a lattice, stay few). */
export const AUTO_SWEEP_MIN_ELONGATION = 4;

/**
 * The sweep's expected candidates a sphere, n·2r̄/L (r̄ the mean radius from the octave
 * histogram's upper ends, L the axis's extent from its variance as if uniform: √(12 var)), and
 * how elongated the scene is along the axis (L over the larger of the other two extents).
 */
export function sweepEstimate(stats: SphereStats): { candidates: number; elongation: number } {
  const extents = stats.variance.map((v) => Math.sqrt(12 * v));
  const axis = sweepAxis(stats);
  const across = Math.max(...extents.filter((_, a) => a !== axis));
  let radii = 0;
  stats.log2Hist.forEach((count, bin) => (radii += count * stats.log2MaxRadius[bin]));
  const meanRadius = stats.count > 0 ? radii / stats.count : 0;
  const length = extents[axis];
  return {
    candidates: length > 0 ? (stats.count * 2 * meanRadius) / length : Infinity,
    elongation: across > 0 ? length / across : length > 0 ? Infinity : 0,
  };
}

/**
 * What a cast batch costs each broad phase that serves casts, in brute force's unit (one cast
 * tested against one sphere): brute force casts × spheres; the grid its build and its walk
 * (estimateGridCastWork: slabs, rows and candidates); the BVH its build and a descent a cast of
 * about log2(spheres) nodes. Constants fitted on SwiftShader over the bench's scene kinds
 * (docs/PERFORMANCE.md, "Casts: 'auto'").
 */
export function castCosts(plan: GridPlan, stats: SphereStats, batch: CastShapeWithRecords): Record<'all-pairs' | 'grid' | 'bvh', number> {
  const n = stats.count;
  const work = estimateGridCastWork(plan, stats, batch);
  const walk = work.slabs + work.rows + work.candidates;
  return {
    'all-pairs': batch.count * n,
    grid: CAST_COST.gridFixed + CAST_COST.gridBuild * n + walk * (plan.dense ? CAST_COST.dense : CAST_COST.hashed),
    bvh: CAST_COST.bvhFixed + CAST_COST.bvhBuild * n + CAST_COST.bvhCast * batch.count * Math.log2(Math.max(n, 2)) + CAST_COST.bvhNear * work.near,
  };
}

/**
 * The constants of castCosts, in brute force's unit (78 ns on SwiftShader here), fitted by least
 * relative squares to 33 measured scenes (docs/PERFORMANCE.md, "Casts: 'auto'"): each phase's
 * fixed cost (its passes and their submission; the BVH's is inseparable from its build there),
 * its build a sphere, a slab, row or candidate of the grid's walk (4× in a hashed grid: a hash
 * and a random read a row), a level of the BVH's descent a cast, and a sphere it reaches.
 */
export const CAST_COST = {
  gridFixed: 3.5e5,
  gridBuild: 3.6,
  dense: 1.2,
  hashed: 5,
  bvhFixed: 0,
  bvhBuild: 36,
  bvhCast: 24,
  bvhNear: 39,
};

/**
 * The broad phase a query runs on. An explicit choice is kept (a typed error if it cannot
 * serve the query); 'auto' takes all-pairs for small scenes and the grid from
 * AUTO_GRID_MIN_SPHERES spheres (and AUTO_GRID_MIN_BOXES boxes) on, the sweep for sphere pairs
 * of a long thin scene (sweepEstimate), and for casts the grid only when walking it costs less
 * than testing every sphere (castWalkCost). Measured crossovers: docs/PERFORMANCE.md.
 */
export function chooseBroadphase(requested: Broadphase, shape: QueryShape): BroadphaseName {
  const n = shape.sphereCount;
  if (requested === 'all-pairs' && shape.query === 'pairs' && n > ALL_PAIRS_MAX_SPHERES) {
    throw new CapacityError(`spheres for broadphase 'all-pairs'`, n, ALL_PAIRS_MAX_SPHERES, "use broadphase 'grid' or 'auto'");
  }
  if (requested !== 'auto') return requested;
  if (shape.query === 'pairs') {
    if (n < AUTO_GRID_MIN_SPHERES) return 'all-pairs';
    if (shape.stats) {
      const { candidates, elongation } = sweepEstimate(shape.stats);
      if (candidates <= AUTO_SWEEP_MAX_CANDIDATES && elongation >= AUTO_SWEEP_MIN_ELONGATION) return 'sweep';
    }
    return 'grid';
  }
  if (shape.query === 'boxes') return n >= AUTO_GRID_MIN_SPHERES && (shape.boxCount ?? 0) >= AUTO_GRID_MIN_BOXES ? 'grid' : 'all-pairs';
  const batch = shape.casts;
  if (!batch || batch.count === 0 || n < AUTO_GRID_MIN_SPHERES) return 'all-pairs';
  const stats = shape.stats ?? statsOfPlan(shape.gridPlan());
  const costs = castCosts(shape.gridPlan(), stats, batch);
  return (['grid', 'bvh', 'all-pairs'] as const).reduce((best, name) => (costs[name] < costs[best] ? name : best));
}

/** Stats enough for castCosts when the host has none: the plan's levels, spread over their bounds. */
function statsOfPlan(plan: GridPlan): SphereStats {
  const log2Hist = new Uint32Array(LOG2_BINS);
  const log2MaxRadius = new Float32Array(LOG2_BINS);
  const min: [number, number, number] = [Infinity, Infinity, Infinity];
  const max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  plan.levels.forEach((level) => {
    if (level.count === 0) return;
    const bin = Math.max(0, Math.min(LOG2_BINS - 1, ceilLog2(level.maxRadius) + LOG2_BIAS));
    log2Hist[bin] += level.count;
    log2MaxRadius[bin] = Math.max(log2MaxRadius[bin], level.maxRadius);
    for (let a = 0; a < 3; a++) {
      min[a] = Math.min(min[a], level.origin[a]);
      max[a] = Math.max(max[a], level.origin[a] + level.dims[a] * level.cellSize);
    }
  });
  return { count: plan.sphereCount, min, max, maxRadius: Math.max(...plan.levels.map((l) => l.maxRadius)), log2Hist, log2MaxRadius, variance: [0, 0, 0] };
}

/** The queries each broad phase serves. */
export const SERVES: Readonly<Record<BroadphaseName, readonly QueryKind[]>> = {
  'all-pairs': ['pairs', 'boxes', 'casts'],
  grid: ['pairs', 'boxes', 'casts'],
  sweep: ['pairs', 'boxes'],
  bvh: ['pairs', 'boxes', 'casts'],
};

/** Throws a typed error if the broad phase the caller named cannot serve `query` ('auto' always can). */
export function checkServes(name: Broadphase, query: QueryKind, argument = 'options.broadphase'): void {
  if (name !== 'auto' && !SERVES[name].includes(query)) {
    const what = query === 'casts' ? 'raycasts and sphere casts' : query === 'boxes' ? 'sphere–box pairs' : 'sphere pairs';
    const serving = (Object.keys(SERVES) as BroadphaseName[]).filter((other) => SERVES[other].includes(query));
    throw new InvalidInputError(argument, -1, RULES.option, `broadphase '${name}' does not serve ${what}; use 'auto', ${serving.map((o) => `'${o}'`).join(', ')}`);
  }
}
