/**
 * Recorders lent to encoded calls: each result holds its lease until its read() has seen the call
 * run, it is encoded into again or destroyed (or collected), so that encoded calls sharing a
 * submission never share parameters or working buffers.
 */
import type { BoxKind } from '../queryKinds.js';
import type { EncodeOptions, EncodeCastOptions } from './inputs.js';
import { EncodedPairs, EncodedHits, type Lease } from './results.js';
import type { QueryRecorder } from './recorder.js';

/**
 * A recorder lent to one encoded result: given back when the result's `read()` has seen its call
 * run, when the result is encoded into on another recorder, destroyed, or garbage-collected.
 * Until then no other call records on it, so nothing it wrote (parameters through the queue,
 * working buffers that may grow) changes under a call that may not be submitted yet.
 */
export class RecorderLease implements Lease {
  private released = false;

  /** @internal */
  constructor(
    readonly pool: ResidentPool,
    readonly recorder: QueryRecorder,
  ) {}

  get held(): boolean {
    return !this.released;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    leases.unregister(this);
    this.pool.giveBack(this.recorder);
  }
}

/** A result dropped without read() or destroy() gives its recorder back when it is collected. */
export const leases = new FinalizationRegistry<RecorderLease>((lease) => lease.release());

/**
 * The encoded calls' recorders of one Collider: each call takes a free one (or makes one) and its
 * result holds it (RecorderLease), so that encoded calls recorded into one submission never share
 * parameters or working buffers. A result encoded into again (`into`) keeps its recorder: a call
 * per frame into the same results makes nothing new. The pool grows to the most results holding
 * a recorder at once.
 */
export class ResidentPool {
  private readonly free: QueryRecorder[] = [];
  private readonly made: QueryRecorder[] = [];
  private destroyed = false;

  constructor(private readonly make: () => QueryRecorder) {}

  /** Recorders made so far (for tests). */
  get size(): number {
    return this.made.length;
  }

  /** Recorders free now (for tests). */
  get idle(): number {
    return this.free.length;
  }

  /** `QueryRecorder.encodePairs` on the result's recorder, or a free one. */
  encodePairs(
    encoder: GPUCommandEncoder,
    spheres: unknown,
    options: EncodeOptions,
    box?: { kind: BoxKind; boxes: unknown; argument: string },
  ): EncodedPairs {
    return this.leased(options, EncodedPairs, (recorder) => recorder.encodePairs(encoder, spheres, options, box));
  }

  /** `QueryRecorder.encodeCasts` on the result's recorder, or a free one. */
  encodeCasts(
    encoder: GPUCommandEncoder,
    kind: 'raycast' | 'sphereCast',
    casts: unknown,
    spheres: unknown,
    options: EncodeCastOptions,
  ): EncodedHits {
    return this.leased(options, EncodedHits, (recorder) =>
      recorder.encodeCasts(encoder, kind, casts, spheres, options),
    );
  }

  private leased<T extends EncodedPairs | EncodedHits>(
    options: unknown,
    type: abstract new (...args: never[]) => T,
    record: (recorder: QueryRecorder) => T,
  ): T {
    const into = options && typeof options === 'object' ? (options as { into?: unknown }).into : undefined;
    const lease = into instanceof type ? into.lease : undefined;
    const held = lease instanceof RecorderLease && lease.held && lease.pool === this ? lease : undefined;
    const recorder = held?.recorder ?? this.take();
    let result: T;
    try {
      result = record(recorder);
    } catch (error) {
      if (!held) this.giveBack(recorder);
      throw error;
    }
    if (!held) {
      result.lease?.release(); // another pool's, or one given back already
      const lease = new RecorderLease(this, recorder);
      leases.register(result, lease, lease);
      result.lease = lease;
    }
    return result;
  }

  private take(): QueryRecorder {
    const recorder = this.free.pop();
    if (recorder) return recorder;
    const made = this.make();
    this.made.push(made);
    return made;
  }

  /** @internal A lease's recorder, free again (destroyed with the pool, which destroys every one). */
  giveBack(recorder: QueryRecorder): void {
    if (!this.destroyed) this.free.push(recorder);
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    for (const recorder of this.made) recorder.destroy();
    this.made.length = 0;
    this.free.length = 0;
  }
}
