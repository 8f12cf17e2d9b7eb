/**
 * BoxAllPairsPass: every sphere against every box (AABB or oriented) in 64×64 tiles
 * (shaders/broadphase/all-pairs/boxes.wgsl.ts), appending (sphere, box) to a PairList.
 */
import { boxAllPairsShader, boxAllPairsBindings } from '../../../shaders/broadphase/all-pairs/boxes.wgsl.js';
import type { BoxKind } from '../../queryKinds.js';
import { BoxParams, packStruct } from '../../layout.js';
import { computePipeline, variant, recordPass } from '../../gpu/pipeline.js';
import { createBuffer } from '../../gpu/buffers.js';
import { BufferUsage } from '../../gpu/flags.js';
import { ceilDiv } from '../../gpu/dispatch.js';
import type { PairList } from '../../gpu/pairList.js';
import type { GpuTimer } from '../../gpu/timer.js';
import { WORKGROUP_SIZE } from '../../gpu/workgroups.js';

const TILE = WORKGROUP_SIZE.allPairsTile;

export class BoxAllPairsPass {
  private readonly pipelines = new Map<string, GPUComputePipeline>();
  private readonly params: GPUBuffer;

  constructor(
    private readonly device: GPUDevice,
    private readonly maxWorkgroupsPerDimension: number,
  ) {
    this.params = createBuffer(device, 'box pairs params', BoxParams.size, BufferUsage.UNIFORM | BufferUsage.COPY_DST);
  }

  private pipeline(kind: BoxKind): GPUComputePipeline {
    const key = `${kind} all-pairs`;
    return variant(this.pipelines, key, () =>
      computePipeline(
        this.device,
        `boxAllPairs ${key}`,
        [boxAllPairsBindings.layout(this.device, 'boxAllPairs')],
        boxAllPairsShader({ kind }),
        'boxAllPairs',
        { TILE },
      ),
    );
  }

  /** Every sphere against every box: N·M tests. One encode per submission (parameters go through the queue). */
  encode(
    encoder: GPUCommandEncoder,
    kind: BoxKind,
    spheres: GPUBuffer,
    sphereCount: number,
    boxes: GPUBuffer,
    boxCount: number,
    out: PairList,
    timer?: GpuTimer,
  ): void {
    const sphereBlocks = ceilDiv(sphereCount, TILE);
    const tileCount = sphereBlocks * ceilDiv(boxCount, TILE);
    this.device.queue.writeBuffer(
      this.params,
      0,
      packStruct(BoxParams, { sphereCount, boxCount, sphereBlocks, tileCount }),
    );
    recordPass(
      encoder,
      'box all-pairs',
      this.pipeline(kind),
      boxAllPairsBindings.bind(this.device, 'boxAllPairs', { params: this.params, spheres, boxes, ...out.output() }),
      tileCount,
      this.maxWorkgroupsPerDimension,
      timer,
    );
  }

  destroy(): void {
    this.params.destroy();
  }
}
