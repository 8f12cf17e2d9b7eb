/**
 * 'auto' and the broad phases' seam, for the rest of the library: the rule 'auto' picks by
 * (`chooseBroadphase`), which queries each phase serves (`SERVES`, `checkServes`) and one
 * instance of each (`createBroadPhases`), all derived from the registry (./registry.ts). Adding a
 * phase: its folder (src/broadphase/<name>/, implementing BroadPhase from ./types.ts), its line in
 * REGISTRY, its name in the `Broadphase` type (src/options.ts; TypeScript checks the two agree),
 * and, if 'auto' may pick it for pairs or boxes, its place in `chooseBroadphase`.
 */
import { CapacityError, InvalidInputError } from '../errors.js';
import { RULES } from '../validate.js';
import { ALL_PAIRS_MAX_SPHERES } from './all-pairs/pairs.js';
import { AUTO_GRID_MIN_SPHERES, AUTO_GRID_MIN_BOXES, type Broadphase } from '../options.js';
import { sweepAxis } from './sweep/phase.js';
import type { GridPlan, PlanOptions } from '../grid/plan.js';
import type { CastBatch, SphereStats } from '../validate.js';
import { estimateGridCastWork, type CastShapeWithRecords } from './grid/castCost.js';
import { LOG2_BINS, LOG2_BIAS, ceilLog2 } from '../grid/level.js';
import { REGISTRY, BROADPHASE_NAMES, phasesServing, autoCandidates, type BroadphaseName, type CastPhaseName } from './registry.js';
import type { BroadPhase, BroadPhaseContext, QueryKind } from './types.js';

export type { BroadPhase, BroadPhaseContext, QueryKind, CastJob } from './types.js';
export { REGISTRY, BROADPHASE_NAMES, WITHOUT_SPHERES, phasesServing, autoCandidates, type BroadphaseName, type CastPhaseName, type BroadPhaseEntry } from './registry.js';
export { CAST_COST } from './grid/castCost.js';
export { AllPairsBroadPhase } from './all-pairs/phase.js';
export { GridBroadPhase } from './grid/phase.js';
export { SweepBroadPhase, sweepAxis, sweepSlack } from './sweep/phase.js';
export { BvhBroadPhase, bvhMortonGrid, bvhPyramidLevels } from './bvh/phase.js';

/** One instance of each broad phase, made for one owner (a Collider, a world's queries), by name. */
export type BroadPhases = Readonly<Record<BroadphaseName, BroadPhase>>;

export function createBroadPhases(context: BroadPhaseContext, planOptions: PlanOptions, label = 'sphere grid'): BroadPhases {
  const phases = {} as Record<BroadphaseName, BroadPhase>;
  for (const name of BROADPHASE_NAMES) phases[name] = REGISTRY[name].create(context, planOptions, label);
  return phases;
}

export function destroyBroadPhases(phases: BroadPhases): void {
  for (const phase of Object.values(phases)) phase.destroy();
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
export function castCosts(plan: GridPlan, stats: SphereStats, batch: CastShapeWithRecords): Record<CastPhaseName, number> {
  const work = estimateGridCastWork(plan, stats, batch);
  const costs: Partial<Record<CastPhaseName, number>> = {};
  for (const name of phasesServing('casts') as CastPhaseName[]) costs[name] = REGISTRY[name].castCost({ plan, stats, batch, work });
  return costs as Record<CastPhaseName, number>;
}

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
  return (autoCandidates('casts') as CastPhaseName[]).reduce((best, name) => (costs[name] < costs[best] ? name : best));
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

/** The queries each broad phase serves (the registry's). */
export const SERVES: Readonly<Record<BroadphaseName, readonly QueryKind[]>> = Object.fromEntries(BROADPHASE_NAMES.map((name) => [name, REGISTRY[name].serves])) as Record<BroadphaseName, readonly QueryKind[]>;

/** Throws a typed error if the broad phase the caller named cannot serve `query` ('auto' always can). */
export function checkServes(name: Broadphase, query: QueryKind, argument = 'options.broadphase'): void {
  if (name !== 'auto' && !SERVES[name].includes(query)) {
    const what = query === 'casts' ? 'raycasts and sphere casts' : query === 'boxes' ? 'sphere–box pairs' : 'sphere pairs';
    const serving = phasesServing(query);
    throw new InvalidInputError(argument, -1, RULES.option, `broadphase '${name}' does not serve ${what}; use 'auto', ${serving.map((o) => `'${o}'`).join(', ')}`);
  }
}
