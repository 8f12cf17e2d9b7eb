/**
 * GPU stage timing with timestamp queries. Each stage is one compute pass whose descriptor
 * carries `timestampWrites`; after the passes, `resolve` records the query resolution and
 * `read` maps the result. Without the `timestamp-query` feature every method is a no-op and
 * `read` gives an empty profile, so callers never branch on support.
 *
 * On dawn.node, timestamps are only unquantized when the instance was created with
 * `disable-dawn-features=timestamp_quantization` (requestNodeDevice does that); browsers
 * quantize them (to 100 µs in Chrome), which is still enough for stage totals over many steps.
 */
import { BufferUsage } from './flags.js';
import { mapRead } from './buffers.js';
import { InvalidInputError } from '../errors.js';
import { RULES } from '../checks.js';

/**
 * The GPU time of one stage (one compute pass).
 *
 * @category Devices
 */
export interface StageTime {
  /** The stage, e.g. 'grid count', 'pairs'. */
  name: string;
  /** Its GPU time in milliseconds, from the pass's begin and end timestamps. */
  ms: number;
}

/**
 * GPU time per stage of one call (`collider.lastProfile`, `world.lastProfile`).
 *
 * @category Devices
 */
export interface Profile {
  /** GPU time per recorded stage, in recording order (a stage recorded twice appears twice). */
  stages: StageTime[];
  /** Sum of stage times. */
  totalMs: number;
  /**
   * From the first timed pass's beginning to the last one's end: the stages' time plus the GPU's
   * time between them (barriers, copies and clears outside passes, idle). 0 with no stage.
   */
  spanMs: number;
}

/** The most passes a query set holds: WebGPU allows 4096 queries in one, two a pass. */
const MAX_PASSES_PER_SET = 2048;

/**
 * Timestamp queries around compute passes. The library makes one per call with `profile: true`;
 * make your own to time steps recorded into your encoder with
 * `world.encode(encoder, dt, steps, timer)`: then `timer.resolve(encoder)`, submit, and
 * `await timer.read()`. Without the device's `timestamp-query` feature it records nothing and
 * reads an empty profile. Destroy it when done.
 *
 * @category Devices
 */
export class GpuTimer {
  /** Whether timing is on: asked for, and the device has `timestamp-query`. */
  readonly enabled: boolean;
  /** The query sets, each of `capacity` passes (two timestamps each), and the buffers they resolve into. */
  private readonly sets: { querySet: GPUQuerySet; resolveBuffer: GPUBuffer }[] = [];
  private readonly names: string[] = [];

  constructor(
    private readonly device: GPUDevice,
    enabled: boolean,
    /**
     * Passes per query set (1 to 2048: WebGPU allows 4096 queries in a set). Every pass is
     * timed: past a set's last, the next pass starts another set.
     */
    readonly capacity = 64,
  ) {
    if (!(Number.isInteger(capacity) && capacity >= 1 && capacity <= MAX_PASSES_PER_SET))
      throw new InvalidInputError(
        'capacity',
        -1,
        RULES.option,
        `an integer from 1 to ${MAX_PASSES_PER_SET}, got ${capacity}`,
      );
    this.enabled = enabled && device.features.has('timestamp-query');
  }

  /** A compute pass descriptor for stage `name`, with timestamp writes when timing is on. */
  pass(name: string): GPUComputePassDescriptor {
    if (!this.enabled) return { label: name };
    const k = this.names.length % this.capacity;
    if (k === 0) this.sets.push(this.newSet());
    this.names.push(name);
    const { querySet } = this.sets[this.sets.length - 1];
    return {
      label: name,
      timestampWrites: { querySet, beginningOfPassWriteIndex: 2 * k, endOfPassWriteIndex: 2 * k + 1 },
    };
  }

  private newSet(): { querySet: GPUQuerySet; resolveBuffer: GPUBuffer } {
    const set = this.sets.length;
    return {
      querySet: this.device.createQuerySet({
        label: `webgpu-collide timer ${set}`,
        type: 'timestamp',
        count: 2 * this.capacity,
      }),
      resolveBuffer: this.device.createBuffer({
        label: `webgpu-collide timer resolve ${set}`,
        size: 16 * this.capacity,
        usage: BufferUsage.QUERY_RESOLVE | BufferUsage.COPY_SRC,
      }),
    };
  }

  /** The passes timed in set `set`. */
  private passesIn(set: number): number {
    return Math.min(this.capacity, this.names.length - set * this.capacity);
  }

  /** Records the resolution of every query written so far. */
  resolve(encoder: GPUCommandEncoder): void {
    this.sets.forEach(({ querySet, resolveBuffer }, set) => {
      encoder.resolveQuerySet(querySet, 0, 2 * this.passesIn(set), resolveBuffer, 0);
    });
  }

  /** Reads the resolved times (after the encoder from `resolve` was submitted). */
  async read(): Promise<Profile> {
    if (this.names.length === 0) return { stages: [], totalMs: 0, spanMs: 0 };
    const bytes = 16 * this.names.length;
    const staging = this.device.createBuffer({
      label: 'webgpu-collide timer readback',
      size: bytes,
      usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST,
    });
    try {
      const encoder = this.device.createCommandEncoder({ label: 'webgpu-collide timer readback' });
      this.sets.forEach(({ resolveBuffer }, set) => {
        encoder.copyBufferToBuffer(resolveBuffer, 0, staging, 16 * this.capacity * set, 16 * this.passesIn(set));
      });
      this.device.queue.submit([encoder.finish()]);
      await mapRead(staging, this.device);
      const ticks = new BigUint64Array(staging.getMappedRange().slice(0));
      const stages = this.names.map((name, k) => {
        const ns = ticks[2 * k + 1] > ticks[2 * k] ? Number(ticks[2 * k + 1] - ticks[2 * k]) : 0;
        return { name, ms: ns / 1e6 };
      });
      const last = ticks[2 * this.names.length - 1];
      const spanMs = last > ticks[0] ? Number(last - ticks[0]) / 1e6 : 0;
      return { stages, totalMs: stages.reduce((sum, s) => sum + s.ms, 0), spanMs };
    } finally {
      staging.destroy();
    }
  }

  /** Frees the query set and buffer. */
  destroy(): void {
    for (const { querySet, resolveBuffer } of this.sets) {
      querySet.destroy();
      resolveBuffer.destroy();
    }
  }
}
