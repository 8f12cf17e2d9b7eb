/**
 * Reads back to the CPU (src/gpu/buffers.ts, readBuffer and readRanges): the bytes asked for, at
 * their offset, whatever staging buffer carried them; staging buffers reused where they fit
 * (creating a mappable buffer costs more than mapping one), and never more kept than the pool
 * allows. Results read their count and records in one round trip when the records number no
 * more than expected (PairList.readCounted, EncodedPairs, EncodedHits), counted in submissions.
 */
import { describe, it, expect, afterEach, beforeEach } from 'vitest';
import { useGpu } from '../support/gpu.js';
import { readBuffer, readRanges, clearStagingPool, LARGE_READ_POOL_BYTES } from '../../src/gpu/buffers.js';
import { BufferUsage } from '../../src/gpu/flags.js';
import { WebGPUError, InvalidInputError } from '../../src/errors.js';
import type { EncodedPairs } from '../../src/resident.js';
import { PairCounter } from '../../src/layout.js';
import { uniformScene, sceneBoundsOf } from '../support/scenes.js';
import { bruteForceSpherePairs, sortPairs } from '../../src/reference/spherePairs.js';
import { bruteForceNearestCasts } from '../../src/reference/casts.js';

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
  const buffer = gpu.device.createBuffer({
    size: 4 * words,
    usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST,
  });
  gpu.device.queue.writeBuffer(buffer, 0, values);
  sources.push(buffer);
  return { buffer, expected: (from, count) => values.slice(from, from + count) };
}

/** Counts the submissions to the device's queue while `body` runs (its value returned beside). */
async function submissions<T>(body: () => Promise<T>): Promise<{ count: number; value: T }> {
  const queue = gpu.device.queue;
  const submit = queue.submit;
  let count = 0;
  queue.submit = function (this: GPUQueue, buffers: Iterable<GPUCommandBuffer>): undefined {
    count++;
    return submit.call(this, buffers);
  };
  try {
    const value = await body();
    return { count, value };
  } finally {
    queue.submit = submit;
  }
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
      expect(new Uint32Array(await readBuffer(gpu.device, buffer, 4 * 1000, 4 * 29_000))).toEqual(
        expected(1000, 29_000),
      );
      const into = new Uint32Array(30_000 + 3);
      await readBuffer(gpu.device, buffer, 4 * 10_000, 4 * 30_000, into.subarray(3));
      expect(into.subarray(3)).toEqual(expected(10_000, 30_000));
      expect(Array.from(into.subarray(0, 3))).toEqual([0, 0, 0]);
      // Small reads (a count) have their own staging buffers.
      expect(new Uint32Array(await readBuffer(gpu.device, buffer, 4 * 5, 8))).toEqual(expected(5, 2));
    });
    expect(first, 'the first read').toBe(1);
    expect(again, "staging buffers created by the later reads (the small read's)").toBe(1);
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
    got.forEach((bytes, k) => {
      expect(new Uint32Array(bytes), `read ${k}`).toEqual(expected(20_000 * k, 20_000));
    });
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
      for (let k = 0; k < 20; k++)
        expect(new Uint32Array(await readBuffer(gpu.device, buffer, 0, 200_000))).toEqual(expected(0, 50_000));
    });
    expect(created, 'staging buffers created by 20 reads of the latest size').toBe(0);
  });

  it("a copy WebGPU refuses (a destroyed source) throws WebGPUError, not an earlier read's bytes", async () => {
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

describe('readRanges', () => {
  it('reads ranges of several buffers, empty ones too, in one submission and one staging buffer', async () => {
    const { buffer: a, expected: fromA } = sourceOf(5_000);
    const { buffer: b, expected: fromB } = sourceOf(300);
    let got: Uint32Array[] = [];
    let created = 0;
    const { count } = await submissions(async () => {
      created = await stagingCreated(async () => {
        got = await readRanges(
          gpu.device,
          [
            { source: a, offset: 4 * 7, size: 4 * 3 }, // 12 bytes: the next range starts on an 8-byte boundary
            { source: b, offset: 0, size: 0 },
            { source: b, offset: 4 * 100, size: 4 * 200 },
            { source: a, offset: 4 * 1000, size: 4 * 4000 },
          ],
          (bytes) => bytes.map((range) => new Uint32Array(range.slice(0))),
        );
      });
    });
    expect(count, 'submissions').toBe(1);
    expect(created, 'staging buffers').toBe(1);
    expect(got[0]).toEqual(fromA(7, 3));
    expect(got[1].length).toBe(0);
    expect(got[2]).toEqual(fromB(100, 200));
    expect(got[3]).toEqual(fromA(1000, 4000));
  });
});

describe('results read their count and records in one round trip', () => {
  /** A result of `encodeSpherePairs` over the spheres, submitted: its pair list holds them (capacity as asked). */
  function encoded(spheres: Float32Array, capacity?: number): EncodedPairs {
    const buffer = gpu.device.createBuffer({
      size: spheres.byteLength,
      usage: BufferUsage.STORAGE | BufferUsage.COPY_DST,
    });
    sources.push(buffer);
    gpu.device.queue.writeBuffer(buffer, 0, spheres);
    const { min, max, maxRadius } = sceneBoundsOf(spheres);
    const encoder = gpu.device.createCommandEncoder();
    const result = gpu.collider.encodeSpherePairs(
      encoder,
      { buffer, count: spheres.length / 4 },
      { scene: { min, max, maxRadius }, capacity },
    );
    gpu.device.queue.submit([encoder.finish()]);
    results.push(result);
    return result;
  }
  const results: EncodedPairs[] = [];
  afterEach(() => {
    for (const result of results.splice(0)) result.destroy();
  });

  it('a count within the expected pairs: one submission; past them: two, and every pair (seed 433)', async () => {
    const spheres = uniformScene(3_000, { seed: 433 });
    const expected = bruteForceSpherePairs(spheres);
    const count = expected.length / 2;
    expect(count).toBeGreaterThan(500);
    const { list } = encoded(spheres);
    const one = await submissions(() => list.readCounted(count + 10));
    expect(one.count).toBe(1);
    expect(one.value.count).toBe(count);
    expect(sortPairs(one.value.pairs!)).toEqual(expected);
    const exact = await submissions(() => list.readCounted(count));
    expect(exact.count).toBe(1);
    expect(sortPairs(exact.value.pairs!)).toEqual(expected);
    const two = await submissions(() => list.readCounted(Math.floor(count / 3)));
    expect(two.count).toBe(2);
    expect(sortPairs(two.value.pairs!)).toEqual(expected);
    // Into a caller's array that holds them: a view of it, the same pairs in the same order.
    const into = new Uint32Array(2 * count + 5);
    const viewed = await list.readCounted(count - 1, into);
    expect(viewed.pairs!.buffer).toBe(into.buffer);
    expect(viewed.pairs).toEqual(two.value.pairs);
  });

  it('a count past the capacity (or past 2^32) gives the count and no pairs, in one submission (seed 434)', async () => {
    const spheres = uniformScene(3_000, { seed: 434 });
    const count = bruteForceSpherePairs(spheres).length / 2;
    const { list } = encoded(spheres, 64);
    expect(list.capacity).toBeLessThan(count);
    const read = await submissions(() => list.readCounted(4_096));
    expect(read.count).toBe(1);
    expect(read.value).toEqual({ count, pairs: undefined, also: [] });
    const counter = new Uint32Array(PairCounter.size / 4);
    counter[PairCounter.offsets.count / 4] = 5;
    counter[PairCounter.offsets.countHi / 4] = 1;
    gpu.device.queue.writeBuffer(list.counter, 0, counter);
    expect((await list.readCounted(4_096)).count).toBe(2 ** 32 + 5);
  });

  it("a one-shot spherePairs call submits its search and one read; a promised scene's encoded result reads status, count and pairs in one (seed 431)", async () => {
    const spheres = uniformScene(3_000, { seed: 431 });
    const expected = bruteForceSpherePairs(spheres);
    await gpu.collider.spherePairs(spheres); // the collider learns the count
    const call = await submissions(() => gpu.collider.spherePairs(spheres));
    expect(sortPairs(call.value)).toEqual(expected);
    expect(call.count, 'the search and one read').toBe(2);
    const buffer = gpu.device.createBuffer({
      size: spheres.byteLength,
      usage: BufferUsage.STORAGE | BufferUsage.COPY_DST,
    });
    sources.push(buffer);
    gpu.device.queue.writeBuffer(buffer, 0, spheres);
    const { min, max, maxRadius } = sceneBoundsOf(spheres);
    const encoder = gpu.device.createCommandEncoder();
    const result = gpu.collider.encodeSpherePairs(
      encoder,
      { buffer, count: 3_000 },
      { scene: { min, max, maxRadius } },
    );
    gpu.device.queue.submit([encoder.finish()]);
    const read = await submissions(() => result.read());
    expect(read.count).toBe(1);
    expect(sortPairs(read.value)).toEqual(expected);
    // A broken promise is still found, from the same read.
    const liar = gpu.device.createCommandEncoder();
    const broken = gpu.collider.encodeSpherePairs(
      liar,
      { buffer, count: 3_000 },
      { scene: { min, max, maxRadius: maxRadius / 2 } },
    );
    gpu.device.queue.submit([liar.finish()]);
    await expect(broken.read()).rejects.toBeInstanceOf(InvalidInputError);
    broken.destroy();
    result.destroy();
  });

  it('all hits: offsets and records in one read when they fit the expected, with every hit past it (seed 432)', async () => {
    const spheres = uniformScene(3_000, { seed: 432 });
    const side = sceneBoundsOf(spheres).max[1];
    // Rays along +y through the whole scene, each crossing a dozen spheres or so.
    const rays = new Float32Array(6 * 500);
    for (let k = 0; k < 500; k++)
      rays.set([(k * 0.37) % side, -5, (k * 0.61) % side, (k * 0.37) % side, side + 5, (k * 0.61) % side], 6 * k);
    const hits = await gpu.collider.raycast(rays, spheres, { allHits: true });
    expect(hits.offsets[500]).toBeGreaterThan(1024); // more than the first read expects
    // The nearest of each ray is the first of its hits, as the oracle finds it.
    const nearest = bruteForceNearestCasts(rays, 6, spheres);
    for (let k = 0; k < 500; k++) {
      if (nearest.index[k] < 0) expect(hits.offsets[k + 1]).toBe(hits.offsets[k]);
      else expect(hits.index[hits.offsets[k]], `ray ${k}`).toBe(nearest.index[k]);
    }
    const again = await submissions(() => gpu.collider.raycast(rays, spheres, { allHits: true }));
    expect(again.count, 'the search and one read').toBe(2);
    expect(Array.from(again.value.index)).toEqual(Array.from(hits.index));
  });
});
