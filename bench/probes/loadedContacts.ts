/**
 * Particles pressed into boxes by a load, at a solver setting: how deep they sink, and the step
 * time. `npx tsx bench/probes/loadedContacts.ts [--substeps S] [--iterations I] [--seed N]`.
 *
 * Two of issue 47's scenes, small enough for a software adapter:
 * - **drum**: 12 planks in a ring (inner radius 5, 0.4 thick, 2.9 long, 6 deep) turning about the
 *   horizontal z axis at 1.5 rad/s (rim 7.5 m/s), posed each frame with `setColliders` (poses and
 *   rigid velocities), 1,500 balls of radius 0.14–0.22 inside; gravity 9.8, friction 0.5,
 *   restitution 0.1; 200 frames;
 * - **pour**: 2,000 balls of radius 0.1–0.2 poured from a lattice through 40 static thin tilted
 *   pegs (half extents 0.2–0.8 × 0.1–0.3 × 0.2–0.8, any orientation); friction 0.3, restitution
 *   0.2; 120 frames.
 * Every 10 frames (from frame 60 in the drum) the deepest particle–box penetration over all
 * particles, in the particle's radius, against the boxes where the step left them (read back),
 * and how many particles lie deeper than 0.25 r. The tests (test/colliders.test.ts) hold the
 * same scenes to 0.25 r at the default setting. docs/PERFORMANCE.md, "Substeps", has the table.
 */
import { parseArgs } from 'node:util';
import { requestNodeDevice } from '../../src/node.js';
import { createParticleWorld, type ParticleWorld } from '../../src/particles/index.js';
import { boxGeometry } from '../../src/reference/particles.js';
import { readBuffer } from '../../src/gpu/buffers.js';
import { mulberry32 } from '../../test/support/random.js';

const { values } = parseArgs({ options: { substeps: { type: 'string' }, iterations: { type: 'string' }, seed: { type: 'string', default: '7' } } });
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
    for (let k = 0; k < boxes; k++) d = Math.max(d, -boxGeometry(spheres.subarray(4 * i, 4 * i + 4), poses, k).gap / spheres[4 * i + 3]);
    worst = Math.max(worst, d);
    if (d > 0.25) beyond++;
  }
  return { worst, beyond };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

async function drum(): Promise<string> {
  const omega = 1.5;
  const ring = 5.2;
  const planks = (theta: number) => {
    const boxes = new Float32Array(10 * 12);
    const velocities = new Float32Array(6 * 12);
    for (let k = 0; k < 12; k++) {
      const a = theta + (2 * Math.PI * k) / 12;
      const c = [ring * Math.cos(a), ring * Math.sin(a), 0];
      boxes.set([...c, 0.2, 1.45, 3, 0, 0, Math.sin(a / 2), Math.cos(a / 2)], 10 * k);
      velocities.set([-omega * c[1], omega * c[0], 0, 0, 0, omega], 6 * k);
    }
    return { boxes, velocities };
  };
  const rand = mulberry32(seed);
  const n = 1500;
  const spheres = new Float32Array(4 * n);
  let i = 0;
  for (let y = -4.3; i < n; y += 0.46) {
    for (let x = -4.3; i < n && x <= 4.3; x += 0.46) {
      for (let z = -2.7; i < n && z <= 2.7; z += 0.46) {
        if (Math.hypot(x, y) <= 4.5) spheres.set([x + 0.02 * (rand() - 0.5), y, z, 0.14 + 0.08 * rand()], 4 * i++);
      }
    }
  }
  const world = await createParticleWorld({ device, capacity: n, gravity: [0, -9.8, 0], restitution: 0.1, friction: 0.5, bounds: [-8, -8, -3, 8, 8, 3], ...solver });
  world.setParticles({ spheres, velocities: new Float32Array(3 * n) });
  let theta = 0;
  let worst = 0;
  let most = 0;
  const times: number[] = [];
  for (let frame = 1; frame <= 200; frame++) {
    world.setColliders(planks(theta));
    const t = performance.now();
    await world.step(1 / 60);
    times.push(performance.now() - t);
    theta += omega / 60;
    if (frame >= 60 && frame % 10 === 0) {
      const d = await depth(world, 12);
      worst = Math.max(worst, d.worst);
      most = Math.max(most, d.beyond);
    }
  }
  const { substeps, iterations } = world.stepParams(1 / 60);
  world.destroy();
  return `| drum 1.5 rad/s, 1,500 balls, 12 planks | ${substeps} × ${iterations} | ${(100 * worst).toFixed(1)}% | ${most} | ${median(times).toFixed(1)} |`;
}

async function pour(): Promise<string> {
  const rand = mulberry32(seed);
  const half = 5;
  const pegs: number[] = [];
  for (let k = 0; k < 40; k++) {
    const axis = [rand() - 0.5, rand() - 0.5, rand() - 0.5];
    const len = Math.hypot(...axis);
    const angle = rand() * Math.PI;
    const s = Math.sin(angle / 2);
    pegs.push(-half + 0.8 + rand() * (2 * half - 1.6), 1 + rand() * 8, -half + 0.8 + rand() * (2 * half - 1.6), 0.2 + 0.6 * rand(), 0.1 + 0.2 * rand(), 0.2 + 0.6 * rand(), (s * axis[0]) / len, (s * axis[1]) / len, (s * axis[2]) / len, Math.cos(angle / 2));
  }
  const n = 2000;
  const per = Math.floor((2 * half - 0.6) / 0.42);
  const spheres = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) {
    const j = i % (per * per);
    spheres.set([-half + 0.3 + 0.42 * (j % per) + 0.02 * (rand() - 0.5), 11 + 0.42 * Math.floor(i / (per * per)), -half + 0.3 + 0.42 * Math.floor(j / per) + 0.02 * (rand() - 0.5), 0.1 + 0.1 * rand()], 4 * i);
  }
  const top = 11 + 0.42 * Math.ceil(n / (per * per)) + 1;
  const world = await createParticleWorld({ device, capacity: n, gravity: [0, -9.8, 0], restitution: 0.2, friction: 0.3, bounds: [-half, 0, -half, half, top, half], ...solver });
  world.setParticles({ spheres, velocities: new Float32Array(3 * n) });
  world.setColliders({ boxes: new Float32Array(pegs) });
  let worst = 0;
  let most = 0;
  const times: number[] = [];
  for (let frame = 1; frame <= 120; frame++) {
    const t = performance.now();
    await world.step(1 / 60);
    times.push(performance.now() - t);
    if (frame % 10 === 0) {
      const d = await depth(world, 40);
      worst = Math.max(worst, d.worst);
      most = Math.max(most, d.beyond);
    }
  }
  const { substeps, iterations } = world.stepParams(1 / 60);
  world.destroy();
  return `| pour, 2,000 balls through 40 pegs | ${substeps} × ${iterations} | ${(100 * worst).toFixed(1)}% | ${most} | ${median(times).toFixed(1)} |`;
}

console.log(`seed ${seed}\n| scene | substeps × iterations | deepest in a box (r) | most beyond 0.25 r in a sample | median step ms |\n|---|---|---|---|---|`);
console.log(await drum());
console.log(await pour());
device.destroy();
