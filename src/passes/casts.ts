/**
 * CastPass: raycasts and sphere casts against spheres (shaders/casts.wgsl.ts), brute force or
 * against a built grid, in three modes: the nearest hit per cast, the number of hits per cast,
 * and every hit (written at the offsets the scanned counts give).
 */
import { castShader, castBruteBindings, castGridBindings, type CastMode } from '../../shaders/casts.wgsl.js';
import { CastParams, packStruct } from '../layout.js';
import { bindGroupLayout, bindGroup, computePipeline } from '../gpu/pipeline.js';
import { createBuffer } from '../gpu/buffers.js';
import { BufferUsage } from '../gpu/flags.js';
import { dispatchFolded, ceilDiv } from '../gpu/dispatch.js';
import type { GpuGrid } from './gridBuild.js';
import type { GpuTimer } from '../gpu/timer.js';

const WG = 64;

/** Where the spheres come from: a flat buffer (brute force) or a built grid. */
export type CastSource = { spheres: GPUBuffer; sphereCount: number } | { grid: GpuGrid };

export interface CastTargets {
  /** CastHitRecord per cast (nearest) or per hit (write). */
  hits: GPUBuffer;
  /** castCount + 1 u32: hit counts (count), their exclusive scan (write); unused for nearest. */
  counts: GPUBuffer;
}

export class CastPass {
  private readonly bruteLayout: GPUBindGroupLayout;
  private readonly gridLayout: GPUBindGroupLayout;
  private readonly pipelines = new Map<string, GPUComputePipeline>();
  private readonly params: GPUBuffer;

  constructor(
    private readonly device: GPUDevice,
    private readonly maxWorkgroupsPerDimension: number,
  ) {
    this.bruteLayout = bindGroupLayout(device, 'cast brute layout', castBruteBindings);
    this.gridLayout = bindGroupLayout(device, 'cast grid layout', castGridBindings);
    this.params = createBuffer(device, 'cast params', CastParams.size, BufferUsage.UNIFORM | BufferUsage.COPY_DST);
  }

  private pipeline(grid: boolean, mode: CastMode, dense: boolean): GPUComputePipeline {
    const key = `${grid ? (dense ? 'grid dense' : 'grid hashed') : 'brute'} ${mode}`;
    let pipeline = this.pipelines.get(key);
    if (!pipeline) {
      const code = castShader({ broadphase: grid ? 'grid' : 'brute', mode, dense });
      pipeline = computePipeline(this.device, `cast ${key}`, [grid ? this.gridLayout : this.bruteLayout], code, 'castMain', { WG });
      this.pipelines.set(key, pipeline);
    }
    return pipeline;
  }

  /** Writes the parameters (through the queue: they hold for every encode of one submission). */
  setParams(castCount: number, sphereCount: number, slack: number): void {
    this.device.queue.writeBuffer(this.params, 0, packStruct(CastParams, { castCount, sphereCount, slack }));
  }

  /** Records one cast kernel over `castCount` casts (vec4 pairs in `casts`). Call setParams first. */
  encode(encoder: GPUCommandEncoder, mode: CastMode, source: CastSource, casts: GPUBuffer, castCount: number, targets: CastTargets, timer?: GpuTimer): void {
    const label = `cast ${'grid' in source ? 'grid' : 'brute'} ${mode}`;
    const pass = encoder.beginComputePass(timer?.pass(label) ?? { label });
    if ('grid' in source) {
      const grid = source.grid;
      if (!grid.plan) throw new Error('the grid has no plan: build it first');
      pass.setPipeline(this.pipeline(true, mode, grid.plan.dense));
      pass.setBindGroup(
        0,
        bindGroup(this.device, label, this.gridLayout, [grid.params, this.params, casts, grid.cellStart.buffer, grid.sorted.buffer, grid.sortedId.buffer, targets.hits, targets.counts]),
      );
    } else {
      pass.setPipeline(this.pipeline(false, mode, true));
      pass.setBindGroup(0, bindGroup(this.device, label, this.bruteLayout, [this.params, casts, source.spheres, targets.hits, targets.counts]));
    }
    dispatchFolded(pass, ceilDiv(castCount, WG), this.maxWorkgroupsPerDimension);
    pass.end();
  }

  destroy(): void {
    this.params.destroy();
  }
}
