/**
 * Raycasts and sphere casts against a particle world's own particles, with the same recording
 * as the Collider's calls (src/resident.ts: `recordCasts` over a broad phase, the same hit
 * records, the same grow-or-throw rule: collectHits). The world's particles are copied at call
 * time and binned with the world's grid plan, so a step submitted while a query waits does not
 * move them under it.
 */
import { CastPass } from '../passes/casts.js';
import { castCall, noHits, castReach, type HitRecords } from '../castQueries.js';
import { checkServes, GridBroadPhase } from '../broadphase/index.js';
import { ResidentQueries, collectHits, type ResultSlot, type EncodedHits } from '../resident.js';
import { BufferUsage } from '../gpu/flags.js';
import { createBuffer, upload, GrowableBuffer } from '../gpu/buffers.js';
import type { CallQueue } from '../gpu/calls.js';
import type { CastBatch } from '../validate.js';
import { CastHitRecord } from '../layout.js';
import type { CastOptions } from '../options.js';
import type { GridPlan, PlanOptions } from '../grid/plan.js';
import type { SphereStats } from '../validate.js';

export class ParticleQueries {
  private readonly recorder: ResidentQueries;
  private readonly casts: GrowableBuffer;
  private readonly slot: ResultSlot<EncodedHits> = {};
  /** Hits found by the last all-hits query: the next starts with room for as many. */
  private hitHint = 0;
  /** Casts recorded into a caller's encoder: their own kernels (parameters) and grid. */
  private readonly encodedPass: CastPass;
  private readonly encodedGrid: GridBroadPhase;
  /** The cast pass binds hit counts even for nearest hits, where they go unused. */
  private readonly noCounts: GPUBuffer;

  constructor(
    private readonly device: GPUDevice,
    private readonly calls: CallQueue,
    maxWorkgroupsPerDimension: number,
    private readonly maxHits: number,
    planOptions: PlanOptions,
  ) {
    this.recorder = new ResidentQueries(device, maxWorkgroupsPerDimension, planOptions, 'particle query');
    this.casts = new GrowableBuffer(device, 'particle query casts', BufferUsage.STORAGE | BufferUsage.COPY_DST);
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
  run(batch: CastBatch, options: Omit<CastOptions, 'profile'>, spheres: GPUBuffer, stats: SphereStats, extentAbs: number, kind: 'raycast' | 'sphereCast'): Promise<HitRecords> {
    const count = stats.count;
    const { broadphase, allHits, maxHits } = castCall({ ...options, profile: undefined });
    checkServes(broadphase, 'casts');
    const r = batch.count;
    if (r === 0 || count === 0) return Promise.resolve(noHits(r, allHits));
    const reach = castReach(batch, extentAbs, stats.maxRadius);
    const snapshot = this.device.createBuffer({ label: 'particle query snapshot', size: 16 * count, usage: BufferUsage.STORAGE | BufferUsage.COPY_DST });
    const copied = this.calls.submit((encoder) => encoder.copyBufferToBuffer(spheres, 0, snapshot, 0, 16 * count));
    copied.catch(() => undefined); // awaited in turn below
    const query = this.calls.serialize(async () => {
      await copied;
      const casts = { buffer: this.casts.ensure(batch.packed.byteLength), count: r };
      upload(this.device, casts.buffer, batch.packed);
      const hits = await collectHits(
        (record) => this.calls.submit(record),
        (encoder, capacity, again, into) => this.recorder.recordCasts(encoder, casts, { buffer: snapshot, count }, {
          kind, stats, shape: batch, reach, broadphase, allHits, capacity, into, workgroupSize: 64, dispatchArguments: false, reuseBuild: again,
        }),
        this.slot, Math.min(Math.max(this.hitHint, r), this.maxHits), maxHits, this.maxHits,
      );
      if (allHits) this.hitHint = hits.records.length / (CastHitRecord.size / 4);
      return hits;
    });
    return query.finally(() => snapshot.destroy());
  }

  /**
   * Records nearest-hit raycasts against the particles in `spheres` into `encoder` (the grid is
   * built from them in the same encoder): `rays` holds `count` rays as two vec4 each, (A, 0) and
   * (B, 0); `hits` receives one CastHitRecord per ray, a miss for every ray when there are no
   * particles (or no plan yet). Its parameters go through the queue: record one per submission.
   */
  encodeRaycast(encoder: GPUCommandEncoder, spheres: GPUBuffer, sphereCount: number, plan: GridPlan | undefined, rays: GPUBuffer, count: number, hits: GPUBuffer, slack: number): void {
    if (sphereCount === 0 || !plan) {
      // Testing no sphere, each ray writes its miss.
      this.encodedPass.setParams(count, 0, slack);
      this.encodedPass.encodeBrute(encoder, 'nearest', spheres, rays, count, { hits, counts: this.noCounts });
      return;
    }
    this.encodedPass.setParams(count, sphereCount, slack);
    this.encodedGrid.prepareWith(plan);
    this.encodedGrid.encodeBuild(encoder, spheres);
    this.encodedGrid.encodeCasts(encoder, { kernels: this.encodedPass, mode: 'nearest', casts: rays, castCount: count, targets: { hits, counts: this.noCounts } });
  }

  destroy(): void {
    this.recorder.destroy();
    this.casts.destroy();
    this.slot.result?.destroy();
    this.encodedPass.destroy();
    this.encodedGrid.destroy();
    this.noCounts.destroy();
  }
}
