/**
 * Mesh colliders in the particle world (world.setMeshes, CONTRACT "Mesh colliders"): behaviour
 * over many steps (a tessellated floor against one box, no tunnelling through a one-triangle
 * shell up to 600 m/s, a ramp that holds or slides, a moving mesh that pushes, a refit that
 * lifts), the contacts out, and bad input.
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from '../support/gpu.js';
import { createParticleWorld, type ParticleWorld, type ParticleWorldOptions } from '../../src/particles/index.js';
import type { ColliderMesh } from '../../src/mesh/mesh.js';
import { InvalidInputError } from '../../src/errors.js';
import { RULES } from '../../src/checks.js';
import { closestPointOnTriangle } from '../../src/reference/triangle.js';
import { ParticleSolverTwin, type MeshTwin, type ColliderState } from '../../src/reference/particles.js';
import { readBuffer } from '../../src/gpu/buffers.js';
import { mulberry32 } from '../support/random.js';

const gpu = useGpu();
const LONG = 600_000;

async function withWorld<T>(
  options: Omit<ParticleWorldOptions, 'device'>,
  body: (world: ParticleWorld) => Promise<T>,
): Promise<T> {
  const world = await createParticleWorld({ device: gpu.device, ...options });
  try {
    return await body(world);
  } finally {
    world.destroy();
  }
}

/** A G×G grid of quads (two triangles each) over [-half, half]² in the plane y = 0 (normals +y). */
function floorGrid(G: number, half: number): { positions: Float32Array; indices: Uint32Array } {
  const positions: number[] = [];
  const indices: number[] = [];
  for (let i = 0; i <= G; i++)
    for (let j = 0; j <= G; j++) positions.push(-half + (2 * half * i) / G, 0, -half + (2 * half * j) / G);
  for (let i = 0; i < G; i++)
    for (let j = 0; j < G; j++) {
      const a = i * (G + 1) + j;
      indices.push(a, a + 1, a + G + 1, a + 1, a + G + 2, a + G + 1);
    }
  return { positions: new Float32Array(positions), indices: new Uint32Array(indices) };
}

/** A wall of two triangles in the plane x = 0, spanning y and z over [-half, half]. */
function wallQuad(half: number): { positions: Float32Array; indices: Uint32Array } {
  return {
    positions: new Float32Array([0, -half, -half, 0, half, -half, 0, -half, half, 0, half, half]),
    indices: new Uint32Array([0, 1, 2, 1, 3, 2]),
  };
}

async function meshOf(input: { positions: Float32Array; indices: Uint32Array }): Promise<ColliderMesh> {
  const mesh = gpu.collider.createMesh(input);
  await mesh.ready;
  return mesh;
}

/** A quaternion turning by `angle` about z. */
const aboutZ = (angle: number): number[] => [0, 0, Math.sin(angle / 2), Math.cos(angle / 2)];

/** A seeded G×G heightfield over [-half, half]² (bumps up to `amplitude`). */
function terrain(
  G: number,
  half: number,
  amplitude: number,
  seed: number,
): { positions: Float32Array; indices: Uint32Array } {
  const rand = mulberry32(seed);
  const grid = floorGrid(G, half);
  const hills = Array.from({ length: 4 }, () => [
    (rand() * 2 - 1) * half,
    (rand() * 2 - 1) * half,
    amplitude * (0.5 + rand() / 2),
    half * (0.2 + 0.3 * rand()),
  ]);
  for (let v = 0; v < grid.positions.length / 3; v++) {
    const [x, z] = [grid.positions[3 * v], grid.positions[3 * v + 2]];
    grid.positions[3 * v + 1] = hills.reduce(
      (h, [cx, cz, a, w]) => h + a * Math.exp(-((x - cx) ** 2 + (z - cz) ** 2) / (w * w)),
      0,
    );
  }
  return grid;
}

/** The mesh as the twin reads it: its tree-ordered triangles and ids, read back, and its edge flags. */
async function twinOf(mesh: ColliderMesh): Promise<MeshTwin> {
  const sorted = new Float32Array(await readBuffer(gpu.device, mesh.tree.sorted, 0, 48 * mesh.triangleCount));
  const ids = new Uint32Array(await readBuffer(gpu.device, mesh.tree.ids, 0, 4 * mesh.triangleCount));
  const flags = new Uint32Array(await readBuffer(gpu.device, mesh.edgeFlags(), 0, 4 * mesh.triangleCount));
  return { sorted, ids, flags };
}

/** The pose and velocities of a mesh collider as the world packs them (after the boxes). */
function packedMesh(mesh: ColliderMesh, pose: number[], velocity: number[]): { pose: number[]; velocity: number[] } {
  const extent = [0, 1, 2].map((a) => Math.max(Math.abs(mesh.bounds.min[a]), Math.abs(mesh.bounds.max[a])));
  const q = pose.slice(3);
  const len = Math.hypot(...q);
  return {
    pose: [...pose.slice(0, 3), 0, ...extent, 0, ...q.map((x) => x / len)],
    velocity: [velocity[0], velocity[1], velocity[2], 0, velocity[3], velocity[4], velocity[5], 0],
  };
}

describe('mesh colliders against the CPU twin', () => {
  it('particles poured on a terrain mesh beside a moving, spinning mesh paddle and a box, seed 5001: 12 steps particle by particle, warm-started', {
    timeout: LONG,
  }, async () => {
    const rand = mulberry32(5001);
    const ground = await meshOf(terrain(10, 3, 0.8, 5001));
    const paddle = await meshOf(floorGrid(2, 0.8));
    try {
      await withWorld({ capacity: 512, bounds: [-3, -1, -3, 3, 6, 3] }, async (world) => {
        world.setParameters({ gravity: [0, -9.8, 0], restitution: 0.3, friction: 0.4 });
        const n = 400;
        const spheres = new Float32Array(4 * n);
        const velocities = new Float32Array(3 * n);
        for (let i = 0; i < n; i++) {
          spheres.set(
            [
              (i % 10) * 0.55 - 2.5,
              1.2 + Math.floor(i / 100) * 0.45,
              (Math.floor(i / 10) % 10) * 0.55 - 2.5,
              0.12 + 0.08 * rand(),
            ],
            4 * i,
          );
          velocities.set([rand() - 0.5, -2 * rand(), rand() - 0.5], 3 * i);
        }
        world.setParticles({ spheres, velocities });
        const box = [1.5, 0.9, 1.5, 0.5, 0.2, 0.5, 0, 0, 0.2, 0.98];
        world.setColliders({ boxes: new Float32Array(box) });
        const paddlePose = [-1, 1.1, 0, ...aboutZ(0.3)];
        const paddleVelocity = [0.4, 0, 0, 0, 0.7, 0];
        world.setMeshes([{ mesh: ground }, { mesh: paddle, pose: paddlePose, velocity: paddleVelocity }]);
        const still = packedMesh(ground, [0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0]);
        const moving = packedMesh(paddle, paddlePose, paddleVelocity);
        const boxLength = Math.hypot(...box.slice(6));
        const colliders: ColliderState = {
          poses: new Float32Array([
            ...box.slice(0, 3),
            0,
            ...box.slice(3, 6),
            0,
            ...box.slice(6).map((x) => x / boxLength),
            ...still.pose,
            ...moving.pose,
          ]),
          velocities: new Float32Array([0, 0, 0, 0, 0, 0, 0, 0, ...still.velocity, ...moving.velocity]),
          meshes: [await twinOf(ground), await twinOf(paddle)],
        };
        const twin = new ParticleSolverTwin();
        const params = world.stepParams(1 / 60);
        const packedState = (s: Float32Array, v: Float32Array): Float32Array => {
          const out = new Float32Array(s.length);
          for (let i = 0; i < s.length / 4; i++)
            out.set([v[3 * i], v[3 * i + 1], v[3 * i + 2], 1 / ((4 / 3) * Math.PI * s[4 * i + 3] ** 3)], 4 * i);
          return out;
        };
        let cpu: { spheres: Float32Array; velocities: Float32Array } = {
          spheres: spheres.slice(),
          velocities: packedState(spheres, velocities),
        };
        let touching = 0;
        // Lists and collider slots that grow start cold (CONTRACT, "What a step computes"); the
        // twin's never overflow: the world's are made large enough before the first step.
        const solver = (
          world as unknown as {
            solver: { growEntries(e: number): void; ensureColliderSlots(found: number, kept: number): void };
          }
        ).solver;
        solver.growEntries(24 * n);
        solver.ensureColliderSlots(24, 24);
        for (let step = 1; step <= 12; step++) {
          await world.step(params.dt);
          cpu = twin.step(cpu.spheres, cpu.velocities, params, world.plan!, colliders);
          const gpuState = await world.read();
          let worst = 0;
          for (let i = 0; i < n; i++)
            for (let a = 0; a < 3; a++)
              worst = Math.max(
                worst,
                Math.abs(gpuState.spheres[4 * i + a] - cpu.spheres[4 * i + a]) / 6,
                Math.abs(gpuState.velocities[3 * i + a] - cpu.velocities[4 * i + a]) / 10,
              );
          expect(worst, `step ${step}: largest difference (relative to the bounds and to speed 10)`).toBeLessThan(1e-4);
          // The twin's next step starts where the GPU's ended (as the boxes' twin test does).
          cpu = { spheres: gpuState.spheres.slice(), velocities: packedState(gpuState.spheres, gpuState.velocities) };
          const poses = new Float32Array(
            await readBuffer(gpu.device, world.colliderBuffers!.poses, 0, colliders.poses.byteLength),
          );
          for (let j = 0; j < poses.length; j++)
            expect(Math.abs(poses[j] - colliders.poses[j]), `step ${step}: pose value ${j}`).toBeLessThan(1e-5);
          touching = Math.max(touching, (await world.meshContacts()).particles.length);
        }
        // The particles reached the meshes.
        expect(touching).toBeGreaterThan(20);
      });
    } finally {
      ground.destroy();
      paddle.destroy();
    }
  });
});

describe('mesh colliders, over many steps', () => {
  it('a particle slides as far across a 16×16 tessellated floor as across one box (within 1%), and rests on it', {
    timeout: LONG,
  }, async () => {
    const slide = async (floor: 'box' | 'mesh'): Promise<{ x: number; y: number }> => {
      const mesh = floor === 'mesh' ? await meshOf(floorGrid(16, 4)) : null;
      try {
        return await withWorld({ capacity: 16, bounds: [-6, -2, -6, 6, 4, 6] }, async (world) => {
          world.setParameters({ gravity: [0, -9.8, 0], friction: 0.3, restitution: 0 });
          if (mesh) world.setMeshes([{ mesh }]);
          else world.setColliders({ boxes: new Float32Array([0, -0.5, 0, 4, 0.5, 4, 0, 0, 0, 1]) });
          // Along a path that crosses the grid's edges, vertices and diagonals.
          world.setParticles({
            spheres: new Float32Array([-3, 0.1, -2.9, 0.1]),
            velocities: new Float32Array([3, 0, 2.2]),
          });
          await world.step(1 / 60, 90);
          const { spheres } = await world.read();
          return { x: Math.hypot(spheres[0] + 3, spheres[2] + 2.9), y: spheres[1] };
        });
      } finally {
        mesh?.destroy();
      }
    };
    const [onBox, onMesh] = [await slide('box'), await slide('mesh')];
    expect(onBox.x).toBeGreaterThan(1);
    expect(Math.abs(onMesh.x - onBox.x) / onBox.x).toBeLessThan(0.01);
    expect(Math.abs(onMesh.y - 0.1)).toBeLessThan(0.01);
  });

  it('balls dropped on a 200×200 floor (a hundred triangles and more within the reach of each) rest on it, with room for the few contacts they keep, not for every triangle found', {
    timeout: LONG,
  }, async () => {
    const mesh = await meshOf(floorGrid(200, 2));
    try {
      await withWorld({ capacity: 16, bounds: [-3, -1, -3, 3, 4, 3] }, async (world) => {
        world.setParameters({ gravity: [0, -9.8, 0], friction: 0.3, restitution: 0 });
        world.setMeshes([{ mesh }]);
        const spheres = new Float32Array(4 * 9);
        for (let i = 0; i < 9; i++) spheres.set([-1 + (i % 3), 0.6 + 0.1 * i, -1 + Math.floor(i / 3), 0.2], 4 * i);
        world.setParticles({ spheres, velocities: new Float32Array(3 * 9) });
        await world.step(1 / 60, 90);
        const out = await world.read();
        for (let i = 0; i < 9; i++) expect(Math.abs(out.spheres[4 * i + 1] - 0.2), `ball ${i}`).toBeLessThan(0.01);
        // Every triangle within reach is found (the found lists grew past 64), and the reduction
        // leaves a ball on a flat floor one contact or a few: the slots stay small.
        const { solver } = world as unknown as { solver: { foundSlots: number; boxSlots: number } };
        expect(solver.foundSlots).toBeGreaterThanOrEqual(64);
        expect(solver.boxSlots).toBeLessThanOrEqual(8);
      });
    } finally {
      mesh.destroy();
    }
  });

  it('fast particles (up to 600 m/s, radii 0.05–0.5, from any distance up to their travel) bounce off a one-triangle-thick wall, static and moving', {
    timeout: LONG,
  }, async () => {
    const mesh = await meshOf(wallQuad(6));
    try {
      for (const moving of [false, true]) {
        await withWorld({ capacity: 256, bounds: [-16, -8, -8, 16, 8, 8] }, async (world) => {
          world.setParameters({ gravity: [0, 0, 0], restitution: 0.5 });
          world.setMeshes([{ mesh, velocity: moving ? [-3, 0, 0, 0, 0, 0] : undefined }]);
          const spheres: number[] = [];
          const velocities: number[] = [];
          let k = 0;
          for (const speed of [150, 300, 600])
            for (const r of [0.05, 0.2, 0.5])
              for (const d of [0.6, 2, 5, 9.5]) {
                if (d > speed / 60) continue;
                // Spread over the wall so that they do not meet one another.
                spheres.push(-d, -4.5 + (k % 8) * 1.2, -4.5 + Math.floor(k / 8) * 1.2, r);
                velocities.push(speed, 0, 0);
                k++;
              }
          world.setParticles({ spheres: new Float32Array(spheres), velocities: new Float32Array(velocities) });
          for (let step = 0; step < 6; step++) {
            await world.step(1 / 60);
            const { spheres: s } = await world.read();
            const wallX = moving ? (-3 * (step + 1)) / 60 : 0;
            for (let i = 0; i < k; i++)
              expect(s[4 * i], `particle ${i} (moving wall ${moving}) after step ${step + 1}`).toBeLessThan(wallX);
          }
        });
      }
    } finally {
      mesh.destroy();
    }
  });

  it('a particle on a ramp mesh tilted 15° with μ 0.5 stays put; at 35° it slides', { timeout: LONG }, async () => {
    const mesh = await meshOf(floorGrid(4, 3));
    try {
      const travel = async (angle: number): Promise<number> =>
        withWorld({ capacity: 16, bounds: [-8, -8, -8, 8, 8, 8] }, async (world) => {
          world.setParameters({ gravity: [0, -9.8, 0], friction: 0.5, restitution: 0 });
          world.setMeshes([{ mesh, pose: [0, 0, 0, ...aboutZ(angle)] }]);
          const start = [-0.1 * Math.sin(angle), 0.1 * Math.cos(angle), 0.3];
          world.setParticles({ spheres: new Float32Array([...start, 0.1]), velocities: new Float32Array(3) });
          await world.step(1 / 60, 60);
          const { spheres } = await world.read();
          return Math.hypot(spheres[0] - start[0], spheres[1] - start[1], spheres[2] - start[2]);
        });
      expect(await travel((15 * Math.PI) / 180)).toBeLessThan(0.01);
      expect(await travel((35 * Math.PI) / 180)).toBeGreaterThan(0.5);
    } finally {
      mesh.destroy();
    }
  });

  it('a mesh wall moving at 2 m/s pushes the particles ahead of it at its speed, and none passes it', {
    timeout: LONG,
  }, async () => {
    const mesh = await meshOf(wallQuad(2));
    try {
      await withWorld({ capacity: 64, bounds: [-8, -3, -3, 8, 3, 3] }, async (world) => {
        world.setParameters({ gravity: [0, 0, 0], friction: 0, restitution: 0 });
        world.setMeshes([{ mesh, pose: [-2, 0, 0, 0, 0, 0, 1], velocity: [2, 0, 0, 0, 0, 0] }]);
        const spheres: number[] = [];
        for (let i = 0; i < 9; i++) spheres.push(-1, -1.2 + (i % 3) * 1.2, -1.2 + Math.floor(i / 3) * 1.2, 0.2);
        world.setParticles({ spheres: new Float32Array(spheres), velocities: new Float32Array(27) });
        await world.step(1 / 60, 60);
        const { spheres: s, velocities: v } = await world.read();
        const wallX = -2 + 2;
        for (let i = 0; i < 9; i++) {
          expect(s[4 * i]).toBeGreaterThan(wallX);
          expect(v[3 * i]).toBeCloseTo(2, 1);
        }
      });
    } finally {
      mesh.destroy();
    }
  });

  it('particles asleep on a sheet are lifted when it is refitted higher, step by step, and follow it down when it is lowered and set again (a refit wakes them)', {
    timeout: LONG,
  }, async () => {
    const sheet = floorGrid(6, 3);
    const mesh = await meshOf(sheet);
    try {
      await withWorld({ capacity: 64, bounds: [-5, -3, -5, 5, 6, 5] }, async (world) => {
        world.setParameters({ gravity: [0, -9.8, 0], friction: 0.5, restitution: 0 });
        world.setMeshes([{ mesh }]);
        const spheres: number[] = [];
        for (let i = 0; i < 16; i++) spheres.push(-1.5 + (i % 4), 0.2, -1.5 + Math.floor(i / 4), 0.2);
        world.setParticles({ spheres: new Float32Array(spheres), velocities: new Float32Array(48) });
        await world.step(1 / 60, 120);
        expect(await world.sleepingCount()).toBe(16);
        // Raised 0.3 in six refits a few steps apart (a surface that moves past a particle's
        // centre within one step pushes it through: CONTRACT, "Mesh colliders").
        const raised = sheet.positions.slice();
        for (let lift = 1; lift <= 6; lift++) {
          for (let v = 0; v < raised.length / 3; v++) raised[3 * v + 1] = 0.05 * lift;
          await mesh.refit(raised);
          // The same meshes set again after a refit: the refit still wakes the sleepers.
          await world.step(1 / 60, 5);
        }
        await world.step(1 / 60, 60);
        const { spheres: s } = await world.read();
        // On the raised sheet (0.3 + r), within the resting overlap the correction leaves (slop 0.01).
        for (let i = 0; i < 16; i++) expect(Math.abs(s[4 * i + 1] - 0.495)).toBeLessThan(0.01);
        // Asleep again, then the sheet lowered a hair (less than the contact margin: every
        // triangle is still found, none pressed) and set again: the refit still wakes them, and
        // they follow it down.
        await world.step(1 / 60, 60);
        expect(await world.sleepingCount()).toBe(16);
        for (let v = 0; v < raised.length / 3; v++) raised[3 * v + 1] = 0.28;
        await mesh.refit(raised);
        world.setMeshes([{ mesh }]);
        await world.step(1 / 60, 30);
        const { spheres: lowered } = await world.read();
        for (let i = 0; i < 16; i++) expect(lowered[4 * i + 1], `ball ${i}`).toBeLessThan(s[4 * i + 1] - 0.006);
      });
    } finally {
      mesh.destroy();
    }
  });
});

/** The inside of a hemisphere of radius R centred at the origin, opening up (rings × segments quads). */
function bowl(R: number, rings: number, segments: number): { positions: Float32Array; indices: Uint32Array } {
  const positions: number[] = [0, -R, 0];
  for (let i = 1; i <= rings; i++) {
    const polar = ((Math.PI / 2) * i) / rings;
    for (let j = 0; j < segments; j++) {
      const a = (2 * Math.PI * j) / segments;
      positions.push(R * Math.sin(polar) * Math.cos(a), -R * Math.cos(polar), R * Math.sin(polar) * Math.sin(a));
    }
  }
  const at = (i: number, j: number) => 1 + (i - 1) * segments + (j % segments);
  const indices: number[] = [];
  for (let j = 0; j < segments; j++) indices.push(0, at(1, j + 1), at(1, j));
  for (let i = 1; i < rings; i++)
    for (let j = 0; j < segments; j++)
      indices.push(at(i, j), at(i, j + 1), at(i + 1, j), at(i, j + 1), at(i + 1, j + 1), at(i + 1, j));
  return { positions: new Float32Array(positions), indices: new Uint32Array(indices) };
}

/** The deepest any particle lies in a mesh (r − distance to its nearest triangle, over r), brute force on the CPU. */
function deepestInMesh(
  spheres: Float32Array,
  input: { positions: Float32Array; indices: Uint32Array },
  transform = (p: number[]) => p,
): number {
  let worst = 0;
  const v = (k: number) => transform(Array.from(input.positions.subarray(3 * k, 3 * k + 3)));
  const tris = Array.from({ length: input.indices.length / 3 }, (_, t) =>
    [0, 1, 2].map((j) => v(input.indices[3 * t + j])),
  );
  for (let i = 0; i < spheres.length / 4; i++) {
    const c = Array.from(spheres.subarray(4 * i, 4 * i + 3));
    let nearest = Infinity;
    for (const [a, b, d] of tris) {
      const e = closestPointOnTriangle(c, a, b, d).point;
      nearest = Math.min(nearest, Math.hypot(e[0] - c[0], e[1] - c[1], e[2] - c[2]));
    }
    worst = Math.max(worst, (spheres[4 * i + 3] - nearest) / spheres[4 * i + 3]);
  }
  return worst;
}

describe('mesh colliders, piles and machines', () => {
  it('300 balls poured into a bowl mesh come to rest in it, none through it, none deeper than 0.25 r, seed 5002', {
    timeout: LONG,
  }, async () => {
    const input = bowl(2, 8, 24);
    const mesh = await meshOf(input);
    const rand = mulberry32(5002);
    try {
      await withWorld({ capacity: 512, bounds: [-3, -3, -3, 3, 6, 3] }, async (world) => {
        world.setParameters({ gravity: [0, -9.8, 0], restitution: 0.2, friction: 0.4 });
        world.setMeshes([{ mesh }]);
        const n = 300;
        const spheres = new Float32Array(4 * n);
        for (let i = 0; i < n; i++)
          spheres.set(
            [
              (i % 6) * 0.4 - 1,
              0.5 + Math.floor(i / 36) * 0.4,
              (Math.floor(i / 6) % 6) * 0.4 - 1,
              0.12 + 0.06 * rand(),
            ],
            4 * i,
          );
        world.setParticles({ spheres, velocities: new Float32Array(3 * n) });
        let worst = 0;
        for (let k = 0; k < 8; k++) {
          await world.step(1 / 60, 50);
          worst = Math.max(worst, deepestInMesh((await world.read()).spheres, input));
        }
        const { spheres: s, velocities: v } = await world.read();
        for (let i = 0; i < n; i++) {
          // Inside the bowl: within its radius of the centre, above its bottom.
          expect(Math.hypot(s[4 * i], s[4 * i + 1], s[4 * i + 2]), `ball ${i}`).toBeLessThan(2);
          expect(Math.hypot(v[3 * i], v[3 * i + 1], v[3 * i + 2]), `ball ${i} at rest`).toBeLessThan(0.1);
        }
        expect(worst).toBeLessThan(0.25);
      });
    } finally {
      mesh.destroy();
    }
  });

  it('a mesh paddle spinning at 3 rad/s stirs a layer of balls round with it; none deeper than 0.25 r in it, seed 5003', {
    timeout: LONG,
  }, async () => {
    // A vertical blade 3 long, 0.6 high, across the origin, turning about y.
    const input = {
      positions: new Float32Array([-1.5, 0, 0, 1.5, 0, 0, -1.5, 0.6, 0, 1.5, 0.6, 0]),
      indices: new Uint32Array([0, 1, 2, 1, 3, 2]),
    };
    const mesh = await meshOf(input);
    const rand = mulberry32(5003);
    try {
      await withWorld({ capacity: 256, bounds: [-2, 0, -2, 2, 2, 2] }, async (world) => {
        world.setParameters({ gravity: [0, -9.8, 0], restitution: 0.1, friction: 0.3 });
        world.setMeshes([{ mesh, velocity: [0, 0, 0, 0, 3, 0] }]);
        const spheres: number[] = [];
        for (let i = 0; i < 100; i++) {
          const [x, z] = [(i % 10) * 0.36 - 1.62, Math.floor(i / 10) * 0.36 - 1.62];
          if (Math.abs(z) > 0.2) spheres.push(x, 0.15, z, 0.12 + 0.03 * rand());
        }
        const n = spheres.length / 4;
        world.setParticles({ spheres: new Float32Array(spheres), velocities: new Float32Array(3 * n) });
        let worst = 0;
        for (let k = 0; k < 6; k++) {
          await world.step(1 / 60, 10);
          const pose = new Float32Array(await readBuffer(gpu.device, world.colliderBuffers!.poses, 0, 48));
          const q = Array.from(pose.subarray(8, 12));
          // The blade where the world has turned it: p' = q·p (about the origin).
          const turn = (p: number[]) => {
            const t = [
              2 * (q[1] * p[2] - q[2] * p[1]),
              2 * (q[2] * p[0] - q[0] * p[2]),
              2 * (q[0] * p[1] - q[1] * p[0]),
            ];
            return [0, 1, 2].map(
              (a) =>
                p[a] +
                q[3] * t[a] +
                [q[1] * t[2] - q[2] * t[1], q[2] * t[0] - q[0] * t[2], q[0] * t[1] - q[1] * t[0]][a],
            );
          };
          worst = Math.max(worst, deepestInMesh((await world.read()).spheres, input, turn));
        }
        const { spheres: s, velocities: v } = await world.read();
        // Round with the blade (counter-clockwise seen from above: ω along +y): the mean of
        // (r × v)·y over the balls is positive.
        let spin = 0;
        for (let i = 0; i < n; i++) spin += s[4 * i + 2] * v[3 * i] - s[4 * i] * v[3 * i + 2];
        expect(spin / n).toBeGreaterThan(0.1);
        expect(worst).toBeLessThan(0.25);
      });
    } finally {
      mesh.destroy();
    }
  });
});

describe('mesh colliders: contacts out', () => {
  it('meshContacts lists each particle resting on the floor mesh with the triangle under it and a positive impulse', {
    timeout: LONG,
  }, async () => {
    const input = floorGrid(4, 2);
    const mesh = await meshOf(input);
    try {
      await withWorld({ capacity: 64, bounds: [-4, -2, -4, 4, 4, 4] }, async (world) => {
        world.setParameters({ gravity: [0, -9.8, 0], friction: 0.5 });
        world.setMeshes([{ mesh }]);
        const spheres: number[] = [];
        for (let i = 0; i < 9; i++)
          spheres.push(-1.2 + 1.2 * (i % 3) + 0.13, 0.15, -1.2 + 1.2 * Math.floor(i / 3) + 0.07, 0.15);
        world.setParticles({ spheres: new Float32Array(spheres), velocities: new Float32Array(27) });
        await world.step(1 / 60, 10);
        const contacts = await world.meshContacts();
        const { spheres: s } = await world.read();
        for (let i = 0; i < 9; i++) {
          const mine = [...contacts.particles.keys()].filter((k) => contacts.particles[k] === i);
          expect(mine.length).toBeGreaterThan(0);
          for (const k of mine) {
            expect(contacts.meshes[k]).toBe(0);
            expect(contacts.triangles[k]).toBeLessThan(mesh.triangleCount);
          }
          // The triangle under its centre is listed, pushing.
          const under = mine.find((k) => {
            const t = contacts.triangles[k];
            const p = [0, 1, 2].map((j) =>
              Array.from(input.positions.subarray(3 * input.indices[3 * t + j], 3 * input.indices[3 * t + j] + 3)),
            );
            const c = closestPointOnTriangle([s[4 * i], 0, s[4 * i + 2]], p[0], p[1], p[2]).point;
            return Math.hypot(c[0] - s[4 * i], c[2] - s[4 * i + 2]) < 1e-5;
          });
          expect(under).toBeDefined();
          expect(contacts.impulses[under!]).toBeGreaterThan(0);
        }
        const encoder = gpu.device.createCommandEncoder();
        const encoded = world.encodeMeshContacts(encoder);
        gpu.device.queue.submit([encoder.finish()]);
        const again = await encoded.read();
        expect(again.particles.length).toBe(contacts.particles.length);
        encoded.destroy();
      });
    } finally {
      mesh.destroy();
    }
  });
});

describe('mesh colliders: bad input', () => {
  it('every bad mesh input is a typed error naming the argument, the mesh and the rule, and the world keeps its meshes', {
    timeout: LONG,
  }, async () => {
    const mesh = await meshOf(floorGrid(2, 2));
    const gone = await meshOf(floorGrid(1, 1));
    gone.destroy();
    try {
      await withWorld({ capacity: 16, bounds: [-4, -2, -4, 4, 4, 4] }, async (world) => {
        world.setParameters({ gravity: [0, -9.8, 0], restitution: 0 });
        world.setMeshes([{ mesh }]);
        const cases: [unknown, string, string][] = [
          ['floor', 'meshes', RULES.option],
          [[7], 'meshes[0]', RULES.option],
          [[{ mesh: {} }], 'meshes[0].mesh', RULES.worldMesh],
          [[{ mesh: gone }], 'meshes[0].mesh', RULES.worldMesh],
          [[{ mesh }, { mesh, pose: [0, 0, 0, 0, 0, 0, 0] }], 'meshes[1].pose', RULES.pose],
          [[{ mesh, pose: [0, 0, Number.NaN, 0, 0, 0, 1] }], 'meshes[0].pose', RULES.pose],
          [[{ mesh, velocity: [1, 2, 3] }], 'meshes[0].velocity', RULES.vector],
          [[{ mesh, velocity: [0, 0, 0, 0, Infinity, 0] }], 'meshes[0].velocity', RULES.vector],
        ];
        for (const [input, argument, rule] of cases) {
          let error: unknown;
          try {
            world.setMeshes(input as never);
          } catch (e) {
            error = e;
          }
          expect(error, argument).toBeInstanceOf(InvalidInputError);
          expect((error as InvalidInputError).argument).toBe(argument);
          expect((error as InvalidInputError).rule).toBe(rule);
        }
        // The floor mesh still holds a particle.
        world.setParticles({ spheres: new Float32Array([0.3, 0.5, 0.2, 0.1]), velocities: new Float32Array(3) });
        await world.step(1 / 60, 40);
        const { spheres } = await world.read();
        expect(spheres[1]).toBeCloseTo(0.1, 2);
      });
    } finally {
      mesh.destroy();
    }
  });
});
