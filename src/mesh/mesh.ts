/**
 * A triangle mesh on the GPU and its BVH: the LBVH of broad phase 'bvh' with the triangles as
 * leaves (shaders/mesh/build.wgsl.ts says how it is built and refitted). `MeshBuilder` holds what
 * a Collider's meshes share (the pipelines, the sort); each `ColliderMesh` holds its buffers.
 *
 * Cost of a build of T triangles: a key pass (3 indices and 3 vertices a triangle, both code
 * words kept by triangle), two 4-pass radix sorts of 30-bit keys with their ids, the second key
 * pass (8 bytes a triangle through the order), the boundaries' prefixes, the topology (bottom-up:
 * about two steps a leaf, 2 prefix reads and an atomic each), the counts (an atomic a node), a
 * one-pass sort of the nodes by prefix, the leaves (48 bytes written a triangle and its box into
 * its parent's record) and the boxes: MESH_BUCKETS indirect dispatches, one record read a node.
 * A refit is the leaves and the boxes. Memory: 12 bytes a vertex; 12 (indices) + 4 (ids) + 48
 * (sorted vertices) + 64 (node) + 8 (parents) + 4 (order) bytes a triangle; and the build's
 * scratch, 16 bytes a triangle of the largest mesh built (up to a quarter more as it grows;
 * codes, keys, prefixes), is the MeshBuilder's, shared by every mesh of the Collider.
 */
import {
  meshCodesBindings,
  meshCodesHiBindings,
  meshLeavesBindings,
  meshSplitsBindings,
  meshTopologyBindings,
  meshCountBindings,
  meshBucketsBindings,
  meshBoxesBindings,
  MESH_BUCKETS,
} from '../../shaders/mesh/build.wgsl.js';
import { MeshBucket } from '../../shaders/mesh/layout.js';
import { BvhParams, BvhChildBoxes } from '../../shaders/spatial/bvhLayout.js';
import { bvhMortonGrid, walkStackFor, BVH_STACK } from '../spatial/bvhShape.js';
import { packStruct } from '../layout.js';
import { recordPass, setPipelineAndGroup } from '../gpu/pipeline.js';
import { BufferUsage } from '../gpu/flags.js';
import { createBuffer, upload, readRanges } from '../gpu/buffers.js';
import { ceilDiv } from '../gpu/dispatch.js';
import { submitChecked } from '../gpu/submit.js';
import { InvalidInputError } from '../errors.js';
import { RULES } from '../checks.js';
import { checkEncoder } from '../checks.js';
import { validateMesh, validatePositions, type MeshData } from './validate.js';
import type { GpuTimer } from '../gpu/timer.js';
import { activeEdges } from './edges.js';

/**
 * Bytes between the buckets' parameters: a multiple of every device's dynamic uniform offset
 * alignment (minUniformBufferOffsetAlignment is at most 256).
 */
const BUCKET_STRIDE = 256;

import { type MeshBuilder, type MeshScratch, MESH_TRIANGLE_BYTES, WG } from './builder.js';

/**
 * A mesh's input for `collider.createMesh`.
 *
 * @category Meshes
 */
export interface MeshInput {
  /** x, y, z per vertex. */
  positions: Float32Array;
  /** Three vertex indices a triangle; omitted, every three vertices are a triangle. */
  indices?: Uint32Array;
}

/**
 * Positions already on the GPU, for {@link ColliderMesh.encodeRefit}: packed x, y, z f32 per
 * vertex from byte `offset` (a multiple of 4; default 0, where the buffer is bound in place and
 * needs STORAGE usage; elsewhere it is copied first and needs COPY_SRC).
 *
 * @category Meshes
 */
export interface GpuPositions {
  /** The buffer holding the positions. */
  buffer: GPUBuffer;
  /** Bytes into `buffer` (default 0). */
  offset?: number;
}

/**
 * A triangle mesh on the GPU with its BVH, made by `collider.createMesh` and queried by the
 * Collider's mesh calls (`raycastMesh`, `sphereCastMesh`, `sphereTriangleContacts` and their
 * encoded forms). Its BVH is built when it is made and refitted by `refit` and `encodeRefit`.
 *
 * @category Meshes
 */
export class ColliderMesh {
  /** Triangles (three indices each). */
  readonly triangleCount: number;
  /** Vertices (x, y, z each). */
  readonly vertexCount: number;
  /**
   * Resolves when the build's submission has been checked (rejects with a WebGPUError or
   * DeviceLostError if it failed). Queries submitted later run after the build in any case.
   */
  readonly ready: Promise<void>;
  /** The vertices' bounds at creation: the Morton grid of the tree. */
  readonly bounds: {
    /** The least x, y, z. */
    min: number[];
    /** The greatest x, y, z. */
    max: number[];
  };
  /** The tree and the triangles in its order, as the query kernels read them. */
  readonly tree: {
    /** BvhChildBoxes per internal node (triangleCount − 1; at least one): its children and their boxes. */
    children: GPUBuffer;
    /** Three vec4f a triangle in tree order: its vertices (w 0). */
    sorted: GPUBuffer;
    /** The triangle index of each sorted leaf. */
    ids: GPUBuffer;
  };
  private readonly positions: GPUBuffer;
  private readonly indices: GPUBuffer;
  private readonly params: GPUBuffer;
  /** Each node's and leaf's parent and side (shaders/mesh/build.wgsl.ts). */
  private readonly parents: GPUBuffer;
  /** The nodes by bucket. */
  private readonly order: GPUBuffer;
  /** Counts and starts of the MESH_BUCKETS buckets. */
  private readonly buckets: GPUBuffer;
  /** Each bucket's indirect dispatch arguments (x, y, 1). */
  private readonly bucketArgs: GPUBuffer;
  /** Each bucket's MeshBucket, BUCKET_STRIDE apart. */
  private readonly bucketParams: GPUBuffer;
  /**
   * The boxes pass's bind group (the same buffers for the mesh's life); each bucket's dispatch
   * sets it at its MeshBucket's offset.
   */
  private boxGroup: GPUBindGroup | null = null;
  private destroyed = false;
  /** The input as created, until the edge flags are made from it (`edgeFlags`). */
  private source: { positions: Float32Array; indices: Uint32Array } | null;
  /** Each triangle's active edges (src/mesh/edges.ts), by triangle index: made on first use by a world. */
  private edges: GPUBuffer | null = null;
  /**
   * @internal The entries the walks over this tree need on their stack (walkStackFor its depth
   * bound): BVH_STACK, what any tree needs, until the build has been read; at most 8 for a mesh
   * of one triangle.
   */
  walkStack = BVH_STACK;
  /** Each bucket's workgroups (x, y) as the build's meshBuckets wrote them, once read; null until then. */
  private bucketDispatch: [number, number][] | null = null;
  /**
   * @internal Counts the refits recorded or submitted (a particle world wakes the particles on
   * the mesh after one).
   */
  version = 0;

  /** @internal Made by `collider.createMesh`. */
  constructor(
    private readonly builder: MeshBuilder,
    data: MeshData,
    private readonly owner: object,
    timer?: GpuTimer,
  ) {
    const d = builder.device;
    const t = data.triangleCount;
    this.triangleCount = t;
    this.vertexCount = data.vertexCount;
    this.bounds = { min: data.min, max: data.max };
    this.source = { positions: data.positions, indices: data.indices };
    const storage = BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC;
    const sized = (label: string, bytes: number) => createBuffer(d, `mesh ${label}`, Math.max(bytes, 16), storage);
    this.positions = sized('positions', 4 * data.positions.length);
    this.indices = sized('indices', 4 * data.indices.length);
    this.tree = {
      children: sized('nodes', BvhChildBoxes.size * Math.max(t - 1, 1)),
      sorted: sized('sorted triangles', MESH_TRIANGLE_BYTES * t),
      ids: sized('ids', 4 * t),
    };
    const uniform = BufferUsage.UNIFORM | BufferUsage.COPY_DST;
    this.params = createBuffer(d, 'mesh params', BvhParams.size, uniform);
    this.parents = sized('parents', 4 * (2 * t - 1));
    this.order = sized('order', 4 * t);
    this.buckets = sized('buckets', 4 * 2 * MESH_BUCKETS);
    this.bucketArgs = createBuffer(
      d,
      'mesh bucket dispatch',
      12 * MESH_BUCKETS,
      BufferUsage.STORAGE | BufferUsage.INDIRECT | BufferUsage.COPY_SRC,
    );
    this.bucketParams = createBuffer(d, 'mesh bucket params', BUCKET_STRIDE * MESH_BUCKETS, uniform);
    const bucketBytes = new Uint8Array(BUCKET_STRIDE * MESH_BUCKETS);
    for (let p = 0; p < MESH_BUCKETS; p++)
      bucketBytes.set(new Uint8Array(packStruct(MeshBucket, { index: p })), BUCKET_STRIDE * p);
    d.queue.writeBuffer(this.bucketParams, 0, bucketBytes);
    // The Morton grid over the vertices' bounds (the centroids lie within them); it stays with
    // the tree: a refit moves the vertices, not the keys.
    type Vec3 = [number, number, number];
    const { origin, scale } = bvhMortonGrid({ count: data.vertexCount, min: data.min as Vec3, max: data.max as Vec3 });
    d.queue.writeBuffer(
      this.params,
      0,
      packStruct(BvhParams, { origin, sphereCount: t, scale, boxCount: 0, slack: 0 }),
    );
    upload(d, this.positions, data.positions);
    upload(d, this.indices, data.indices);
    this.ready = submitChecked(
      d,
      'webgpu-collide mesh build',
      (encoder) => this.encodeBuild(encoder, timer),
      () => null,
    ).then(async () => {
      // What a refit keeps of the tree, read once: the root's height (its internal nodes'
      // depth), for the walks' stack, and the buckets' dispatch arguments, so that a refit
      // dispatches the non-empty buckets directly (WebGPU checks each indirect dispatch with a
      // dispatch of its own: 96 more a refit).
      if (this.destroyed || t < 2) return;
      const [height, args] = await readRanges(
        d,
        [
          { source: this.tree.children, offset: BvhChildBoxes.offsets.height, size: 4 },
          { source: this.bucketArgs, offset: 0, size: 12 * MESH_BUCKETS },
        ],
        ([h, a]) => [new Uint32Array(h)[0], new Uint32Array(a.slice(0))] as const,
      );
      this.walkStack = walkStackFor(height);
      this.bucketDispatch = Array.from({ length: MESH_BUCKETS }, (_, p) => [args[3 * p], args[3 * p + 1]]);
    });
    this.ready.catch(() => {}); // a failed build is reported by `ready` and by the queries that await it
  }

  /** Whether this mesh was made by `owner` and is not destroyed. */
  usableBy(owner: object): boolean {
    return this.owner === owner && !this.destroyed;
  }

  /** @internal Whether this mesh lives on `device` and is not destroyed (a particle world's check). */
  usableOn(device: GPUDevice): boolean {
    return this.builder.device === device && !this.destroyed;
  }

  /**
   * @internal Each triangle's active edges (a u32 of EDGE_AB | EDGE_BC | EDGE_CA bits, by
   * triangle index; src/mesh/edges.ts), decided from the positions the mesh was made with: made
   * once, on the first call (a particle world's `setMeshes`).
   */
  edgeFlags(): GPUBuffer {
    if (!this.edges) {
      const { positions, indices } = this.source!;
      const flags = Uint32Array.from(activeEdges(positions, indices));
      this.edges = createBuffer(
        this.builder.device,
        'mesh edge flags',
        Math.max(4 * flags.length, 16),
        BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC,
      );
      upload(this.builder.device, this.edges, flags);
      this.source = null;
    }
    return this.edges;
  }

  private run(
    encoder: GPUCommandEncoder,
    label: string,
    pipeline: GPUComputePipeline,
    group: GPUBindGroup,
    threads: number,
    timer?: GpuTimer,
  ): void {
    recordPass(encoder, label, pipeline, group, ceilDiv(threads, WG), this.builder.maxWorkgroupsPerDimension, timer);
  }

  private encodeBuild(encoder: GPUCommandEncoder, timer?: GpuTimer): void {
    const t = this.triangleCount;
    if (t === 0) return;
    const b = this.builder;
    const d = b.device;
    const scratch = b.scratch(t);
    const { codes, keys } = scratch;
    const common = { params: this.params, positions: this.positions, indices: this.indices };
    this.run(
      encoder,
      'mesh codes',
      b.pipeline('codes'),
      meshCodesBindings.bind(d, 'meshCodes', { ...common, codes, ids: this.tree.ids, keys }),
      t,
      timer,
    );
    b.sort.encode(encoder, codes, t, { values: this.tree.ids, keyBits: 30, timer });
    this.run(
      encoder,
      'mesh codes hi',
      b.pipeline('codesHi'),
      meshCodesHiBindings.bind(d, 'meshCodesHi', {
        params: this.params,
        keys,
        ids: this.tree.ids,
        codes,
      }),
      t,
      timer,
    );
    b.sort.encode(encoder, codes, t, { values: this.tree.ids, keyBits: 30, timer });
    if (t > 1) this.encodeTopology(encoder, scratch, timer);
    this.encodeBoxes(encoder, this.positions, true, timer);
  }

  /** The tree's shape from the sorted keys: its nodes' children and parents, and their order by prefix bucket. */
  private encodeTopology(encoder: GPUCommandEncoder, scratch: MeshScratch, timer?: GpuTimer): void {
    const { codes, keys, prefix } = scratch;
    const t = this.triangleCount;
    const b = this.builder;
    const d = b.device;
    encoder.clearBuffer(this.buckets);
    // The boundaries' prefixes, into the nodes' order (which meshCount fills later), and the
    // topology's arrival flags, into the sort's keys (spent by now).
    const splits = meshSplitsBindings.bind(d, 'meshSplits', {
      params: this.params,
      keys,
      ids: this.tree.ids,
      splits: this.order,
    });
    this.run(encoder, 'mesh splits', b.pipeline('splits'), splits, t - 1, timer);
    encoder.clearBuffer(codes, 0, 4 * (t - 1));
    const topology = meshTopologyBindings.bind(d, 'meshTopology', {
      params: this.params,
      splits: this.order,
      arrivals: codes,
      children: this.tree.children,
      prefix,
      parents: this.parents,
    });
    this.run(encoder, 'mesh topology', b.pipeline('topology'), topology, t, timer);
    const count = meshCountBindings.bind(d, 'meshCount', {
      params: this.params,
      prefix,
      buckets: this.buckets,
      order: this.order,
    });
    this.run(encoder, 'mesh count', b.pipeline('count'), count, t - 1, timer);
    b.nodeSort.encode(encoder, prefix, t - 1, { values: this.order, keyBits: 7, timer });
    const buckets = meshBucketsBindings.bind(d, 'meshBuckets', {
      params: this.params,
      buckets: this.buckets,
      args: this.bucketArgs,
    });
    recordPass(encoder, 'mesh buckets', b.pipeline('buckets'), buckets, 1, b.maxWorkgroupsPerDimension, timer);
  }

  /**
   * The leaves from `positions` (each triangle into sorted order, its box into its parent's
   * record), then the nodes' boxes bucket by bucket, longest prefix first.
   */
  private encodeBoxes(encoder: GPUCommandEncoder, positions: GPUBuffer, build: boolean, timer?: GpuTimer): void {
    const t = this.triangleCount;
    if (t === 0) return;
    const b = this.builder;
    const d = b.device;
    const leaves = meshLeavesBindings.bind(d, 'meshLeaves', {
      params: this.params,
      positions,
      indices: this.indices,
      ids: this.tree.ids,
      sorted: this.tree.sorted,
      parents: this.parents,
      children: this.tree.children,
    });
    this.run(encoder, build ? 'mesh leaves' : 'mesh refit leaves', b.pipeline('leaves'), leaves, t, timer);
    if (t < 2) return;
    this.boxGroup ??= meshBoxesBindings.bind(d, 'meshBoxes', {
      bucket: { buffer: this.bucketParams, offset: 0, size: MeshBucket.size },
      buckets: this.buckets,
      order: this.order,
      parents: this.parents,
      children: this.tree.children,
    });
    // One pass, a dispatch a bucket (empty ones dispatch no workgroup); each dispatch's writes
    // are seen by the next's reads.
    const pass = encoder.beginComputePass(timer?.pass('mesh boxes') ?? { label: 'mesh boxes' });
    const pipeline = b.pipeline('boxes');
    // A refit after the build's arguments were read dispatches the non-empty buckets directly.
    const direct = build ? null : this.bucketDispatch;
    for (let p = MESH_BUCKETS - 1; p >= 0; p--) {
      if (direct && direct[p][0] * direct[p][1] === 0) continue;
      setPipelineAndGroup(pass, pipeline, this.boxGroup, [BUCKET_STRIDE * p]);
      if (direct) pass.dispatchWorkgroups(direct[p][0], direct[p][1]);
      else pass.dispatchWorkgroupsIndirect(this.bucketArgs, 12 * p);
    }
    pass.end();
  }

  /**
   * New positions for the same vertices (the same length), validated as `createMesh`'s: the
   * tree keeps its shape and its boxes are recomputed (submitted at once, before any query
   * submitted after it). Returns the submission's check, as `ready`.
   */
  refit(positions: Float32Array): Promise<void> {
    this.checkLive();
    const { positions: checked } = validatePositions('positions', positions);
    if (checked.length !== 3 * this.vertexCount)
      throw new InvalidInputError(
        'positions',
        -1,
        RULES.count,
        `${checked.length / 3} vertices, the mesh has ${this.vertexCount}`,
      );
    upload(this.builder.device, this.positions, checked);
    this.version++;
    const done = submitChecked(
      this.builder.device,
      'webgpu-collide mesh refit',
      (encoder) => this.encodeBoxes(encoder, this.positions, false),
      () => null,
    );
    done.catch(() => {});
    return done;
  }

  /**
   * Records a refit from positions already on the GPU (packed x, y, z f32 per vertex, the
   * mesh's vertex count of them) into `encoder`: for a mesh a kernel deforms. Values there are
   * the caller's duty (finite, within 2^60).
   */
  encodeRefit(encoder: GPUCommandEncoder, positions: GpuPositions, timer?: GpuTimer): void {
    this.checkLive();
    checkEncoder(encoder);
    const bytes = 12 * this.vertexCount;
    const ok =
      typeof positions === 'object' &&
      positions !== null &&
      typeof (positions.buffer as GPUBuffer | undefined)?.size === 'number' &&
      (positions.offset === undefined ||
        (Number.isInteger(positions.offset) && positions.offset >= 0 && positions.offset % 4 === 0));
    const offset = ok ? (positions.offset ?? 0) : 0;
    const usage = ok ? positions.buffer.usage : 0;
    const needs = offset === 0 ? BufferUsage.STORAGE : BufferUsage.COPY_SRC;
    if (!ok || offset + bytes > positions.buffer.size || (usage & needs) === 0)
      throw new InvalidInputError(
        'positions',
        -1,
        RULES.gpuRecords,
        `${this.vertexCount} vertices of 12 bytes from offset ${offset}`,
      );
    let source = positions.buffer;
    if (offset !== 0 || bytes === 0) {
      if (bytes > 0) encoder.copyBufferToBuffer(positions.buffer, offset, this.positions, 0, bytes);
      source = this.positions;
    }
    this.encodeBoxes(encoder, source, false, timer);
    this.version++;
  }

  private checkLive(): void {
    if (this.destroyed) throw new InvalidInputError('mesh', -1, RULES.mesh, 'it was destroyed');
  }

  /** Frees its GPU buffers; calling it twice does nothing. */
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    for (const buffer of [
      this.positions,
      this.indices,
      this.parents,
      this.order,
      this.buckets,
      this.bucketArgs,
      this.bucketParams,
      this.params,
      this.tree.children,
      this.tree.sorted,
      this.tree.ids,
    ])
      buffer.destroy();
    this.edges?.destroy();
    this.source = null;
  }
}

/** Makes a mesh of `builder`'s device for `owner` (its Collider), validated against the device's binding limit. */
export function createColliderMesh(
  builder: MeshBuilder,
  input: unknown,
  owner: object,
  maxBindingBytes?: number,
  timer?: GpuTimer,
): ColliderMesh {
  return new ColliderMesh(builder, validateMesh(input, builder.limits(maxBindingBytes)), owner, timer);
}
