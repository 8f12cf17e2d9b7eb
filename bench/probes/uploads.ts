/**
 * What moving bytes between the host and the GPU costs on this adapter, each way a WebGPU
 * program can: `npx tsx bench/probes/uploads.ts [--json FILE]`.
 *
 * A one-shot query's wall time at 1M spheres is mostly its 16 MB upload (issue 52: on an H100,
 * `queue.writeBuffer` moved about 1 GB/s under dawn.node). Per size, the median over RUNS of:
 * - `writeBuffer`: `queue.writeBuffer` of the whole array, until the queue is done (the library's
 *   `upload`);
 * - `writeBuffer 4 MiB`: the same in 4 MiB pieces;
 * - `mapped fresh`: a new MAP_WRITE buffer mapped at creation, filled, unmapped and copied;
 * - `mapped reused`: one MAP_WRITE buffer, `mapAsync(WRITE)` each time, filled, unmapped, copied;
 * - `read`: a copy into a MAP_READ buffer, `mapAsync(READ)` and a copy out of the mapping;
 * - `host copy`: `TypedArray.set` of the same bytes in JavaScript (the floor of any of them).
 * Then a one-shot `collider.spherePairs` of 1M uniform spheres (the bench's scene) beside its
 * parts that run on the host: the argument's validation (`validateSpheres`) and the 16 MB upload.
 */
import { writeFileSync } from 'node:fs';
import { requestNodeDevice, describeDevice } from '../../src/node.js';
import { BufferUsage, MapMode } from '../../src/gpu/flags.js';
import { workDone } from '../../src/gpu/wait.js';
import { createCollider } from '../../src/collider.js';
import { validateSpheres } from '../../src/validate.js';
import { uniformScene } from '../../test/support/scenes.js';

const RUNS = 9;
const SIZES = [1 << 20, 16 << 20, 64 << 20];
const CHUNK = 4 << 20;

const jsonAt = process.argv.indexOf('--json');
const jsonPath = jsonAt > 0 ? process.argv[jsonAt + 1] : undefined;

const device = await requestNodeDevice();
const info = describeDevice(device);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function timed(run: () => Promise<void>): Promise<number> {
  await run(); // warm-up
  const ms: number[] = [];
  for (let k = 0; k < RUNS; k++) {
    const t = performance.now();
    await run();
    ms.push(performance.now() - t);
  }
  return median(ms);
}

const rows: { bytes: number; method: string; ms: number; gbps: number }[] = [];
for (const bytes of SIZES) {
  const data = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i += 4096) data[i] = i & 255;
  const target = device.createBuffer({
    label: 'probe target',
    size: bytes,
    usage: BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC,
  });
  const staging = device.createBuffer({
    label: 'probe staging',
    size: bytes,
    usage: BufferUsage.MAP_WRITE | BufferUsage.COPY_SRC,
  });
  const readable = device.createBuffer({
    label: 'probe read',
    size: bytes,
    usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST,
  });
  const copyFrom = (source: GPUBuffer, to: GPUBuffer) => {
    const encoder = device.createCommandEncoder({ label: 'probe copy' });
    encoder.copyBufferToBuffer(source, 0, to, 0, bytes);
    device.queue.submit([encoder.finish()]);
  };
  const methods: [string, () => Promise<void>][] = [
    [
      'writeBuffer',
      async () => {
        device.queue.writeBuffer(target, 0, data);
        await workDone(device);
      },
    ],
    [
      'writeBuffer 4 MiB',
      async () => {
        for (let at = 0; at < bytes; at += CHUNK)
          device.queue.writeBuffer(target, at, data, at, Math.min(CHUNK, bytes - at));
        await workDone(device);
      },
    ],
    [
      'mapped fresh',
      async () => {
        const fresh = device.createBuffer({
          label: 'probe fresh staging',
          size: bytes,
          usage: BufferUsage.MAP_WRITE | BufferUsage.COPY_SRC,
          mappedAtCreation: true,
        });
        new Uint8Array(fresh.getMappedRange()).set(data);
        fresh.unmap();
        copyFrom(fresh, target);
        await workDone(device);
        fresh.destroy();
      },
    ],
    [
      'mapped reused',
      async () => {
        await staging.mapAsync(MapMode.WRITE);
        new Uint8Array(staging.getMappedRange()).set(data);
        staging.unmap();
        copyFrom(staging, target);
        await workDone(device);
      },
    ],
    [
      'read',
      async () => {
        copyFrom(target, readable);
        await readable.mapAsync(MapMode.READ);
        data.set(new Uint8Array(readable.getMappedRange()));
        readable.unmap();
      },
    ],
    [
      'host copy',
      async () => {
        new Uint8Array(bytes).set(data);
      },
    ],
  ];
  for (const [method, run] of methods) {
    const ms = await timed(run);
    rows.push({ bytes, method, ms, gbps: bytes / (ms / 1000) / 1e9 });
    console.log(
      `${(bytes / 2 ** 20).toFixed(0).padStart(3)} MiB  ${method.padEnd(18)} ${ms.toFixed(3).padStart(9)} ms  ${(bytes / (ms / 1000) / 1e9).toFixed(2).padStart(7)} GB/s`,
    );
  }
  target.destroy();
  staging.destroy();
  readable.destroy();
}
const spheres = uniformScene(1_000_000, { seed: 1, fraction: 0.1 });
const collider = await createCollider({ device });
const oneShot: Record<string, number> = {};
oneShot['spherePairs 1M, one-shot'] = await timed(async () => {
  await collider.spherePairs(spheres);
});
oneShot['validateSpheres 1M'] = await timed(async () => {
  validateSpheres('spheres', spheres);
});
const target = device.createBuffer({
  label: 'probe spheres',
  size: spheres.byteLength,
  usage: BufferUsage.STORAGE | BufferUsage.COPY_DST,
});
oneShot['writeBuffer 16 MB spheres'] = await timed(async () => {
  device.queue.writeBuffer(target, 0, spheres);
  await workDone(device);
});
target.destroy();
for (const [what, ms] of Object.entries(oneShot)) console.log(`${what.padEnd(28)} ${ms.toFixed(3).padStart(9)} ms`);
console.log(`adapter: ${info?.label ?? JSON.stringify(info)}`);
if (jsonPath)
  writeFileSync(
    jsonPath,
    JSON.stringify({ adapter: info, date: new Date().toISOString(), runs: RUNS, rows, oneShot }, null, 1),
  );
collider.destroy();
device.destroy();
