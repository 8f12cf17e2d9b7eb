/**
 * A pair list on the GPU: `pairs` (vec2u each) filled by the guarded append in
 * shaders/common.wgsl.ts, and its 64-bit counter. The capacity is the buffer's length, so the
 * shader and the host never disagree about it.
 */
import { BufferUsage } from './flags.js';
import { GrowableBuffer, readBuffer, readRanges, createBuffer, copyMapped, type ReadRange } from './buffers.js';
import { PAIR_BYTES, PairCounter } from '../layout.js';

export class PairList {
  readonly pairs: GrowableBuffer;
  readonly counter: GPUBuffer;

  constructor(
    private readonly device: GPUDevice,
    readonly label = 'pairs',
  ) {
    this.pairs = new GrowableBuffer(device, `${label} list`, BufferUsage.STORAGE | BufferUsage.COPY_SRC);
    this.counter = createBuffer(
      device,
      `${label} counter`,
      PairCounter.size,
      BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST,
    );
  }

  /** What an appending kernel binds (PAIR_OUTPUT of shaders/common.wgsl.ts), by name. */
  output(): { pairs: GPUBuffer; pairCounter: GPUBuffer } {
    return { pairs: this.pairs.buffer, pairCounter: this.counter };
  }

  /** Pairs the list holds now. */
  get capacity(): number {
    return Math.floor(this.pairs.buffer.size / PAIR_BYTES);
  }

  /** Makes room for at least `pairs` pairs (at least one). */
  reserve(pairs: number): void {
    this.pairs.ensure(PAIR_BYTES * Math.max(1, pairs));
  }

  /** Records the reset of the counter (before the passes that append). */
  clear(encoder: GPUCommandEncoder): void {
    encoder.clearBuffer(this.counter);
  }

  /**
   * The true number of pairs appended (may exceed the capacity) and, when they fit, the pairs
   * as [i0, j0, i1, j1, ...] (a new array, or a view of the first 2·count words of `into` when
   * it holds them). One round trip reads the counter, the first min(expected, capacity) pairs
   * and the `also` ranges (their bytes, copied, in `also`); only pairs past `expected` take a
   * second. Expecting too many costs a larger copy, too few a second round trip.
   */
  async readCounted(
    expected: number,
    into?: Uint32Array,
    also: readonly ReadRange[] = [],
  ): Promise<{ count: number; pairs?: Uint32Array; also: ArrayBuffer[] }> {
    const capacity = this.capacity;
    const ahead = Math.min(capacity, Math.max(0, Math.ceil(expected)));
    const alsoBytes: ArrayBuffer[] = [];
    let count = 0;
    let have = 0;
    let pairs: Uint32Array | undefined;
    await readRanges(
      this.device,
      [
        ...also,
        { source: this.counter, offset: 0, size: PairCounter.size },
        { source: this.pairs.buffer, offset: 0, size: PAIR_BYTES * ahead },
      ],
      (bytes) => {
        for (let k = 0; k < also.length; k++) alsoBytes.push(bytes[k].slice(0));
        const words = new Uint32Array(bytes[also.length]);
        count = words[PairCounter.offsets.countHi / 4] * 2 ** 32 + words[PairCounter.offsets.count / 4];
        if (count > capacity) return;
        have = Math.min(count, ahead);
        if (into && into.length >= 2 * count) {
          pairs = into.subarray(0, 2 * count);
          pairs.set(new Uint32Array(bytes[also.length + 1], 0, 2 * have));
        } else {
          pairs = new Uint32Array(copyMapped(bytes[also.length + 1], PAIR_BYTES * have, PAIR_BYTES * count));
        }
      },
    );
    if (pairs && count > have) {
      const rest = pairs.subarray(2 * have);
      await readBuffer(this.device, this.pairs.buffer, PAIR_BYTES * have, PAIR_BYTES * (count - have), rest);
    }
    return { count, pairs, also: alsoBytes };
  }

  destroy(): void {
    this.pairs.destroy();
    this.counter.destroy();
  }
}
