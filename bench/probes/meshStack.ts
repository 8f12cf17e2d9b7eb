/**
 * The mesh walks' stack size on a real GPU, and what the GPU's clock does to a short kernel's
 * time: first-hit rays (the meshes suite's coherent and incoherent ones) against a torus knot,
 * walked with each stack size of `stacks` (the tree's own, ColliderMesh.walkStack, set to it: a
 * size under the tree's need may drop nodes, counted in `differ` against the 96-entry walk).
 * GPU time (timestamp queries) in `reps` rounds, each round one run of every size in turn,
 * so that the GPU's clock and whatever else it runs meet every size alike: the first round's
 * time (the GPU coming from idle), the least, the median and the most. One JSON line a size.
 *
 *   npx tsx bench/probes/meshStack.ts [triangles=1000000] [rays=1000000] [stacks=8,16,24,32,96] [reps=15]
 *
 * Measured on an H200 (docs/PERFORMANCE.md, "Meshes"): the size does not matter there; the clock
 * does (345 MHz idle, 1,980 busy), which is why the meshes suite keeps the GPU busy before it
 * times (warmGpu, bench/suites/meshes.ts).
 */
import { requestNodeDevice, createCollider } from '../../src/node.js';
import { describeDevice } from '../../src/device.js';
import { GpuTimer } from '../../src/gpu/timer.js';
import { BufferUsage } from '../../src/gpu/flags.js';
import { workDone } from '../../src/gpu/wait.js';
import { knot, meshRays } from '../suites/meshes.js';
import type { EncodedMeshHits } from '../../src/mesh/queries.js';

const triangles = Number(process.argv[2] || 1e6);
const rayCount = Number(process.argv[3] || 1e6);
const stacks = (process.argv[4] || '8,16,24,32,96').split(',').map(Number);
const reps = Number(process.argv[5] || 15);

const device = await requestNodeDevice();
const collider = await createCollider({ device });
const info = describeDevice(device);
console.log(JSON.stringify({ adapter: `${info?.description} (${info?.vendor}/${info?.architecture})` }));

const { positions, indices } = knot(triangles);
const mesh = collider.createMesh({ positions, indices });
await mesh.ready;
const own = mesh.walkStack;
console.log(JSON.stringify({ triangles: indices.length / 3, walkStack: own }));

for (const kind of ['coherent', 'incoherent'] as const) {
  const rays = meshRays(kind, rayCount, 11);
  mesh.walkStack = 96;
  const reference = (await collider.raycastMesh(rays, mesh)).triangle;
  const packed = new Float32Array(8 * rayCount);
  for (let k = 0; k < rayCount; k++) {
    packed.set(rays.subarray(6 * k, 6 * k + 3), 8 * k);
    packed.set(rays.subarray(6 * k + 3, 6 * k + 6), 8 * k + 4);
  }
  const buffer = device.createBuffer({
    label: 'probe rays',
    size: packed.byteLength,
    usage: BufferUsage.STORAGE | BufferUsage.COPY_DST,
  });
  device.queue.writeBuffer(buffer, 0, packed);
  const differ = new Map<number, number>();
  for (const stack of stacks) {
    mesh.walkStack = stack;
    const triangle = (await collider.raycastMesh(rays, mesh)).triangle;
    let d = 0;
    for (let k = 0; k < rayCount; k++) if (triangle[k] !== reference[k]) d++;
    differ.set(stack, d);
  }
  const times = new Map<number, number[]>(stacks.map((stack) => [stack, []]));
  let into: EncodedMeshHits | undefined;
  for (let r = 0; r < reps; r++)
    for (const stack of stacks) {
      mesh.walkStack = stack;
      const timer = new GpuTimer(device, true);
      const encoder = device.createCommandEncoder();
      into = collider.encodeRaycastMesh(encoder, { buffer, count: rayCount }, mesh, { timer, into });
      timer.resolve(encoder);
      device.queue.submit([encoder.finish()]);
      if (timer.enabled) times.get(stack)!.push((await timer.read()).totalMs);
      else await workDone(device);
      timer.destroy();
    }
  into?.destroy();
  for (const stack of stacks) {
    const t = times.get(stack)!;
    const first = t[0];
    t.sort((a, b) => a - b);
    const median = t[Math.floor(t.length / 2)];
    console.log(
      JSON.stringify({
        kind,
        stack,
        differ: differ.get(stack),
        firstMs: first,
        minMs: t[0],
        medianMs: median,
        maxMs: t[t.length - 1],
        raysPerS: median ? rayCount / (median / 1000) : undefined,
      }),
    );
  }
  buffer.destroy();
}
mesh.walkStack = own;
mesh.destroy();
collider.destroy();
