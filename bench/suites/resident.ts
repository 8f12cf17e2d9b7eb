/**
 * The GPU-resident path against the one-shot call, per frame, as an app that finds the pairs of
 * moving spheres every frame would run them (`--suites resident [--resident-sizes 100000]`):
 *
 *   one-shot  `collider.spherePairs(spheres)`: validate, upload 16 bytes a sphere, build, search,
 *             read back the count, then the pairs (8 bytes a pair)
 *   encode    the spheres already in a GPUBuffer (a simulation's or a renderer's):
 *             `encodeSpherePairs` into the frame's encoder, submit, wait for the queue; the pairs
 *             stay on the GPU (the result passed back as `into`, so nothing is allocated)
 *
 * Per frame: wall time (the call until its work is done), the main thread's time inside the call
 * before it returns (what a render loop pays synchronously), and the bytes read back. Both
 * paths' pairs are checked equal first.
 */
import { BufferUsage } from '../../src/gpu/flags.js';
import { workDone } from '../../src/gpu/wait.js';
import { sortPairs } from '../../src/reference/spherePairs.js';
import { summarize } from '../stats.js';
import { PAIR_SCENES } from '../scenes.js';
import { sceneBoundsOf } from '../../test/support/scenes.js';
import type { Context, Row } from '../harness.js';
import type { EncodedPairs } from '../../src/resident.js';

const FRAMES = 20;

export async function residentSuite(ctx: Context, sizes: number[]): Promise<Row[]> {
  const { collider } = ctx;
  const device = collider.device;
  const rows: Row[] = [];
  for (const n of sizes) {
    const spheres = PAIR_SCENES.uniform.make(n);
    const scene = sceneBoundsOf(spheres);
    const buffer = device.createBuffer({
      label: 'resident bench spheres',
      size: spheres.byteLength,
      usage: BufferUsage.STORAGE | BufferUsage.COPY_DST,
    });
    device.queue.writeBuffer(buffer, 0, spheres);
    let result: EncodedPairs | undefined;
    const encodeFrame = async (): Promise<number> => {
      const t0 = performance.now();
      const encoder = device.createCommandEncoder({ label: 'resident bench frame' });
      result = collider.encodeSpherePairs(encoder, { buffer, count: n }, { scene, broadphase: 'grid', into: result });
      device.queue.submit([encoder.finish()]);
      return performance.now() - t0;
    };

    // The same pairs both ways, before any time counts.
    const oneShotPairs = sortPairs(await collider.spherePairs(spheres, { broadphase: 'grid' }));
    await encodeFrame();
    const encodedPairs = sortPairs(await result!.read()); // sizes the result (it grows to the count)
    await encodeFrame();
    const again = sortPairs(await result!.read());
    if (encodedPairs.length !== oneShotPairs.length || again.some((v, k) => v !== oneShotPairs[k]))
      throw new Error(
        `resident bench: the encode path found ${again.length / 2} pairs, the one-shot call ${oneShotPairs.length / 2}`,
      );
    const pairs = oneShotPairs.length / 2;

    const oneShot = { wall: [] as number[], sync: [] as number[] };
    const encode = { wall: [] as number[], sync: [] as number[] };
    for (let f = 0; f < ctx.warmup + FRAMES; f++) {
      const t0 = performance.now();
      const call = collider.spherePairs(spheres, { broadphase: 'grid' });
      const sync = performance.now() - t0;
      await call;
      const wall = performance.now() - t0;
      const t1 = performance.now();
      const encodeSync = await encodeFrame();
      await workDone(device);
      const encodeWall = performance.now() - t1;
      if (f < ctx.warmup) continue;
      oneShot.sync.push(sync);
      oneShot.wall.push(wall);
      encode.sync.push(encodeSync);
      encode.wall.push(encodeWall);
    }
    const common = { suite: 'resident', scene: 'uniform', size: { spheres: n }, answer: pairs };
    rows.push({
      ...common,
      method: 'one-shot spherePairs',
      wallMs: summarize(oneShot.wall),
      work: { 'sync ms': summarize(oneShot.sync).median, 'bytes read back': 8 + 8 * pairs, 'bytes uploaded': 16 * n },
    });
    rows.push({
      ...common,
      method: 'encodeSpherePairs',
      wallMs: summarize(encode.wall),
      work: { 'sync ms': summarize(encode.sync).median, 'bytes read back': 0, 'bytes uploaded': 0 },
    });
    console.log(
      `resident ${n}: one-shot wall ${summarize(oneShot.wall).median.toFixed(1)} ms (sync ${summarize(oneShot.sync).median.toFixed(2)}), encode wall ${summarize(encode.wall).median.toFixed(1)} ms (sync ${summarize(encode.sync).median.toFixed(2)})`,
    );
    result?.destroy();
    buffer.destroy();
  }
  return rows;
}
