/**
 * What a Collider's meshes share (src/mesh/mesh.ts): the build's pipelines, made on first use,
 * its two radix sorts (the keys', the nodes') and its scratch; and the largest mesh one binding
 * holds.
 */
import {
  meshCodesShader,
  meshCodesBindings,
  meshCodesHiShader,
  meshCodesHiBindings,
  meshLeavesShader,
  meshLeavesBindings,
  meshSplitsShader,
  meshSplitsBindings,
  meshTopologyShader,
  meshTopologyBindings,
  meshCountShader,
  meshCountBindings,
  meshBucketsShader,
  meshBucketsBindings,
  meshBoxesShader,
  meshBoxesBindings,
} from '../../shaders/mesh/build.wgsl.js';
import { RadixSortPass } from '../passes/radixSort.js';
import { computePipeline, variant } from '../gpu/pipeline.js';
import { bindingLimit, createBuffer } from '../gpu/buffers.js';
import { BufferUsage } from '../gpu/flags.js';
import { BvhChildBoxes } from '../../shaders/spatial/bvhLayout.js';
import { WORKGROUP_SIZE } from '../gpu/workgroups.js';

/** The build's workgroup size. */
export const WG = WORKGROUP_SIZE.bvhBuild;

/** The bytes of a triangle in tree order: its three sorted vertices (vec4f each). */
export const MESH_TRIANGLE_BYTES = 48;
/**
 * The most bytes a triangle takes in one binding: its node's child boxes (BvhChildBoxes; a
 * mesh of t triangles has t − 1 nodes), more than its sorted vertices.
 */
export const MESH_BINDING_BYTES = Math.max(BvhChildBoxes.size, MESH_TRIANGLE_BYTES);

/**
 * What a build needs only while it runs, per triangle: `codes`, the sorts' keys (then the
 * topology's arrival flags); `keys`, both words of each triangle's Morton code; `prefix`, each
 * node's common prefix (the node sort's key).
 */
export interface MeshScratch {
  codes: GPUBuffer;
  keys: GPUBuffer;
  prefix: GPUBuffer;
}

/** The pipelines, the sorts and the build scratch a Collider's meshes share. */
export class MeshBuilder {
  readonly sort: RadixSortPass;
  /**
   * The nodes' sort by prefix: a pass of its own, since one submission holds sorts of one count
   * and key width per pass (src/passes/radixSort.ts) and the build's key sorts come first.
   */
  readonly nodeSort: RadixSortPass;
  private readonly pipelines = new Map<string, GPUComputePipeline>();
  /** The scratch and the triangles it holds (0 before the first build); grows, never shrinks. */
  private scratchBuffers: MeshScratch | null = null;
  private scratchTriangles = 0;
  readonly layouts: Record<
    'codes' | 'codesHi' | 'leaves' | 'splits' | 'topology' | 'count' | 'buckets' | 'boxes',
    GPUBindGroupLayout
  >;

  constructor(
    readonly device: GPUDevice,
    readonly maxWorkgroupsPerDimension: number,
  ) {
    this.sort = new RadixSortPass(device, { maxWorkgroupsPerDimension, label: 'mesh sort' });
    this.nodeSort = new RadixSortPass(device, { maxWorkgroupsPerDimension, label: 'mesh node sort' });
    this.layouts = {
      codes: meshCodesBindings.layout(device, 'meshCodes'),
      codesHi: meshCodesHiBindings.layout(device, 'meshCodesHi'),
      leaves: meshLeavesBindings.layout(device, 'meshLeaves'),
      splits: meshSplitsBindings.layout(device, 'meshSplits'),
      topology: meshTopologyBindings.layout(device, 'meshTopology'),
      count: meshCountBindings.layout(device, 'meshCount'),
      buckets: meshBucketsBindings.layout(device, 'meshBuckets'),
      boxes: meshBoxesBindings.layout(device, 'meshBoxes'),
    };
  }

  pipeline(
    name: 'codes' | 'codesHi' | 'leaves' | 'splits' | 'topology' | 'count' | 'buckets' | 'boxes',
  ): GPUComputePipeline {
    return variant(this.pipelines, name, () => {
      const d = this.device;
      const wg = { WG };
      const l = this.layouts;
      switch (name) {
        case 'codes':
          return computePipeline(d, 'meshCodes', [l.codes], meshCodesShader(), 'meshCodes', wg);
        case 'codesHi':
          return computePipeline(d, 'meshCodesHi', [l.codesHi], meshCodesHiShader(), 'meshCodesHi', wg);
        case 'leaves':
          return computePipeline(d, 'meshLeaves', [l.leaves], meshLeavesShader(), 'meshLeaves', wg);
        case 'splits':
          return computePipeline(d, 'meshSplits', [l.splits], meshSplitsShader(), 'meshSplits', wg);
        case 'topology':
          return computePipeline(d, 'meshTopology', [l.topology], meshTopologyShader(), 'meshTopology', wg);
        case 'count':
          return computePipeline(d, 'meshCount', [l.count], meshCountShader(), 'meshCount', wg);
        case 'buckets':
          return computePipeline(d, 'meshBuckets', [l.buckets], meshBucketsShader(), 'meshBuckets', {
            MAX_GROUPS: this.maxWorkgroupsPerDimension,
            BOX_WG: WG,
          });
        default:
          return computePipeline(d, 'meshBoxes', [l.boxes], meshBoxesShader(), 'meshBoxes', wg);
      }
    });
  }

  /**
   * The build scratch for a mesh of `triangles`, grown (by a quarter at least) when it holds
   * fewer. Builds share it as the sorts share theirs: each is recorded whole into its own
   * submission, and submissions run in order. Shared, a mesh's build creates 16 bytes a
   * triangle fewer (on SwiftShader a new buffer costs about 0.6 ms a MB: docs/PERFORMANCE.md),
   * and a live mesh does not keep them.
   */
  scratch(triangles: number): MeshScratch {
    if (triangles > this.scratchTriangles || !this.scratchBuffers) {
      this.destroyScratch();
      const t = Math.max(triangles, Math.floor(this.scratchTriangles * 1.25), 4);
      const usage = BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC;
      const sized = (label: string, bytes: number) => createBuffer(this.device, `mesh build ${label}`, bytes, usage);
      this.scratchBuffers = {
        codes: sized('codes', 4 * t),
        keys: sized('keys', 8 * t),
        prefix: sized('prefix', 4 * t),
      };
      this.scratchTriangles = t;
    }
    return this.scratchBuffers;
  }

  private destroyScratch(): void {
    if (!this.scratchBuffers) return;
    for (const buffer of Object.values(this.scratchBuffers)) buffer.destroy();
    this.scratchBuffers = null;
  }

  /** The largest mesh one binding holds on this device. */
  limits(maxBindingBytes = bindingLimit(this.device)): { maxTriangles: number; maxVertices: number } {
    return {
      maxTriangles: Math.floor(maxBindingBytes / MESH_BINDING_BYTES),
      maxVertices: Math.floor(maxBindingBytes / 12),
    };
  }

  destroy(): void {
    this.sort.destroy();
    this.nodeSort.destroy();
    this.destroyScratch();
    this.scratchTriangles = 0;
  }
}
