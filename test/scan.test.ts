/** The exclusive scan pass against a CPU prefix sum, across recursion depths and folded dispatches. */
import { describe, it, expect } from 'vitest';
import { useGpu } from './support/gpu.js';
import { mulberry32 } from './support/random.js';
import { ExclusiveScanPass } from '../src/passes/scan.js';
import { BufferUsage } from '../src/gpu/flags.js';
import { readBuffer } from '../src/gpu/buffers.js';

const gpu = useGpu();

async function scanOnGpu(values: Uint32Array, maxWorkgroupsPerDimension = 65535): Promise<Uint32Array> {
  const { device } = gpu;
  const scan = new ExclusiveScanPass(device, maxWorkgroupsPerDimension, 'test scan');
  const data = device.createBuffer({ label: 'scan data', size: 4 * (values.length + 1), usage: BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC });
  try {
    device.queue.writeBuffer(data, 0, values);
    const encoder = device.createCommandEncoder();
    scan.encode(encoder, data, values.length);
    device.queue.submit([encoder.finish()]);
    return new Uint32Array(await readBuffer(device, data, 0, 4 * (values.length + 1)));
  } finally {
    data.destroy();
    scan.destroy();
  }
}

function cpuScan(values: Uint32Array): Uint32Array {
  const out = new Uint32Array(values.length + 1);
  for (let i = 0; i < values.length; i++) out[i + 1] = out[i] + values[i];
  return out;
}

describe('exclusive scan', () => {
  // One chunk is 32 values; a workgroup takes 128 chunks. Sizes around every boundary, and
  // deep enough for three levels of recursion.
  for (const n of [1, 2, 31, 32, 33, 1000, 4095, 4096, 4097, 131_071, 200_003]) {
    it(`${n} random values (seed ${n})`, async () => {
      const rand = mulberry32(n);
      const values = Uint32Array.from({ length: n }, () => Math.floor(rand() * 8));
      expect(await scanOnGpu(values)).toEqual(cpuScan(values));
    });
  }

  it('folds its dispatches (60,000 values, at most 4 workgroups per dimension)', async () => {
    const rand = mulberry32(7);
    const values = Uint32Array.from({ length: 60_000 }, () => Math.floor(rand() * 100));
    expect(await scanOnGpu(values, 4)).toEqual(cpuScan(values));
  });

  it('wraps like u32 arithmetic when the total passes 2^32', async () => {
    const values = new Uint32Array(5000).fill(2 ** 20);
    const out = await scanOnGpu(values);
    expect(out[4999]).toBe((4999 * 2 ** 20) >>> 0);
    expect(out[5000]).toBe((5000 * 2 ** 20) % 2 ** 32);
  });
});
