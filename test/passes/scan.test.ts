/** The exclusive scan pass, both variants, against a CPU prefix sum, across recursion depths and folded dispatches. */
import { describe, it, expect } from 'vitest';
import { useGpu } from '../support/gpu.js';
import { mulberry32 } from '../support/random.js';
import { ExclusiveScanPass, autoScanVariant, scanBufferBytes, type ScanVariant } from '../../src/passes/scan.js';
import { SCAN_TILE } from '../../shaders/passes/scan.wgsl.js';
import { describeDevice, shadersRunOnCpu } from '../../src/device.js';
import { BufferUsage } from '../../src/gpu/flags.js';
import { readBuffer } from '../../src/gpu/buffers.js';

const gpu = useGpu();

async function scanOnGpu(
  values: Uint32Array,
  variant: ScanVariant,
  maxWorkgroupsPerDimension = 65535,
): Promise<Uint32Array> {
  const { device } = gpu;
  const scan = new ExclusiveScanPass(device, maxWorkgroupsPerDimension, 'test scan', variant);
  const data = device.createBuffer({
    label: 'scan data',
    size: scanBufferBytes(values.length),
    usage: BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC,
  });
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

/** The first index where the GPU's scan differs from the CPU's, with both values (-1: none): quick on millions of values, where toEqual is not. */
function firstDifference(got: Uint32Array, want: Uint32Array): { at: number; got?: number; want?: number } {
  if (got.length !== want.length) return { at: Math.min(got.length, want.length) };
  for (let i = 0; i < got.length; i++) if (got[i] !== want[i]) return { at: i, got: got[i], want: want[i] };
  return { at: -1 };
}

function cpuScan(values: Uint32Array): Uint32Array {
  const out = new Uint32Array(values.length + 1);
  for (let i = 0; i < values.length; i++) out[i + 1] = out[i] + values[i];
  return out;
}

// 'serial': a chunk is 32 values, a workgroup 128 chunks (4,096 values); 'tiled': a chunk is a
// workgroup's tile of SCAN_TILE (2,048) values. Sizes around every boundary of both, and deep
// enough for three levels of recursion of each.
const SIZES: Record<ScanVariant, number[]> = {
  serial: [1, 2, 3, 4, 5, 31, 32, 33, 127, 128, 129, 1000, 4095, 4096, 4097, 131_071, 200_003],
  tiled: [1, 2, 255, 256, 257, SCAN_TILE - 1, SCAN_TILE, SCAN_TILE + 1, 3 * SCAN_TILE + 7, SCAN_TILE * SCAN_TILE + 1],
};

for (const variant of ['serial', 'tiled'] as const) {
  describe(`exclusive scan, '${variant}'`, () => {
    for (const n of SIZES[variant]) {
      it(`${n} random values (seed ${n})`, async () => {
        const rand = mulberry32(n);
        const values = Uint32Array.from({ length: n }, () => Math.floor(rand() * 8));
        expect(firstDifference(await scanOnGpu(values, variant), cpuScan(values))).toEqual({ at: -1 });
      });
    }

    // 15 workgroups ('serial') or 12 ('tiled') a dispatch, folded into 4 × 4 or 4 × 3.
    const folded = variant === 'serial' ? 60_000 : 12 * SCAN_TILE;
    it(`folds its dispatches (${folded} values, at most 4 workgroups per dimension)`, async () => {
      const rand = mulberry32(7);
      const values = Uint32Array.from({ length: folded }, () => Math.floor(rand() * 100));
      expect(await scanOnGpu(values, variant, 4)).toEqual(cpuScan(values));
    });

    it('leaves what lies past the total as it was (the buffer may hold other data there)', async () => {
      const { device } = gpu;
      const scan = new ExclusiveScanPass(device, 65535, 'test scan', variant);
      try {
        for (const n of [1, 2, 3, 4, 5, 7, 8, 31, 32, 33, 4096, 4099]) {
          const words = scanBufferBytes(n) / 4 + 37;
          const initial = new Uint32Array(words).fill(0xdeadbeef);
          const rand = mulberry32(n + 100);
          for (let i = 0; i < n; i++) initial[i] = Math.floor(rand() * 1000);
          const data = device.createBuffer({
            label: 'scan data',
            size: 4 * words,
            usage: BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC,
          });
          device.queue.writeBuffer(data, 0, initial);
          const encoder = device.createCommandEncoder();
          scan.encode(encoder, data, n, undefined, undefined, undefined, n);
          device.queue.submit([encoder.finish()]);
          const out = new Uint32Array(await readBuffer(device, data, 0, 4 * words));
          data.destroy();
          expect(out.subarray(0, n + 1), `n = ${n}`).toEqual(cpuScan(initial.subarray(0, n)));
          expect(
            out.subarray(n + 1).every((w) => w === 0xdeadbeef),
            `n = ${n}: the words past the total`,
          ).toBe(true);
        }
      } finally {
        scan.destroy();
      }
    });

    it('wraps like u32 arithmetic when the total passes 2^32', async () => {
      const values = new Uint32Array(5000).fill(2 ** 20);
      const out = await scanOnGpu(values, variant);
      expect(out[4999]).toBe((4999 * 2 ** 20) >>> 0);
      expect(out[5000]).toBe((5000 * 2 ** 20) % 2 ** 32);
    });

    it('all values large: every partial sum wraps (seed 11)', async () => {
      const rand = mulberry32(11);
      const values = Uint32Array.from({ length: 70_001 }, () => (rand() * 2 ** 32) >>> 0);
      expect(await scanOnGpu(values, variant)).toEqual(cpuScan(values));
    });
  });
}

it("'auto' takes 'serial' where shaders run on a CPU, 'tiled' on a GPU", () => {
  const scan = new ExclusiveScanPass(gpu.device, 65535, 'test scan');
  try {
    expect(scan.variant).toBe(autoScanVariant(gpu.device));
    expect(scan.variant).toBe(shadersRunOnCpu(gpu.device) ? 'serial' : 'tiled');
    if (describeDevice(gpu.device)?.software) expect(scan.variant).toBe('serial');
  } finally {
    scan.destroy();
  }
});
