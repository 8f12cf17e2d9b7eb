/**
 * Raycasts and sphere casts against a particle world's own particles, through the same broad-phase
 * seam as the Collider's calls (src/broadphase/: the registry's phases, 'auto''s choice, each
 * phase's build, walk and slack). The one-shot queries run the Collider's recording
 * (src/resident.ts: `recordCasts`, the same hit records, the same grow-or-throw rule:
 * collectHits) over a copy of the particles made at call time, so a step submitted while a query
 * waits does not move them under it. The encoded raycasts record into the caller's encoder with
 * their parameters from a log, as the world's steps do, so that any number of them share a
 * submission with the steps and the caller's kernels.
 */
import { CastPass } from '../passes/casts.js';
import { castCall, noHits, castReach, HIT_BYTES, type HitRecords } from '../castQueries.js';
import {
  checkServes,
  chooseBroadphase,
  createBroadPhases,
  destroyBroadPhases,
  WITHOUT_SPHERES,
  type BroadPhases,
} from '../broadphase/index.js';
import { QueryRecorder, collectHits, type ResultSlot, type EncodedHits } from '../resident.js';
import { BufferUsage } from '../gpu/flags.js';
import { createBuffer, upload, GrowableBuffer } from '../gpu/buffers.js';
import type { CallQueue } from '../gpu/calls.js';
import type { CastBatch } from '../validate.js';
import { checkNumber, checkPositiveInteger, RULES, MAX_MAGNITUDE } from '../checks.js';
import { InvalidInputError } from '../errors.js';
import { packStruct } from '../layout.js';
import { CastHitRecord, CastParams } from '../../shaders/passes/layout.js';
import type { CastOptions, Broadphase } from '../options.js';
import { planGrid, type PlanOptions } from '../spatial/plan.js';
import type { SphereStats } from '../validate.js';

/**
 * Encoded raycasts recorded between two submissions, at most (as many as the world's steps: each
 * writes its parameters into its own slot of a log, copied in command order).
 */
export const RAYCAST_LOG_SLOTS = 256;

/**
 * Validates `world.encodeRaycast`'s arguments: `count` rays in `rays` (two vec4 each: (A, 0),
 * (B, 0)), at most `maxCasts`; `hits` holding one CastHitRecord a ray, another STORAGE buffer;
 * `maxRayLength` a finite bound of their lengths.
 */
export function checkGpuRaycast(
  rays: GPUBuffer,
  count: number,
  hits: GPUBuffer,
  maxRayLength: number,
  maxCasts: number,
): void {
  if (checkPositiveInteger('count', count, maxCasts) === undefined)
    throw new InvalidInputError('count', -1, RULES.option, 'required');
  for (const [argument, buffer, bytes] of [
    ['rays', rays, 32],
    ['hits', hits, HIT_BYTES],
  ] as const) {
    const b = buffer as GPUBuffer | undefined;
    if (
      !b ||
      typeof b.size !== 'number' ||
      typeof b.usage !== 'number' ||
      b.size < bytes * count ||
      (b.usage & BufferUsage.STORAGE) === 0
    ) {
      throw new InvalidInputError(
        argument,
        -1,
        RULES.gpuRecords,
        `a GPUBuffer with STORAGE usage holding ${count} records of ${bytes} bytes`,
      );
    }
  }
  if (rays === hits)
    throw new InvalidInputError(
      'hits',
      -1,
      RULES.gpuRecords,
      'a buffer other than rays (the pass reads one and writes the other)',
    );
  // The longest ray widens the walk's rounding slack: it must be a true bound, and finite.
  if (checkNumber('maxRayLength', maxRayLength, 0, 4 * MAX_MAGNITUDE) === undefined)
    throw new InvalidInputError('maxRayLength', -1, RULES.option, 'required');
}

export class ParticleQueries {
  private readonly recorder: QueryRecorder;
  private readonly casts: GrowableBuffer;
  private readonly slot: ResultSlot<EncodedHits> = {};
  /** Hits found by the last all-hits query: the next starts with room for as many. */
  private hitHint = 0;
  /** Casts recorded into a caller's encoder: their kernels (parameters copied in from the log) and broad phases. */
  private readonly encodedPass: CastPass;
  private readonly encodedPhases: BroadPhases;
  /** RAYCAST_LOG_SLOTS CastParams, one per encoded call (written through the queue, copied into the pass's in command order). */
  private readonly paramLog: GPUBuffer;
  private logSlot = 0;
  /** The cast pass binds hit counts even for nearest hits, where they go unused. */
  private readonly noCounts: GPUBuffer;

  constructor(
    private readonly device: GPUDevice,
    private readonly calls: CallQueue,
    maxWorkgroupsPerDimension: number,
    private readonly maxHits: number,
    private readonly planOptions: PlanOptions,
    /**
     * Whether the world has bounds. Without them the stats' bounds are the grid's range (2^23
     * cells each way), not where the particles are, and a phase that fits its structure to the
     * bounds (the BVH's Morton grid) would put every particle in one code: 'auto' then takes
     * the grid, whose plan is made for that range.
     */
    private readonly bounded: boolean,
  ) {
    this.recorder = new QueryRecorder(device, maxWorkgroupsPerDimension, planOptions, 'particle query');
    this.casts = new GrowableBuffer(device, 'particle query casts', BufferUsage.STORAGE | BufferUsage.COPY_DST);
    this.encodedPass = new CastPass(device, maxWorkgroupsPerDimension);
    this.encodedPhases = createBroadPhases(
      { device, maxWorkgroupsPerDimension },
      planOptions,
      'particle encoded query grid',
    );
    this.paramLog = createBuffer(
      device,
      'particle raycast params log',
      RAYCAST_LOG_SLOTS * CastParams.size,
      BufferUsage.COPY_SRC | BufferUsage.COPY_DST,
    );
    this.noCounts = createBuffer(device, 'particle query no counts', 4, BufferUsage.STORAGE);
  }

  /**
   * The casts of `batch` against the particles of `spheres` as they are at this call (one GPU
   * copy, 16 bytes each). `stats` are the particles' with the bounds the world's grid covers
   * (the grid broad phase then plans what the world's grid has); `extentAbs` is the largest
   * |coordinate| a particle can have.
   */
  run(
    batch: CastBatch,
    options: Omit<CastOptions, 'profile'>,
    spheres: GPUBuffer,
    stats: SphereStats,
    extentAbs: number,
    kind: 'raycast' | 'sphereCast',
  ): Promise<HitRecords> {
    const count = stats.count;
    const { broadphase: asked, allHits, maxHits } = castCall({ ...options, profile: undefined });
    checkServes(asked, 'casts');
    const broadphase = this.auto(asked);
    const r = batch.count;
    if (r === 0 || count === 0) return Promise.resolve(noHits(r, allHits));
    const reach = castReach(batch, extentAbs, stats.maxRadius);
    const snapshot = this.device.createBuffer({
      label: 'particle query snapshot',
      size: 16 * count,
      usage: BufferUsage.STORAGE | BufferUsage.COPY_DST,
    });
    const copied = this.calls.submit((encoder) => encoder.copyBufferToBuffer(spheres, 0, snapshot, 0, 16 * count));
    copied.catch(() => undefined); // awaited in turn below
    const query = this.calls.serialize(async () => {
      await copied;
      const casts = { buffer: this.casts.ensure(batch.packed.byteLength), count: r };
      upload(this.device, casts.buffer, batch.packed);
      const hits = await collectHits(
        (record) => this.calls.submit(record),
        (encoder, capacity, again, into) =>
          this.recorder.recordCasts(
            encoder,
            casts,
            { buffer: snapshot, count },
            {
              kind,
              stats,
              shape: batch,
              reach,
              broadphase,
              allHits,
              capacity,
              into,
              workgroupSize: 64,
              dispatchArguments: false,
              reuseBuild: again,
            },
          ),
        this.slot,
        Math.min(Math.max(this.hitHint, r), this.maxHits),
        maxHits,
        this.maxHits,
      );
      if (allHits) this.hitHint = hits.records.length / (CastHitRecord.size / 4);
      return hits;
    });
    return query.finally(() => snapshot.destroy());
  }

  /**
   * Records nearest-hit raycasts against the particles in `spheres` into `encoder`, on the broad
   * phase 'auto' picks for them (its build from the particles as they are when the encoder runs,
   * then its walk): `rays` holds `count` rays as two vec4 each, (A, 0) and (B, 0); `hits`
   * receives one CastHitRecord per ray, a miss for every ray when there are no particles.
   * `stats` are the particles' with the bounds the world's grid covers (undefined: none yet);
   * `extentAbs` bounds |coordinate| of a particle, `maxRayLength` a ray's length. The
   * parameters are this call's own (a slot of the log), so calls share a submission.
   */
  encodeRaycast(
    encoder: GPUCommandEncoder,
    spheres: GPUBuffer,
    stats: SphereStats | undefined,
    rays: GPUBuffer,
    count: number,
    hits: GPUBuffer,
    reach: { extentAbs: number; maxRayLength: number },
  ): void {
    const sphereCount = stats?.count ?? 0;
    // No particles: the phase that builds nothing tests zero spheres, and every ray writes its miss.
    const name =
      !stats || sphereCount === 0
        ? WITHOUT_SPHERES
        : chooseBroadphase(this.auto('auto'), {
            query: 'casts',
            sphereCount,
            stats,
            casts: { count, totalLength: count * reach.maxRayLength },
            gridPlan: () => planGrid(stats, this.planOptions),
          });
    const phase = this.encodedPhases[name];
    const slack =
      stats && sphereCount > 0
        ? phase.castSlack({ maxAbs: reach.extentAbs, maxLength: reach.maxRayLength, maxRadius: stats.maxRadius })
        : 0;
    this.logSlot = (this.logSlot + 1) % RAYCAST_LOG_SLOTS;
    const offset = this.logSlot * CastParams.size;
    this.device.queue.writeBuffer(
      this.paramLog,
      offset,
      packStruct(CastParams, { castCount: count, sphereCount, slack }),
    );
    this.encodedPass.copyParams(encoder, this.paramLog, offset);
    if (stats) phase.prepare(stats); // with no stats the phase is all-pairs, its kernels told of 0 spheres by the parameters
    phase.encodeBuild(encoder, spheres);
    phase.encodeCasts(encoder, {
      kernels: this.encodedPass,
      mode: 'nearest',
      casts: rays,
      castCount: count,
      targets: { hits, counts: this.noCounts },
    });
  }

  /** The world's 'auto': the grid when the world is unbounded (see `bounded`). */
  private auto(broadphase: Broadphase): Broadphase {
    return broadphase === 'auto' && !this.bounded ? 'grid' : broadphase;
  }

  destroy(): void {
    this.recorder.destroy();
    this.casts.destroy();
    this.slot.result?.destroy();
    this.encodedPass.destroy();
    destroyBroadPhases(this.encodedPhases);
    this.paramLog.destroy();
    this.noCounts.destroy();
  }
}
