/**
 * ParticleStepPass: one step of the particle world (shaders/particles.wgsl.ts) recorded into a
 * caller's encoder: the grid's count and scan, the stable scatter, the contact count, the
 * response. Nothing is read back.
 */
import {
  particleBindings, particleScatterIdsShader, particleStableShader, particleCountShader, particleRespondShader,
} from '../../shaders/particles.wgsl.js';
import { bindGroupLayout, bindGroup, computePipeline } from '../gpu/pipeline.js';
import { dispatchFolded, ceilDiv } from '../gpu/dispatch.js';
import { GridBuildPass, type GpuGrid } from './gridBuild.js';
import type { GpuTimer } from '../gpu/timer.js';

const WG = 128;

/** The GPU state and scratch of a particle world (src/particles.ts owns them). */
export interface ParticleBuffers {
  params: GPUBuffer;
  /** x, y, z, radius per particle: the state. */
  spheres: GPUBuffer;
  /** vx, vy, vz, inverse mass per particle: the state. */
  velocities: GPUBuffer;
  /** Per bucket slot: particle indices in arrival order (before the stable pass). */
  scratchId: GPUBuffer;
  /** Per bucket slot: velocity after gravity, inverse mass. */
  sortedVel: GPUBuffer;
  /** Per bucket slot: (approaching contacts, contacts deeper than slop). */
  contactCounts: GPUBuffer;
  /** [0]: touching pairs found by the last step, counted from both sides. */
  touchingPairs: GPUBuffer;
}

export class ParticleStepPass {
  private readonly layouts: Record<keyof typeof particleBindings, GPUBindGroupLayout>;
  private readonly scatterIds: GPUComputePipeline;
  private readonly stable: GPUComputePipeline;
  private readonly count = new Map<boolean, GPUComputePipeline>();
  private readonly respond = new Map<boolean, GPUComputePipeline>();
  private readonly gridBuild: GridBuildPass;
  private groups: { key: GPUBuffer[]; scatterIds: GPUBindGroup; stable: GPUBindGroup; count: GPUBindGroup; respond: GPUBindGroup } | null = null;

  constructor(
    private readonly device: GPUDevice,
    private readonly maxWorkgroupsPerDimension: number,
  ) {
    this.layouts = {
      scatterIds: bindGroupLayout(device, 'particleScatterIds layout', particleBindings.scatterIds),
      stable: bindGroupLayout(device, 'particleStable layout', particleBindings.stable),
      count: bindGroupLayout(device, 'particleCount layout', particleBindings.count),
      respond: bindGroupLayout(device, 'particleRespond layout', particleBindings.respond),
    };
    this.scatterIds = computePipeline(device, 'particleScatterIds', [this.layouts.scatterIds], particleScatterIdsShader(), 'particleScatterIds', { WG });
    this.stable = computePipeline(device, 'particleStable', [this.layouts.stable], particleStableShader(), 'particleStable', { WG });
    for (const dense of [true, false]) {
      const kind = dense ? 'dense' : 'hashed';
      this.count.set(dense, computePipeline(device, `particleCount ${kind}`, [this.layouts.count], particleCountShader({ dense }), 'particleCount', { WG }));
      this.respond.set(dense, computePipeline(device, `particleRespond ${kind}`, [this.layouts.respond], particleRespondShader({ dense }), 'particleRespond', { WG }));
    }
    this.gridBuild = new GridBuildPass(device, maxWorkgroupsPerDimension);
  }

  /** Bind groups for these buffers, made once and kept while the buffers stay the same. */
  private bindGroups(b: ParticleBuffers, grid: GpuGrid): NonNullable<ParticleStepPass['groups']> {
    const all = [b.params, b.spheres, b.velocities, b.scratchId, b.sortedVel, b.contactCounts, b.touchingPairs, grid.params, grid.keys.buffer, grid.cellStart.buffer, grid.sorted.buffer, grid.sortedId.buffer];
    if (this.groups && this.groups.key.every((buffer, k) => buffer === all[k])) return this.groups;
    const g = grid;
    this.groups = {
      key: all,
      scatterIds: bindGroup(this.device, 'particleScatterIds', this.layouts.scatterIds, [g.params, g.keys.buffer, g.cellStart.buffer, b.scratchId]),
      stable: bindGroup(this.device, 'particleStable', this.layouts.stable, [g.params, b.params, g.keys.buffer, g.cellStart.buffer, b.scratchId, b.spheres, b.velocities, g.sorted.buffer, b.sortedVel, g.sortedId.buffer]),
      count: bindGroup(this.device, 'particleCount', this.layouts.count, [g.params, b.params, g.cellStart.buffer, g.sorted.buffer, b.sortedVel, g.sortedId.buffer, b.contactCounts, b.touchingPairs]),
      respond: bindGroup(this.device, 'particleRespond', this.layouts.respond, [g.params, b.params, g.cellStart.buffer, g.sorted.buffer, b.sortedVel, g.sortedId.buffer, b.contactCounts, b.spheres, b.velocities]),
    };
    return this.groups;
  }

  /** Forgets cached bind groups (after the world's buffers or grid were replaced). */
  invalidate(): void {
    this.groups = null;
  }

  /**
   * Records one step over `grid` (prepared with the world's plan). Work per particle: the
   * grid build (~50 bytes), the stable rank (its bucket's size), and two neighbour walks.
   */
  encode(encoder: GPUCommandEncoder, buffers: ParticleBuffers, grid: GpuGrid, timer?: GpuTimer): void {
    const plan = grid.plan;
    if (!plan) throw new Error('the particle grid has no plan');
    const groups = this.bindGroups(buffers, grid);
    const workgroups = ceilDiv(plan.sphereCount, WG);
    this.gridBuild.encodeCountAndScan(encoder, buffers.spheres, grid, timer);
    encoder.clearBuffer(buffers.touchingPairs);
    const run = (label: string, pipeline: GPUComputePipeline, group: GPUBindGroup): void => {
      const pass = encoder.beginComputePass(timer?.pass(label) ?? { label });
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, group);
      dispatchFolded(pass, workgroups, this.maxWorkgroupsPerDimension);
      pass.end();
    };
    run('particle scatter', this.scatterIds, groups.scatterIds);
    run('particle stable sort', this.stable, groups.stable);
    run('contact count', this.count.get(plan.dense)!, groups.count);
    run('contact response', this.respond.get(plan.dense)!, groups.respond);
  }

  destroy(): void {
    this.gridBuild.destroy();
  }
}
