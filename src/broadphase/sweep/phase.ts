/**
 * 'sweep': sort and sweep along one axis (shaders/broadphase/sweep/sweep.wgsl.ts). The spheres' intervals along
 * the axis of greatest variance are sorted by their lower ends with the GPU radix sort; each
 * interval is then swept forward until a lower end passes its upper end. Boxes binary-search the
 * sorted list. It serves sphere pairs and sphere–box pairs; rays and casts cross space in every
 * direction, which one sorted axis does not prune: use the grid or all-pairs for them.
 *
 * Cost: the build is a key pass, a 4-pass sort of n keys with their ids and a gather (about
 * 16 + 4·(22.5) + 20 bytes a sphere); the sweep tests every pair whose intervals overlap along
 * the axis. That is few when the spheres spread along one long axis, and about n·(2r/L) a sphere
 * for a cube of side L, where the grid tests only the neighbouring cells.
 *
 * The axis, the slack and the estimate 'auto' sweeps by are pure arithmetic in ./axis.ts, which
 * the CPU twin (src/reference/sweep.ts) and the registry line share.
 */
import {
  sweepKeysShader,
  sweepKeysBindings,
  sweepGatherShader,
  sweepGatherBindings,
  sweepPairsShader,
  sweepPairsBindings,
  sweepBoxesShader,
  sweepBoxesBindings,
} from '../../../shaders/broadphase/sweep/sweep.wgsl.js';
import { RadixSortPass } from '../../passes/radixSort.js';
import { packStruct } from '../../layout.js';
import { SweepParams } from '../../../shaders/broadphase/sweep/layout.js';
import { computePipeline, recordPass, variant } from '../../gpu/pipeline.js';
import { BufferUsage } from '../../gpu/flags.js';
import { GrowableBuffer, createBuffer } from '../../gpu/buffers.js';
import { ceilDiv } from '../../gpu/dispatch.js';
import type { BroadPhase, BroadPhaseContext, CastJob } from '../types.js';
import type { SphereStats } from '../../validate.js';
import type { PairList } from '../../gpu/pairList.js';
import type { GpuTimer } from '../../gpu/timer.js';
import type { BoxKind } from '../../queryKinds.js';
import type { CastReach } from '../../spatial/reach.js';
import { WORKGROUP_SIZE } from '../../gpu/workgroups.js';
import { sweepAxis, sweepSlack } from './axis.js';

const WG_BUILD = WORKGROUP_SIZE.sweepBuild;
const WG_SWEEP = WORKGROUP_SIZE.sweepQuery;

export class SweepBroadPhase implements BroadPhase {
  readonly name = 'sweep' as const;
  private readonly device: GPUDevice;
  private readonly maxWorkgroupsPerDimension: number;
  private readonly sort: RadixSortPass;
  private readonly params: GPUBuffer;
  private readonly keys: GrowableBuffer;
  private readonly ids: GrowableBuffer;
  private readonly sorted: GrowableBuffer;
  private readonly layouts: Record<'keys' | 'gather' | 'pairs' | 'boxes', GPUBindGroupLayout>;
  private readonly pipelines = new Map<string, GPUComputePipeline>();
  private values = { sphereCount: 0, boxCount: 0, axis: 0, slack: 0, maxRadius: 0 };

  constructor({ device, maxWorkgroupsPerDimension }: BroadPhaseContext) {
    this.device = device;
    this.maxWorkgroupsPerDimension = maxWorkgroupsPerDimension;
    this.sort = new RadixSortPass(device, { maxWorkgroupsPerDimension, label: 'sweep sort' });
    this.params = createBuffer(device, 'sweep params', SweepParams.size, BufferUsage.UNIFORM | BufferUsage.COPY_DST);
    const storage = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
    this.keys = new GrowableBuffer(device, 'sweep keys', storage);
    this.ids = new GrowableBuffer(device, 'sweep ids', storage);
    this.sorted = new GrowableBuffer(device, 'sweep sorted spheres', storage);
    this.layouts = {
      keys: sweepKeysBindings.layout(device, 'sweepKeys'),
      gather: sweepGatherBindings.layout(device, 'sweepGather'),
      pairs: sweepPairsBindings.layout(device, 'sweepPairs'),
      boxes: sweepBoxesBindings.layout(device, 'sweepBoxes'),
    };
  }

  private pipeline(name: 'keys' | 'gather' | 'pairs' | 'aabb' | 'obb'): GPUComputePipeline {
    return variant(this.pipelines, name, () => {
      const d = this.device;
      if (name === 'keys')
        return computePipeline(d, 'sweepKeys', [this.layouts.keys], sweepKeysShader(), 'sweepKeys', { WG: WG_BUILD });
      if (name === 'gather')
        return computePipeline(d, 'sweepGather', [this.layouts.gather], sweepGatherShader(), 'sweepGather', {
          WG: WG_BUILD,
        });
      if (name === 'pairs')
        return computePipeline(d, 'sweepPairs', [this.layouts.pairs], sweepPairsShader(), 'sweepPairs', {
          WG: WG_SWEEP,
        });
      return computePipeline(
        d,
        `sweepBoxes ${name}`,
        [this.layouts.boxes],
        sweepBoxesShader({ kind: name }),
        'sweepBoxes',
        { WG: WG_SWEEP },
      );
    });
  }

  private writeParams(): void {
    this.device.queue.writeBuffer(this.params, 0, packStruct(SweepParams, this.values));
  }

  prepare(stats: SphereStats): void {
    const n = Math.max(stats.count, 1);
    this.keys.ensure(4 * n);
    this.ids.ensure(4 * n);
    this.sorted.ensure(16 * n);
    this.values = {
      sphereCount: stats.count,
      boxCount: 0,
      axis: sweepAxis(stats),
      slack: sweepSlack(stats),
      maxRadius: stats.maxRadius,
    };
    this.writeParams();
  }

  encodeBuild(encoder: GPUCommandEncoder, spheres: GPUBuffer, timer?: GpuTimer): void {
    const n = this.values.sphereCount;
    const groups = ceilDiv(n, WG_BUILD);
    this.run(
      encoder,
      'sweep keys',
      'keys',
      sweepKeysBindings.bind(this.device, 'sweepKeys', {
        params: this.params,
        spheres,
        keys: this.keys.buffer,
        ids: this.ids.buffer,
      }),
      groups,
      timer,
    );
    this.sort.encode(encoder, this.keys.buffer, n, { values: this.ids.buffer, timer });
    this.run(
      encoder,
      'sweep gather',
      'gather',
      sweepGatherBindings.bind(this.device, 'sweepGather', {
        params: this.params,
        spheres,
        ids: this.ids.buffer,
        sorted: this.sorted.buffer,
      }),
      groups,
      timer,
    );
  }

  encodeSpherePairs(encoder: GPUCommandEncoder, out: PairList, timer?: GpuTimer): void {
    const group = sweepPairsBindings.bind(this.device, 'sweepPairs', {
      params: this.params,
      sorted: this.sorted.buffer,
      ids: this.ids.buffer,
      ...out.output(),
    });
    this.run(encoder, 'sweep pairs', 'pairs', group, ceilDiv(this.values.sphereCount, WG_SWEEP), timer);
  }

  /** One per submission: the box count goes through the queue. */
  encodeBoxPairs(
    encoder: GPUCommandEncoder,
    kind: BoxKind,
    boxes: GPUBuffer,
    boxCount: number,
    out: PairList,
    timer?: GpuTimer,
  ): void {
    this.values = { ...this.values, boxCount };
    this.writeParams();
    const group = sweepBoxesBindings.bind(this.device, 'sweepBoxes', {
      params: this.params,
      sorted: this.sorted.buffer,
      ids: this.ids.buffer,
      boxes,
      ...out.output(),
    });
    this.run(encoder, `sweep boxes ${kind}`, kind, group, ceilDiv(boxCount, WG_SWEEP), timer);
  }

  encodeCasts(_encoder: GPUCommandEncoder, _job: CastJob): void {
    throw new Error("broadphase 'sweep' does not serve casts");
  }

  castSlack(_reach: CastReach): number {
    throw new Error("broadphase 'sweep' does not serve casts");
  }

  private run(
    encoder: GPUCommandEncoder,
    label: string,
    pipeline: Parameters<SweepBroadPhase['pipeline']>[0],
    group: GPUBindGroup,
    groups: number,
    timer?: GpuTimer,
  ): void {
    recordPass(encoder, label, this.pipeline(pipeline), group, groups, this.maxWorkgroupsPerDimension, timer);
  }

  destroy(): void {
    this.sort.destroy();
    this.params.destroy();
    this.keys.destroy();
    this.ids.destroy();
    this.sorted.destroy();
  }
}
