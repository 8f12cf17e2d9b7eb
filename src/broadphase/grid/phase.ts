/**
 * 'grid': spheres binned into a multi-level uniform grid (src/spatial/plan.ts plans it from the
 * radii and bounds; dense when the bounds are compact, hashed otherwise). Pairs walk the cells
 * around each sphere, boxes the cells they cover, casts the slabs along the ray.
 *
 * Its folder: pairs.ts (GridPairsPass), boxes.ts (BoxGridPairsPass), castCost.ts (its walk's
 * cost, for 'auto'); its kernels are in shaders/broadphase/grid/: pairs.wgsl.ts, boxes.wgsl.ts
 * and casts.wgsl.ts (the slab walk, run by src/passes/casts.ts). What it shares with the particle
 * world: the plan (src/spatial/plan.ts), the cells on the GPU and their row walk (shaders/spatial/)
 * and the build (src/passes/gridBuild.ts).
 */
import { GridBuildPass, GpuGrid } from '../../passes/gridBuild.js';
import { GridPairsPass } from './pairs.js';
import { BoxGridPairsPass } from './boxes.js';
import { castGridKernel } from '../../../shaders/broadphase/grid/casts.wgsl.js';
import { gridLayoutOf } from '../../../shaders/spatial/grid.wgsl.js';
import { planGrid, type BoxSample, type GridPlan, type PlanOptions } from '../../spatial/plan.js';
import type { CellBinning, BroadPhaseContext, CastJob } from '../types.js';
import type { Dispatcher, SkipSwitch } from '../../gpu/dispatch.js';
import type { SphereStats } from '../../validate.js';
import type { PairList } from '../../gpu/pairList.js';
import type { GpuTimer } from '../../gpu/timer.js';
import type { BoxKind } from '../../queryKinds.js';
import type { CastReach } from '../../spatial/reach.js';

export class GridBroadPhase implements CellBinning {
  readonly name = 'grid' as const;
  readonly grid: GpuGrid;
  private readonly buildPass: GridBuildPass;
  private readonly pairsPass: GridPairsPass;
  private readonly boxPass: BoxGridPairsPass;

  constructor(
    { device, maxWorkgroupsPerDimension }: BroadPhaseContext,
    private readonly planOptions: PlanOptions,
    label = 'sphere grid',
  ) {
    this.grid = new GpuGrid(device, label);
    this.buildPass = new GridBuildPass(device, maxWorkgroupsPerDimension);
    this.pairsPass = new GridPairsPass(device, maxWorkgroupsPerDimension);
    this.boxPass = new BoxGridPairsPass(device, maxWorkgroupsPerDimension);
  }

  /** The plan `prepare` would use for these spheres (and boxes, for a box query: src/spatial/plan.ts). */
  planFor(stats: SphereStats, boxes?: BoxSample): GridPlan {
    return planGrid(stats, this.planOptions, boxes);
  }

  prepare(stats: SphereStats, boxes?: BoxSample): void {
    this.prepareWith(this.planFor(stats, boxes));
  }

  /** `prepare` with a plan made elsewhere (the particle world plans over its bounds). */
  prepareWith(plan: GridPlan): void {
    this.grid.prepare(plan);
  }

  encodeBuild(encoder: GPUCommandEncoder, spheres: GPUBuffer, timer?: GpuTimer): void {
    this.buildPass.encode(encoder, spheres, this.grid, timer);
  }

  /** The build without its scatter (CellBinning): the particle world's search scatters in a stable order of its own. */
  encodeBinning(
    encoder: GPUCommandEncoder,
    spheres: GPUBuffer,
    timer?: GpuTimer,
    skip?: SkipSwitch,
    dispatch?: Dispatcher,
  ): void {
    this.buildPass.encodeCountAndScan(encoder, spheres, this.grid, timer, skip, dispatch);
  }

  encodeSpherePairs(encoder: GPUCommandEncoder, out: PairList, timer?: GpuTimer): void {
    this.pairsPass.encode(encoder, this.grid, out, timer);
  }

  encodeBoxPairs(
    encoder: GPUCommandEncoder,
    kind: BoxKind,
    boxes: GPUBuffer,
    boxCount: number,
    out: PairList,
    timer?: GpuTimer,
  ): void {
    this.boxPass.encode(encoder, kind, this.grid, boxes, boxCount, out, timer);
  }

  encodeCasts(encoder: GPUCommandEncoder, job: CastJob, timer?: GpuTimer): void {
    const plan = this.grid.plan;
    if (!plan) throw new Error('the grid has no plan: build it first');
    job.kernels.encode(encoder, castGridKernel(gridLayoutOf(plan)), job, this.grid.readBindings(), timer);
  }
  /** None from the host: the walk computes its slack per cast and level, in the level's frame (gridWalkSlack). */
  castSlack(_reach: CastReach): number {
    return 0;
  }

  destroy(): void {
    this.grid.destroy();
    this.buildPass.destroy();
    this.boxPass.destroy();
  }
}
