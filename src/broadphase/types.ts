/**
 * The broad-phase seam. A broad phase is a structure built over spheres on the GPU that the
 * narrow phases walk: the Collider, the cast queries and the particle world's queries call it
 * through this interface and never ask which structure is behind it. Each one lives in its own
 * folder of src/broadphase/ (<name>/phase.ts) with its passes and kernels, and has a line in the
 * registry (./registry.ts), from which `createBroadPhases` makes one of each.
 *
 * The order of use, per call: `prepare` (host side: plan and size the buffers, write parameters
 * through the queue), then, in one submission, `encodeBuild` followed by the queries. The
 * queries append to a PairList (pairs) or write cast hit records; none reads anything back.
 */
import type { SphereStats, CastBatch } from '../validate.js';
import type { BoxSample, GridPlan } from '../spatial/plan.js';
import type { CastShapeWithRecords, GridCastWork } from '../spatial/castWork.js';
import type { PairList } from '../gpu/pairList.js';
import type { GpuTimer } from '../gpu/timer.js';
import type { BoxKind } from '../queryKinds.js';
import type { CastPass, CastRun } from '../passes/casts.js';
import type { CastReach } from '../spatial/reach.js';
import type { GpuGrid } from '../passes/gridBuild.js';
import type { Dispatcher, SkipSwitch } from '../gpu/dispatch.js';

/** The kinds of query a broad phase may serve. */
export type QueryKind = 'pairs' | 'boxes' | 'casts';

/** What 'auto' knows of a cast batch: how many and their total length, and for one-shot calls the records and their extent. */
export type CastShape = Pick<CastBatch, 'count' | 'totalLength'> &
  Partial<Pick<CastBatch, 'packed' | 'maxLength' | 'maxAbs'>>;

/** What 'auto' knows of a query (chooseBroadphase; the registry's rules read it). */
export interface QueryShape {
  query: QueryKind;
  sphereCount: number;
  /** Boxes of a box query. */
  boxCount?: number;
  /** The casts of a cast query: how many, and their total length (or a bound on it). */
  casts?: CastShape;
  /** The grid plan the grid would use (asked for only when the phases' cast costs are weighed). */
  gridPlan: () => GridPlan;
  /** The spheres' statistics, when the host has them (the sweep is then a candidate for pairs). */
  stats?: SphereStats;
}

/** A cast batch already on the GPU, with the kernels that run it (src/resident/recorder.ts, recordCasts). */
export interface CastJob extends CastRun {
  /** The pass that runs a phase's cast kernel (CastPass.encode with the phase's CastKernel). */
  kernels: CastPass;
}

export interface BroadPhase<N extends string = string> {
  /** Its registry line's name (the `broadphase` option's value). */
  readonly name: N;
  /**
   * Host side, before the submission that builds: plan for these spheres (and, for a box query
   * whose boxes the host has, for those boxes: the grid's cells), size the buffers.
   */
  prepare(stats: SphereStats, boxes?: BoxSample): void;
  /** Records the build from the prepared count of spheres (vec4f each) in `spheres`. */
  encodeBuild(encoder: GPUCommandEncoder, spheres: GPUBuffer, timer?: GpuTimer): void;
  /** Records the search for every overlapping sphere pair (i < j, original indices) into `out`. */
  encodeSpherePairs(encoder: GPUCommandEncoder, out: PairList, timer?: GpuTimer): void;
  /** Records the search for every overlapping (sphere, box) into `out`. One per submission. */
  encodeBoxPairs(
    encoder: GPUCommandEncoder,
    kind: BoxKind,
    boxes: GPUBuffer,
    boxCount: number,
    out: PairList,
    timer?: GpuTimer,
  ): void;
  /** Records one cast kernel over the built structure (only those the registry serves 'casts' with): `job.kernels.encode` with its CastKernel. */
  encodeCasts(encoder: GPUCommandEncoder, job: CastJob, timer?: GpuTimer): void;
  /** The rounding slack its cast walk adds (each phase's castSlack.ts; the grid's walk adds its own, gridWalkSlack). */
  castSlack(reach: CastReach): number;
  destroy(): void;
}

/** What every broad phase is made with. */
export interface BroadPhaseContext {
  device: GPUDevice;
  maxWorkgroupsPerDimension: number;
}

/**
 * A broad phase that orders the spheres by cell: what the particle world's contact search takes
 * from the seam. The search keeps its contacts from one step to the next in cell order (its own
 * stable scatter, anchors and lists, src/particles/solver.ts), so it needs the binning itself
 * rather than a query: the count of each bucket and their offsets, from the world's plan, and the
 * built buffers it then reads and fills. The registry's line with `binning` makes one
 * (`createCellBinning`).
 */
export interface CellBinning extends BroadPhase {
  /** Its buffers (bucket offsets, keys, spheres in bucket order and their ids) and its plan. */
  readonly grid: GpuGrid;
  /** `prepare` with a plan made elsewhere (the world plans over its bounds). */
  prepareWith(plan: GridPlan): void;
  /**
   * Records the build's count and scan (each sphere's bucket key, the buckets' offsets in
   * `grid.cellStart`), without the scatter: the caller scatters in its own order. `skip` and
   * `dispatch` as GridBuildPass.encodeCountAndScan's.
   */
  encodeBinning(
    encoder: GPUCommandEncoder,
    spheres: GPUBuffer,
    timer?: GpuTimer,
    skip?: SkipSwitch,
    dispatch?: Dispatcher,
  ): void;
}

/** What 'auto' knows of a cast batch when it weighs the phases that serve casts. */
export interface CastCostInput {
  plan: GridPlan;
  stats: SphereStats;
  batch: CastShapeWithRecords;
  /** The grid's walk of the batch, estimated once (estimateGridCastWork). */
  work: GridCastWork;
}

/**
 * What a cast batch costs a phase, in brute force's unit (one cast tested against one sphere):
 * the sum of its terms (what it does for this batch, counted or estimated) times their constants
 * (fitted to measured calls by bench/probes/castFitSolve.ts).
 */
export interface CastCost {
  readonly terms: (input: CastCostInput) => Readonly<Record<string, number>>;
  readonly constants: Readonly<Record<string, number>>;
  /** How far its walk grows every cast's reach (its castSlack), where its `near` term counts the spheres within it. */
  readonly reachSlack?: (reach: CastReach) => number;
}
