/**
 * BoxGridPairsPass: each box (AABB or oriented) against the spheres of a built grid
 * (./boxes.wgsl.ts), appending (sphere, box) to a PairList.
 */
import { boxGridPairsShader, boxGridPairsBindings } from './boxes.wgsl.js';
import type { BoxKind } from '../../queryKinds.js';
import { gridLayoutOf, gridLayoutName, type GridLayout } from './grid.wgsl.js';
import { BoxParams, packStruct } from '../../layout.js';
import { computePipeline, variant, recordPass } from '../../gpu/pipeline.js';
import { createBuffer } from '../../gpu/buffers.js';
import { BufferUsage } from '../../gpu/flags.js';
import { ceilDiv } from '../../gpu/dispatch.js';
import type { GpuGrid } from './build.js';
import type { PairList } from '../../gpu/pairList.js';
import type { GpuTimer } from '../../gpu/timer.js';
import { WORKGROUP_SIZE } from '../../gpu/workgroups.js';

const WG = WORKGROUP_SIZE.boxPairs;

export class BoxGridPairsPass {
  private readonly pipelines = new Map<string, GPUComputePipeline>();
  private readonly params: GPUBuffer;

  constructor(
    private readonly device: GPUDevice,
    private readonly maxWorkgroupsPerDimension: number,
  ) {
    this.params = createBuffer(device, 'box pairs params', BoxParams.size, BufferUsage.UNIFORM | BufferUsage.COPY_DST);
  }

  private pipeline(kind: BoxKind, grid: GridLayout): GPUComputePipeline {
    const key = `${kind} grid ${gridLayoutName(grid)}`;
    return variant(this.pipelines, key, () => computePipeline(this.device, `boxGridPairs ${key}`, [boxGridPairsBindings.layout(this.device, 'boxGridPairs')], boxGridPairsShader({ kind, ...grid }), 'boxGridPairs', { WG }));
  }

  /** Each box against the spheres of a built grid. One encode per submission. */
  encode(encoder: GPUCommandEncoder, kind: BoxKind, grid: GpuGrid, boxes: GPUBuffer, boxCount: number, out: PairList, timer?: GpuTimer): void {
    const plan = grid.plan;
    if (!plan) throw new Error('the grid has no plan: build it first');
    this.device.queue.writeBuffer(this.params, 0, packStruct(BoxParams, { sphereCount: plan.sphereCount, boxCount }));
    recordPass(encoder, 'box grid pairs', this.pipeline(kind, gridLayoutOf(plan)), boxGridPairsBindings.bind(this.device, 'boxGridPairs', { ...grid.readBindings(), params: this.params, boxes, ...out.output() }), ceilDiv(boxCount, WG), this.maxWorkgroupsPerDimension, timer);
  }

  destroy(): void {
    this.params.destroy();
  }
}
