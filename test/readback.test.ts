/**
 * Reads back to the CPU (src/gpu/buffers.ts, readBuffer): the bytes asked for, at their offset,
 * whatever staging buffer carried them; staging buffers reused where they fit (creating a
 * mappable buffer costs more than mapping one), and never more kept than the pool allows.
 */
import { describe, it, expect, afterEach, beforeEach } from 'vitest';
import { useGpu } from './support/gpu.js';
import { readBuffer, clearStagingPool, LARGE_READ_POOL_BYTES } from '../src/gpu/buffers.js';
import { BufferUsage } from '../src/gpu/flags.js';
import { WebGPUError } from '../src/errors.js';

const gpu = useGpu();

/** Counts the mappable buffers the device creates while `body` runs. */
async function stagingCreated(body: () => Promise<void>): Promise<number> {
  const device = gpu.device;
  const create = device.createBuffer;
  let created = 0;
  device.createBuffer = function (this: GPUDevice, descriptor: GPUBufferDescriptor): GPUBuffer {
    if (descriptor.usage & BufferUsage.MAP_READ) created++;
    return create.call(this, descriptor);
  };
  try {
    await body();
  } finally {
    device.createBuffer = create;
  }
  return created;
}

/** A storage buffer of `words` u32 holding 7919·k + 13 at word k. */
function sourceOf(words: number): { buffer: GPUBuffer; expected: (from: number, count: number) => Uint32Array } {
  const values = Uint32Array.from({ length: words }, (_, k) => (7919 * k + 13) >>> 0);
  const buffer = gpu.device.createBuffer({ size: 4 * words, usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST });
  gpu.device.queue.writeBuffer(buffer, 0, values);
  sources.push(buffer);
  return { buffer, expected: (from, count) => values.slice(from, from + count) };
}

const sources: GPUBuffer[] = [];
beforeEach(() => clearStagingPool(gpu.device)); // each test starts from an empty pool
afterEach(() => {
  for (const buffer of sources.splice(0)) buffer.destroy();
});

describe('readBuffer', () => {
  it('returns the bytes at their offset, into a fresh array or the one given; a second read of the same size creates no staging buffer', async () => {
    const { buffer, expected } = sourceOf(40_000);
    const first = await stagingCreated(async () => {
      expect(new Uint32Array(await readBuffer(gpu.device, buffer, 0, 4 * 30_000))).toEqual(expected(0, 30_000));
    });
    const again = await stagingCreated(async () => {
      expect(new Uint32Array(await readBuffer(gpu.device, buffer, 4 * 1000, 4 * 29_000))).toEqual(expected(1000, 29_000));
      const into = new Uint32Array(30_000 + 3);
      await readBuffer(gpu.device, buffer, 4 * 10_000, 4 * 30_000, into.subarray(3));
      expect(into.subarray(3)).toEqual(expected(10_000, 30_000));
      expect(Array.from(into.subarray(0, 3))).toEqual([0, 0, 0]);
      // Small reads (a count) have their own staging buffers.
      expect(new Uint32Array(await readBuffer(gpu.device, buffer, 4 * 5, 8))).toEqual(expected(5, 2));
    });
    expect(first, 'the first read').toBe(1);
    expect(again, 'staging buffers created by the later reads (the small read\'s)').toBe(1);
  });

  it('a read much smaller than the idle buffers takes its own; concurrent reads each get the right bytes', async () => {
    const { buffer, expected } = sourceOf(100_000);
    await readBuffer(gpu.device, buffer, 0, 4 * 100_000); // leaves a 400 kB staging buffer idle
    const created = await stagingCreated(async () => {
      expect(new Uint32Array(await readBuffer(gpu.device, buffer, 0, 4 * 2_000))).toEqual(expected(0, 2_000));
    });
    expect(created, 'a 8 kB read does not hold a 400 kB buffer').toBe(1);
    const reads = [0, 1, 2, 3].map((k) => readBuffer(gpu.device, buffer, 4 * 20_000 * k, 4 * 20_000));
    const got = await Promise.all(reads);
    got.forEach((bytes, k) => expect(new Uint32Array(bytes), `read ${k}`).toEqual(expected(20_000 * k, 20_000)));
  });

  it(`keeps no staging buffer larger than ${LARGE_READ_POOL_BYTES / 2 ** 20} MiB`, async () => {
    const words = LARGE_READ_POOL_BYTES / 4 + 1024;
    const { buffer, expected } = sourceOf(words);
    const created = await stagingCreated(async () => {
      for (let k = 0; k < 2; k++) {
        const got = new Uint32Array(await readBuffer(gpu.device, buffer, 0, 4 * words));
        expect(got.length).toBe(words);
        expect(got.subarray(words - 5)).toEqual(expected(words - 5, 5));
      }
    });
    expect(created, 'each read past the pool takes a fresh staging buffer').toBe(2);
  });

  it('follows reads that grow: the least recently used idle buffers make room', async () => {
    const { buffer, expected } = sourceOf(60_000);
    for (const bytes of [400, 1200, 5000, 20_000, 80_000, 200_000]) await readBuffer(gpu.device, buffer, 0, bytes);
    const created = await stagingCreated(async () => {
      for (let k = 0; k < 20; k++) expect(new Uint32Array(await readBuffer(gpu.device, buffer, 0, 200_000))).toEqual(expected(0, 50_000));
    });
    expect(created, 'staging buffers created by 20 reads of the latest size').toBe(0);
  });

  it('a copy WebGPU refuses (a destroyed source) throws WebGPUError, not an earlier read\'s bytes', async () => {
    const { buffer: a } = sourceOf(10_000);
    const { buffer: b, expected } = sourceOf(10_000);
    await readBuffer(gpu.device, a, 0, 40_000); // leaves its staging buffer, holding a's words, idle
    b.destroy();
    await expect(readBuffer(gpu.device, b, 0, 40_000)).rejects.toBeInstanceOf(WebGPUError);
    await expect(readBuffer(gpu.device, a, 0, 8)).resolves.toBeDefined();
    const { buffer: c } = sourceOf(10_000);
    gpu.device.queue.writeBuffer(c, 0, expected(0, 10_000));
    expect(new Uint32Array(await readBuffer(gpu.device, c, 0, 40_000))).toEqual(expected(0, 10_000));
  });
});
