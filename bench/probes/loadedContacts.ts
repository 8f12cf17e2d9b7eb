/**
 * Particles pressed into boxes by a load, at a solver setting: how deep they sink, and the step
 * time. `npx tsx bench/probes/loadedContacts.ts [--substeps S] [--iterations I] [--seed N]`.
 *
 * Two of issue 47's scenes (bench/colliderScene.ts), small enough for a software adapter:
 * - **drum**: 12 planks in a ring (inner radius 5, 0.4 thick, 2.9 long, 6 deep) turning about the
 *   horizontal z axis at 1.5 rad/s (rim 7.5 m/s), posed each frame with `setColliders` (poses and
 *   rigid velocities), 1,500 balls of radius 0.14–0.22 inside; gravity 9.8, friction 0.5,
 *   restitution 0.1; 200 frames (`drumScene`);
 * - **pour**: 2,000 balls of radius 0.1–0.2 poured from a lattice through 40 static thin tilted
 *   pegs (half extents 0.2–0.8 × 0.1–0.3 × 0.2–0.8, any orientation) over a floor 10 wide;
 *   friction 0.3, restitution 0.2; 120 frames (`pegsScene`).
 * Every 10 frames (from frame 60 in the drum) the deepest particle–box penetration over all
 * particles, in the particle's radius, against the boxes where the step left them (read back),
 * and how many particles lie deeper than 0.25 r. The tests (test/particles/colliders.test.ts) hold the
 * same scenes to 0.25 r at the default setting. docs/PERFORMANCE.md, "Substeps", has the table.
 */
import { parseArgs } from 'node:util';
import { requestNodeDevice } from '../../src/node.js';
import { createParticleWorld, type ParticleWorld } from '../../src/particles/index.js';
import { boxGeometry } from '../../src/reference/particles.js';
import { readBuffer } from '../../src/gpu/buffers.js';
import { drumScene, pegsScene, type ColliderScene } from '../colliderScene.js';

const { values } = parseArgs({
  options: { substeps: { type: 'string' }, iterations: { type: 'string' }, seed: { type: 'string', default: '7' } },
});
const solver = {
  ...(values.substeps ? { substeps: Number(values.substeps) } : {}),
  ...(values.iterations ? { iterations: Number(values.iterations) } : {}),
};
const seed = Number(values.seed);
const device = await requestNodeDevice();

/** The deepest particle in any box (in its radius) and how many lie deeper than 0.25 r, against the world's box poses now. */
async function depth(world: ParticleWorld, boxes: number): Promise<{ worst: number; beyond: number }> {
  const poses = new Float32Array(await readBuffer(device, world.colliderBuffers!.poses, 0, 48 * boxes));
  const { spheres } = await world.read();
  let worst = 0;
  let beyond = 0;
  for (let i = 0; i < spheres.length / 4; i++) {
    let d = 0;
    for (let k = 0; k < boxes; k++)
      d = Math.max(d, -boxGeometry(spheres.subarray(4 * i, 4 * i + 4), poses, k).gap / spheres[4 * i + 3]);
    worst = Math.max(worst, d);
    if (d > 0.25) beyond++;
  }
  return { worst, beyond };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

/** Steps `scene` for `frames` frames (posing its boxes first where they move), sampling the depth every 10 frames from `from`. */
async function run(
  name: string,
  scene: ColliderScene,
  physics: { restitution: number; friction: number },
  frames: number,
  from: number,
): Promise<string> {
  const n = scene.spheres.length / 4;
  const boxes = scene.boxes.length / 10;
  const world = await createParticleWorld({
    device,
    capacity: n,
    gravity: [0, -9.8, 0],
    bounds: scene.bounds,
    ...physics,
    ...solver,
  });
  world.setParticles({ spheres: scene.spheres, velocities: scene.velocities });
  if (!scene.pose) world.setColliders({ boxes: scene.boxes });
  let worst = 0;
  let most = 0;
  const times: number[] = [];
  for (let frame = 1; frame <= frames; frame++) {
    const pose = scene.pose?.(frame);
    if (pose) world.setColliders({ boxes: pose.boxes, velocities: pose.velocities });
    const t = performance.now();
    await world.step(1 / 60);
    times.push(performance.now() - t);
    if (frame >= from && frame % 10 === 0) {
      const d = await depth(world, boxes);
      worst = Math.max(worst, d.worst);
      most = Math.max(most, d.beyond);
    }
  }
  const { substeps, iterations } = world.stepParams(1 / 60);
  world.destroy();
  return `| ${name} | ${substeps} × ${iterations} | ${(100 * worst).toFixed(1)}% | ${most} | ${median(times).toFixed(1)} |`;
}

console.log(
  `seed ${seed}\n| scene | substeps × iterations | deepest in a box (r) | most beyond 0.25 r in a sample | median step ms |\n|---|---|---|---|---|`,
);
console.log(
  await run(
    'drum 1.5 rad/s, 1,500 balls, 12 planks',
    drumScene({ n: 1500, seed }),
    { restitution: 0.1, friction: 0.5 },
    200,
    60,
  ),
);
console.log(
  await run(
    'pour, 2,000 balls through 40 pegs',
    pegsScene({ n: 2000, m: 40, seed, half: 5 }),
    { restitution: 0.2, friction: 0.3 },
    120,
    10,
  ),
);
device.destroy();
