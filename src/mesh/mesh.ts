/**
 * A triangle mesh on the GPU and its BVH: the LBVH of broad phase 'bvh' with the triangles as
 * leaves (shaders/mesh/build.wgsl.ts says how it is built and refitted). `MeshBuilder` holds what
 * a Collider's meshes share (the pipelines, the sort); each `ColliderMesh` holds its buffers.
 *
 * Cost of a build of T triangles: two key passes (each reads 3 indices and 3 vertices), two 4-pass
 * radix sorts of 30-bit keys with their ids, a leaf pass (48 bytes written a triangle), log2 T
 * pyramid passes (T blocks in all) and the node pass (≤ 2·log2 T block reads a node). A refit
 * is the leaf pass (without keys), the pyramid and the node pass. Memory: 12 bytes a vertex;
 * 12 (indices) + 4 (codes) + 4 (ids) + 8 (keys) + 48 (sorted vertices) + 32 (pyramid) + 32
 * (node) bytes a triangle.
 */
import {
  meshCodesShader,
  meshCodesBindings,
  meshCodesHiShader,
  meshCodesHiBindings,
  meshLeavesShader,
  meshLeavesBindings,
} from '../../shaders/mesh/build.wgsl.js';
import {
  bvhPyramidShader,
  bvhPyramidBindings,
  bvhNodesShader,
  bvhNodesBindings,
} from '../../shaders/spatial/bvh.wgsl.js';
import { BvhParams, BvhLevel, BvhNode } from '../../shaders/spatial/bvhLayout.js';
import { bvhMortonGrid, bvhPyramidLevels } from '../spatial/bvhShape.js';
import { RadixSortPass } from '../passes/radixSort.js';
import { packStruct } from '../layout.js';
import { computePipeline, recordPass, variant } from '../gpu/pipeline.js';
import { BufferUsage } from '../gpu/flags.js';
import { bindingLimit, createBuffer, upload } from '../gpu/buffers.js';
import { ceilDiv } from '../gpu/dispatch.js';
import { submitChecked } from '../gpu/submit.js';
import { WORKGROUP_SIZE } from '../gpu/workgroups.js';
import { InvalidInputError } from '../errors.js';
import { RULES } from '../checks.js';
import { checkEncoder } from '../checks.js';
import { validateMesh, validatePositions, type MeshData } from './validate.js';
import type { GpuTimer } from '../gpu/timer.js';

const WG = WORKGROUP_SIZE.bvhBuild;
/** Bytes between the pyramid levels' parameters (the minimum uniform offset alignment, at most 256). */
const LEVEL_STRIDE = 256;

/** The most bytes a triangle takes in one binding: its three sorted vertices (vec4f each). */
export const MESH_TRIANGLE_BYTES = 48;

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
  buffer: GPUBuffer;
  offset?: number;
}

/** The pipelines and the sort a Collider's meshes share. */
export class MeshBuilder {
  readonly sort: RadixSortPass;
  private readonly pipelines = new Map<string, GPUComputePipeline>();
  readonly layouts: Record<'codes' | 'codesHi' | 'leaves' | 'pyramid' | 'nodes', GPUBindGroupLayout>;

  constructor(
    readonly device: GPUDevice,
    readonly maxWorkgroupsPerDimension: number,
  ) {
    this.sort = new RadixSortPass(device, { maxWorkgroupsPerDimension, label: 'mesh sort' });
    this.layouts = {
      codes: meshCodesBindings.layout(device, 'meshCodes'),
      codesHi: meshCodesHiBindings.layout(device, 'meshCodesHi'),
      leaves: meshLeavesBindings.layout(device, 'meshLeaves'),
      pyramid: bvhPyramidBindings.layout(device, 'bvhPyramid'),
      nodes: bvhNodesBindings.layout(device, 'bvhNodes'),
    };
  }

  pipeline(name: 'codes' | 'codesHi' | 'leaves keys' | 'leaves' | 'pyramid' | 'nodes'): GPUComputePipeline {
    return variant(this.pipelines, name, () => {
      const d = this.device;
      const wg = { WG };
      const l = this.layouts;
      switch (name) {
        case 'codes':
          return computePipeline(d, 'meshCodes', [l.codes], meshCodesShader(), 'meshCodes', wg);
        case 'codesHi':
          return computePipeline(d, 'meshCodesHi', [l.codesHi], meshCodesHiShader(), 'meshCodesHi', wg);
        case 'leaves keys':
        case 'leaves':
          return computePipeline(
            d,
            `meshLeaves${name === 'leaves' ? '' : ' keys'}`,
            [l.leaves],
            meshLeavesShader({ keys: name === 'leaves keys' }),
            'meshLeaves',
            wg,
          );
        case 'pyramid':
          return computePipeline(
            d,
            'mesh bvhPyramid',
            [l.pyramid],
            bvhPyramidShader({ leaf: 'triangle' }),
            'bvhPyramid',
            wg,
          );
        default:
          return computePipeline(d, 'mesh bvhNodes', [l.nodes], bvhNodesShader({ leaf: 'triangle' }), 'bvhNodes', wg);
      }
    });
  }

  /** The largest mesh one binding holds on this device. */
  limits(maxBindingBytes = bindingLimit(this.device)): { maxTriangles: number; maxVertices: number } {
    return {
      maxTriangles: Math.floor(maxBindingBytes / MESH_TRIANGLE_BYTES),
      maxVertices: Math.floor(maxBindingBytes / 12),
    };
  }

  destroy(): void {
    this.sort.destroy();
  }
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
  readonly bounds: { min: number[]; max: number[] };
  /** The tree and the triangles in its order, as the query kernels read them. */
  readonly tree: {
    /** BvhNode per internal node (triangleCount − 1; at least one). */
    nodes: GPUBuffer;
    /** Three vec4f a triangle in tree order: its vertices (w 0). */
    sorted: GPUBuffer;
    /** The triangle index of each sorted leaf. */
    ids: GPUBuffer;
  };
  private readonly positions: GPUBuffer;
  private readonly indices: GPUBuffer;
  private readonly codes: GPUBuffer;
  private readonly keys: GPUBuffer;
  private readonly pyramid: GPUBuffer;
  private readonly params: GPUBuffer;
  private readonly levelParams: GPUBuffer;
  private readonly levels: { count: number; base: number }[];
  private destroyed = false;

  /** @internal Made by `collider.createMesh`. */
  constructor(
    private readonly builder: MeshBuilder,
    data: MeshData,
    private readonly owner: object,
  ) {
    const d = builder.device;
    const t = data.triangleCount;
    this.triangleCount = t;
    this.vertexCount = data.vertexCount;
    this.bounds = { min: data.min, max: data.max };
    const storage = BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC;
    const sized = (label: string, bytes: number) => createBuffer(d, `mesh ${label}`, Math.max(bytes, 16), storage);
    this.positions = sized('positions', 4 * data.positions.length);
    this.indices = sized('indices', 4 * data.indices.length);
    this.codes = sized('codes', 4 * t);
    this.keys = sized('keys', 8 * t);
    this.levels = bvhPyramidLevels(t);
    this.pyramid = sized(
      'pyramid',
      32 *
        Math.max(
          1,
          this.levels.reduce((s, l) => s + l.count, 0),
        ),
    );
    this.tree = {
      nodes: sized('nodes', BvhNode.size * Math.max(t - 1, 1)),
      sorted: sized('sorted triangles', MESH_TRIANGLE_BYTES * t),
      ids: sized('ids', 4 * t),
    };
    const uniform = BufferUsage.UNIFORM | BufferUsage.COPY_DST;
    this.params = createBuffer(d, 'mesh params', BvhParams.size, uniform);
    this.levelParams = createBuffer(d, 'mesh levels', LEVEL_STRIDE * Math.max(this.levels.length, 1), uniform);
    // The Morton grid over the vertices' bounds (the centroids lie within them); it stays with
    // the tree: a refit moves the vertices, not the keys.
    type Vec3 = [number, number, number];
    const { origin, scale } = bvhMortonGrid({ count: data.vertexCount, min: data.min as Vec3, max: data.max as Vec3 });
    d.queue.writeBuffer(
      this.params,
      0,
      packStruct(BvhParams, { origin, sphereCount: t, scale, boxCount: 0, slack: 0 }),
    );
    if (this.levels.length > 0) {
      const bytes = new Uint8Array(LEVEL_STRIDE * this.levels.length);
      this.levels.forEach((l, i) => {
        const srcBase = i > 0 ? this.levels[i - 1].base : 0;
        bytes.set(
          new Uint8Array(packStruct(BvhLevel, { level: i + 1, count: l.count, srcBase, dstBase: l.base })),
          LEVEL_STRIDE * i,
        );
      });
      d.queue.writeBuffer(this.levelParams, 0, bytes);
    }
    upload(d, this.positions, data.positions);
    upload(d, this.indices, data.indices);
    this.ready = submitChecked(
      d,
      'webgpu-collide mesh build',
      (encoder) => this.encodeBuild(encoder),
      () => null,
    );
    this.ready.catch(() => {}); // a failed build is reported by `ready` and by the queries that await it
  }

  /** Whether this mesh was made by `owner` and is not destroyed. */
  usableBy(owner: object): boolean {
    return this.owner === owner && !this.destroyed;
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
    const common = { params: this.params, positions: this.positions, indices: this.indices };
    this.run(
      encoder,
      'mesh codes',
      b.pipeline('codes'),
      meshCodesBindings.bind(d, 'meshCodes', { ...common, codes: this.codes, ids: this.tree.ids }),
      t,
      timer,
    );
    b.sort.encode(encoder, this.codes, t, { values: this.tree.ids, keyBits: 30, timer });
    this.run(
      encoder,
      'mesh codes hi',
      b.pipeline('codesHi'),
      meshCodesHiBindings.bind(d, 'meshCodesHi', { ...common, ids: this.tree.ids, codes: this.codes }),
      t,
      timer,
    );
    b.sort.encode(encoder, this.codes, t, { values: this.tree.ids, keyBits: 30, timer });
    this.encodeBoxes(encoder, this.positions, true, timer);
  }

  /** The leaves from `positions` (with their keys on a build), then the pyramid and the nodes. */
  private encodeBoxes(encoder: GPUCommandEncoder, positions: GPUBuffer, keys: boolean, timer?: GpuTimer): void {
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
      keys: this.keys,
    });
    this.run(
      encoder,
      keys ? 'mesh leaves' : 'mesh refit leaves',
      b.pipeline(keys ? 'leaves keys' : 'leaves'),
      leaves,
      t,
      timer,
    );
    this.levels.forEach((l, i) => {
      const level = { buffer: this.levelParams, offset: LEVEL_STRIDE * i, size: BvhLevel.size };
      const group = bvhPyramidBindings.bind(d, 'mesh bvhPyramid', {
        params: this.params,
        level,
        sorted: this.tree.sorted,
        pyramid: this.pyramid,
      });
      this.run(encoder, `mesh pyramid ${i + 1}`, b.pipeline('pyramid'), group, l.count, timer);
    });
    if (t > 1) {
      const group = bvhNodesBindings.bind(d, 'mesh bvhNodes', {
        params: this.params,
        keys: this.keys,
        sorted: this.tree.sorted,
        pyramid: this.pyramid,
        nodes: this.tree.nodes,
      });
      this.run(encoder, 'mesh nodes', b.pipeline('nodes'), group, t - 1, timer);
    }
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
      this.codes,
      this.keys,
      this.pyramid,
      this.params,
      this.levelParams,
      this.tree.nodes,
      this.tree.sorted,
      this.tree.ids,
    ])
      buffer.destroy();
  }
}

/** Makes a mesh of `builder`'s device for `owner` (its Collider), validated against the device's binding limit. */
export function createColliderMesh(
  builder: MeshBuilder,
  input: unknown,
  owner: object,
  maxBindingBytes?: number,
): ColliderMesh {
  return new ColliderMesh(builder, validateMesh(input, builder.limits(maxBindingBytes)), owner);
}
