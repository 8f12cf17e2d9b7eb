/**
 * Issue 47's solver designs on the CPU twin:
 * `npx tsx bench/probes/solverDesigns.ts [--solve jacobi|gs] [--scene pour|drum|hopper|paddle]
 * [--substeps S] [--iterations I] [--seed N] [--balls N --pegs M] [--dispatches]`.
 *
 * The CPU twin (src/reference/particles.ts) steps one of loadedContacts.ts's scenes (the drum of
 * 12 planks at 1.5 rad/s with 1,500 balls, 200 frames; 2,000 balls poured through 40 pegs, 120
 * frames; `--balls` and `--pegs` pour the bench's pour instead: 30,000 and 400 the issue's, seed 1
 * there), or the colliders suite's hopper (1,000 balls through the slot of two plates, 240 frames)
 * or paddle (a box at 10 m/s through 400 resting balls, 90 frames), with the solve:
 * - **gs** (the library's): Gauss–Seidel over the colouring of the contact graph
 *   (shaders/particles/colouring.wgsl.ts), each pair with both whole masses, then each particle's
 *   walls and collider contacts;
 * - **jacobi**: the same with no colouring rounds, so that every pair goes to the overflow: Jacobi
 *   sweeps with each particle's mass split among its pairs (the design the library had until
 *   2026-11-29, except that walls and collider contacts are now solved after the pairs with the
 *   whole mass; the study in docs/PERFORMANCE.md ran that design's own sweeps, at cecc3e5).
 * Every 10 frames (from frame 60 in the drum) the deepest particle in a box and the largest
 * particle–particle overlap, in radii.
 *
 * `--dispatches` times instead what the colours cost a GPU in dispatches: 180k pair updates a
 * sweep (30k particles with 6 pairs each), 16 sweeps, as 1, 8, 24 and 48 dispatches a sweep
 * in one compute pass (the median of 5 submissions).
 */
import { parseArgs } from 'node:util';
import { requestNodeDevice } from '../../src/node.js';
import { createParticleWorld } from '../../src/particles/index.js';
import { ParticleSolverTwin, boxGeometry } from '../../src/reference/particles.js';
import { BufferUsage } from '../../src/gpu/flags.js';
import { drumScene, hopperScene, paddleScene, pegsScene, type ColliderScene } from '../colliderScene.js';

const { values } = parseArgs({
  options: {
    solve: { type: 'string', default: 'gs' },
    scene: { type: 'string', default: 'pour' },
    substeps: { type: 'string', default: '6' },
    iterations: { type: 'string', default: '2' },
    seed: { type: 'string', default: '7' },
    balls: { type: 'string', default: '2000' },
    pegs: { type: 'string', default: '40' },
    dispatches: { type: 'boolean', default: false },
  },
});
const device = await requestNodeDevice();

/** The GPU poses (12 floats a box) of box records. */
function posesOf(boxes: Float32Array): Float32Array {
  const poses = new Float32Array((12 * boxes.length) / 10);
  for (let k = 0; k < boxes.length / 10; k++) {
    const b = boxes.subarray(10 * k, 10 * k + 10);
    const len = Math.hypot(b[6], b[7], b[8], b[9]);
    poses.set([b[0], b[1], b[2], 0, b[3], b[4], b[5], 0, b[6] / len, b[7] / len, b[8] / len, b[9] / len], 12 * k);
  }
  return poses;
}

/** The deepest particle in a box and the largest pair overlap, each in the smaller radius (pairs through a grid of cells 2·rmax wide). */
function depths(spheres: Float32Array, poses: Float32Array): { box: number; pair: number } {
  const n = spheres.length / 4;
  let box = 0;
  let pair = 0;
  let rmax = 0;
  for (let i = 0; i < n; i++) rmax = Math.max(rmax, spheres[4 * i + 3]);
  const cell = 2 * rmax;
  const key = (x: number, y: number, z: number): string => `${x} ${y} ${z}`;
  const cells = new Map<string, number[]>();
  for (let i = 0; i < n; i++) {
    const s = spheres.subarray(4 * i, 4 * i + 4);
    for (let k = 0; k < poses.length / 12; k++) box = Math.max(box, -boxGeometry(s, poses, k).gap / s[3]);
    const c = key(Math.floor(s[0] / cell), Math.floor(s[1] / cell), Math.floor(s[2] / cell));
    if (!cells.has(c)) cells.set(c, []);
    cells.get(c)!.push(i);
  }
  for (let i = 0; i < n; i++) {
    const [x, y, z, r] = spheres.subarray(4 * i, 4 * i + 4);
    const [cx, cy, cz] = [Math.floor(x / cell), Math.floor(y / cell), Math.floor(z / cell)];
    for (let dx = -1; dx <= 1; dx++)
      for (let dy = -1; dy <= 1; dy++)
        for (let dz = -1; dz <= 1; dz++)
          for (const j of cells.get(key(cx + dx, cy + dy, cz + dz)) ?? []) {
            if (j <= i) continue;
            const q = spheres.subarray(4 * j, 4 * j + 4);
            const d = Math.hypot(q[0] - x, q[1] - y, q[2] - z);
            pair = Math.max(pair, (r + q[3] - d) / Math.min(r, q[3]));
          }
  }
  return { box, pair };
}

async function designs(): Promise<void> {
  const seed = Number(values.seed);
  const pour = (): ColliderScene =>
    values.balls === '2000' && values.pegs === '40'
      ? pegsScene({ n: 2000, m: 40, seed, half: 5 })
      : pegsScene({ n: Number(values.balls), m: Number(values.pegs), seed });
  // Each scene, its physics (the colliders suite's), its frames and the first frame sampled.
  const scenes: Record<string, () => [ColliderScene, { restitution: number; friction: number }, number, number]> = {
    pour: () => [pour(), { restitution: 0.2, friction: 0.3 }, 120, 10],
    drum: () => [drumScene({ n: 1500, seed }), { restitution: 0.1, friction: 0.5 }, 200, 60],
    hopper: () => [hopperScene({ n: 1000, seed }), { restitution: 0.2, friction: 0.4 }, 240, 10],
    paddle: () => [paddleScene({ n: 400, seed }), { restitution: 0.2, friction: 0.5 }, 90, 10],
  };
  const [scene, physics, frames, from] = scenes[values.scene]();
  const n = scene.spheres.length / 4;
  const m = scene.boxes.length / 10;
  // A world of the same settings gives the step's parameters and the grid's plan.
  const world = await createParticleWorld({
    device,
    capacity: n,
    gravity: [0, -9.8, 0],
    bounds: scene.bounds,
    ...physics,
    substeps: Number(values.substeps),
    iterations: Number(values.iterations),
  });
  world.setParticles({ spheres: scene.spheres, velocities: scene.velocities });
  await world.step(1 / 60);
  const params = world.stepParams(1 / 60);
  const plan = world.plan!;
  world.destroy();
  const twin = new ParticleSolverTwin(values.solve === 'gs' ? {} : { colourRounds: 0 });
  let spheres: Float32Array = scene.spheres.slice();
  let velocities: Float32Array = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) velocities[4 * i + 3] = 1 / ((4 / 3) * Math.PI * spheres[4 * i + 3] ** 3);
  const colliders = { poses: posesOf(scene.boxes), velocities: new Float32Array(8 * m) };
  let worst = { box: 0, pair: 0 };
  for (let frame = 1; frame <= frames; frame++) {
    const pose = scene.pose?.(frame);
    if (pose) {
      colliders.poses = posesOf(pose.boxes);
      for (let k = 0; k < m; k++)
        for (let a = 0; a < 6; a++) colliders.velocities[8 * k + (a < 3 ? a : a + 1)] = pose.velocities[6 * k + a];
    }
    ({ spheres, velocities } = twin.step(spheres, velocities, params, plan, colliders));
    if (frame >= from && frame % 10 === 0) {
      const d = depths(spheres, colliders.poses);
      worst = { box: Math.max(worst.box, d.box), pair: Math.max(worst.pair, d.pair) };
      console.error(
        `frame ${frame}: deepest in a box ${(100 * d.box).toFixed(1)}% r, pair ${(100 * d.pair).toFixed(1)}%`,
      );
    }
  }
  const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
  console.log('| scene | solve | substeps × sweeps | deepest in a box (r) | largest pair overlap (r) |');
  console.log('|---|---|---|---|---|');
  console.log(
    `| ${values.scene} | ${values.solve} | ${values.substeps} × ${values.iterations} | ${pct(worst.box)} | ${pct(worst.pair)} |`,
  );
}

async function dispatchCost(): Promise<void> {
  const pairs = 180_000;
  const particles = 30_000;
  const bodies = device.createBuffer({ label: 'probe bodies', size: 16 * particles, usage: BufferUsage.STORAGE });
  const pairBuffer = device.createBuffer({
    label: 'probe pairs',
    size: 4 * pairs,
    usage: BufferUsage.STORAGE | BufferUsage.COPY_DST,
  });
  const data = new Uint32Array(pairs);
  for (let i = 0; i < pairs; i++) {
    const a = (i * 7919) % particles;
    data[i] = a | (((a + 1 + (i % 11)) % particles) << 16);
  }
  device.queue.writeBuffer(pairBuffer, 0, data);
  const module = device.createShaderModule({
    label: 'probe pair update',
    code: /* wgsl */ `
@group(0) @binding(0) var<storage, read_write> v: array<vec4f>;
@group(0) @binding(1) var<storage, read> pairs: array<u32>;
override COUNT: u32 = 1u;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x >= COUNT) { return; }
  let p = pairs[g.x];
  let a = p & 0xffffu;
  let b = p >> 16u;
  let d = v[b] - v[a];
  v[a] += 0.01 * d;
  v[b] -= 0.01 * d;
}`,
  });
  const sweeps = 16;
  console.log(`| dispatches a sweep | ${sweeps} sweeps of ${pairs} pair updates, ms |`);
  console.log('|---|---|');
  for (const split of [1, 8, 24, 48]) {
    const per = Math.ceil(pairs / split);
    const pipeline = device.createComputePipeline({
      label: 'probe pair update',
      layout: 'auto',
      compute: { module, entryPoint: 'main', constants: { COUNT: per } },
    });
    const group = device.createBindGroup({
      label: 'probe pair update',
      layout: pipeline.getBindGroupLayout(0),
      entries: [
        { binding: 0, resource: { buffer: bodies } },
        { binding: 1, resource: { buffer: pairBuffer } },
      ],
    });
    const run = async (): Promise<number> => {
      const start = performance.now();
      const encoder = device.createCommandEncoder();
      const pass = encoder.beginComputePass();
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, group);
      for (let d = 0; d < sweeps * split; d++) pass.dispatchWorkgroups(Math.ceil(per / 64));
      pass.end();
      device.queue.submit([encoder.finish()]);
      await device.queue.onSubmittedWorkDone();
      return performance.now() - start;
    };
    await run();
    const times: number[] = [];
    for (let r = 0; r < 5; r++) times.push(await run());
    times.sort((a, b) => a - b);
    console.log(`| ${split} | ${times[2].toFixed(1)} |`);
  }
}

await (values.dispatches ? dispatchCost() : designs());
device.destroy();
