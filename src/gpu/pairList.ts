/**
 * A pair list on the GPU: `pairs` (vec2u each) filled by the guarded append in
 * shaders/common.wgsl.ts, and its 64-bit counter. The capacity is the buffer's length, so the
 * shader and the host never disagree about it.
 */
import { BufferUsage } from './flags.js';
import { GrowableBuffer, readBuffer, createBuffer } from './buffers.js';
import { PAIR_BYTES, PairCounter } from '../layout.js';

export class PairList {
  readonly pairs: GrowableBuffer;
  readonly counter: GPUBuffer;

  constructor(private readonly device: GPUDevice, readonly label = 'pairs') {
    this.pairs = new GrowableBuffer(device, `${label} list`, BufferUsage.STORAGE | BufferUsage.COPY_SRC);
    this.counter = createBuffer(device, `${label} counter`, PairCounter.size, BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST);
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

  /** The true number of pairs appended (may exceed the capacity). Submits and waits. */
  async readCount(): Promise<number> {
    const words = new Uint32Array(await readBuffer(this.device, this.counter, 0, PairCounter.size));
    return words[PairCounter.offsets.countHi / 4] * 2 ** 32 + words[PairCounter.offsets.count / 4];
  }

  /**
   * The first `count` pairs (count ≤ capacity) as [i0, j0, i1, j1, ...]: a new array, or a view
   * of the first 2·count words of `into` when it holds them.
   */
  async read(count: number, into?: Uint32Array): Promise<Uint32Array> {
    if (into && into.length >= 2 * count) {
      const view = into.subarray(0, 2 * count);
      await readBuffer(this.device, this.pairs.buffer, 0, PAIR_BYTES * count, view);
      return view;
    }
    return new Uint32Array(await readBuffer(this.device, this.pairs.buffer, 0, PAIR_BYTES * count));
  }

  destroy(): void {
    this.pairs.destroy();
    this.counter.destroy();
  }
}
