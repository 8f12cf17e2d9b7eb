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
  private readonly querySet: GPUQuerySet | null;
  private readonly resolveBuffer: GPUBuffer | null;
  private readonly names: string[] = [];

  constructor(
    private readonly device: GPUDevice,
    enabled: boolean,
    /** Most stages timed; passes past it run untimed. */
    readonly capacity = 64,
  ) {
    this.enabled = enabled && device.features.has('timestamp-query');
    this.querySet = this.enabled
      ? device.createQuerySet({ label: 'webgpu-collide timer', type: 'timestamp', count: 2 * capacity })
      : null;
    this.resolveBuffer = this.enabled
      ? device.createBuffer({
          label: 'webgpu-collide timer resolve',
          size: 16 * capacity,
          usage: BufferUsage.QUERY_RESOLVE | BufferUsage.COPY_SRC,
        })
      : null;
  }

  /** A compute pass descriptor for stage `name`, with timestamp writes when timing is on. */
  pass(name: string): GPUComputePassDescriptor {
    if (!this.querySet || this.names.length >= this.capacity) return { label: name };
    const k = this.names.length;
    this.names.push(name);
    return {
      label: name,
      timestampWrites: { querySet: this.querySet, beginningOfPassWriteIndex: 2 * k, endOfPassWriteIndex: 2 * k + 1 },
    };
  }

  /** Records the resolution of every query written so far. */
  resolve(encoder: GPUCommandEncoder): void {
    if (!this.querySet || !this.resolveBuffer || this.names.length === 0) return;
    encoder.resolveQuerySet(this.querySet, 0, 2 * this.names.length, this.resolveBuffer, 0);
  }

  /** Reads the resolved times (after the encoder from `resolve` was submitted). */
  async read(): Promise<Profile> {
    if (!this.resolveBuffer || this.names.length === 0) return { stages: [], totalMs: 0, spanMs: 0 };
    const bytes = 16 * this.names.length;
    const staging = this.device.createBuffer({
      label: 'webgpu-collide timer readback',
      size: bytes,
      usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST,
    });
    try {
      const encoder = this.device.createCommandEncoder({ label: 'webgpu-collide timer readback' });
      encoder.copyBufferToBuffer(this.resolveBuffer, 0, staging, 0, bytes);
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
    this.querySet?.destroy();
    this.resolveBuffer?.destroy();
  }
}
