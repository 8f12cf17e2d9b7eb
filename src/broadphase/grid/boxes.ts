/**
 * BoxGridPairsPass: each box (AABB or oriented) against the spheres of a built grid
 * (shaders/broadphase/grid/boxes.wgsl.ts), appending (sphere, box) to a PairList from both ends (the even workgroups
 * from the bottom, the odd from the top, on counters of their own), then merging the two into
 * the one list and count a PairList holds (pairMerge, which writes the list's counter).
 */
import {
  boxGridPairsShader,
  boxGridPairsBindings,
  pairMergeShader,
  pairMergeBindings,
  PAIR_ENDS_BYTES,
} from '../../../shaders/broadphase/grid/boxes.wgsl.js';
import type { BoxKind } from '../../queryKinds.js';
import { gridLayoutOf, gridLayoutName, type GridLayout } from '../../../shaders/spatial/grid.wgsl.js';
import { BoxParams, packStruct } from '../../layout.js';
import { computePipeline, variant, recordPass } from '../../gpu/pipeline.js';
import { createBuffer } from '../../gpu/buffers.js';
import { BufferUsage } from '../../gpu/flags.js';
import { ceilDiv } from '../../gpu/dispatch.js';
import type { GpuGrid } from '../../passes/gridBuild.js';
import type { PairList } from '../../gpu/pairList.js';
import type { GpuTimer } from '../../gpu/timer.js';
import { WORKGROUP_SIZE } from '../../gpu/workgroups.js';

const WG = WORKGROUP_SIZE.boxPairs;
/** The merge's workgroups at most: its threads stride over the top's pairs. */
const MERGE_WORKGROUPS = 256;

export class BoxGridPairsPass {
  private readonly pipelines = new Map<string, GPUComputePipeline>();
  private readonly params: GPUBuffer;
  /** The two ends' counters (PairCounter each, END_STRIDE apart), cleared before each kernel. */
  private readonly ends: GPUBuffer;
  private merge?: { move: GPUComputePipeline; count: GPUComputePipeline };

  constructor(
    private readonly device: GPUDevice,
    private readonly maxWorkgroupsPerDimension: number,
  ) {
    this.params = createBuffer(device, 'box pairs params', BoxParams.size, BufferUsage.UNIFORM | BufferUsage.COPY_DST);
    this.ends = createBuffer(
      device,
      'box pairs end counters',
      PAIR_ENDS_BYTES,
      BufferUsage.STORAGE | BufferUsage.COPY_DST,
    );
  }

  private mergePipelines(): { move: GPUComputePipeline; count: GPUComputePipeline } {
    if (!this.merge) {
      const layout = [pairMergeBindings.layout(this.device, 'pairMerge')];
      this.merge = {
        move: computePipeline(this.device, 'pairMergeMove', layout, pairMergeShader(), 'pairMergeMove', { WG }),
        count: computePipeline(this.device, 'pairMergeCount', layout, pairMergeShader(), 'pairMergeCount', { WG }),
      };
    }
    return this.merge;
  }

  private pipeline(kind: BoxKind, grid: GridLayout): GPUComputePipeline {
    const key = `${kind} grid ${gridLayoutName(grid)}`;
    return variant(this.pipelines, key, () =>
      computePipeline(
        this.device,
        `boxGridPairs ${key}`,
        [boxGridPairsBindings.layout(this.device, 'boxGridPairs')],
        boxGridPairsShader({ kind, ...grid }),
        'boxGridPairs',
        { WG },
      ),
    );
  }

  /** Each box against the spheres of a built grid. One encode per submission. */
  encode(
    encoder: GPUCommandEncoder,
    kind: BoxKind,
    grid: GpuGrid,
    boxes: GPUBuffer,
    boxCount: number,
    out: PairList,
    timer?: GpuTimer,
  ): void {
    const plan = grid.plan;
    if (!plan) throw new Error('the grid has no plan: build it first');
    this.device.queue.writeBuffer(this.params, 0, packStruct(BoxParams, { sphereCount: plan.sphereCount, boxCount }));
    encoder.clearBuffer(this.ends);
    recordPass(
      encoder,
      'box grid pairs',
      this.pipeline(kind, gridLayoutOf(plan)),
      boxGridPairsBindings.bind(this.device, 'boxGridPairs', {
        ...grid.readBindings(),
        params: this.params,
        boxes,
        pairs: out.output().pairs,
        ends: this.ends,
      }),
      ceilDiv(boxCount, WG),
      this.maxWorkgroupsPerDimension,
      timer,
    );
    // The top's pairs after the bottom's: threads striding over them, as many as the boxes' (at most MERGE_WORKGROUPS workgroups), then the count.
    const merge = this.mergePipelines();
    const group = pairMergeBindings.bind(this.device, 'pairMerge', { ...out.output(), ends: this.ends });
    recordPass(
      encoder,
      'box pairs merge',
      merge.move,
      group,
      Math.min(ceilDiv(boxCount, WG), MERGE_WORKGROUPS),
      this.maxWorkgroupsPerDimension,
      timer,
    );
    recordPass(encoder, 'box pairs merge count', merge.count, group, 1, this.maxWorkgroupsPerDimension, timer);
  }

  destroy(): void {
    this.params.destroy();
    this.ends.destroy();
  }
}
