/**
 * CastPass: what every cast kernel shares (shaders/passes/casts.wgsl.ts): the parameters, the
 * pipelines (one per phase, variant and mode, made on first use) and the dispatch, one thread per
 * cast. The kernels themselves are the broad phases' (shaders/broadphase/<name>/casts.wgsl.ts): a
 * phase's `encodeCasts` hands its `CastKernel` and its structure's buffers to `encode`, in one of
 * three modes: the nearest hit per cast, the number of hits per cast, and every hit (written at
 * the offsets the scanned counts give).
 */
import type { CastMode } from '../queryKinds.js';
import { packStruct } from '../layout.js';
import { CastParams } from '../../shaders/passes/layout.js';
import { computePipeline, variant, recordPass } from '../gpu/pipeline.js';
import { createBuffer } from '../gpu/buffers.js';
import { BufferUsage } from '../gpu/flags.js';
import { ceilDiv } from '../gpu/dispatch.js';
import type { BindingResource } from '../gpu/kernel.js';
import type { CastKernel } from '../../shaders/passes/casts.wgsl.js';

export type { CastKernel } from '../../shaders/passes/casts.wgsl.js';
import type { GpuTimer } from '../gpu/timer.js';
import { WORKGROUP_SIZE } from '../gpu/workgroups.js';

const WG = WORKGROUP_SIZE.casts;

export interface CastTargets {
  /** CastHitRecord per cast (nearest) or per hit (write). */
  hits: GPUBuffer;
  /** castCount + 1 u32: hit counts (count), their exclusive scan (write); unused for nearest. */
  counts: GPUBuffer;
}

/** What the cast pass binds itself: the parameters, the casts and the targets. */
type CastOwn = 'params' | 'casts' | 'hits' | 'counts';

/** A cast batch already on the GPU, in one mode. */
export interface CastRun {
  mode: CastMode;
  /** Two vec4 a cast: (A, radius), (B, 0). */
  casts: GPUBuffer;
  castCount: number;
  targets: CastTargets;
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

  private pipeline<N extends string>(kernel: CastKernel<N>, mode: CastMode): GPUComputePipeline {
    const key = `${kernel.variant ? `${kernel.name} ${kernel.variant}` : kernel.name} ${mode}`;
    return variant(this.pipelines, key, () => {
      const layout = kernel.bindings.layout(this.device, `cast ${kernel.name}`);
      return computePipeline(this.device, `cast ${key}`, [layout], kernel.shader(mode), 'castMain', { WG });
    });
  }

  /** Writes the parameters (through the queue: they hold for every encode of one submission). */
  setParams(castCount: number, sphereCount: number, slack: number): void {
    this.device.queue.writeBuffer(this.params, 0, packStruct(CastParams, { castCount, sphereCount, slack }));
  }

  /**
   * Records the copy of parameters written elsewhere (a CastParams at `offset` of `log`, a
   * COPY_SRC buffer) into the pass's, in command order: for calls that record several batches
   * into one submission, each with its own parameters (the particle world's encodeRaycast).
   */
  copyParams(encoder: GPUCommandEncoder, log: GPUBuffer, offset: number): void {
    encoder.copyBufferToBuffer(log, offset, this.params, 0, CastParams.size);
  }

  /** Records one cast kernel of a broad phase over its structure's buffers (`structure`: every binding but the pass's own). */
  encode<N extends string>(
    encoder: GPUCommandEncoder,
    kernel: CastKernel<N>,
    run: CastRun,
    structure: Readonly<Record<Exclude<N, CastOwn>, BindingResource>>,
    timer?: GpuTimer,
  ): void {
    const label = `cast ${kernel.name} ${run.mode}`;
    const resources = {
      ...structure,
      params: this.params,
      casts: run.casts,
      hits: run.targets.hits,
      counts: run.targets.counts,
    } as Readonly<Record<N, BindingResource>>;
    recordPass(
      encoder,
      label,
      this.pipeline(kernel, run.mode),
      kernel.bindings.bind(this.device, label, resources),
      ceilDiv(run.castCount, WG),
      this.maxWorkgroupsPerDimension,
      timer,
    );
  }

  destroy(): void {
    this.params.destroy();
  }
}
