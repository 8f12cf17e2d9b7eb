/**
 * Raycasts and sphere casts against a particle world's own particles, with the same query code
 * as the Collider's (src/castQueries.ts: the cast pass over a sphere grid, the same hit records,
 * the same grow-or-throw rule). The world's particles are copied at call time and binned with
 * the world's grid plan, so a step submitted while a query waits does not move them under it.
 */
import { CastPass } from '../passes/casts.js';
import { CastQueries, castCall, noHits, castSlack, type HitRecords } from '../castQueries.js';
import { createBroadPhases, destroyBroadPhases, chooseBroadphase, checkServes, GridBroadPhase, type BroadPhases } from '../broadphase/index.js';
import { BufferUsage } from '../gpu/flags.js';
import { createBuffer } from '../gpu/buffers.js';
import type { CallQueue } from '../gpu/calls.js';
import type { CastBatch } from '../validate.js';
import type { CastOptions } from '../options.js';
import type { GridPlan, PlanOptions } from '../grid/plan.js';
import type { SphereStats } from '../validate.js';

export class ParticleQueries {
  private readonly casts: CastQueries;
  private readonly broadphases: BroadPhases;
  /** Casts recorded into a caller's encoder: their own kernels (parameters) and grid. */
  private readonly encodedPass: CastPass;
  private readonly encodedGrid: GridBroadPhase;
  /** The cast pass binds hit counts even for nearest hits, where they go unused. */
  private readonly noCounts: GPUBuffer;

  constructor(
    private readonly device: GPUDevice,
    private readonly calls: CallQueue,
    maxWorkgroupsPerDimension: number,
    maxCasts: number,
    planOptions: PlanOptions,
  ) {
    this.casts = new CastQueries(device, maxWorkgroupsPerDimension, maxCasts);
    this.broadphases = createBroadPhases({ device, maxWorkgroupsPerDimension }, planOptions, 'particle query grid');
    this.encodedPass = new CastPass(device, maxWorkgroupsPerDimension);
    this.encodedGrid = new GridBroadPhase({ device, maxWorkgroupsPerDimension }, {}, 'particle encoded query grid');
    this.noCounts = createBuffer(device, 'particle query no counts', 4, BufferUsage.STORAGE);
  }

  /**
   * The casts of `batch` against the particles of `spheres` as they are at this call (one GPU
   * copy, 16 bytes each). `stats` are the particles' with the bounds the world's grid covers
   * (the grid broad phase then plans what the world's grid has); `extentAbs` is the largest
   * |coordinate| a particle can have.
   */
  run(batch: CastBatch, options: Omit<CastOptions, 'profile'>, spheres: GPUBuffer, stats: SphereStats, extentAbs: number): Promise<HitRecords> {
    const count = stats.count;
    const { broadphase, allHits, maxHits } = castCall({ ...options, profile: undefined });
    const grid = this.broadphases.grid;
    checkServes(broadphase, 'casts');
    const phase = this.broadphases[chooseBroadphase(broadphase, { query: 'casts', sphereCount: count, casts: batch, gridPlan: () => grid.planFor(stats) })];
    const r = batch.count;
    if (r === 0 || count === 0) return Promise.resolve(noHits(r, allHits));
    const slack = castSlack(batch, extentAbs, stats.maxRadius);
    const snapshot = this.device.createBuffer({ label: 'particle query snapshot', size: 16 * count, usage: BufferUsage.STORAGE | BufferUsage.COPY_DST });
    const copied = this.calls.submit((encoder) => encoder.copyBufferToBuffer(spheres, 0, snapshot, 0, 16 * count));
    copied.catch(() => undefined); // awaited in turn below
    const query = this.calls.serialize(async () => {
      await copied;
      this.casts.uploadCasts(batch, count, slack);
      phase.prepare(stats);
      await this.calls.submit((encoder) => phase.encodeBuild(encoder, snapshot));
      return this.casts.run((record) => this.calls.submit(record), phase, r, allHits, maxHits);
    });
    return query.finally(() => snapshot.destroy());
  }

  /**
   * Records nearest-hit raycasts against the particles in `spheres` into `encoder` (the grid is
   * built from them in the same encoder): `rays` holds `count` rays as two vec4 each, (A, 0) and
   * (B, 0); `hits` receives one CastHitRecord per ray. Its parameters go through the queue:
   * record one per submission.
   */
  encodeRaycast(encoder: GPUCommandEncoder, spheres: GPUBuffer, sphereCount: number, plan: GridPlan, rays: GPUBuffer, count: number, hits: GPUBuffer, slack: number): void {
    this.encodedPass.setParams(count, sphereCount, slack);
    this.encodedGrid.prepareWith(plan);
    this.encodedGrid.encodeBuild(encoder, spheres);
    this.encodedGrid.encodeCasts(encoder, { kernels: this.encodedPass, mode: 'nearest', casts: rays, castCount: count, targets: { hits, counts: this.noCounts } });
  }

  destroy(): void {
    this.casts.destroy();
    destroyBroadPhases(this.broadphases);
    this.encodedPass.destroy();
    this.encodedGrid.destroy();
    this.noCounts.destroy();
  }
}
