/**
 * 'bvh': a linear BVH (Karras 2012) over the spheres (its kernels in shaders/broadphase/bvh/:
 * the build shaders/spatial/bvh.wgsl.ts, the walk shaders/spatial/bvhWalk.wgsl.ts, the queries
 * walk.wgsl.ts and casts.wgsl.ts). Morton codes of the
 * centres over their bounds, the GPU radix sort, one thread per internal node for the tree and
 * the node boxes from a pyramid of block boxes (no atomics: the build's comment says why). Each
 * query walks the tree with a fixed stack that the depth bound (≤ 92 internal nodes on a path,
 * whatever the input) keeps from overflowing. It serves sphere pairs, sphere–box pairs and casts;
 * unlike the grid it does not care how the radii spread or how far the outliers lie. Its boxes
 * grow by 2^-18 of each sphere's radius, never by the size of the coordinates, so a scene far
 * from the origin walks as few nodes as the same scene at it (walk.wgsl.ts's comment says why
 * that is enough).
 *
 * Cost: the build is a key pass, a 4-pass sort of n keys with their ids, a second key pass and
 * sort (the Morton code is 60 bits: two 30-bit words, sorted low then high), a gather, log2 n
 * pyramid passes (n blocks in all) and the node pass (≤ 2·log2 n block reads a node): about
 * 16 + 2·4·(22.5) + 20 + 40 + 32·(1 + reads) bytes a sphere. Memory: 4 + 4 + 8 + 16 bytes a
 * sphere, 32 a node and 32 a pyramid block (< n of each).
 */
import {
  bvhCodesShader,
  bvhCodesBindings,
  bvhCodesHiShader,
  bvhCodesHiBindings,
  bvhGatherShader,
  bvhGatherBindings,
  bvhPyramidShader,
  bvhPyramidBindings,
  bvhNodesShader,
  bvhNodesBindings,
} from '../../../shaders/spatial/bvh.wgsl.js';
import {
  bvhPairsShader,
  bvhPairsBindings,
  bvhBoxesShader,
  bvhBoxesBindings,
  bvhBoxCodesShader,
  bvhBoxCodesBindings,
} from '../../../shaders/broadphase/bvh/walk.wgsl.js';
import { castBvhKernel } from '../../../shaders/broadphase/bvh/casts.wgsl.js';
import { bvhMortonGrid, bvhPyramidLevels } from '../../spatial/bvhShape.js';
import { RadixSortPass } from '../../passes/radixSort.js';
import { packStruct } from '../../layout.js';
import { BvhParams, BvhLevel, BvhNode } from '../../../shaders/spatial/bvhLayout.js';
import { computePipeline, recordPass, variant } from '../../gpu/pipeline.js';
import { BufferUsage } from '../../gpu/flags.js';
import { GrowableBuffer, bindingLimit, createBuffer } from '../../gpu/buffers.js';
import { ceilDiv } from '../../gpu/dispatch.js';
import { CapacityError } from '../../errors.js';
import type { BroadPhase, BroadPhaseContext, CastJob } from '../types.js';
import type { SphereStats } from '../../validate.js';
import type { PairList } from '../../gpu/pairList.js';
import type { GpuTimer } from '../../gpu/timer.js';
import type { BoxKind } from '../../queryKinds.js';
import { bvhCastSlack } from './castSlack.js';
import type { CastReach } from '../../spatial/reach.js';
import { WORKGROUP_SIZE } from '../../gpu/workgroups.js';

const WG_BUILD = WORKGROUP_SIZE.bvhBuild;
const WG_QUERY = WORKGROUP_SIZE.bvhQuery;
/** Pyramid levels a tree may need: floor(log2 n) < 32. */
const MAX_LEVELS = 32;
/** Bytes between the per-level parameters (the minimum uniform offset alignment, at most 256). */
const LEVEL_STRIDE = 256;

export { bvhMortonGrid, bvhPyramidLevels } from '../../spatial/bvhShape.js';

export class BvhBroadPhase implements BroadPhase {
  readonly name = 'bvh' as const;
  private readonly device: GPUDevice;
  private readonly maxWorkgroupsPerDimension: number;
  private readonly sort: RadixSortPass;
  private readonly params: GPUBuffer;
  private readonly levelParams: GPUBuffer;
  private readonly codes: GrowableBuffer;
  private readonly keys: GrowableBuffer;
  private readonly ids: GrowableBuffer;
  private readonly sorted: GrowableBuffer;
  private readonly pyramid: GrowableBuffer;
  private readonly nodes: GrowableBuffer;
  /** The boxes' Morton codes and the order the box walk takes them in (bvhBoxCodesBindings). */
  private readonly boxKeys: GrowableBuffer;
  private readonly boxOrder: GrowableBuffer;
  /** The boxes' sort: a pass of its own, since its parameters (the box count) would overwrite the build's in one submission. */
  private boxSort?: RadixSortPass;
  private readonly layouts: Record<
    'codes' | 'codesHi' | 'gather' | 'pyramid' | 'nodes' | 'pairs' | 'boxes' | 'boxCodes',
    GPUBindGroupLayout
  >;
  private readonly pipelines = new Map<string, GPUComputePipeline>();
  private values = { origin: [0, 0, 0], sphereCount: 0, scale: [0, 0, 0], boxCount: 0, slack: 0 };
  private levels: { count: number; base: number }[] = [];

  constructor({ device, maxWorkgroupsPerDimension }: BroadPhaseContext) {
    this.device = device;
    this.maxWorkgroupsPerDimension = maxWorkgroupsPerDimension;
    this.sort = new RadixSortPass(device, { maxWorkgroupsPerDimension, label: 'bvh sort' });
    this.params = createBuffer(device, 'bvh params', BvhParams.size, BufferUsage.UNIFORM | BufferUsage.COPY_DST);
    this.levelParams = createBuffer(
      device,
      'bvh levels',
      LEVEL_STRIDE * MAX_LEVELS,
      BufferUsage.UNIFORM | BufferUsage.COPY_DST,
    );
    const storage = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
    this.codes = new GrowableBuffer(device, 'bvh codes', storage);
    this.keys = new GrowableBuffer(device, 'bvh sorted codes', storage);
    this.ids = new GrowableBuffer(device, 'bvh ids', storage);
    this.sorted = new GrowableBuffer(device, 'bvh sorted spheres', storage);
    this.pyramid = new GrowableBuffer(device, 'bvh pyramid', storage);
    this.nodes = new GrowableBuffer(device, 'bvh nodes', storage);
    this.boxKeys = new GrowableBuffer(device, 'bvh box codes', storage);
    this.boxOrder = new GrowableBuffer(device, 'bvh box order', storage);
    this.layouts = {
      codes: bvhCodesBindings.layout(device, 'bvhCodes'),
      codesHi: bvhCodesHiBindings.layout(device, 'bvhCodesHi'),
      gather: bvhGatherBindings.layout(device, 'bvhGather'),
      pyramid: bvhPyramidBindings.layout(device, 'bvhPyramid'),
      nodes: bvhNodesBindings.layout(device, 'bvhNodes'),
      pairs: bvhPairsBindings.layout(device, 'bvhPairs'),
      boxes: bvhBoxesBindings.layout(device, 'bvhBoxes'),
      boxCodes: bvhBoxCodesBindings.layout(device, 'bvhBoxCodes'),
    };
  }

  private pipeline(
    name: 'codes' | 'codesHi' | 'gather' | 'pyramid' | 'nodes' | 'pairs' | BoxKind | `codes ${BoxKind}`,
  ): GPUComputePipeline {
    return variant(this.pipelines, name, () => {
      const d = this.device;
      const wg = { WG: WG_BUILD };
      if (name === 'codes')
        return computePipeline(d, 'bvhCodes', [this.layouts.codes], bvhCodesShader(), 'bvhCodes', wg);
      if (name === 'codesHi')
        return computePipeline(d, 'bvhCodesHi', [this.layouts.codesHi], bvhCodesHiShader(), 'bvhCodesHi', wg);
      if (name === 'gather')
        return computePipeline(d, 'bvhGather', [this.layouts.gather], bvhGatherShader(), 'bvhGather', wg);
      if (name === 'pyramid')
        return computePipeline(d, 'bvhPyramid', [this.layouts.pyramid], bvhPyramidShader(), 'bvhPyramid', wg);
      if (name === 'nodes')
        return computePipeline(d, 'bvhNodes', [this.layouts.nodes], bvhNodesShader(), 'bvhNodes', wg);
      if (name === 'pairs')
        return computePipeline(d, 'bvhPairs', [this.layouts.pairs], bvhPairsShader(), 'bvhPairs', { WG: WG_QUERY });
      if (name === 'codes aabb' || name === 'codes obb') {
        const kind = name === 'codes aabb' ? 'aabb' : 'obb';
        return computePipeline(
          d,
          `bvhBoxCodes ${kind}`,
          [this.layouts.boxCodes],
          bvhBoxCodesShader({ kind }),
          'bvhBoxCodes',
          wg,
        );
      }
      return computePipeline(d, `bvhBoxes ${name}`, [this.layouts.boxes], bvhBoxesShader({ kind: name }), 'bvhBoxes', {
        WG: WG_QUERY,
      });
    });
  }

  private writeParams(): void {
    this.device.queue.writeBuffer(this.params, 0, packStruct(BvhParams, this.values));
  }

  prepare(stats: SphereStats): void {
    const n = stats.count;
    const limit = bindingLimit(this.device);
    if (BvhNode.size * n > limit) {
      throw new CapacityError(
        `spheres for broadphase 'bvh' (${BvhNode.size} bytes a node in one binding)`,
        n,
        Math.floor(limit / BvhNode.size),
        "use broadphase 'grid' or 'auto'",
      );
    }
    this.levels = bvhPyramidLevels(n);
    const blocks = this.levels.reduce((sum, l) => sum + l.count, 0);
    this.codes.ensure(4 * Math.max(n, 1));
    this.keys.ensure(8 * Math.max(n, 1));
    this.ids.ensure(4 * Math.max(n, 1));
    this.sorted.ensure(16 * Math.max(n, 1));
    this.pyramid.ensure(32 * Math.max(blocks, 1));
    this.nodes.ensure(BvhNode.size * Math.max(n - 1, 1));
    const { origin, scale } = bvhMortonGrid(stats);
    // No slack: the boxes grow by a fraction of each sphere's own radius (paddedRadius,
    // shaders/spatial/bvh.wgsl.ts), never by the coordinates' size (BvhParams.slack is unused, 0).
    this.values = { origin, sphereCount: n, scale, boxCount: 0, slack: 0 };
    this.writeParams();
    if (this.levels.length > 0) {
      const bytes = new Uint8Array(LEVEL_STRIDE * this.levels.length);
      this.levels.forEach((l, i) => {
        const srcBase = i > 0 ? this.levels[i - 1].base : 0;
        bytes.set(
          new Uint8Array(packStruct(BvhLevel, { level: i + 1, count: l.count, srcBase, dstBase: l.base })),
          LEVEL_STRIDE * i,
        );
      });
      this.device.queue.writeBuffer(this.levelParams, 0, bytes);
    }
  }

  encodeBuild(encoder: GPUCommandEncoder, spheres: GPUBuffer, timer?: GpuTimer): void {
    const n = this.values.sphereCount;
    if (n === 0) return;
    const d = this.device;
    const groups = ceilDiv(n, WG_BUILD);
    this.run(
      encoder,
      'bvh codes',
      'codes',
      bvhCodesBindings.bind(d, 'bvhCodes', {
        params: this.params,
        spheres,
        codes: this.codes.buffer,
        ids: this.ids.buffer,
      }),
      groups,
      timer,
    );
    this.sort.encode(encoder, this.codes.buffer, n, { values: this.ids.buffer, keyBits: 30, timer });
    this.run(
      encoder,
      'bvh codes hi',
      'codesHi',
      bvhCodesHiBindings.bind(d, 'bvhCodesHi', {
        params: this.params,
        spheres,
        ids: this.ids.buffer,
        codes: this.codes.buffer,
      }),
      groups,
      timer,
    );
    this.sort.encode(encoder, this.codes.buffer, n, { values: this.ids.buffer, keyBits: 30, timer });
    this.run(
      encoder,
      'bvh gather',
      'gather',
      bvhGatherBindings.bind(d, 'bvhGather', {
        params: this.params,
        spheres,
        ids: this.ids.buffer,
        sorted: this.sorted.buffer,
        keys: this.keys.buffer,
      }),
      groups,
      timer,
    );
    this.levels.forEach((l, i) => {
      const level = { buffer: this.levelParams, offset: LEVEL_STRIDE * i, size: BvhLevel.size };
      const group = bvhPyramidBindings.bind(d, 'bvhPyramid', {
        params: this.params,
        level,
        sorted: this.sorted.buffer,
        pyramid: this.pyramid.buffer,
      });
      this.run(encoder, `bvh pyramid ${i + 1}`, 'pyramid', group, ceilDiv(l.count, WG_BUILD), timer);
    });
    if (n > 1) {
      const group = bvhNodesBindings.bind(d, 'bvhNodes', {
        params: this.params,
        keys: this.keys.buffer,
        sorted: this.sorted.buffer,
        pyramid: this.pyramid.buffer,
        nodes: this.nodes.buffer,
      });
      this.run(encoder, 'bvh nodes', 'nodes', group, ceilDiv(n - 1, WG_BUILD), timer);
    }
  }

  encodeSpherePairs(encoder: GPUCommandEncoder, out: PairList, timer?: GpuTimer): void {
    const group = bvhPairsBindings.bind(this.device, 'bvhPairs', {
      params: this.params,
      sorted: this.sorted.buffer,
      ids: this.ids.buffer,
      nodes: this.nodes.buffer,
      ...out.output(),
    });
    this.run(encoder, 'bvh pairs', 'pairs', group, ceilDiv(this.values.sphereCount, WG_QUERY), timer);
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
    const d = this.device;
    this.boxKeys.ensure(4 * Math.max(boxCount, 1));
    this.boxOrder.ensure(4 * Math.max(boxCount, 1));
    this.boxSort ??= new RadixSortPass(d, {
      maxWorkgroupsPerDimension: this.maxWorkgroupsPerDimension,
      label: 'bvh box sort',
    });
    this.run(
      encoder,
      `bvh box codes ${kind}`,
      `codes ${kind}`,
      bvhBoxCodesBindings.bind(d, 'bvhBoxCodes', {
        params: this.params,
        boxes,
        boxKeys: this.boxKeys.buffer,
        boxOrder: this.boxOrder.buffer,
      }),
      ceilDiv(boxCount, WG_BUILD),
      timer,
    );
    this.boxSort.encode(encoder, this.boxKeys.buffer, boxCount, { values: this.boxOrder.buffer, keyBits: 30, timer });
    const group = bvhBoxesBindings.bind(d, 'bvhBoxes', {
      params: this.params,
      sorted: this.sorted.buffer,
      ids: this.ids.buffer,
      nodes: this.nodes.buffer,
      boxes,
      boxOrder: this.boxOrder.buffer,
      ...out.output(),
    });
    this.run(encoder, `bvh boxes ${kind}`, kind, group, ceilDiv(boxCount, WG_QUERY), timer);
  }

  encodeCasts(encoder: GPUCommandEncoder, job: CastJob, timer?: GpuTimer): void {
    job.kernels.encode(
      encoder,
      castBvhKernel,
      job,
      { nodes: this.nodes.buffer, sorted: this.sorted.buffer, sortedId: this.ids.buffer },
      timer,
    );
  }
  /** Node boxes against the cast's t values (bvhCastSlack): no 2^-20 of the coordinates. */
  castSlack(reach: CastReach): number {
    return bvhCastSlack(reach);
  }

  private run(
    encoder: GPUCommandEncoder,
    label: string,
    pipeline: Parameters<BvhBroadPhase['pipeline']>[0],
    group: GPUBindGroup,
    groups: number,
    timer?: GpuTimer,
  ): void {
    recordPass(encoder, label, this.pipeline(pipeline), group, groups, this.maxWorkgroupsPerDimension, timer);
  }

  destroy(): void {
    this.sort.destroy();
    this.boxSort?.destroy();
    this.boxKeys.destroy();
    this.boxOrder.destroy();
    this.params.destroy();
    this.levelParams.destroy();
    this.codes.destroy();
    this.keys.destroy();
    this.ids.destroy();
    this.sorted.destroy();
    this.pyramid.destroy();
    this.nodes.destroy();
  }
}
