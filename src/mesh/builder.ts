/**
 * What a Collider's meshes share (src/mesh/mesh.ts): the build's pipelines, made on first use, and
 * its two radix sorts (the keys', the nodes'); and the largest mesh one binding holds.
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
import { bindingLimit } from '../gpu/buffers.js';
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

/** The pipelines and the sorts a Collider's meshes share. */
export class MeshBuilder {
  readonly sort: RadixSortPass;
  /**
   * The nodes' sort by prefix: a pass of its own, since one submission holds sorts of one count
   * and key width per pass (src/passes/radixSort.ts) and the build's key sorts come first.
   */
  readonly nodeSort: RadixSortPass;
  private readonly pipelines = new Map<string, GPUComputePipeline>();
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
  }
}
