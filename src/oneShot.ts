/**
 * The Collider's one-shot calls after validation: the inputs uploaded into growable buffers, then
 * the encoded calls' recording (QueryRecorder's `recordPairs`, `recordCasts`) submitted until the
 * results fit (src/resident/retry.ts), and only the counted results read back. The buffers and
 * the last results are kept: the next call reuses them.
 */
import type { CallQueue } from './gpu/calls.js';
import { BufferUsage } from './gpu/flags.js';
import { GrowableBuffer, upload } from './gpu/buffers.js';
import { GpuTimer, type Profile } from './gpu/timer.js';
import { boxSampleOf, type SphereStats, type CastBatch } from './validate.js';
import { HIT_BYTES, castCall, castReach, noHits, type HitRecords } from './castQueries.js';
import { checkOneOf, checkPositiveInteger, checkBoolean, checkOutArray } from './checks.js';
import { checkServes } from './broadphase/index.js';
import {
  QueryRecorder,
  collectPairs,
  collectHits,
  type ResultSlot,
  type EncodedPairs,
  type EncodedHits,
  type GpuRecords,
} from './resident.js';
import type { ColliderLimits } from './colliderOptions.js';
import type { PlanOptions } from './spatial/plan.js';
import type { CastReach } from './spatial/reach.js';
import type { BoxKind } from './queryKinds.js';
import { BROADPHASES, type Broadphase, type PairOptions, type CastOptions } from './options.js';

/** A one-shot cast call's choices, made and validated by the Collider. */
export interface OneShotCast {
  reach: CastReach;
  broadphase: Broadphase;
  allHits: boolean;
  maxHits: number;
  timer: GpuTimer;
}

export class OneShotCalls {
  /** Stage times of the last call made with `profile: true` (the Collider's lastProfile). */
  lastProfile: Profile | null = null;
  /** The recorder the one-shot calls run on (the encoded calls lease others: ResidentPool). */
  readonly recorder: QueryRecorder;
  private readonly spheres: GrowableBuffer;
  private readonly boxes: GrowableBuffer;
  private readonly rays: GrowableBuffer;
  private readonly pairSlot: ResultSlot<EncodedPairs> = {};
  private readonly hitSlot: ResultSlot<EncodedHits> = {};
  /** Pairs (hits) found by the last call: the next call starts with room for as many. */
  private pairHint = 0;
  private hitHint = 0;

  constructor(
    private readonly device: GPUDevice,
    private readonly calls: CallQueue,
    private readonly limits: ColliderLimits,
    binding: number,
    planOptions: PlanOptions,
  ) {
    const usage = BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC;
    this.spheres = new GrowableBuffer(device, 'input spheres', usage, binding);
    this.boxes = new GrowableBuffer(device, 'input boxes', usage, binding);
    this.rays = new GrowableBuffer(device, 'input casts', usage, binding);
    this.recorder = new QueryRecorder(device, limits.maxWorkgroupsPerDimension, planOptions, 'one-shot', binding);
  }

  /**
   * A pair query (sphere pairs, or sphere–box pairs with `box`) of validated inputs: its options
   * checked and its phase decided once, here, before any early return; then run behind earlier
   * calls on copies of what was validated.
   */
  pairQuery(
    spheres: Float32Array,
    stats: SphereStats,
    box: { kind: BoxKind; packed: Float32Array; stride: number } | undefined,
    options: PairOptions,
  ): Promise<Uint32Array> {
    const broadphase = checkOneOf('options.broadphase', options.broadphase, BROADPHASES) ?? 'auto';
    const maxPairs = checkPositiveInteger('options.maxPairs', options.maxPairs) ?? Infinity;
    const profile = checkBoolean('options.profile', options.profile) ?? false;
    const out = checkOutArray('options.out', options.out);
    const n = stats.count;
    const m = box ? box.packed.length / box.stride : 0;
    const query = box
      ? { query: 'boxes' as const, sphereCount: n, boxCount: m, stats }
      : { query: 'pairs' as const, sphereCount: n, stats };
    const phase = this.recorder.phaseFor(broadphase, query).name;
    if (box ? n === 0 || m === 0 : n < 2) return Promise.resolve(out ? out.subarray(0, 0) : new Uint32Array(0));
    const data = spheres.slice(); // what was validated is what runs, whatever the caller does next (the boxes are a packed copy)
    const boxes = box && { kind: box.kind, packed: box.packed, count: m };
    return this.run(profile, (timer) => this.pairs(data, stats, boxes, { broadphase: phase, maxPairs, out, timer }));
  }

  /**
   * A cast query of validated inputs: the nearest hit of each cast, or every hit with the per-cast
   * offsets (read with the records expected; past the records' buffer, it grows to the total and
   * the batch runs again: collectHits).
   */
  castQuery(
    kind: 'raycast' | 'sphereCast',
    batch: CastBatch,
    spheres: Float32Array,
    stats: SphereStats,
    options: CastOptions,
  ): Promise<HitRecords> {
    const { broadphase: asked, allHits, maxHits, profile } = castCall(options);
    checkServes(asked, 'casts');
    const r = batch.count;
    const n = stats.count;
    if (r === 0 || n === 0) return Promise.resolve(noHits(r, allHits));
    const broadphase = this.recorder.phaseFor(asked, { query: 'casts', sphereCount: n, casts: batch, stats }).name;
    const reach = castReach(batch, Math.max(...stats.min.map(Math.abs), ...stats.max.map(Math.abs)), stats.maxRadius);
    const data = spheres.slice(); // the casts are already a packed copy
    return this.run(profile, (timer) =>
      this.casts(kind, batch, data, stats, { reach, broadphase, allHits, maxHits, timer }),
    );
  }

  /** Serializes `task` behind earlier calls, with a timer; a profile lands in lastProfile. */
  private run<T>(profile: boolean, task: (timer: GpuTimer) => Promise<T>): Promise<T> {
    return this.calls.serialize(async () => {
      const timer = new GpuTimer(this.device, profile);
      try {
        const result = await task(timer);
        if (timer.enabled) {
          await this.calls.submit((encoder) => timer.resolve(encoder));
          this.lastProfile = await timer.read();
        }
        return result;
      } finally {
        timer.destroy();
      }
    });
  }

  /**
   * A one-shot pair search: the inputs uploaded, then `recordPairs` (the encode calls' recording)
   * submitted until the pairs fit (src/resident/retry.ts, collectPairs); the count and the pairs are
   * read in one round trip when they number no more than expected (PairList.readCounted), into
   * `out` when it holds them.
   */
  private async pairs(
    spheres: Float32Array,
    stats: SphereStats,
    box: { kind: BoxKind; packed: Float32Array; count: number } | undefined,
    call: { broadphase: Broadphase; maxPairs: number; out?: Uint32Array; timer: GpuTimer },
  ): Promise<Uint32Array> {
    const sphereRecords: GpuRecords = { buffer: this.spheres.ensure(spheres.byteLength), count: stats.count };
    const boxRecords = box && {
      kind: box.kind,
      records: { buffer: this.boxes.ensure(box.packed.byteLength), count: box.count },
    };
    const boxSample = box && boxSampleOf(box.kind, box.packed);
    const pairs = await collectPairs(
      (record) => this.calls.submit(record),
      (encoder, capacity, again, into) => {
        if (!again) {
          upload(this.device, sphereRecords.buffer, spheres);
          if (box && boxRecords) upload(this.device, boxRecords.records.buffer, box.packed);
        }
        return this.recorder.recordPairs(encoder, sphereRecords, boxRecords, {
          stats,
          boxes: boxSample,
          broadphase: call.broadphase,
          capacity,
          into,
          workgroupSize: 64,
          timer: call.timer,
          dispatchArguments: false,
          reuseBuild: again,
        });
      },
      this.pairSlot,
      Math.min(Math.max(this.pairHint, 4096), this.limits.maxPairs),
      call.maxPairs,
      this.limits.maxPairs,
      call.out,
    );
    this.pairHint = pairs.length / 2;
    return pairs;
  }

  /** A one-shot cast batch over `spheres` (their stats validated), until every hit fits. */
  private async casts(
    kind: 'raycast' | 'sphereCast',
    batch: CastBatch,
    spheres: Float32Array,
    stats: SphereStats,
    { reach, broadphase, allHits, maxHits, timer }: OneShotCast,
  ): Promise<HitRecords> {
    const n = stats.count;
    const r = batch.count;
    const data = spheres;
    const sphereRecords: GpuRecords = { buffer: this.spheres.ensure(data.byteLength), count: n };
    const castRecords: GpuRecords = { buffer: this.rays.ensure(batch.packed.byteLength), count: r };
    const hits = await collectHits(
      (record) => this.calls.submit(record),
      (encoder, capacity, again, into) => {
        if (!again) {
          upload(this.device, sphereRecords.buffer, data);
          upload(this.device, castRecords.buffer, batch.packed);
        }
        return this.recorder.recordCasts(encoder, castRecords, sphereRecords, {
          kind,
          stats,
          shape: batch,
          reach,
          broadphase,
          allHits,
          capacity,
          into,
          workgroupSize: 64,
          timer,
          dispatchArguments: false,
          reuseBuild: again,
        });
      },
      this.hitSlot,
      Math.min(Math.max(this.hitHint, r), this.limits.maxHits),
      maxHits,
      this.limits.maxHits,
    );
    if (allHits) this.hitHint = hits.records.length / (HIT_BYTES / 4);
    return hits;
  }

  destroy(): void {
    for (const buffer of [this.spheres, this.boxes, this.rays]) buffer.destroy();
    this.recorder.destroy();
    this.pairSlot.result?.destroy();
    this.hitSlot.result?.destroy();
  }
}
