/**
 * The radix sort pass against its CPU twin (src/reference/sort.ts) on adversarial keys, and
 * stability checked on its own: with values = input index, the output must be the input
 * permuted, ordered by the sorted bits, and equal keys in increasing index.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { useGpu } from '../support/gpu.js';
import { mulberry32 } from '../support/random.js';
import { RadixSortPass, RADIX_SORT_UNIT, autoStrategy } from '../../src/passes/radixSort.js';
import { describeDevice } from '../../src/device.js';
import { radixSortByKey } from '../../src/reference/sort.js';
import { BufferUsage } from '../../src/gpu/flags.js';
import { readBuffer } from '../../src/gpu/buffers.js';
import { CapacityError } from '../../src/errors.js';
import { radixSortShader, radixSortSubgroupShader } from '../../shaders/passes/radixSort.wgsl.js';

const gpu = useGpu();
let shared: RadixSortPass | null = null;
afterAll(() => shared?.destroy());
/** One pass ('thread') for most tests, reused across sizes and key widths as a caller would. */
const sorter = (): RadixSortPass =>
  (shared ??= new RadixSortPass(gpu.device, { strategy: 'thread', label: 'test radix sort' }));

interface GpuSorted {
  keys: Uint32Array;
  values?: Uint32Array;
}

async function sortOnGpu(
  keys: Uint32Array,
  values: Uint32Array | undefined,
  keyBits = 32,
  pass = sorter(),
): Promise<GpuSorted> {
  const { device } = gpu;
  const usage = BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC;
  const n = keys.length;
  const keyBuffer = device.createBuffer({ label: 'sort keys', size: Math.max(4, 4 * n), usage });
  const valueBuffer = values
    ? device.createBuffer({ label: 'sort values', size: Math.max(4, 4 * n), usage })
    : undefined;
  try {
    device.queue.writeBuffer(keyBuffer, 0, keys);
    if (valueBuffer && values) device.queue.writeBuffer(valueBuffer, 0, values);
    const encoder = device.createCommandEncoder();
    pass.encode(encoder, keyBuffer, n, { values: valueBuffer, keyBits });
    device.queue.submit([encoder.finish()]);
    const out: GpuSorted = { keys: new Uint32Array(await readBuffer(device, keyBuffer, 0, 4 * n)) };
    if (valueBuffer) out.values = new Uint32Array(await readBuffer(device, valueBuffer, 0, 4 * n));
    return out;
  } finally {
    keyBuffer.destroy();
    valueBuffer?.destroy();
  }
}

const iota = (n: number): Uint32Array => {
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
};
const lowBits = (key: number, bits: number): number => (bits === 32 ? key >>> 0 : (key & (2 ** bits - 1)) >>> 0);

/**
 * The first problem found in a sort of `input` with values = input index, or null: values a
 * permutation, each key the input key at its value, keys ordered by their low bits, equal low
 * bits in increasing index (stability). Independent of the twin.
 */
function stabilityProblem(input: Uint32Array, keys: Uint32Array, values: Uint32Array, bits: number): string | null {
  const n = input.length;
  if (keys.length !== n || values.length !== n) return `lengths ${keys.length}, ${values.length} for ${n} keys`;
  const seen = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v >= n || seen[v]) return `value ${v} at ${i} is out of range or repeated`;
    seen[v] = 1;
    if (keys[i] !== input[v]) return `key ${keys[i]} at ${i} is not input key ${input[v]} of its value ${v}`;
    if (i > 0) {
      const a = lowBits(keys[i - 1], bits);
      const b = lowBits(keys[i], bits);
      if (a > b) return `keys out of order at ${i}: ${a} > ${b}`;
      if (a === b && values[i - 1] >= values[i])
        return `unstable at ${i}: equal keys ${a} with indices ${values[i - 1]}, ${values[i]}`;
    }
  }
  return null;
}

/**
 * Key–value sort on the GPU against the twin, and stability on its own. (The second alone
 * already pins the answer, a stable sort's output being unique; `twin: false` skips the first
 * where the size makes it costly.)
 */
async function expectSorted(input: Uint32Array, keyBits = 32, pass?: RadixSortPass, twin = true): Promise<void> {
  const values = iota(input.length);
  const got = await sortOnGpu(input, values, keyBits, pass);
  expect(stabilityProblem(input, got.keys, got.values!, keyBits)).toBeNull();
  if (!twin) return;
  const want = radixSortByKey(input, values, keyBits);
  // Whole-array equality is costly to print when it fails: compare, then report the first miss.
  const firstMiss = (a: Uint32Array, b: Uint32Array): number => a.findIndex((x, i) => x !== b[i]);
  expect(firstMiss(got.keys, want.keys)).toBe(-1);
  expect(firstMiss(got.values!, want.values!)).toBe(-1);
}

const randomKeys = (n: number, seed: number, bits = 32): Uint32Array => {
  const rand = mulberry32(seed);
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(rand() * 2 ** bits);
  return out;
};

describe('radix sort: the shader', () => {
  for (const values of [false, true]) {
    it(`compiles with no message (${values ? 'key–value' : 'keys only'})`, async () => {
      const module = gpu.device.createShaderModule({ label: 'radix sort', code: radixSortShader({ values }) });
      const info = await module.getCompilationInfo();
      expect(info.messages.map((m) => `${m.type} ${m.lineNum}:${m.linePos} ${m.message}`)).toEqual([]);
      if (!gpu.device.features.has('subgroups')) return;
      const subgroup = gpu.device.createShaderModule({
        label: 'radix sort subgroup',
        code: radixSortSubgroupShader({ values }),
      });
      const subgroupInfo = await subgroup.getCompilationInfo();
      expect(subgroupInfo.messages.map((m) => `${m.type} ${m.lineNum}:${m.linePos} ${m.message}`)).toEqual([]);
    });
  }
});

describe('radix sort: the CPU twin', () => {
  it('equals a stable comparison sort by the low bits (seed 1, 5,000 keys, 30 and 32 bits)', () => {
    const input = randomKeys(5000, 1);
    for (const bits of [32, 30, 12, 0]) {
      const order = [...iota(5000)].sort((a, b) => lowBits(input[a], bits) - lowBits(input[b], bits) || a - b);
      const got = radixSortByKey(input, iota(5000), bits);
      expect([...got.values!]).toEqual(order);
      expect([...got.keys]).toEqual(order.map((i) => input[i]));
    }
  });
});

describe('radix sort: key–value, 32-bit keys', () => {
  const unit = RADIX_SORT_UNIT.thread;
  for (const n of [
    0,
    1,
    2,
    3,
    127,
    128,
    129,
    unit - 1,
    unit,
    unit + 1,
    64 * unit - 1,
    64 * unit + 1,
    65_535,
    65_536,
    65_537,
  ]) {
    it(`${n} random keys (seed ${n + 11})`, async () => {
      await expectSorted(randomKeys(n, n + 11));
    });
  }

  const n = 100_003; // not a multiple of the tile
  const cases: [string, (i: number, rand: () => number) => number][] = [
    ['all equal', () => 0xdeadbeef],
    ['all zero', () => 0],
    ['all 0xffffffff', () => 0xffffffff],
    ['already sorted', (i) => i * 37],
    ['reversed', (i) => (n - i) * 41],
    ['few distinct (3)', (_, rand) => [7, 0x80000000, 0xffffffff][Math.floor(rand() * 3)]],
    ['only the high byte varies', (_, rand) => (Math.floor(rand() * 256) << 24) >>> 0],
    ['only the low byte varies', (_, rand) => Math.floor(rand() * 256) | 0x5a5a5a00],
    ['a middle byte varies, runs of equal keys', (i) => (Math.floor(i / 1000) % 7) << 12],
    ['sawtooth', (i) => i % 1000],
    ['extremes alternating', (i) => (i % 2 ? 0xffffffff : 0)],
  ];
  for (const [name, key] of cases) {
    it(`${name}: ${n} keys (seed 5)`, async () => {
      const rand = mulberry32(5);
      await expectSorted(Uint32Array.from({ length: n }, (_, i) => key(i, rand) >>> 0));
    });
  }
});

describe('radix sort: fewer key bits', () => {
  // Keys carry random bits above keyBits, which must be ignored: equal low bits keep input order.
  for (const [bits, n] of [
    [30, 70_001],
    [24, 50_000],
    [20, 40_961],
    [17, 4097],
    [12, 30_000],
    [8, 9000],
    [4, 5000],
    [1, 3000],
  ] as const) {
    it(`${bits} bits: ${n} keys with random high bits (seed ${bits})`, async () => {
      await expectSorted(randomKeys(n, bits), bits);
    });
  }

  it('0 bits leaves keys and values as they were (seed 3)', async () => {
    const input = randomKeys(1000, 3);
    const got = await sortOnGpu(input, iota(1000), 0);
    expect([...got.keys]).toEqual([...input]);
    expect([...got.values!]).toEqual([...iota(1000)]);
  });
});

describe('radix sort: keys only', () => {
  for (const [bits, n, seed] of [
    [32, 100_003, 21],
    [30, 33_333, 22],
    [20, 12_345, 23],
    [8, 2, 24],
  ] as const) {
    it(`${bits} bits, ${n} keys (seed ${seed})`, async () => {
      const input = randomKeys(n, seed);
      const got = await sortOnGpu(input, undefined, bits);
      expect(got.values).toBeUndefined();
      const want = radixSortByKey(input, undefined, bits);
      // With high bits ignored, the key order shows stability too.
      expect(got.keys.findIndex((x, i) => x !== want.keys[i])).toBe(-1);
    });
  }
});

describe("radix sort: the 'workgroup' strategy (tiles ranked in workgroup memory)", () => {
  const tile = RADIX_SORT_UNIT.workgroup;
  let pass: RadixSortPass | null = null;
  const tiled = (): RadixSortPass =>
    (pass ??= new RadixSortPass(gpu.device, { strategy: 'workgroup', label: 'tiled radix sort' }));
  afterAll(() => pass?.destroy());
  const cases: [string, number, number, (i: number, rand: () => number) => number][] = [
    ['random', 32, 3 * tile + 129, (_, rand) => Math.floor(rand() * 2 ** 32)],
    ['random, 2^k - 1', 32, 2 * tile - 1, (_, rand) => Math.floor(rand() * 2 ** 32)],
    ['all equal', 32, tile + 1, () => 42],
    ['reversed', 32, 20_000, (i) => 20_000 - i],
    ['few distinct (3)', 32, 20_000, (_, rand) => [7, 0x80000000, 0xffffffff][Math.floor(rand() * 3)]],
    ['only the high byte varies', 32, 9000, (_, rand) => Math.floor(rand() * 256) * 2 ** 24],
    ['random high bits, 20 key bits', 20, 30_001, (_, rand) => Math.floor(rand() * 2 ** 32)],
    ['random high bits, 5 key bits', 5, 7000, (_, rand) => Math.floor(rand() * 2 ** 32)],
  ];
  for (const [name, bits, n, key] of cases) {
    it(`${name}: ${n} keys, ${bits} bits (seed 9)`, async () => {
      const rand = mulberry32(9);
      await expectSorted(
        Uint32Array.from({ length: n }, (_, i) => key(i, rand) >>> 0),
        bits,
        tiled(),
      );
    });
  }

  it('keys only, and a folded dispatch (seed 10)', async () => {
    const input = randomKeys(11 * tile + 5, 10);
    const got = await sortOnGpu(input, undefined, 24, tiled());
    const want = radixSortByKey(input, undefined, 24).keys;
    expect(got.keys.findIndex((x, i) => x !== want[i])).toBe(-1);
    const folded = new RadixSortPass(gpu.device, {
      strategy: 'workgroup',
      maxWorkgroupsPerDimension: 4,
      label: 'folded tiled radix sort',
    });
    try {
      await expectSorted(input, 32, folded);
    } finally {
      folded.destroy();
    }
  });

  it('a smaller count after a larger one (seeds 12, 13)', async () => {
    await expectSorted(randomKeys(40_000, 12), 32, tiled());
    await expectSorted(randomKeys(3000, 13), 32, tiled());
  });
});

describe("radix sort: the 'subgroup' strategy (ballots across a subgroup's lanes; SwiftShader's have 4)", () => {
  const unit = RADIX_SORT_UNIT.subgroup;
  let pass: RadixSortPass | null = null;
  const matched = (): RadixSortPass =>
    (pass ??= new RadixSortPass(gpu.device, { strategy: 'subgroup', label: 'subgroup radix sort' }));
  afterAll(() => pass?.destroy());
  /** Without the feature the pass falls back to 'auto', which these tests then exercise. */
  const expectStrategy = (p: RadixSortPass): void => {
    expect(p.strategy).toBe(gpu.device.features.has('subgroups') ? 'subgroup' : autoStrategy(gpu.device));
  };
  const cases: [string, number, number, (i: number, rand: () => number) => number][] = [
    ['random', 32, 3 * unit + 129, (_, rand) => Math.floor(rand() * 2 ** 32)],
    ['random, one key short of a unit', 32, unit - 1, (_, rand) => Math.floor(rand() * 2 ** 32)],
    ['random, 3 keys', 32, 3, (_, rand) => Math.floor(rand() * 2 ** 32)],
    ['all equal', 32, 2 * unit + 1, () => 42],
    ['reversed', 32, 20_000, (i) => 20_000 - i],
    ['few distinct (3)', 32, 20_001, (_, rand) => [7, 0x80000000, 0xffffffff][Math.floor(rand() * 3)]],
    ['only the high byte varies', 32, 9000, (_, rand) => Math.floor(rand() * 256) * 2 ** 24],
    ['only the low byte varies', 32, 9000, (_, rand) => Math.floor(rand() * 256) + 0x5a5a5a00],
    ['random high bits, 20 key bits', 20, 30_001, (_, rand) => Math.floor(rand() * 2 ** 32)],
    ['random high bits, 5 key bits', 5, 7000, (_, rand) => Math.floor(rand() * 2 ** 32)],
    ['random, 100,003 keys', 32, 100_003, (_, rand) => Math.floor(rand() * 2 ** 32)],
  ];
  for (const [name, bits, n, key] of cases) {
    it(`${name}: ${n} keys, ${bits} bits (seed 14)`, async () => {
      const rand = mulberry32(14);
      expectStrategy(matched());
      await expectSorted(
        Uint32Array.from({ length: n }, (_, i) => key(i, rand) >>> 0),
        bits,
        matched(),
      );
    });
  }

  it('keys only, a folded dispatch, a smaller count after a larger one (seeds 15–17)', async () => {
    // 196 units: 13 workgroups of 64 threads with 4-lane subgroups, folded to 7 × 2.
    const input = randomKeys(200_000, 15);
    const got = await sortOnGpu(input, undefined, 30, matched());
    const want = radixSortByKey(input, undefined, 30).keys;
    expect(got.keys.findIndex((x, i) => x !== want[i])).toBe(-1);
    const folded = new RadixSortPass(gpu.device, {
      strategy: 'subgroup',
      maxWorkgroupsPerDimension: 8,
      label: 'folded subgroup radix sort',
    });
    try {
      expectStrategy(folded);
      await expectSorted(input, 32, folded);
      await expectSorted(randomKeys(5000, 16), 32, folded);
      await expectSorted(randomKeys(70_000, 17), 24, folded);
    } finally {
      folded.destroy();
    }
  });
});

describe('radix sort: the pass', () => {
  it('folds its dispatches (600,000 keys, at most 8 workgroups per dimension, seeds 31, 32)', async () => {
    // 586 units of 1,024 keys: 10 workgroups of 64 threads; the scan of 150k counts takes 37.
    const pass = new RadixSortPass(gpu.device, {
      strategy: 'thread',
      maxWorkgroupsPerDimension: 8,
      label: 'folded radix sort',
    });
    try {
      await expectSorted(randomKeys(600_000, 31), 32, pass);
      await expectSorted(randomKeys(600_000, 32), 20, pass);
    } finally {
      pass.destroy();
    }
  });

  it('keeps its scratch when the count shrinks, and sorts the smaller count right (seeds 41–43)', async () => {
    const pass = new RadixSortPass(gpu.device, { strategy: 'thread', label: 'reused radix sort' });
    try {
      await expectSorted(randomKeys(90_000, 41), 32, pass);
      const capacity = pass.capacityKeys;
      expect(capacity).toBeGreaterThanOrEqual(90_000);
      // Tiles past the keys must count zero, or the smaller sorts would be offset.
      await expectSorted(randomKeys(5000, 42), 32, pass);
      await expectSorted(randomKeys(20_000, 43, 10), 20, pass);
      expect(pass.capacityKeys).toBe(capacity);
      await expectSorted(randomKeys(capacity + 1, 44), 32, pass);
      expect(pass.capacityKeys).toBeGreaterThan(capacity);
    } finally {
      pass.destroy();
    }
  });

  it("'auto' picks 'thread' on a software adapter, 'workgroup' on a GPU", () => {
    const pass = new RadixSortPass(gpu.device);
    try {
      expect(pass.strategy).toBe(autoStrategy(gpu.device));
      const info = describeDevice(gpu.device);
      if (info?.isFallbackAdapter || /swiftshader/i.test(info?.architecture ?? ''))
        expect(pass.strategy).toBe('thread');
    } finally {
      pass.destroy();
    }
  });

  it('refuses a count beyond its buffers and a bad keyBits', () => {
    const { device } = gpu;
    const keys = device.createBuffer({
      label: 'small keys',
      size: 400,
      usage: BufferUsage.STORAGE | BufferUsage.COPY_DST,
    });
    const encoder = device.createCommandEncoder();
    try {
      expect(() => sorter().encode(encoder, keys, 101)).toThrow(CapacityError);
      expect(() => sorter().encode(encoder, keys, 100, { keyBits: 33 })).toThrow(RangeError);
      expect(() => sorter().encode(encoder, keys, -1)).toThrow(RangeError);
      expect(() => sorter().encode(encoder, keys, 100, { values: keys })).toThrow(RangeError);
    } finally {
      keys.destroy();
    }
  });

  it('2^24 random key–value pairs (seed 24)', async () => {
    await expectSorted(randomKeys(2 ** 24, 24), 32, undefined, false);
  });
});
