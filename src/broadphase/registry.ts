/**
 * The broad phases, one line each: its name (the `broadphase` option's value), the queries it
 * serves, how 'auto' picks it for each query it may pick it for (its rule), what a cast batch
 * costs it (for 'auto''s choice among those that serve casts), what it cannot hold, and how to
 * make one. Everything that lists or picks the phases derives from this table: `BROADPHASES`
 * (src/options.ts), `SERVES` and `checkServes`, `createBroadPhases`, `castCosts`,
 * `chooseBroadphase` (which names no phase), and the tests' and the bench's lists
 * (`phasesServing`). Each phase lives in its folder, src/broadphase/<name>/
 * (docs/ARCHITECTURE.md, "Broad phases").
 */
import { AllPairsBroadPhase, allPairsCapacity } from './all-pairs/phase.js';
import { GridBroadPhase } from './grid/phase.js';
import { SweepBroadPhase } from './sweep/phase.js';
import { sweepPays } from './sweep/axis.js';
import { BvhBroadPhase } from './bvh/phase.js';
import { ALL_PAIRS_CAST_COST } from './all-pairs/castCost.js';
import { GRID_CAST_COST } from './grid/castCost.js';
import { BVH_CAST_COST } from './bvh/castCost.js';
import type { BroadPhase, BroadPhaseContext, CastCost, CellBinning, QueryKind, QueryShape } from './types.js';
import type { PlanOptions } from '../spatial/plan.js';

/**
 * How 'auto' weighs one phase for one query. chooseBroadphase (src/broadphase/index.ts) takes,
 * among the phases with a rule for the query:
 * 1. the first in the table's order whose `when` holds;
 * 2. else, for casts, the cheapest by its `castCost` (the first in the table's order on a tie);
 * 3. else the one whose rule is `otherwise`.
 */
export interface AutoRule {
  /** 'auto' takes it for this query when this holds (read before any cost: nothing here may ask for the grid's plan). */
  readonly when?: (shape: QueryShape, thresholds: AutoThresholds) => boolean;
  /** 'auto' takes it when no phase's `when` holds and none is weighed by a cost. */
  readonly otherwise?: true;
}

/**
 * The public thresholds the rules read (src/options.ts), handed to them by chooseBroadphase: this
 * module may not import options.ts at run time, which reads this table as it loads.
 */
export type AutoThresholds = Readonly<Record<'AUTO_GRID_MIN_SPHERES' | 'AUTO_GRID_MIN_BOXES', number>>;

/** A candidate 'auto' weighs by its cost alone (its castCost, for casts). */
const WEIGHED: AutoRule = {};
/** The one 'auto' takes when no other phase's rule holds. */
const OTHERWISE: AutoRule = { otherwise: true };

export interface BroadPhaseEntry {
  /** The queries it serves; asking it for another is an `option` error naming options.broadphase. */
  readonly serves: readonly QueryKind[];
  /** The queries 'auto' may pick it for (this object's keys), each with its rule. */
  readonly auto: { readonly [Q in QueryKind]?: AutoRule };
  /** What a cast batch costs it (phases that serve casts only): src/broadphase/<name>/castCost.ts. */
  readonly castCost?: CastCost;
  /** Throws a typed error (a CapacityError) for a query it cannot hold, whether named or picked by 'auto'. */
  readonly capacity?: (shape: QueryShape) => void;
  /** One for an owner (a Collider's recording, a world's queries); `label` names the grid's buffers. */
  readonly create: (context: BroadPhaseContext, planOptions: PlanOptions, label: string) => BroadPhase;
  /** One that also orders the spheres by cell (CellBinning), for the particle world's contact search: one phase of the table has it. */
  readonly binning?: (context: BroadPhaseContext, planOptions: PlanOptions, label: string) => CellBinning;
}

const ALL: readonly QueryKind[] = ['pairs', 'boxes', 'casts'];

/** Fewer spheres than the grid pays for (AUTO_GRID_MIN_SPHERES, src/options.ts): all-pairs' for every query. */
const fewSpheres = ({ sphereCount }: QueryShape, { AUTO_GRID_MIN_SPHERES }: AutoThresholds): boolean =>
  sphereCount < AUTO_GRID_MIN_SPHERES;

/** The table. Its order is `BROADPHASES`' (after 'auto'), the tests' and bench's, and the order 'auto' reads the rules in. */
export const REGISTRY = {
  'all-pairs': {
    serves: ALL,
    capacity: allPairsCapacity,
    create: (context) => new AllPairsBroadPhase(context),
    auto: {
      pairs: { when: fewSpheres },
      boxes: OTHERWISE,
      casts: { when: (shape, thresholds) => fewSpheres(shape, thresholds) || !shape.casts?.count },
    },
    castCost: ALL_PAIRS_CAST_COST,
  },
  grid: {
    serves: ALL,
    create: (context, planOptions, label) => new GridBroadPhase(context, planOptions, label),
    binning: (context, planOptions, label) => new GridBroadPhase(context, planOptions, label),
    auto: {
      pairs: OTHERWISE,
      boxes: {
        when: (shape, thresholds) =>
          !fewSpheres(shape, thresholds) && (shape.boxCount ?? 0) >= thresholds.AUTO_GRID_MIN_BOXES,
      },
      casts: WEIGHED,
    },
    castCost: GRID_CAST_COST,
  },
  sweep: {
    serves: ['pairs', 'boxes'],
    auto: { pairs: { when: ({ stats }) => stats !== undefined && sweepPays(stats) } },
    create: (context) => new SweepBroadPhase(context),
  },
  bvh: {
    serves: ALL,
    auto: { casts: WEIGHED },
    create: (context) => new BvhBroadPhase(context),
    castCost: BVH_CAST_COST,
  },
} as const satisfies Record<string, BroadPhaseEntry>;

/** A broad phase's name: every `Broadphase` option but 'auto'. */
export type BroadphaseName = keyof typeof REGISTRY;

/** Every broad phase's name, in the table's order. */
export const BROADPHASE_NAMES = Object.keys(REGISTRY) as BroadphaseName[];

/** The phases that serve casts (those with a cast cost). */
export type CastPhaseName = {
  [N in BroadphaseName]: (typeof REGISTRY)[N] extends { castCost: unknown } ? N : never;
}[BroadphaseName];

/** The phase a query with no spheres runs on: the one that builds nothing (its kernels test zero spheres, and every cast misses). */
export const WITHOUT_SPHERES: BroadphaseName = 'all-pairs';

/** The phases that serve `query`, in the table's order (for tests and the bench to loop over). */
export function phasesServing(query: QueryKind): BroadphaseName[] {
  return BROADPHASE_NAMES.filter((name) => (REGISTRY[name].serves as readonly QueryKind[]).includes(query));
}

/** A phase's line, as the entry type (the table's `as const` types differ line by line). */
export function entryOf(name: BroadphaseName): BroadPhaseEntry {
  return REGISTRY[name];
}

/** The phases 'auto' may pick for `query` (those with a rule for it), in the table's order. */
export function autoCandidates(query: QueryKind): BroadphaseName[] {
  return BROADPHASE_NAMES.filter((name) => entryOf(name).auto[query] !== undefined);
}

/** The phase that orders spheres by cell (the table's line with `binning`), for the particle world's contact search. */
export function createCellBinning(context: BroadPhaseContext, planOptions: PlanOptions, label: string): CellBinning {
  for (const name of BROADPHASE_NAMES) {
    const entry: BroadPhaseEntry = REGISTRY[name];
    if (entry.binning) return entry.binning(context, planOptions, label);
  }
  throw new Error('no broad phase in the registry bins spheres by cell');
}
