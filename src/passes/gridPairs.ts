/**
 * GridPairsPass: the narrow phase over a built grid (shaders/gridPairs.wgsl.ts), one thread per
 * sphere in cell order, appending overlapping pairs (i < j) to a PairList.
 */
import { gridPairsShader, gridPairsBindings } from '../../shaders/gridPairs.wgsl.js';
import { bindGroupLayout, bindGroup, computePipeline, setPipelineAndGroup } from '../gpu/pipeline.js';
import { dispatchFolded, ceilDiv } from '../gpu/dispatch.js';
import type { GpuGrid } from './gridBuild.js';
import type { PairList } from '../gpu/pairList.js';
import type { GpuTimer } from '../gpu/timer.js';
import { WORKGROUP_SIZE } from '../gpu/workgroups.js';

const WG = WORKGROUP_SIZE.gridPairs;

export class GridPairsPass {
  private readonly layout: GPUBindGroupLayout;
  /** One pipeline per grid layout (dense, hashed), made on first use. */
  private readonly pipelines = new Map<boolean, GPUComputePipeline>();

  constructor(
    private readonly device: GPUDevice,
    private readonly maxWorkgroupsPerDimension: number,
  ) {
    this.layout = bindGroupLayout(device, 'gridPairs layout', gridPairsBindings);
  }

  private pipeline(dense: boolean): GPUComputePipeline {
    let pipeline = this.pipelines.get(dense);
    if (!pipeline) {
      const label = dense ? 'gridPairs dense' : 'gridPairs hashed';
      pipeline = computePipeline(this.device, label, [this.layout], gridPairsShader({ dense }), 'gridPairs', { WG });
      this.pipelines.set(dense, pipeline);
    }
    return pipeline;
  }

  encode(encoder: GPUCommandEncoder, grid: GpuGrid, out: PairList, timer?: GpuTimer): void {
    const plan = grid.plan;
    if (!plan) throw new Error('the grid has no plan: build it first');
    const pass = encoder.beginComputePass(timer?.pass('grid pairs') ?? { label: 'grid pairs' });
    setPipelineAndGroup(pass, this.pipeline(plan.dense), bindGroup(this.device, 'gridPairs', this.layout, [grid.params, ...grid.readBuffers(), out.pairs.buffer, out.counter]));
    dispatchFolded(pass, ceilDiv(plan.sphereCount, WG), this.maxWorkgroupsPerDimension);
    pass.end();
  }
}
