/**
 * The radix sort pass (src/passes/radixSort.ts): GPU time of a sort of random u32 keys, alone and
 * with u32 values, as keys per second, with each strategy ('thread', 'workgroup', and 'subgroup'
 * where the device has subgroups), beside a copyBufferToBuffer of the same bytes on the same
 * device (what moving the data once costs there), and the CPU twin for scale. Each GPU sort's
 * first result is checked against the twin before its time counts.
 *
 * Sort time is the sum of its passes' timestamp queries (GpuTimer); the copy is timed by the
 * timestamps of two empty compute passes around it (the end of the first to the start of the
 * second), since a copy is not a pass. Wall time is the submission until the queue is done,
 * the upload of the keys before it excluded.
 *
 * The exclusive scan (src/passes/scan.ts), which every sort pass and the grid build run, is
 * timed here too: both variants over the same n values ('auto' takes 'serial' where shaders
 * run on a CPU, 'tiled' on a GPU), each checked against a CPU prefix sum first.
 */
import { RadixSortPass, type RadixSortStrategy } from '../../src/passes/radixSort.js';
import { ExclusiveScanPass, scanBufferBytes, type ScanVariant } from '../../src/passes/scan.js';
import { radixSortByKey } from '../../src/reference/sort.js';
import { GpuTimer } from '../../src/gpu/timer.js';
import { BufferUsage } from '../../src/gpu/flags.js';
import { workDone } from '../../src/gpu/wait.js';
import { readBuffer } from '../../src/gpu/buffers.js';
import { mulberry32 } from '../../test/support/random.js';
import { measureChecked, type Context, type Row, type Sample } from '../harness.js';

const SEED = 77;

function randomKeys(n: number): Uint32Array {
  const rand = mulberry32(SEED);
  const keys = new Uint32Array(n);
  for (let i = 0; i < n; i++) keys[i] = Math.floor(rand() * 2 ** 32);
  return keys;
}

/** GPU time of copyBufferToBuffer of `bytes`, by the timestamps of empty passes around it; else null. */
async function timeCopy(
  device: GPUDevice,
  source: GPUBuffer,
  target: GPUBuffer,
  bytes: number,
): Promise<number | null> {
  if (!device.features.has('timestamp-query')) return null;
  const querySet = device.createQuerySet({ label: 'sort bench copy timestamps', type: 'timestamp', count: 4 });
  const resolve = device.createBuffer({
    label: 'sort bench copy resolve',
    size: 32,
    usage: BufferUsage.QUERY_RESOLVE | BufferUsage.COPY_SRC,
  });
  try {
    const encoder = device.createCommandEncoder({ label: 'sort bench copy' });
    encoder
      .beginComputePass({
        label: 'before copy',
        timestampWrites: { querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 },
      })
      .end();
    encoder.copyBufferToBuffer(source, 0, target, 0, bytes);
    encoder
      .beginComputePass({
        label: 'after copy',
        timestampWrites: { querySet, beginningOfPassWriteIndex: 2, endOfPassWriteIndex: 3 },
      })
      .end();
    encoder.resolveQuerySet(querySet, 0, 4, resolve, 0);
    device.queue.submit([encoder.finish()]);
    const ticks = new BigUint64Array(await readBuffer(device, resolve, 0, 32));
    return ticks[2] > ticks[1] ? Number(ticks[2] - ticks[1]) / 1e6 : 0;
  } finally {
    querySet.destroy();
    resolve.destroy();
  }
}

/**
 * One timed submission of what `record` encodes (after the queued uploads are done): its wall
 * time, the GPU time and stages of its timer, and `output` read back the first time only.
 */
function timedRun<T>(
  device: GPUDevice,
  upload: () => void,
  record: (encoder: GPUCommandEncoder, timer: GpuTimer) => void,
  output: () => Promise<T>,
  n: number,
): () => Promise<Sample> {
  let needOutput = true;
  return async () => {
    upload();
    await workDone(device);
    const timer = new GpuTimer(device, true);
    try {
      const encoder = device.createCommandEncoder({ label: 'sort bench' });
      record(encoder, timer);
      timer.resolve(encoder);
      const t = performance.now();
      device.queue.submit([encoder.finish()]);
      await workDone(device);
      const timeMs = performance.now() - t;
      const profile = await timer.read();
      const stages: Record<string, number> = {};
      for (const s of profile.stages) stages[s.name] = (stages[s.name] ?? 0) + s.ms;
      const out = needOutput ? await output() : undefined;
      needOutput = false;
      return { answer: n, output: out, gpuMs: profile.stages.length ? profile.totalMs : undefined, stages, timeMs };
    } finally {
      timer.destroy();
    }
  };
}

export async function sortSuite(ctx: Context, sizes: number[]): Promise<Row[]> {
  const rows: Row[] = [];
  const device = ctx.collider.device;
  const usage = BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC;
  const passes: Record<RadixSortStrategy, RadixSortPass> = {
    thread: new RadixSortPass(device, { strategy: 'thread', label: 'radix sort' }),
    workgroup: new RadixSortPass(device, { strategy: 'workgroup', label: 'radix sort (workgroup)' }),
    subgroup: new RadixSortPass(device, { strategy: 'subgroup', label: 'radix sort (subgroup)' }),
  };
  const scans: Record<ScanVariant, ExclusiveScanPass> = {
    serial: new ExclusiveScanPass(device, device.limits.maxComputeWorkgroupsPerDimension, 'scan (serial)', 'serial'),
    tiled: new ExclusiveScanPass(device, device.limits.maxComputeWorkgroupsPerDimension, 'scan (tiled)', 'tiled'),
  };
  // 'subgroup' only where the device has subgroups (else the pass fell back to another strategy).
  const strategies = (Object.keys(passes) as RadixSortStrategy[]).filter((s) => passes[s].strategy === s);
  /** ms per key of each method at the last size, to skip what would overrun the budget. */
  const perKey: Record<string, number> = {};
  try {
    for (const n of sizes) {
      const keys = randomKeys(n);
      const values = new Uint32Array(n);
      for (let i = 0; i < n; i++) values[i] = i;
      const keyBuffer = device.createBuffer({ label: 'sort bench keys', size: 4 * n, usage });
      const valueBuffer = device.createBuffer({ label: 'sort bench values', size: 4 * n, usage });
      const copySource = device.createBuffer({ label: 'sort bench copy source', size: 8 * n, usage });
      const copyTarget = device.createBuffer({ label: 'sort bench copy target', size: 8 * n, usage });
      const size = { keys: n };
      const scene = 'random u32';
      const want = { keys: radixSortByKey(keys).keys, pairs: radixSortByKey(keys, values) };
      const firstMiss = (a: Uint32Array, b: Uint32Array): number => a.findIndex((x, i) => x !== b[i]);
      const learn = (row: Row): Row => {
        const t = row.gpuMs?.median ?? row.wallMs?.median;
        if (t) {
          perKey[row.method] = t / n;
          row.rate = { unit: 'keys/s', value: n / (t / 1000) };
        }
        return row;
      };
      try {
        rows.push(...(await scanRows(ctx, scans, keys, perKey, learn)));
        for (const withValues of [false, true]) {
          const kind = withValues ? 'pairs' : 'keys';
          const bytes = (withValues ? 8 : 4) * n;
          for (const strategy of strategies) {
            const method = `gpu-sort ${kind} (${strategy})`;
            const run = timedRun(
              device,
              () => {
                device.queue.writeBuffer(keyBuffer, 0, keys);
                if (withValues) device.queue.writeBuffer(valueBuffer, 0, values);
              },
              (encoder, timer) =>
                passes[strategy].encode(encoder, keyBuffer, n, { values: withValues ? valueBuffer : undefined, timer }),
              async () => ({
                keys: new Uint32Array(await readBuffer(device, keyBuffer, 0, 4 * n)),
                values: withValues ? new Uint32Array(await readBuffer(device, valueBuffer, 0, 4 * n)) : undefined,
              }),
              n,
            );
            const check = (out: { keys: Uint32Array; values?: Uint32Array }): string | null => {
              const k = firstMiss(out.keys, withValues ? want.pairs.keys : want.keys);
              if (k >= 0) return `key ${k} differs`;
              const v = withValues ? firstMiss(out.values!, want.pairs.values!) : -1;
              return v >= 0 ? `value ${v} differs (stability)` : null;
            };
            const estimate = perKey[method] ? perKey[method] * n : undefined;
            // Bytes a key a pass (src/passes/radixSort.ts), four passes.
            const perPass = {
              thread: withValues ? 25 : 17,
              workgroup: withValues ? 22.5 : 14.5,
              subgroup: withValues ? 24 : 16,
            }[strategy];
            rows.push(
              learn(
                await measureChecked(
                  ctx,
                  { suite: 'sort', scene, size, method, work: { bytes: perPass * 4 * n } },
                  run,
                  estimate,
                  check,
                ),
              ),
            );
          }
          // The same bytes copied once, on the same device: wall time of one copy, GPU time of another.
          rows.push(
            learn(
              await measureChecked(
                ctx,
                { suite: 'sort', scene, size, method: `copy ${kind} bytes`, work: { bytes: 2 * bytes } },
                async () => {
                  const t = performance.now();
                  const encoder = device.createCommandEncoder({ label: 'sort bench copy (wall)' });
                  encoder.copyBufferToBuffer(copySource, 0, copyTarget, 0, bytes);
                  device.queue.submit([encoder.finish()]);
                  await workDone(device);
                  const timeMs = performance.now() - t;
                  const gpuMs = await timeCopy(device, copySource, copyTarget, bytes);
                  return { answer: n, gpuMs: gpuMs ?? undefined, timeMs };
                },
                undefined,
              ),
            ),
          );
        }
        rows.push(
          learn(
            await measureChecked(
              ctx,
              { suite: 'sort', scene, size, method: 'cpu-twin pairs' },
              async () => {
                radixSortByKey(keys, values);
                return { answer: n };
              },
              perKey['cpu-twin pairs'] ? perKey['cpu-twin pairs'] * n : undefined,
            ),
          ),
        );
      } finally {
        keyBuffer.destroy();
        valueBuffer.destroy();
        copySource.destroy();
        copyTarget.destroy();
      }
    }
  } finally {
    for (const pass of Object.values(passes)) pass.destroy();
    for (const scan of Object.values(scans)) scan.destroy();
  }
  return rows;
}

/** Both scan variants over `values` (wrapping u32 sums), checked against a CPU prefix sum. */
async function scanRows(
  ctx: Context,
  scans: Record<ScanVariant, ExclusiveScanPass>,
  values: Uint32Array,
  perKey: Record<string, number>,
  learn: (row: Row) => Row,
): Promise<Row[]> {
  const device = ctx.collider.device;
  const n = values.length;
  const want = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) want[i + 1] = (want[i] + values[i]) >>> 0;
  const data = device.createBuffer({
    label: 'scan bench data',
    size: scanBufferBytes(n),
    usage: BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC,
  });
  const rows: Row[] = [];
  try {
    for (const variant of ['serial', 'tiled'] as const) {
      const method = `gpu-scan (${variant})`;
      const run = timedRun(
        device,
        () => device.queue.writeBuffer(data, 0, values),
        (encoder, timer) => scans[variant].encode(encoder, data, n, timer),
        async () => new Uint32Array(await readBuffer(device, data, 0, 4 * (n + 1))),
        n,
      );
      const check = (out: Uint32Array): string | null => {
        const k = out.findIndex((x, i) => x !== want[i]);
        return k >= 0 ? `prefix ${k} differs` : null;
      };
      const estimate = perKey[method] ? perKey[method] * n : undefined;
      // Read twice, written once (the levels above add 3% for 'serial', 0.05% for 'tiled').
      rows.push(
        learn(
          await measureChecked(
            ctx,
            { suite: 'sort', scene: 'random u32', size: { keys: n }, method, work: { bytes: 12 * n } },
            run,
            estimate,
            check,
          ),
        ),
      );
    }
  } finally {
    data.destroy();
  }
  return rows;
}
