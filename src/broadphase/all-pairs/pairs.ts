/**
 * AllPairsPass: every pair (i < j) of N spheres tested once, in triangular tiles
 * (shaders/broadphase/all-pairs/pairs.wgsl.ts), appending overlaps to a PairList. N(N−1)/2 tests; each sphere is
 * read from memory about N/TILE times.
 */
import { allPairsShader, allPairsBindings } from '../../../shaders/broadphase/all-pairs/pairs.wgsl.js';
import { packStruct } from '../../layout.js';
import { AllPairsParams } from '../../../shaders/broadphase/all-pairs/layout.js';
import { computePipeline, recordPass } from '../../gpu/pipeline.js';
import { createBuffer } from '../../gpu/buffers.js';
import { BufferUsage } from '../../gpu/flags.js';
import { ceilDiv } from '../../gpu/dispatch.js';
import type { PairList } from '../../gpu/pairList.js';
import type { GpuTimer } from '../../gpu/timer.js';
import { WORKGROUP_SIZE } from '../../gpu/workgroups.js';

const TILE = WORKGROUP_SIZE.allPairsTile;
/** Beyond this the tile index arithmetic (u32) would overflow; the grid is the way anyway. */
export const ALL_PAIRS_MAX_SPHERES = 2 ** 21;

export class AllPairsPass {
  private readonly pipeline: GPUComputePipeline;
  private readonly params: GPUBuffer;

  constructor(
    private readonly device: GPUDevice,
    private readonly maxWorkgroupsPerDimension: number,
  ) {
    this.pipeline = computePipeline(
      device,
      'allPairs',
      [allPairsBindings.layout(device, 'allPairs')],
      allPairsShader(),
      'allPairs',
      { TILE },
    );
    this.params = createBuffer(
      device,
      'allPairs params',
      AllPairsParams.size,
      BufferUsage.UNIFORM | BufferUsage.COPY_DST,
    );
  }

  /**
   * Records the tests of `count` spheres in `spheres` (vec4f each), appending to `out`.
   * The parameters are written through the queue: one encode per submission.
   */
  encode(encoder: GPUCommandEncoder, spheres: GPUBuffer, count: number, out: PairList, timer?: GpuTimer): void {
    const blocks = ceilDiv(count, TILE);
    const tileCount = (blocks * (blocks + 1)) / 2;
    this.device.queue.writeBuffer(this.params, 0, packStruct(AllPairsParams, { sphereCount: count, tileCount }));
    recordPass(
      encoder,
      'all-pairs',
      this.pipeline,
      allPairsBindings.bind(this.device, 'allPairs', { params: this.params, spheres, ...out.output() }),
      tileCount,
      this.maxWorkgroupsPerDimension,
      timer,
    );
  }

  destroy(): void {
    this.params.destroy();
  }
}
