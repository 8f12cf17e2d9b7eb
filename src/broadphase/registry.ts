/**
 * The broad phases, one line each: its name (the `broadphase` option's value), the queries it
 * serves, whether 'auto' may pick it and for which queries, what a cast batch costs it (for
 * 'auto''s choice among those that serve casts), and how to make one. Everything that lists the
 * phases derives from this table: `BROADPHASES` (src/options.ts), `SERVES` and `checkServes`,
 * `createBroadPhases`, `castCosts`, and the tests' and the bench's lists (`phasesServing`).
 * Each phase lives in its folder, src/broadphase/<name>/ (docs/ARCHITECTURE.md, "Broad phases").
 *
 * Nothing at this module's top level may read another module's binding (options.ts imports it
 * while modules that import options.ts are still loading): the entries' functions run later.
 */
import { AllPairsBroadPhase } from './all-pairs/phase.js';
import { GridBroadPhase } from './grid/phase.js';
import { SweepBroadPhase } from './sweep/phase.js';
import { BvhBroadPhase } from './bvh/phase.js';
import { CAST_COST, type GridCastWork, type CastShapeWithRecords } from './grid/castCost.js';
import type { BroadPhase, BroadPhaseContext, QueryKind } from './types.js';
import type { GridPlan, PlanOptions } from '../grid/plan.js';
import type { SphereStats } from '../validate.js';
import type { Broadphase } from '../options.js';

/** What 'auto' knows of a cast batch when it weighs the phases that serve casts. */
export interface CastCostInput {
  plan: GridPlan;
  stats: SphereStats;
  batch: CastShapeWithRecords;
  /** The grid's walk of the batch, estimated once (estimateGridCastWork). */
  work: GridCastWork;
}

export interface BroadPhaseEntry {
  /** The queries it serves; asking it for another is an `option` error naming options.broadphase. */
  readonly serves: readonly QueryKind[];
  /** The queries 'auto' may pick it for (chooseBroadphase, src/broadphase/index.ts, has the rules). */
  readonly auto: readonly QueryKind[];
  /** What a cast batch costs it, in brute force's unit (one cast tested against one sphere); only phases that serve casts. */
  readonly castCost?: (input: CastCostInput) => number;
  /** One for an owner (a Collider's recording, a world's queries); `label` names the grid's buffers. */
  readonly create: (context: BroadPhaseContext, planOptions: PlanOptions, label: string) => BroadPhase;
}

const ALL: readonly QueryKind[] = ['pairs', 'boxes', 'casts'];

/** The table. Its order is `BROADPHASES`' (after 'auto') and the tests' and bench's. */
export const REGISTRY = {
  'all-pairs': { serves: ALL, auto: ALL, castCost: ({ stats, batch }) => batch.count * stats.count, create: (context) => new AllPairsBroadPhase(context) },
  grid: {
    serves: ALL, auto: ALL, create: (context, planOptions, label) => new GridBroadPhase(context, planOptions, label),
    castCost: ({ plan, stats, work }) => CAST_COST.gridFixed + CAST_COST.gridBuild * stats.count + (work.slabs + work.rows + work.candidates) * (plan.dense ? CAST_COST.dense : CAST_COST.hashed),
  },
  sweep: { serves: ['pairs', 'boxes'], auto: ['pairs'], create: (context) => new SweepBroadPhase(context) },
  bvh: {
    serves: ALL, auto: ['casts'], create: (context) => new BvhBroadPhase(context),
    castCost: ({ stats, batch, work }) => CAST_COST.bvhFixed + CAST_COST.bvhBuild * stats.count + CAST_COST.bvhCast * batch.count * Math.log2(Math.max(stats.count, 2)) + CAST_COST.bvhNear * work.near,
  },
} as const satisfies Record<string, BroadPhaseEntry>;

/** A broad phase's name: every `Broadphase` option but 'auto'. */
export type BroadphaseName = keyof typeof REGISTRY;

/** The table's names are the `Broadphase` option's (src/options.ts, the public type), no more, no fewer: a compile error otherwise. */
export type NamesAgree = Assert<[BroadphaseName] extends [Exclude<Broadphase, 'auto'>] ? ([Exclude<Broadphase, 'auto'>] extends [BroadphaseName] ? true : false) : false>;
type Assert<T extends true> = T;

/** Every broad phase's name, in the table's order. */
export const BROADPHASE_NAMES = Object.keys(REGISTRY) as BroadphaseName[];

/** The phases that serve casts (those with a cast cost). */
export type CastPhaseName = { [N in BroadphaseName]: (typeof REGISTRY)[N] extends { castCost: unknown } ? N : never }[BroadphaseName];

/** The phase a query with no spheres runs on: the one that builds nothing (its kernels test zero spheres, and every cast misses). */
export const WITHOUT_SPHERES: BroadphaseName = 'all-pairs';

/** The phases that serve `query`, in the table's order (for tests and the bench to loop over). */
export function phasesServing(query: QueryKind): BroadphaseName[] {
  return BROADPHASE_NAMES.filter((name) => (REGISTRY[name].serves as readonly QueryKind[]).includes(query));
}

/** The phases 'auto' may pick for `query`. */
export function autoCandidates(query: QueryKind): BroadphaseName[] {
  return BROADPHASE_NAMES.filter((name) => (REGISTRY[name].auto as readonly QueryKind[]).includes(query));
}
