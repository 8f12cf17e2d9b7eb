/**
 * GridPairsPass: the narrow phase over a built grid (shaders/broadphase/grid/pairs.wgsl.ts), one thread per
 * sphere in cell order, appending overlapping pairs (i < j) to a PairList.
 */
import { gridPairsShader, gridPairsBindings } from '../../../shaders/broadphase/grid/pairs.wgsl.js';
import { gridLayoutOf, gridLayoutName, type GridLayout } from '../../../shaders/spatial/grid.wgsl.js';
import { computePipeline, variant, recordPass } from '../../gpu/pipeline.js';
import { ceilDiv } from '../../gpu/dispatch.js';
import type { GpuGrid } from '../../passes/gridBuild.js';
import type { PairList } from '../../gpu/pairList.js';
import type { GpuTimer } from '../../gpu/timer.js';
import { WORKGROUP_SIZE } from '../../gpu/workgroups.js';

const WG = WORKGROUP_SIZE.gridPairs;

export class GridPairsPass {
  /** One pipeline per grid layout (dense or hashed, one level or more), made on first use. */
  private readonly pipelines = new Map<string, GPUComputePipeline>();

  constructor(
    private readonly device: GPUDevice,
    private readonly maxWorkgroupsPerDimension: number,
  ) {}

  private pipeline(layout: GridLayout): GPUComputePipeline {
    const key = gridLayoutName(layout);
    return variant(this.pipelines, key, () =>
      computePipeline(
        this.device,
        `gridPairs ${key}`,
        [gridPairsBindings.layout(this.device, 'gridPairs')],
        gridPairsShader(layout),
        'gridPairs',
        { WG },
      ),
    );
  }

  encode(encoder: GPUCommandEncoder, grid: GpuGrid, out: PairList, timer?: GpuTimer): void {
    const plan = grid.plan;
    if (!plan) throw new Error('the grid has no plan: build it first');
    recordPass(
      encoder,
      'grid pairs',
      this.pipeline(gridLayoutOf(plan)),
      gridPairsBindings.bind(this.device, 'gridPairs', { ...grid.readBindings(), ...out.output() }),
      ceilDiv(plan.sphereCount, WG),
      this.maxWorkgroupsPerDimension,
      timer,
    );
  }
}
