/**
 * 'all-pairs': no structure. Every sphere pair is tested once in triangular tiles, every sphere
 * against every box, every cast against every sphere. N(N−1)/2 (or N·M) tests: the fastest
 * answer for small scenes, where building anything costs more than testing everything.
 *
 * Its folder: pairs.ts (AllPairsPass), boxes.ts (BoxAllPairsPass); its kernels are in
 * shaders/broadphase/all-pairs/: pairs.wgsl.ts, boxes.wgsl.ts and casts.wgsl.ts (the cast
 * kernel, run by src/passes/casts.ts).
 */
import { AllPairsPass, ALL_PAIRS_MAX_SPHERES } from './pairs.js';
import { CapacityError } from '../../errors.js';
import { BoxAllPairsPass } from './boxes.js';
import { castAllPairsKernel } from '../../../shaders/broadphase/all-pairs/casts.wgsl.js';
import type { BroadPhase, BroadPhaseContext, CastJob, QueryShape } from '../types.js';
import type { SphereStats } from '../../validate.js';
import type { PairList } from '../../gpu/pairList.js';
import type { GpuTimer } from '../../gpu/timer.js';
import type { BoxKind } from '../../queryKinds.js';
import { allPairsCastSlack } from './castSlack.js';
import type { CastReach } from '../../spatial/reach.js';

/** Throws a CapacityError for more sphere pairs than its tiles can index (its registry line's `capacity`). */
export function allPairsCapacity({ query, sphereCount }: QueryShape): void {
  if (query === 'pairs' && sphereCount > ALL_PAIRS_MAX_SPHERES) {
    throw new CapacityError(
      `spheres for broadphase 'all-pairs'`,
      sphereCount,
      ALL_PAIRS_MAX_SPHERES,
      "use broadphase 'grid' or 'auto'",
    );
  }
}

export class AllPairsBroadPhase implements BroadPhase {
  readonly name = 'all-pairs' as const;
  private readonly pairsPass: AllPairsPass;
  private readonly boxPass: BoxAllPairsPass;
  private count = 0;
  private spheres: GPUBuffer | null = null;

  constructor({ device, maxWorkgroupsPerDimension }: BroadPhaseContext) {
    this.pairsPass = new AllPairsPass(device, maxWorkgroupsPerDimension);
    this.boxPass = new BoxAllPairsPass(device, maxWorkgroupsPerDimension);
  }

  prepare(stats: SphereStats): void {
    this.count = stats.count;
  }

  /** Nothing to build: the queries read the spheres where they are. */
  encodeBuild(_encoder: GPUCommandEncoder, spheres: GPUBuffer): void {
    this.spheres = spheres;
  }

  encodeSpherePairs(encoder: GPUCommandEncoder, out: PairList, timer?: GpuTimer): void {
    this.pairsPass.encode(encoder, this.built(), this.count, out, timer);
  }

  encodeBoxPairs(
    encoder: GPUCommandEncoder,
    kind: BoxKind,
    boxes: GPUBuffer,
    boxCount: number,
    out: PairList,
    timer?: GpuTimer,
  ): void {
    this.boxPass.encode(encoder, kind, this.built(), this.count, boxes, boxCount, out, timer);
  }

  encodeCasts(encoder: GPUCommandEncoder, job: CastJob, timer?: GpuTimer): void {
    job.kernels.encode(encoder, castAllPairsKernel, job, { spheres: this.built() }, timer);
  }

  /** Brute force walks nothing; its kernels ignore the slack (the grid's is passed, harmlessly). */
  castSlack(reach: CastReach): number {
    return allPairsCastSlack(reach);
  }

  private built(): GPUBuffer {
    if (!this.spheres) throw new Error('all-pairs: encodeBuild must come before the queries');
    return this.spheres;
  }

  destroy(): void {
    this.pairsPass.destroy();
    this.boxPass.destroy();
  }
}
