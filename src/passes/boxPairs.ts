/**
 * BoxPairsPass: sphere–box pairs (AABB or oriented), all-pairs or against a built sphere grid
 * (shaders/boxes.wgsl.ts), appending (sphere, box) to a PairList.
 */
import { boxAllPairsShader, boxAllPairsBindings, boxGridPairsShader, boxGridPairsBindings } from '../../shaders/boxes.wgsl.js';
import type { BoxKind } from '../queryKinds.js';
import { gridLayoutOf, gridLayoutName, type GridLayout } from '../../shaders/grid.wgsl.js';
import { BoxParams, packStruct } from '../layout.js';
import { computePipeline, variant, recordPass } from '../gpu/pipeline.js';
import { createBuffer } from '../gpu/buffers.js';
import { BufferUsage } from '../gpu/flags.js';
import { ceilDiv } from '../gpu/dispatch.js';
import type { GpuGrid } from './gridBuild.js';
import type { PairList } from '../gpu/pairList.js';
import type { GpuTimer } from '../gpu/timer.js';
import { WORKGROUP_SIZE } from '../gpu/workgroups.js';

const TILE = WORKGROUP_SIZE.allPairsTile;
const WG = WORKGROUP_SIZE.boxPairs;

export class BoxPairsPass {
  private readonly pipelines = new Map<string, GPUComputePipeline>();
  private readonly params: GPUBuffer;

  constructor(
    private readonly device: GPUDevice,
    private readonly maxWorkgroupsPerDimension: number,
  ) {
    this.params = createBuffer(device, 'box pairs params', BoxParams.size, BufferUsage.UNIFORM | BufferUsage.COPY_DST);
  }

  private pipeline(kind: BoxKind, grid?: GridLayout): GPUComputePipeline {
    const key = `${kind} ${grid ? `grid ${gridLayoutName(grid)}` : 'all-pairs'}`;
    return variant(this.pipelines, key, () => grid
      ? computePipeline(this.device, `boxGridPairs ${key}`, [boxGridPairsBindings.layout(this.device, 'boxGridPairs')], boxGridPairsShader({ kind, ...grid }), 'boxGridPairs', { WG })
      : computePipeline(this.device, `boxAllPairs ${key}`, [boxAllPairsBindings.layout(this.device, 'boxAllPairs')], boxAllPairsShader({ kind }), 'boxAllPairs', { TILE }));
  }

  /** Every sphere against every box: N·M tests. One encode per submission (parameters go through the queue). */
  encodeAllPairs(encoder: GPUCommandEncoder, kind: BoxKind, spheres: GPUBuffer, sphereCount: number, boxes: GPUBuffer, boxCount: number, out: PairList, timer?: GpuTimer): void {
    const sphereBlocks = ceilDiv(sphereCount, TILE);
    const tileCount = sphereBlocks * ceilDiv(boxCount, TILE);
    this.device.queue.writeBuffer(this.params, 0, packStruct(BoxParams, { sphereCount, boxCount, sphereBlocks, tileCount }));
    recordPass(encoder, 'box all-pairs', this.pipeline(kind), boxAllPairsBindings.bind(this.device, 'boxAllPairs', { params: this.params, spheres, boxes, ...out.output() }), tileCount, this.maxWorkgroupsPerDimension, timer);
  }

  /** Each box against the spheres of a built grid. One encode per submission. */
  encodeGrid(encoder: GPUCommandEncoder, kind: BoxKind, grid: GpuGrid, boxes: GPUBuffer, boxCount: number, out: PairList, timer?: GpuTimer): void {
    const plan = grid.plan;
    if (!plan) throw new Error('the grid has no plan: build it first');
    this.device.queue.writeBuffer(this.params, 0, packStruct(BoxParams, { sphereCount: plan.sphereCount, boxCount }));
    recordPass(encoder, 'box grid pairs', this.pipeline(kind, gridLayoutOf(plan)), boxGridPairsBindings.bind(this.device, 'boxGridPairs', { ...grid.readBindings(), params: this.params, boxes, ...out.output() }), ceilDiv(boxCount, WG), this.maxWorkgroupsPerDimension, timer);
  }

  destroy(): void {
    this.params.destroy();
  }
}
