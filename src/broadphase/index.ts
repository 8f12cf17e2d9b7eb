/**
 * 'auto' and the broad phases' seam, for the rest of the library: the pick 'auto' makes
 * (`chooseBroadphase`, from the registry's rules), which queries each phase serves (`SERVES`,
 * `checkServes`) and one instance of each (`createBroadPhases`), all derived from the registry
 * (./registry.ts); nothing here names a phase. Adding a phase: its folder
 * (src/broadphase/<name>/, implementing BroadPhase from ./types.ts), its line in REGISTRY (with
 * its rule for each query 'auto' may pick it for) and its name in the `Broadphase` type
 * (src/options.ts; TypeScript checks the two agree).
 */
import { InvalidInputError } from '../errors.js';
import { RULES } from '../checks.js';
import { AUTO_GRID_MIN_SPHERES, AUTO_GRID_MIN_BOXES, type Broadphase } from '../options.js';
import type { GridPlan, PlanOptions } from '../spatial/plan.js';
import type { SphereStats } from '../validate.js';
import { estimateGridCastWork, type CastShapeWithRecords } from '../spatial/castWork.js';
import type { CastReach } from '../spatial/reach.js';
import { LOG2_BINS, LOG2_BIAS, ceilLog2 } from '../spatial/level.js';
import {
  REGISTRY,
  BROADPHASE_NAMES,
  phasesServing,
  autoCandidates,
  entryOf,
  type BroadphaseName,
  type CastPhaseName,
} from './registry.js';
import type { BroadPhase, BroadPhaseContext, CastShape, QueryKind, QueryShape } from './types.js';

export type { BroadPhase, BroadPhaseContext, CellBinning, QueryKind, CastJob, CastShape, QueryShape } from './types.js';
export {
  REGISTRY,
  BROADPHASE_NAMES,
  WITHOUT_SPHERES,
  phasesServing,
  autoCandidates,
  entryOf,
  createCellBinning,
  type BroadphaseName,
  type CastPhaseName,
  type BroadPhaseEntry,
  type AutoRule,
  type AutoThresholds,
} from './registry.js';

/** One instance of each broad phase, made for one owner (a Collider, a world's queries), by name. */
export type BroadPhases = { readonly [N in BroadphaseName]: BroadPhase<N> };

export function createBroadPhases(
  context: BroadPhaseContext,
  planOptions: PlanOptions,
  label = 'sphere grid',
): BroadPhases {
  const phases: Partial<Record<BroadphaseName, BroadPhase>> = {};
  for (const name of BROADPHASE_NAMES) phases[name] = REGISTRY[name].create(context, planOptions, label);
  return phases as BroadPhases; // each line's `create` makes the phase of its name
}

export function destroyBroadPhases(phases: BroadPhases): void {
  for (const phase of Object.values(phases)) phase.destroy();
}

/**
 * What a cast batch costs each broad phase that serves casts, in brute force's unit (one cast
 * tested against one sphere): brute force casts × spheres; the grid its build and its walk
 * (estimateGridCastWork: slabs, rows and candidates); the BVH its build and a descent a cast of
 * about log2(spheres) nodes. Constants fitted on SwiftShader over the bench's scene kinds
 * (docs/PERFORMANCE.md, "Casts: 'auto'").
 */
export function castCosts(
  plan: GridPlan,
  stats: SphereStats,
  batch: CastShapeWithRecords,
): Record<CastPhaseName, number> {
  const terms = castCostTerms(plan, stats, batch);
  const costs: Partial<Record<CastPhaseName, number>> = {};
  for (const name of phasesServing('casts') as CastPhaseName[]) {
    const constants: Readonly<Record<string, number>> = REGISTRY[name].castCost.constants;
    costs[name] = Object.entries(terms[name]).reduce((sum, [term, value]) => sum + value * constants[term], 0);
  }
  return costs as Record<CastPhaseName, number>;
}

/** Each phase's cost terms for a cast batch, before their constants (what bench/probes/castFit.ts records to fit them). */
export function castCostTerms(
  plan: GridPlan,
  stats: SphereStats,
  batch: CastShapeWithRecords,
): Record<CastPhaseName, Readonly<Record<string, number>>> {
  const phases = phasesServing('casts') as CastPhaseName[];
  // The spheres near the walked paths are counted within the widest reach slack a phase declares.
  const nearSlack = (reach: CastReach): number =>
    Math.max(0, ...phases.map((name) => entryOf(name).castCost?.reachSlack?.(reach) ?? 0));
  const work = estimateGridCastWork(plan, stats, batch, nearSlack);
  const terms: Partial<Record<CastPhaseName, Readonly<Record<string, number>>>> = {};
  for (const name of phases) terms[name] = REGISTRY[name].castCost.terms({ plan, stats, batch, work });
  return terms as Record<CastPhaseName, Readonly<Record<string, number>>>;
}

/**
 * The broad phase a query runs on. An explicit choice is kept (a typed error if it cannot hold
 * the query: its registry line's `capacity`). 'auto' reads the rules of the phases that have one
 * for the query (autoCandidates) in the registry's order (AutoRule, ./registry.ts): the first
 * whose `when` holds, else for casts the cheapest by castCosts, else the one that is
 * `otherwise`. The thresholds and the measured crossovers: src/options.ts, ./sweep/axis.ts,
 * docs/PERFORMANCE.md.
 */
export function chooseBroadphase(requested: Broadphase, shape: QueryShape): BroadphaseName {
  const name = requested === 'auto' ? autoPick(shape) : requested;
  entryOf(name).capacity?.(shape);
  return name;
}

function autoPick(shape: QueryShape): BroadphaseName {
  const candidates = autoCandidates(shape.query);
  const rule = (name: BroadphaseName) => entryOf(name).auto[shape.query] ?? {};
  const thresholds = { AUTO_GRID_MIN_SPHERES, AUTO_GRID_MIN_BOXES };
  const taken = candidates.find((name) => rule(name).when?.(shape, thresholds));
  if (taken !== undefined) return taken;
  const batch = shape.query === 'casts' ? shape.casts : undefined;
  const weighed = batch ? (candidates.filter((name) => entryOf(name).castCost !== undefined) as CastPhaseName[]) : [];
  if (batch && weighed.length > 0) {
    const costs = castCostsOf({ ...shape, casts: batch });
    return weighed.reduce((best, name) => (costs[name] < costs[best] ? name : best));
  }
  const otherwise = candidates.find((name) => rule(name).otherwise);
  if (otherwise === undefined)
    throw new Error(`the broad-phase registry has no rule for 'auto' to end on for ${shape.query}`);
  return otherwise;
}

/** castCosts for a cast query's shape: its grid plan, and its statistics or, where the host has none, the plan's (statsOfPlan). */
export function castCostsOf(shape: QueryShape & { casts: CastShape }): Record<CastPhaseName, number> {
  const plan = shape.gridPlan();
  return castCosts(plan, shape.stats ?? statsOfPlan(plan), shape.casts);
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
  return {
    count: plan.sphereCount,
    min,
    max,
    maxRadius: Math.max(...plan.levels.map((l) => l.maxRadius)),
    log2Hist,
    log2MaxRadius,
    variance: [0, 0, 0],
  };
}

/** The queries each broad phase serves (the registry's). */
export const SERVES: Readonly<Record<BroadphaseName, readonly QueryKind[]>> = Object.fromEntries(
  BROADPHASE_NAMES.map((name) => [name, REGISTRY[name].serves]),
) as Record<BroadphaseName, readonly QueryKind[]>;

/** Throws a typed error if the broad phase the caller named cannot serve `query` ('auto' always can). */
export function checkServes(name: Broadphase, query: QueryKind, argument = 'options.broadphase'): void {
  if (name !== 'auto' && !SERVES[name].includes(query)) {
    const what =
      query === 'casts' ? 'raycasts and sphere casts' : query === 'boxes' ? 'sphere–box pairs' : 'sphere pairs';
    const serving = phasesServing(query);
    throw new InvalidInputError(
      argument,
      -1,
      RULES.option,
      `broadphase '${name}' does not serve ${what}; use 'auto', ${serving.map((o) => `'${o}'`).join(', ')}`,
    );
  }
}

/** Each cast-serving phase's cost constants (its registry line's castCost.constants). */
export const CAST_COST = Object.fromEntries(
  phasesServing('casts').map((name) => [name, entryOf(name).castCost!.constants]),
) as Readonly<Record<CastPhaseName, Readonly<Record<string, number>>>>;
