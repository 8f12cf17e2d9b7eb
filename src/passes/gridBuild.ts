/**
 * GridBuildPass: bins spheres into the multi-level grid of a plan (src/spatial/plan.ts) on the GPU:
 * gridCount → exclusive scan → gridScatter (shaders/spatial/grid.wgsl.ts). The result, a GpuGrid, is
 * what the narrow phases read: cellStart (bucketCount + 1 offsets), the spheres in bucket order
 * and their original indices.
 */
import {
  gridCountShader,
  gridCountBindings,
  gridScatterShader,
  gridScatterBindings,
} from '../../shaders/passes/gridBuild.wgsl.js';
import { gridLayoutOf, gridLayoutName, type GridLayout } from '../../shaders/spatial/grid.wgsl.js';
import { ExclusiveScanPass, scanBufferBytes } from './scan.js';
import { computePipeline, variant, recordPass } from '../gpu/pipeline.js';
import { BufferUsage } from '../gpu/flags.js';
import { GrowableBuffer } from '../gpu/buffers.js';
import { ceilDiv, type Dispatcher, type SkipSwitch } from '../gpu/dispatch.js';
import type { GridPlan } from '../spatial/plan.js';
import { log2RangeOfLevel } from '../spatial/level.js';
import { packStruct } from '../layout.js';
import { GridParams } from '../../shaders/spatial/layout.js';
import type { GpuTimer } from '../gpu/timer.js';
import { WORKGROUP_SIZE } from '../gpu/workgroups.js';

const WG = WORKGROUP_SIZE.gridBuild;

/** The GPU buffers of one built grid. Grows with the scenes it is used for; reuse it. */
export class GpuGrid {
  plan: GridPlan | null = null;
  readonly params: GPUBuffer;
  readonly cellStart: GrowableBuffer;
  readonly keys: GrowableBuffer;
  readonly sorted: GrowableBuffer;
  readonly sortedId: GrowableBuffer;

  constructor(
    readonly device: GPUDevice,
    readonly label = 'grid',
  ) {
    const storage = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
    this.params = device.createBuffer({
      label: `${label} params`,
      size: GridParams.size,
      usage: BufferUsage.UNIFORM | BufferUsage.COPY_DST,
    });
    this.cellStart = new GrowableBuffer(device, `${label} cellStart`, storage);
    this.keys = new GrowableBuffer(device, `${label} keys`, storage);
    this.sorted = new GrowableBuffer(device, `${label} sorted spheres`, storage);
    this.sortedId = new GrowableBuffer(device, `${label} sorted ids`, storage);
  }

  /** What a grid reader binds (GRID_PARAMS and GRID_READ of shaders/spatial/grid.wgsl.ts), by name. */
  readBindings(): { grid: GPUBuffer; cellStart: GPUBuffer; sorted: GPUBuffer; sortedId: GPUBuffer } {
    return {
      grid: this.params,
      cellStart: this.cellStart.buffer,
      sorted: this.sorted.buffer,
      sortedId: this.sortedId.buffer,
    };
  }

  /** Sizes the buffers for `plan` and uploads its parameters. */
  prepare(plan: GridPlan): void {
    this.plan = plan;
    const n = Math.max(1, plan.sphereCount);
    this.cellStart.ensure(scanBufferBytes(plan.bucketCount));
    this.keys.ensure(8 * n);
    this.sorted.ensure(16 * n);
    this.sortedId.ensure(4 * n);
    this.device.queue.writeBuffer(this.params, 0, gridParamsData(plan));
  }

  destroy(): void {
    this.params.destroy();
    this.cellStart.destroy();
    this.keys.destroy();
    this.sorted.destroy();
    this.sortedId.destroy();
  }
}

export class GridBuildPass {
  /** gridCount, one pipeline per grid layout (GridLayout), made on first use. */
  private readonly countPipelines = new Map<string, GPUComputePipeline>();
  private readonly scatterPipeline: GPUComputePipeline;
  private readonly scan: ExclusiveScanPass;

  constructor(
    private readonly device: GPUDevice,
    private readonly maxWorkgroupsPerDimension: number,
  ) {
    this.scatterPipeline = computePipeline(
      device,
      'gridScatter',
      [gridScatterBindings.layout(device, 'gridScatter')],
      gridScatterShader(),
      'gridScatter',
      { WG },
    );
    this.scan = new ExclusiveScanPass(device, maxWorkgroupsPerDimension, 'grid scan');
  }

  private countPipeline(layout: GridLayout): GPUComputePipeline {
    const key = gridLayoutName(layout);
    return variant(this.countPipelines, key, () =>
      computePipeline(
        this.device,
        `gridCount ${key}`,
        [gridCountBindings.layout(this.device, 'gridCount')],
        gridCountShader(layout),
        'gridCount',
        { WG },
      ),
    );
  }

  /**
   * Records the build of `grid` (prepared with its plan) from `spheres` (vec4f per sphere).
   * Work: N atomics and 8 bytes per sphere to count, ~12 bytes per bucket to scan, 36 bytes
   * per sphere to scatter.
   */
  encode(encoder: GPUCommandEncoder, spheres: GPUBuffer, grid: GpuGrid, timer?: GpuTimer): void {
    this.encodeCountAndScan(encoder, spheres, grid, timer);
    const groups = ceilDiv(grid.plan!.sphereCount, WG);
    recordPass(
      encoder,
      'grid scatter',
      this.scatterPipeline,
      gridScatterBindings.bind(this.device, 'gridScatter', {
        grid: grid.params,
        spheres,
        keys: grid.keys.buffer,
        cellStart: grid.cellStart.buffer,
        sorted: grid.sorted.buffer,
        sortedId: grid.sortedId.buffer,
      }),
      groups,
      this.maxWorkgroupsPerDimension,
      timer,
    );
  }

  /**
   * The first half of a build: every sphere's (bucket, rank) in `grid.keys` (the rank is its
   * order of arrival in the bucket: racy) and the buckets' offsets in `grid.cellStart`. A caller
   * with its own scatter (the particle world's stable one) stops here. With `skip`, the count
   * and the scan do nothing where that u32 is nonzero when the submission runs (it is copied
   * into `grid.params`, which such a caller owns: its skip stays as the last copy left it).
   * `dispatch` records the dispatches (a caller that gates them indirectly; default: folded).
   */
  encodeCountAndScan(
    encoder: GPUCommandEncoder,
    spheres: GPUBuffer,
    grid: GpuGrid,
    timer?: GpuTimer,
    skip?: SkipSwitch,
    dispatch?: Dispatcher,
  ): void {
    const plan = grid.plan;
    if (!plan) throw new Error('GpuGrid.prepare(plan) must be called before encoding its build');
    const groups = ceilDiv(plan.sphereCount, WG);
    encoder.clearBuffer(grid.cellStart.buffer, 0, 4 * (plan.bucketCount + 1));
    if (skip) encoder.copyBufferToBuffer(skip.buffer, skip.offset, grid.params, GridParams.offsets.skip, 4);

    recordPass(
      encoder,
      'grid count',
      this.countPipeline(gridLayoutOf(plan)),
      gridCountBindings.bind(this.device, 'gridCount', {
        grid: grid.params,
        spheres,
        counts: grid.cellStart.buffer,
        keys: grid.keys.buffer,
      }),
      groups,
      this.maxWorkgroupsPerDimension,
      timer,
      dispatch,
    );

    this.scan.encode(encoder, grid.cellStart.buffer, plan.bucketCount, timer, skip, dispatch);
  }

  destroy(): void {
    this.scan.destroy();
  }
}

/** The plan as the `GridParams` uniform the shaders read. */
export function gridParamsData(plan: GridPlan): ArrayBuffer {
  return packStruct(GridParams, {
    sphereCount: plan.sphereCount,
    bucketMask: plan.bucketMask,
    levelBias: plan.levelBias,
    levelStep: plan.levelStep,
    levelCount: plan.levels.length,
    dense: plan.dense ? 1 : 0,
    skip: 0,
    firstLevel: nextLevelWithSpheres(plan, -1),
    levels: plan.levels.map((l, b) => ({
      dims: l.dims,
      keyBase: l.keyBase,
      origin: l.origin,
      lower: l.lower,
      upper: l.upper,
      cellSize: l.cellSize,
      invCellSize: l.invCellSize,
      maxRadius: l.maxRadius,
      count: l.count,
      next: nextLevelWithSpheres(plan, b),
      log2Range: log2RangeOfLevel(b, plan.levelBias, plan.levelStep, plan.levels.length),
    })),
  });
}

/** The first level after level b that holds spheres (the number of levels when none). */
export function nextLevelWithSpheres(plan: GridPlan, b: number): number {
  let next = b + 1;
  while (next < plan.levels.length && plan.levels[next].count === 0) next++;
  return next;
}
