/**
 * The particle world's casts against its particles (`raycast`, `sphereCast`, `encodeRaycast`):
 * their validation, the answer when there are no particles, and the queries (queries.ts) that
 * run them, made on first use.
 */
import { validateCasts, type SphereStats, type CastBatch } from '../validate.js';
import { checkOptions } from '../checks.js';
import { bindingLimit } from '../gpu/buffers.js';
import type { CallQueue } from '../gpu/calls.js';
import type { PlanOptions } from '../spatial/plan.js';
import { checkServes } from '../broadphase/index.js';
import {
  HIT_BYTES,
  toRaycastResult,
  toSphereCastResult,
  checkCastOut,
  castCall,
  noHits,
  type HitRecords,
  type RaycastResult,
  type SphereCastResult,
  type RaycastAllHits,
  type SphereCastAllHits,
} from '../castQueries.js';
import type { CastOptions } from '../options.js';
import { ParticleQueries, checkGpuRaycast } from './queries.js';

/** What a cast meets: the particles' spheres, and their statistics (null with no particles: every cast misses). */
export interface CastTarget {
  spheres: GPUBuffer;
  /** The particles' statistics with the bounds the world's grid covers. */
  stats: SphereStats | null;
  /** The largest |coordinate| a particle can have (0 with no particles). */
  extentAbs: number;
}

/** The world's casts against its particles. */
export class WorldCasts {
  /** Most casts one query takes (one hit record each must fit in a binding). */
  readonly maxCasts: number;
  /** Raycasts against the particles, made on first use. */
  private queries: ParticleQueries | null = null;

  /**
   * `limits` and `bounded` are the world's (ParticleQueries takes them); `target` answers the
   * particles as they are now, `answers` true for a cast whose answer is read back (it answers
   * for this state: the world counts it as a call that sees it).
   */
  constructor(
    private readonly device: GPUDevice,
    private readonly calls: CallQueue,
    private readonly limits: { maxWorkgroupsPerDimension: number; planOptions: PlanOptions },
    private readonly bounded: boolean,
    private readonly target: (answers: boolean) => CastTarget,
  ) {
    this.maxCasts = Math.floor(bindingLimit(device) / HIT_BYTES);
  }

  /** `ParticleWorld.raycast`, after its check that the world is usable. */
  async raycast(rays: Float32Array, options?: Omit<CastOptions, 'profile'>): Promise<RaycastResult | RaycastAllHits> {
    options = checkOptions('options', options);
    const batch = validateCasts('rays', rays, 6, this.maxCasts);
    const out = checkCastOut('raycast', options.out);
    return toRaycastResult(await this.castAll('raycast', batch, options), out);
  }

  /** `ParticleWorld.sphereCast`, after its check that the world is usable. */
  async sphereCast(
    casts: Float32Array,
    options?: Omit<CastOptions, 'profile'>,
  ): Promise<SphereCastResult | SphereCastAllHits> {
    options = checkOptions('options', options);
    const batch = validateCasts('casts', casts, 7, this.maxCasts);
    const out = checkCastOut('sphereCast', options.out);
    return toSphereCastResult(await this.castAll('sphereCast', batch, options), out);
  }

  /** `ParticleWorld.encodeRaycast`, after its checks of the world and the encoder. */
  encodeRaycast(
    encoder: GPUCommandEncoder,
    rays: GPUBuffer,
    count: number,
    hits: GPUBuffer,
    maxRayLength: number,
  ): void {
    checkGpuRaycast(rays, count, hits, maxRayLength, this.maxCasts);
    if (count === 0) return;
    // With no particles every ray misses: the hits are still written (index −1), not left as they were.
    const { spheres, stats, extentAbs } = this.target(false);
    this.queriesNow().encodeRaycast(encoder, spheres, stats ?? undefined, rays, count, hits, {
      extentAbs,
      maxRayLength,
    });
  }

  /** Casts against the particles now; with no particles yet, every cast misses. */
  private castAll(
    kind: 'raycast' | 'sphereCast',
    batch: CastBatch,
    options: Omit<CastOptions, 'profile'>,
  ): Promise<HitRecords> {
    const { spheres, stats, extentAbs } = this.target(true);
    if (!stats) {
      const { broadphase, allHits } = castCall({ ...options, profile: undefined }); // validates the options
      checkServes(broadphase, 'casts');
      return Promise.resolve(noHits(batch.count, allHits));
    }
    return this.queriesNow().run(batch, options, spheres, stats, extentAbs, kind);
  }

  private queriesNow(): ParticleQueries {
    const { maxWorkgroupsPerDimension, planOptions } = this.limits;
    this.queries ??= new ParticleQueries(
      this.device,
      this.calls,
      maxWorkgroupsPerDimension,
      this.maxCasts,
      planOptions,
      this.bounded,
    );
    return this.queries;
  }

  destroy(): void {
    this.queries?.destroy();
  }
}
