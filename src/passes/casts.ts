/**
 * CastPass: the raycast and sphere-cast kernels (shaders/casts.wgsl.ts), brute force,
 * against a built grid or a built LBVH (the broad phases in src/broadphase choose), in three modes: the nearest hit per cast, the number of hits per cast,
 * and every hit (written at the offsets the scanned counts give).
 */
import { castShader, castBruteBindings, castGridBindings, castBvhBindings } from '../../shaders/casts.wgsl.js';
import type { CastMode } from '../queryKinds.js';
import { gridLayoutOf, gridLayoutName, type GridLayout } from '../../shaders/grid.wgsl.js';
import { CastParams, packStruct } from '../layout.js';
import { computePipeline, variant, recordPass } from '../gpu/pipeline.js';
import { createBuffer } from '../gpu/buffers.js';
import { BufferUsage } from '../gpu/flags.js';
import { ceilDiv } from '../gpu/dispatch.js';
import type { GpuGrid } from './gridBuild.js';
import type { GpuTimer } from '../gpu/timer.js';
import { WORKGROUP_SIZE } from '../gpu/workgroups.js';

const WG = WORKGROUP_SIZE.casts;

export interface CastTargets {
  /** CastHitRecord per cast (nearest) or per hit (write). */
  hits: GPUBuffer;
  /** castCount + 1 u32: hit counts (count), their exclusive scan (write); unused for nearest. */
  counts: GPUBuffer;
}

export class CastPass {
  private readonly pipelines = new Map<string, GPUComputePipeline>();
  private readonly params: GPUBuffer;

  constructor(
    private readonly device: GPUDevice,
    private readonly maxWorkgroupsPerDimension: number,
  ) {
    this.params = createBuffer(device, 'cast params', CastParams.size, BufferUsage.UNIFORM | BufferUsage.COPY_DST);
  }

  private pipeline(broadphase: 'brute' | 'grid' | 'bvh', mode: CastMode, grid?: GridLayout): GPUComputePipeline {
    const key = `${broadphase === 'grid' && grid ? `grid ${gridLayoutName(grid)}` : broadphase} ${mode}`;
    return variant(this.pipelines, key, () => {
      const layout = (broadphase === 'grid' ? castGridBindings : broadphase === 'bvh' ? castBvhBindings : castBruteBindings).layout(this.device, `cast ${broadphase}`);
      return computePipeline(this.device, `cast ${key}`, [layout], castShader({ broadphase, mode, ...grid }), 'castMain', { WG });
    });
  }

  /** Writes the parameters (through the queue: they hold for every encode of one submission). */
  setParams(castCount: number, sphereCount: number, slack: number): void {
    this.device.queue.writeBuffer(this.params, 0, packStruct(CastParams, { castCount, sphereCount, slack }));
  }

  /** Records one cast kernel testing every sphere of `spheres` (`sphereCount` in the parameters). */
  encodeBrute(encoder: GPUCommandEncoder, mode: CastMode, spheres: GPUBuffer, casts: GPUBuffer, castCount: number, targets: CastTargets, timer?: GpuTimer): void {
    const label = `cast brute ${mode}`;
    this.dispatch(encoder, label, castCount, timer, this.pipeline('brute', mode), castBruteBindings.bind(this.device, label, { params: this.params, casts, spheres, ...targets }));
  }

  /** Records one cast kernel walking a built grid. */
  encodeGrid(encoder: GPUCommandEncoder, mode: CastMode, grid: GpuGrid, casts: GPUBuffer, castCount: number, targets: CastTargets, timer?: GpuTimer): void {
    const label = `cast grid ${mode}`;
    const plan = grid.plan;
    if (!plan) throw new Error('the grid has no plan: build it first');
    const group = castGridBindings.bind(this.device, label, { ...grid.readBindings(), params: this.params, casts, ...targets });
    this.dispatch(encoder, label, castCount, timer, this.pipeline('grid', mode, gridLayoutOf(plan)), group);
  }

  /** Records one cast kernel walking a built LBVH: its nodes, sorted spheres and their indices. */
  encodeBvh(encoder: GPUCommandEncoder, mode: CastMode, bvh: { nodes: GPUBuffer; sorted: GPUBuffer; ids: GPUBuffer }, casts: GPUBuffer, castCount: number, targets: CastTargets, timer?: GpuTimer): void {
    const label = `cast bvh ${mode}`;
    const group = castBvhBindings.bind(this.device, label, { params: this.params, casts, nodes: bvh.nodes, sorted: bvh.sorted, sortedId: bvh.ids, hits: targets.hits, counts: targets.counts });
    this.dispatch(encoder, label, castCount, timer, this.pipeline('bvh', mode), group);
  }

  private dispatch(encoder: GPUCommandEncoder, label: string, castCount: number, timer: GpuTimer | undefined, pipeline: GPUComputePipeline, group: GPUBindGroup): void {
    recordPass(encoder, label, pipeline, group, ceilDiv(castCount, WG), this.maxWorkgroupsPerDimension, timer);
  }

  destroy(): void {
    this.params.destroy();
  }
}
