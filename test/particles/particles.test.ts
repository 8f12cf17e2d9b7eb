/**
 * The particle world: GPU steps against the CPU twin on seeded scenes (seed in the names), the
 * textbook collisions, conservation laws, stability, determinism, and bad parameters.
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from '../support/gpu.js';
import { sameBits } from '../support/device.js';
import { describeDevice } from '../../src/device.js';
import {
  createParticleWorld,
  defaultInverseMass,
  type ParticleWorld,
  type ParticleWorldOptions,
  type ParticleSet,
} from '../../src/particles/index.js';
import { particleStep, ParticleSolverTwin } from '../../src/reference/particles.js';
import { InvalidInputError, CapacityError, DestroyedError } from '../../src/errors.js';
import { RULES } from '../../src/checks.js';
import { mulberry32, gaussian } from '../support/random.js';
import { pileScene, pileStats } from '../support/pile.js';
import { nearestViolations, allHitsViolations } from '../support/casts.js';
import { BufferUsage } from '../../src/gpu/flags.js';
import { readBuffer } from '../../src/gpu/buffers.js';
import { CastHitRecord } from '../../shaders/passes/layout.js';

const gpu = useGpu();

/** Tests that step thousands of particles for hundreds of steps: minutes on a software adapter shared with other test projects. */
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

/** n particles of radius r (or radii in [r, 2r] when mixed) in a box, at volume fraction `fraction`, random velocities. */
function boxScene(n: number, seed: number, { fraction = 0.2, r = 0.5, mixed = false, speed = 1 } = {}) {
  const rand = mulberry32(seed);
  const radii = Array.from({ length: n }, () => (mixed ? r * (1 + rand()) : r));
  const volume = radii.reduce((s, x) => s + (4 / 3) * Math.PI * x ** 3, 0);
  const side = Math.cbrt(volume / fraction);
  const spheres = new Float32Array(4 * n);
  const velocities = new Float32Array(3 * n);
  for (let i = 0; i < n; i++) {
    spheres.set([rand() * side, rand() * side, rand() * side, radii[i]], 4 * i);
    velocities.set([gaussian(rand) * speed, gaussian(rand) * speed, gaussian(rand) * speed], 3 * i);
  }
  return { spheres, velocities, bounds: [0, 0, 0, side, side, side] as number[], side };
}

const packed = (velocities: Float32Array, spheres: Float32Array, inverseMasses?: Float32Array): Float32Array => {
  const n = spheres.length / 4;
  const out = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) {
    out.set(velocities.subarray(3 * i, 3 * i + 3), 4 * i);
    out[4 * i + 3] = inverseMasses ? inverseMasses[i] : Math.fround(defaultInverseMass(spheres[4 * i + 3]));
  }
  return out;
};

function kinetic(velocities: Float32Array, inverseMasses: Float32Array): number {
  let e = 0;
  for (let i = 0; i < inverseMasses.length; i++) {
    if (inverseMasses[i] > 0)
      e +=
        (0.5 / inverseMasses[i]) * (velocities[3 * i] ** 2 + velocities[3 * i + 1] ** 2 + velocities[3 * i + 2] ** 2);
  }
  return e;
}

/** Largest difference between the GPU's state and the twin's, relative to `length` and `speed`. */
function difference(
  gpuState: { spheres: Float32Array; velocities: Float32Array },
  cpu: { spheres: Float32Array; velocities: Float32Array },
  length: number,
  speed: number,
): number {
  let worst = 0;
  for (let i = 0; i < gpuState.spheres.length / 4; i++) {
    for (let a = 0; a < 3; a++) {
      worst = Math.max(worst, Math.abs(gpuState.spheres[4 * i + a] - cpu.spheres[4 * i + a]) / length);
      worst = Math.max(worst, Math.abs(gpuState.velocities[3 * i + a] - cpu.velocities[4 * i + a]) / speed);
    }
  }
  return worst;
}

/**
 * The GPU's touching pairs against the twin's. The sweeps close a speculative contact to a gap of
 * 0 within rounding, so a pair may sit at 0 on one side and a few ulps apart on the other: the
 * counts agree to within 2 pairs or 0.5%.
 */
function expectTouching(gpu: number, twin: number, step: number): void {
  expect(Math.abs(gpu - twin), `step ${step}: touching pairs, GPU ${gpu}, twin ${twin}`).toBeLessThanOrEqual(
    Math.max(2, 0.005 * twin),
  );
}

describe('GPU step vs the CPU twin', () => {
  for (const [name, seed, mixed, gravity, bounded, friction] of [
    ['2000 equal spheres in a box with gravity and friction', 1001, false, [0, -9.8, 0], true, 0.5],
    ['2000 mixed radii (1:2) in a box', 1002, true, [0, 0, 0], true, 0],
    ['1500 unbounded, hashed grid', 1003, false, [0, 0, 0], false, 0.3],
  ] as const) {
    it(`${name}, seed ${seed}: 10 steps particle by particle, warm-started`, async () => {
      const scene = boxScene(seed === 1003 ? 1500 : 2000, seed, { mixed });
      const options = {
        capacity: 4000,
        gravity,
        restitution: 0.7,
        friction,
        bounds: bounded ? scene.bounds : undefined,
      };
      await withWorld(options, async (world) => {
        world.setParticles({ spheres: scene.spheres, velocities: scene.velocities });
        expect(world.plan!.dense).toBe(bounded);
        const twin = new ParticleSolverTwin();
        const params = world.stepParams(1 / 60);
        let cpu: { spheres: Float32Array; velocities: Float32Array } = {
          spheres: scene.spheres.slice(),
          velocities: packed(scene.velocities, scene.spheres),
        };
        for (let step = 1; step <= 10; step++) {
          await world.step(params.dt);
          cpu = twin.step(cpu.spheres, cpu.velocities, params, world.plan!);
          const worst = difference(await world.read(), cpu, scene.side, 10);
          expect(worst, `step ${step}: largest difference (relative to the box and to speed 10)`).toBeLessThan(1e-4);
          expectTouching(await world.contactCount(), twin.touching, step);
        }
        expect(twin.touching).toBeGreaterThan(10);
      });
    });
  }
});

describe('the colouring of the pairs', () => {
  it('a large particle among small ones is in more pairs than there are colours: the overflow matches the twin and conserves momentum (seed 1010)', async () => {
    // One ball of radius 1.5 at the centre and 160 of radius 0.2 on its surface, each overlapping
    // it by 0.02 and moving: the large ball's 160 pairs cannot all take one of 32 colours, so
    // most go to the overflow (Jacobi, mass split), the small balls' other pairs to the colours.
    const rand = mulberry32(1010);
    const n = 161;
    const spheres = new Float32Array(4 * n);
    const velocities = new Float32Array(3 * n);
    spheres.set([0, 0, 0, 1.5]);
    for (let i = 1; i < n; i++) {
      // A Fibonacci sphere: the small balls spread evenly, some touching their neighbours.
      const y = 1 - (2 * (i - 0.5)) / (n - 1);
      const ring = Math.sqrt(1 - y * y);
      const phi = i * Math.PI * (3 - Math.sqrt(5));
      const d = 1.5 + 0.2 - 0.02;
      spheres.set([d * ring * Math.cos(phi), d * y, d * ring * Math.sin(phi), 0.2], 4 * i);
      velocities.set(
        [0, 1, 2].map(() => 0.5 * gaussian(rand)),
        3 * i,
      );
    }
    await withWorld({ capacity: n, restitution: 0.5, friction: 0.3, bounds: [-4, -4, -4, 4, 4, 4] }, async (world) => {
      world.setParticles({ spheres, velocities });
      const twin = new ParticleSolverTwin();
      const params = world.stepParams(1 / 60);
      let cpu: { spheres: Float32Array; velocities: Float32Array } = {
        spheres: spheres.slice(),
        velocities: packed(velocities, spheres),
      };
      const momentum = (v: Float32Array, stride: number, w: Float32Array | ((i: number) => number)) => {
        const p = [0, 0, 0];
        for (let i = 0; i < n; i++)
          for (let a = 0; a < 3; a++) p[a] += v[stride * i + a] / (typeof w === 'function' ? w(i) : w[i]);
        return p;
      };
      const before = momentum(cpu.velocities, 4, (i) => cpu.velocities[4 * i + 3]);
      for (let step = 1; step <= 6; step++) {
        await world.step(params.dt);
        cpu = twin.step(cpu.spheres, cpu.velocities, params, world.plan!);
        expect(twin.overflow, `step ${step}: pairs in the overflow`).toBeGreaterThan(100);
        const state = await world.read();
        expect(difference(state, cpu, 8, 10), `step ${step}: largest difference`).toBeLessThan(1e-4);
        const after = momentum(state.velocities, 3, state.inverseMasses);
        for (let a = 0; a < 3; a++)
          expect(Math.abs(after[a] - before[a]), `step ${step}: momentum ${'xyz'[a]}`).toBeLessThan(1e-4);
      }
    });
  });
});

/** Pairs of spheres (x, y, z, r) whose gap is below `gap` (all pairs: a small scene). */
function nearPairs(spheres: Float32Array, gap: number): number {
  let near = 0;
  for (let i = 0; i < spheres.length; i += 4)
    for (let j = i + 4; j < spheres.length; j += 4) {
      const d = Math.hypot(spheres[j] - spheres[i], spheres[j + 1] - spheres[i + 1], spheres[j + 2] - spheres[i + 2]);
      if (d - spheres[i + 3] - spheres[j + 3] < gap) near++;
    }
  return near;
}

describe('contact lists kept between searches (the skin)', () => {
  it('a slow lattice, seed 1005: 20 steps match the CPU twin, which keeps its lists on the same steps', async () => {
    // 12³ particles of radius 0.5, 1.08 apart (jittered by 0.03), at speeds ~0.5: they meet
    // within a few steps, and the fastest move 0.02 a step, so the lists (skin 0.05) last two.
    const rand = mulberry32(1005);
    const side = 12 * 1.08 + 1;
    const spheres = new Float32Array(4 * 12 ** 3);
    const velocities = new Float32Array(3 * 12 ** 3);
    for (let i = 0; i < 12 ** 3; i++) {
      const cell = [i % 12, Math.floor(i / 12) % 12, Math.floor(i / 144)];
      spheres.set([...cell.map((c) => 1 + 1.08 * c + 0.03 * (2 * rand() - 1)), 0.5], 4 * i);
      velocities.set(
        [0, 1, 2].map(() => 0.3 * gaussian(rand)),
        3 * i,
      );
    }
    const scene = { spheres, velocities, bounds: [0, 0, 0, side, side, side], side };
    await withWorld({ capacity: 12 ** 3, restitution: 0.7, friction: 0.3, bounds: scene.bounds }, async (world) => {
      world.setParticles({ spheres: scene.spheres, velocities: scene.velocities });
      const twin = new ParticleSolverTwin();
      const params = world.stepParams(1 / 60);
      expect(params.skin).toBeCloseTo(0.05, 6); // 0.1 × the radius, by default
      let cpu: { spheres: Float32Array; velocities: Float32Array } = {
        spheres: scene.spheres.slice(),
        velocities: packed(scene.velocities, scene.spheres),
      };
      let touched = 0;
      for (let step = 1; step <= 20; step++) {
        await world.step(params.dt);
        cpu = twin.step(cpu.spheres, cpu.velocities, params, world.plan!);
        touched = Math.max(touched, nearPairs(cpu.spheres, 0.02));
        expect(difference(await world.read(), cpu, scene.side, 1), `step ${step}: largest difference`).toBeLessThan(
          1e-4,
        );
        expectTouching(await world.contactCount(), twin.touching, step);
        expect(await world.contactSearches(), `step ${step}: searches`).toEqual({
          steps: twin.steps,
          searches: twin.searches,
        });
      }
      // The sweeps bounce a pair that closes within a substep while a hair apart (CONTRACT,
      // "Limits of the method"), so meeting pairs come within 0.02 without touching.
      expect(touched, 'the most pairs within 0.02 of each other at a step').toBeGreaterThan(5);
      expect(twin.searches).toBeGreaterThan(1);
      expect(twin.searches).toBeLessThan(15);
    });
  });

  it('skin 0 searches at every step, moving or at rest', async () => {
    const scene = boxScene(500, 1006, { speed: 0.01 });
    await withWorld({ capacity: 500, bounds: scene.bounds, skin: 0 }, async (world) => {
      world.setParticles({ spheres: scene.spheres, velocities: scene.velocities });
      await world.step(1 / 60, 5);
      expect(await world.contactSearches()).toEqual({ steps: 5, searches: 5 });
      // At rest nothing moves at all: a move of 0 still exceeds a skin of 0.
      world.setParticles({ spheres: new Float32Array([1, 1, 1, 0.5, 3, 1, 1, 0.5]), velocities: new Float32Array(6) });
      await world.step(1 / 60, 5);
      expect(await world.contactSearches()).toEqual({ steps: 5, searches: 5 });
    });
  });

  it('a change of dt, of the skin, or of the particles makes the next step search', async () => {
    await withWorld({ capacity: 3, bounds: [-10, -10, -10, 10, 10, 10] }, async (world) => {
      world.setParticles({ spheres: new Float32Array([0, 0, 0, 1, 5, 0, 0, 1]), velocities: new Float32Array(6) });
      await world.step(1 / 60, 3);
      expect(await world.contactSearches()).toEqual({ steps: 3, searches: 1 });
      await world.step(1 / 30);
      expect(await world.contactSearches()).toEqual({ steps: 4, searches: 2 });
      world.setParameters({ skin: 0.3 });
      await world.step(1 / 30, 2);
      expect(await world.contactSearches()).toEqual({ steps: 6, searches: 3 });
      world.setParticles({
        spheres: new Float32Array([0, 0, 0, 1, 5, 0, 0, 1, -5, 0, 0, 1]),
        velocities: new Float32Array(9),
      });
      await world.step(1 / 30, 2);
      expect(await world.contactSearches()).toEqual({ steps: 2, searches: 1 });
    });
  });

  it('a particle teleported onto another between searches is pushed out at the next step', async () => {
    await withWorld({ capacity: 2, bounds: [-10, -10, -10, 10, 10, 10], skin: 0.5 }, async (world) => {
      world.setParticles({ spheres: new Float32Array([0, 0, 0, 1, 5, 0, 0, 1]), velocities: new Float32Array(6) });
      await world.step(1 / 60, 3);
      expect(await world.contactSearches()).toEqual({ steps: 3, searches: 1 });
      world.setParticle(1, { position: [1.5, 0, 0] }); // half a radius into particle 0
      await world.step(1 / 60);
      expect(await world.contactSearches()).toEqual({ steps: 4, searches: 2 });
      const { spheres, velocities } = await world.read();
      expect(spheres[4] - spheres[0]).toBeGreaterThan(1.5);
      expect(velocities[0]).toBeLessThanOrEqual(0);
      expect(velocities[3]).toBeGreaterThanOrEqual(0);
    });
  });
});

/** The largest distance in units in the last place between two f32 arrays (Infinity where the signs differ). */
function ulps(a: Float32Array, b: Float32Array): number {
  const x = new Int32Array(a.buffer, a.byteOffset, a.length);
  const y = new Int32Array(b.buffer, b.byteOffset, b.length);
  let worst = a.length === b.length ? 0 : Infinity;
  for (let i = 0; i < x.length; i++)
    worst = Math.max(worst, a[i] === b[i] ? 0 : Math.sign(a[i]) === Math.sign(b[i]) ? Math.abs(x[i] - y[i]) : Infinity);
  return worst;
}

describe('particles with nothing to solve run their step in the split', () => {
  it('free fall, far apart, bounded and not: the CPU twin to the last bits (the substeps operation for operation)', async () => {
    for (const bounds of [undefined, [-100, -100, -100, 100, 100, 100]]) {
      // Five particles far from each other and from the walls, with random velocities, and one
      // static: no contact, no wall within reach in 20 steps.
      const rand = mulberry32(1007);
      const spheres = new Float32Array(4 * 6);
      const velocities = new Float32Array(3 * 6);
      for (let i = 0; i < 6; i++) {
        spheres.set([20 * i - 50, 10 * rand(), 10 * rand(), 0.5 + rand()], 4 * i);
        velocities.set([gaussian(rand), gaussian(rand), gaussian(rand)], 3 * i);
      }
      const inverseMasses = new Float32Array([1, 2, 0.5, 0, 1, 3]);
      await withWorld({ capacity: 6, gravity: [0.5, -9.8, 0.25], bounds }, async (world) => {
        world.setParticles({ spheres, velocities, inverseMasses });
        const twin = new ParticleSolverTwin();
        const params = world.stepParams(1 / 60);
        let cpu: { spheres: Float32Array; velocities: Float32Array } = {
          spheres: spheres.slice(),
          velocities: packed(velocities, spheres, inverseMasses),
        };
        for (let step = 1; step <= 20; step++) cpu = twin.step(cpu.spheres, cpu.velocities, params, world.plan!);
        await world.step(1 / 60, 20);
        const state = await world.read();
        // Bit for bit on SwiftShader; a device that rounds x + v·h twice (no fused multiply-add,
        // where the twin rounds once) may differ by a few ulps. A wrong free path is off by
        // hundreds (a gravity 1e-4 too strong: 227 ulps in the positions after 20 steps).
        expect(ulps(state.spheres, cpu.spheres), `bounds ${bounds}: positions`).toBeLessThanOrEqual(64);
        const v = new Float32Array(18);
        for (let i = 0; i < 6; i++) v.set(cpu.velocities.subarray(4 * i, 4 * i + 3), 3 * i);
        expect(ulps(state.velocities, v), `bounds ${bounds}: velocities`).toBeLessThanOrEqual(64);
        expect(Array.from(state.spheres.subarray(12, 16))).toEqual(Array.from(spheres.subarray(12, 16))); // the static one
      });
    }
  });
});

describe('folded dispatches', () => {
  it('with at most 3 workgroups per dimension the step folds and still matches the CPU twin (seed 1004)', async () => {
    const scene = boxScene(1000, 1004); // 8 workgroups of 128 particles: 3 × 3
    await withWorld({ capacity: 1000, bounds: scene.bounds, maxWorkgroupsPerDimension: 3 }, async (world) => {
      world.setParticles({ spheres: scene.spheres, velocities: scene.velocities });
      await world.step(1 / 120);
      const cpu = particleStep(
        scene.spheres,
        packed(scene.velocities, scene.spheres),
        world.stepParams(1 / 120),
        world.plan!,
      );
      expect(difference(await world.read(), cpu, scene.side, 10)).toBeLessThan(2e-5);
    });
  });
});

describe('contact lists that overflow grow, and the step runs again', () => {
  it('200 coincident particles need 39,800 entries (8 per particle are reserved): the step matches the CPU twin', async () => {
    await withWorld({ capacity: 200, bounds: [-10, -10, -10, 10, 10, 10] }, async (world) => {
      const spheres = new Float32Array(4 * 200);
      for (let i = 0; i < 200; i++) spheres.set([1, 2, 3, 0.5], 4 * i);
      world.setParticles({ spheres, velocities: new Float32Array(600) });
      expect(world.contactCapacity).toBe(1600);
      await world.step(1 / 60);
      expect(world.contactCapacity).toBeGreaterThanOrEqual(200 * 199);
      const cpu = particleStep(spheres, packed(new Float32Array(600), spheres), world.stepParams(1 / 60), world.plan!);
      expect(difference(await world.read(), cpu, 1, 1)).toBeLessThan(1e-4);
    });
  });
});

describe('textbook collisions', () => {
  const headOn = (e: number, w1: number, w2: number, v1: number, v2: number) =>
    withWorld({ capacity: 2, restitution: e, percent: 0 }, async (world) => {
      // Touching (distance 2 = r1 + r2) and approaching along x.
      world.setParticles({
        spheres: new Float32Array([-1, 0, 0, 1, 1, 0, 0, 1]),
        velocities: new Float32Array([v1, 0, 0, v2, 0, 0]),
        inverseMasses: new Float32Array([w1, w2]),
      });
      await world.step(1e-3);
      const { velocities } = await world.read();
      return [velocities[0], velocities[3]];
    });

  it('equal masses, e = 1: the velocities swap', async () => {
    const [a, b] = await headOn(1, 1, 1, 1, -1);
    expect(a).toBeCloseTo(-1, 6);
    expect(b).toBeCloseTo(1, 6);
  });

  it('e = 0: they stick (no relative normal velocity)', async () => {
    const [a, b] = await headOn(0, 1, 1, 1, -1);
    expect(a).toBeCloseTo(0, 6);
    expect(b).toBeCloseTo(0, 6);
  });

  it("unequal masses: v1' = ((m1 − e m2) v1 + (1 + e) m2 v2) / (m1 + m2), and symmetrically", async () => {
    for (const e of [1, 0.5]) {
      const [m1, m2, v1, v2] = [3, 1, 2, -1];
      const [a, b] = await headOn(e, 1 / m1, 1 / m2, v1, v2);
      expect(a).toBeCloseTo(((m1 - e * m2) * v1 + (1 + e) * m2 * v2) / (m1 + m2), 5);
      expect(b).toBeCloseTo(((m2 - e * m1) * v2 + (1 + e) * m1 * v1) / (m1 + m2), 5);
    }
  });

  it('a static particle (inverse mass 0) does not move; the other bounds back with restitution', async () => {
    const [a, b] = await headOn(0.5, 0, 1, 0, -2);
    expect(a).toBe(0);
    expect(b).toBeCloseTo(1, 6);
  });

  it('a wall reflects the normal velocity times e', async () => {
    await withWorld({ capacity: 1, restitution: 0.5, bounds: [0, 0, 0, 10, 10, 10] }, async (world) => {
      world.setParticles({ spheres: new Float32Array([1, 5, 5, 1]), velocities: new Float32Array([-2, 1, 0]) });
      await world.step(1e-3);
      const { velocities } = await world.read();
      expect(velocities[0]).toBeCloseTo(1, 6);
      expect(velocities[1]).toBeCloseTo(1, 6);
    });
  });

  it('the positional correction splits the overlap by inverse mass (seed gap: the seed split by radius)', async () => {
    await withWorld(
      { capacity: 2, percent: 1, slop: 0, maxPushSpeed: 1e15, substeps: 1, iterations: 1 },
      async (world) => {
        // Overlap 0.5 along x; B is 3 times lighter (inverse mass 3 vs 1): it moves 3/4 of it.
        world.setParticles({
          spheres: new Float32Array([0, 0, 0, 1, 1.5, 0, 0, 1]),
          velocities: new Float32Array(6),
          inverseMasses: new Float32Array([1, 3]),
        });
        await world.step(1e-6);
        const { spheres } = await world.read();
        expect(spheres[0]).toBeCloseTo(-0.125, 5);
        expect(spheres[4]).toBeCloseTo(1.5 + 0.375, 5);
        // The correction moved them apart without giving them any velocity.
        expect(Array.from((await world.read()).velocities)).toEqual([0, 0, 0, 0, 0, 0]);
      },
    );
  });

  it('a fast particle bounces off a wall: it neither sticks nor leaves the box', async () => {
    await withWorld({ capacity: 1, restitution: 0.8, bounds: [0, 0, 0, 10, 10, 10] }, async (world) => {
      world.setParticles({ spheres: new Float32Array([5, 5, 5, 0.5]), velocities: new Float32Array([200, 0, 0]) });
      let minX = Infinity;
      let maxX = -Infinity;
      for (let k = 0; k < 12; k++) {
        await world.step(1 / 60);
        const { spheres } = await world.read();
        minX = Math.min(minX, spheres[0]);
        maxX = Math.max(maxX, spheres[0]);
      }
      const { velocities } = await world.read();
      expect(maxX).toBeLessThanOrEqual(9.5);
      expect(minX).toBeGreaterThanOrEqual(0.5);
      // Several bounces at 0.8 each: |v| = 200·0.8^k, never stuck at a wall.
      const speed = Math.abs(velocities[0]);
      expect(
        [200 * 0.8 ** 2, 200 * 0.8 ** 3, 200 * 0.8 ** 4, 200 * 0.8 ** 5, 200 * 0.8 ** 6].some(
          (v) => Math.abs(speed - v) < 1e-3 * v,
        ),
      ).toBe(true);
    });
  });

  it('Coulomb friction: a particle sliding on the floor stops after v²/(2μg), then rests', async () => {
    const [mu, g, v0] = [0.5, 9.8, 2];
    await withWorld(
      { capacity: 1, friction: mu, gravity: [0, -g, 0], restitution: 0, bounds: [-10, 0, -10, 10, 10, 10] },
      async (world) => {
        world.setParticles({ spheres: new Float32Array([0, 0.5, 0, 0.5]), velocities: new Float32Array([v0, 0, 0]) });
        await world.step(1 / 60, 60);
        const { spheres, velocities } = await world.read();
        expect(spheres[0]).toBeCloseTo(v0 ** 2 / (2 * mu * g), 2);
        expect(spheres[1]).toBeCloseTo(0.5, 4);
        expect(Math.abs(velocities[0]) + Math.abs(velocities[1])).toBeLessThan(1e-3);
      },
    );
  });
});

describe('static particles', () => {
  it('a static particle never moves, whatever its velocity, and gravity does not act on it', async () => {
    await withWorld({ capacity: 2, gravity: [0, -9.8, 0], bounds: [-10, -10, -10, 10, 10, 10] }, async (world) => {
      world.setParticles({
        spheres: new Float32Array([0, 0, 0, 1, 5, 5, 5, 1]),
        velocities: new Float32Array([3, 4, 5, 0, 0, 0]),
        inverseMasses: new Float32Array([0, 1]),
      });
      await world.step(1 / 60, 30);
      const { spheres, velocities } = await world.read();
      expect(Array.from(spheres.subarray(0, 4))).toEqual([0, 0, 0, 1]);
      expect(Array.from(velocities.subarray(0, 3))).toEqual([0, 0, 0]);
      expect(spheres[5]).toBeLessThan(5); // the other one falls
    });
  });

  it(
    'particles dropped on a floor of static particles come to rest on it without sinking (seed 1105)',
    async () => {
      const rand = mulberry32(1105);
      const floor: number[] = [];
      for (let x = 0; x < 10; x++) for (let z = 0; z < 10; z++) floor.push(x + 0.5, 0.5, z + 0.5, 0.5);
      const falling: number[] = [];
      for (let k = 0; k < 60; k++) falling.push(1 + rand() * 8, 2 + rand() * 6, 1 + rand() * 8, 0.5);
      const spheres = new Float32Array([...floor, ...falling]);
      const n = spheres.length / 4;
      const inverseMasses = new Float32Array(n).map((_, i) => (i < 100 ? 0 : 1));
      await withWorld(
        { capacity: n, gravity: [0, -9.8, 0], restitution: 0.2, friction: 0.5, bounds: [0, 0, 0, 10, 20, 10] },
        async (world) => {
          world.setParticles({ spheres, velocities: new Float32Array(3 * n), inverseMasses });
          await world.step(1 / 60, 240);
          const state = await world.read();
          expect(Array.from(state.spheres.subarray(0, 400))).toEqual(floor);
          const stats = pileStats(state.spheres, state.velocities, [0, 0, 0, 10, 20, 10], inverseMasses);
          // The floor's centres are a diameter apart at y = 0.5: a particle resting in a hollow
          // between four of them sits at 0.5 + √(1 − 1/2) ≈ 1.207, none lower.
          for (let i = 100; i < n; i++) expect(state.spheres[4 * i + 1], `particle ${i}`).toBeGreaterThan(1.2);
          expect(stats.maxOverlap).toBeLessThan(0.1);
          expect(stats.kineticPerParticle).toBeLessThan(1e-3);
        },
      );
    },
    LONG,
  );
});

describe('contact lists that overflow in encode() are not kept', () => {
  // 4 × 4³ particles of radius 0.5 touching their 12 neighbours (FCC), at rest with no gravity:
  // more than the 8 entries a particle the lists start with, and nothing moves.
  const base = [
    [0, 0, 0],
    [0, 0.5, 0.5],
    [0.5, 0, 0.5],
    [0.5, 0.5, 0],
  ];
  const spheres: number[] = [];
  for (let x = 0; x < 4; x++)
    for (let y = 0; y < 4; y++)
      for (let z = 0; z < 4; z++)
        for (const b of base) spheres.push(...[x + b[0], y + b[1], z + b[2]].map((c) => 1 + c * Math.SQRT2), 0.5);
  const n = spheres.length / 4;
  // Every touching pair, listed from both ends: 1,176 pairs, 9.2 per particle.
  let pairs = 0;
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++)
      if (
        Math.hypot(
          spheres[4 * i] - spheres[4 * j],
          spheres[4 * i + 1] - spheres[4 * j + 1],
          spheres[4 * i + 2] - spheres[4 * j + 2],
        ) < 1.01
      )
        pairs++;
  const fcc = (world: ParticleWorld): void =>
    world.setParticles({ spheres: new Float32Array(spheres), velocities: new Float32Array(3 * n) });
  const encodeSteps = (world: ParticleWorld, steps: number): void => {
    const encoder = gpu.device.createCommandEncoder();
    world.encode(encoder, 1 / 60, steps);
    gpu.device.queue.submit([encoder.finish()]);
  };

  it('an FCC block at rest (12 neighbours each): encoded steps search again until the lists grow, then keep them', async () => {
    await withWorld({ capacity: n, bounds: [0, 0, 0, 8, 8, 8] }, async (world) => {
      fcc(world);
      encodeSteps(world, 3);
      expect(await world.contactSearches()).toEqual({ steps: 3, searches: 3 });
      const needed = await world.checkContactCapacity();
      expect(needed).toBe(2 * pairs);
      expect(needed).toBeGreaterThan(8 * n);
      expect(world.contactCapacity).toBeGreaterThanOrEqual(needed);
      await world.step(1 / 60, 3);
      expect(await world.contactSearches()).toEqual({ steps: 6, searches: 4 });
    });
  });

  it('a step() after encoded steps that overflowed searches again and grows the lists itself', async () => {
    await withWorld({ capacity: n, bounds: [0, 0, 0, 8, 8, 8] }, async (world) => {
      fcc(world);
      encodeSteps(world, 2);
      // No checkContactCapacity(): the step must not keep the truncated lists.
      await world.step(1 / 60);
      expect(world.contactCapacity).toBeGreaterThanOrEqual(2 * pairs);
      expect(await world.contactSearches()).toEqual({ steps: 3, searches: 3 });
    });
  });
});

describe("a pile comes to rest and stays (the library's first use)", () => {
  it(
    '2,000 particles dropped into a 10 × 40 × 10 box: none through a wall, overlap ≤ 0.1 r, at rest (seed 1104)',
    async () => {
      const scene = pileScene({ n: 2000, bounds: [0, 0, 0, 10, 40, 10], seed: 1104 });
      await withWorld(
        { capacity: 2000, gravity: [0, -9.8, 0], restitution: 0.2, friction: 0.5, bounds: scene.bounds },
        async (world) => {
          world.setParticles(scene);
          const at = async () => {
            const state = await world.read();
            return pileStats(state.spheres, state.velocities, scene.bounds, state.inverseMasses);
          };
          await world.step(1 / 60, 360);
          const settled = await at();
          const searchedBefore = (await world.contactSearches()).searches;
          await world.step(1 / 60, 120);
          const later = await at();
          // At rest, the contact lists last: most steps keep them.
          const searches = (await world.contactSearches()).searches - searchedBefore;
          expect(searches, 'searches in the last 120 steps').toBeLessThan(40);
          for (const [when, stats] of [
            ['after 6 s', settled],
            ['after 8 s', later],
          ] as const) {
            expect(stats.sunk, when).toBe(0);
            expect(stats.maxOverlap, when).toBeLessThanOrEqual(0.1);
            expect(stats.meanOverlap, when).toBeLessThanOrEqual(0.02);
            expect(stats.kineticPerParticle, when).toBeLessThan(1e-3);
          }
          // The pile stands (about 2,000 × 0.52 / 0.6 / 100 ≈ 17 high), and stays where it stood.
          expect(later.top).toBeGreaterThan(12);
          expect(Math.abs(later.top - settled.top)).toBeLessThan(0.1);
        },
      );
    },
    LONG,
  );
});

describe('sleep', () => {
  it('resting particles fall asleep, and wake, on the same steps as the CPU twin (seed 1007)', async () => {
    // Particles settling on a floor: alone, in touching pairs, and one on a static particle;
    // sleepTime 0.1 s, so that they sleep within the run; then one is pushed and the gravity turns.
    const rand = mulberry32(1007);
    const spheres: number[] = [];
    const velocities: number[] = [];
    const inverseMasses: number[] = [];
    for (let i = 0; i < 24; i++) {
      const x = 1 + 2.5 * (i % 6),
        z = 1 + 2.5 * Math.floor(i / 6);
      const drop = 0.5 + 0.05 * rand();
      spheres.push(x, drop, z, 0.5);
      velocities.push(0, 0, 0);
      inverseMasses.push(1);
      if (i % 4 === 1) {
        // a partner touching it on the floor
        spheres.push(x + 1.0, drop, z, 0.5);
        velocities.push(0, 0, 0);
        inverseMasses.push(1);
      }
    }
    // a particle resting on a static one
    spheres.push(16, 0.5, 9, 0.5, 16, 1.52, 9, 0.5);
    velocities.push(0, 0, 0, 0, 0, 0);
    inverseMasses.push(0, 1);
    const n = inverseMasses.length;
    const scene = {
      spheres: new Float32Array(spheres),
      velocities: new Float32Array(velocities),
      inverseMasses: new Float32Array(inverseMasses),
    };
    await withWorld(
      {
        capacity: n,
        gravity: [0, -9.8, 0],
        restitution: 0,
        friction: 0.5,
        bounds: [0, 0, 0, 18, 6, 11],
        sleepTime: 0.1,
      },
      async (world) => {
        world.setParticles(scene);
        const twin = new ParticleSolverTwin();
        let params = world.stepParams(1 / 60);
        expect(params.sleepSpeed).toBeCloseTo(0.05, 6); // 0.1 × the radius per second, by default
        let cpu: { spheres: Float32Array; velocities: Float32Array } = {
          spheres: scene.spheres.slice(),
          velocities: packed(scene.velocities, scene.spheres, scene.inverseMasses),
        };
        const asleep: number[] = [];
        const compare = async (step: number) => {
          await world.step(params.dt);
          cpu = twin.step(cpu.spheres, cpu.velocities, params, world.plan!);
          expect(difference(await world.read(), cpu, 18, 10), `step ${step}: largest difference`).toBeLessThan(1e-5);
          expect(await world.sleepingCount(), `step ${step}: asleep`).toBe(twin.asleep);
          expectTouching(await world.contactCount(), twin.touching, step);
          asleep.push(twin.asleep);
        };
        for (let step = 1; step <= 30; step++) await compare(step);
        // Everything dynamic sleeps, at velocity exactly 0.
        expect(asleep[asleep.length - 1]).toBe(n - 1);
        expect(Array.from((await world.read()).velocities).every((v) => v === 0)).toBe(true);
        // Pushing one wakes it (and its partner) at the next step.
        world.setParticle(1, { velocity: [0, 0, 1] });
        cpu.velocities.set([0, 0, 1], 4);
        await compare(31);
        expect(asleep[30]).toBe(n - 3);
        // The woken pair's entries (and every other pair of two awake particles) are equal and
        // opposite again: the woken particle took its partner's impulses, not its stale ones.
        const internals = twin as unknown as {
          order: Uint32Array;
          lists: { id: number; nbr: number; impulse: number[] }[][];
          rest: { slept: Uint8Array };
        };
        let pairs = 0;
        internals.lists.forEach((list, t) => {
          const id = internals.order[t];
          for (const c of list) {
            if (internals.rest.slept[id] || internals.rest.slept[c.id]) continue;
            const back = internals.lists[c.nbr].find((e) => e.id === id)!;
            expect(back.impulse[0], `pair ${id}–${c.id}: normal impulses`).toBe(c.impulse[0]);
            // (=== : a zero friction impulse's mirror is −0)
            for (let a = 1; a < 4; a++)
              expect(back.impulse[a] === -c.impulse[a], `pair ${id}–${c.id}: friction impulses opposite`).toBe(true);
            pairs++;
          }
        });
        expect(pairs).toBeGreaterThan(0);
        // It slides to a stop (v²/(2μg) ≈ 0.1) and sleeps again.
        for (let step = 32; step <= 60; step++) await compare(step);
        expect(asleep[59]).toBe(n - 1);
        // The static particle made dynamic (a write to the world's buffer) wakes, and so does the
        // particle resting on it: a support taken away never leaves a sleeper hanging.
        const held = n - 2;
        gpu.device.queue.writeBuffer(world.buffers.velocities, 16 * held + 12, new Float32Array([1]));
        cpu.velocities[4 * held + 3] = 1;
        await compare(61);
        expect(asleep[60]).toBe(n - 2);
        // New settings wake every particle.
        world.setParameters({ gravity: [2, -9.8, 0] });
        params = world.stepParams(1 / 60);
        await compare(62);
        expect(asleep[61]).toBe(0);
      },
    );
  });

  it(
    'a pile falls asleep and stays still to the bit; a fast particle wakes it and lands without sinking (seed 1008)',
    async () => {
      const scene = pileScene({ n: 600, bounds: [0, 0, 0, 6, 30, 6], seed: 1008 });
      await withWorld(
        { capacity: 600, gravity: [0, -9.8, 0], restitution: 0.2, friction: 0.5, bounds: scene.bounds },
        async (world) => {
          world.setParticles(scene);
          await world.step(1 / 60, 420);
          expect(await world.sleepingCount(), 'asleep after 7 s').toBeGreaterThan(0.9 * 600);
          // Asleep it does not move at all: every sleeper keeps its bits, and an awake particle moves
          // less than the sleep speed allows.
          let before = await world.read();
          await world.step(1 / 60, 30);
          let after = await world.read();
          let moved = 0;
          for (let i = 0; i < 600; i++) {
            const d = Math.hypot(...[0, 1, 2].map((a) => after.spheres[4 * i + a] - before.spheres[4 * i + a]));
            if (d > 0) moved++;
            expect(d).toBeLessThan(0.05 * 0.5);
          }
          expect(moved, 'particles that moved in 30 steps').toBeLessThan(60);
          // The topmost particle thrown down at 15 m/s into the sleeping pile.
          let top = 0;
          for (let i = 1; i < 600; i++) if (after.spheres[4 * i + 1] > after.spheres[4 * top + 1]) top = i;
          world.setParticle(top, { velocity: [0, -15, 0] });
          await world.step(1 / 60, 3);
          // It bounces off the sleepers it strikes (static to it in that step: CONTRACT, "Sleep") and
          // wakes them: the thrown particle and at least one it struck are awake.
          const awake = 600 - (await world.sleepingCount());
          expect(awake, 'awake 3 steps after the impact').toBeGreaterThan(1);
          await world.step(1 / 60, 240);
          after = await world.read();
          const stats = pileStats(after.spheres, after.velocities, scene.bounds, after.inverseMasses);
          expect(stats.sunk).toBe(0);
          expect(stats.maxOverlap).toBeLessThanOrEqual(0.1);
          expect(stats.kineticPerParticle).toBeLessThan(1e-3);
          expect(await world.sleepingCount(), 'asleep again').toBeGreaterThan(0.9 * 600);
          before = after;
        },
      );
    },
    LONG,
  );

  it('a sleeper falls when its support is taken away (moved off, or shrunk by a buffer write)', async () => {
    for (const how of ['moved', 'shrunk'] as const) {
      await withWorld(
        {
          capacity: 2,
          gravity: [0, -9.8, 0],
          friction: 0.5,
          restitution: 0,
          bounds: [0, 0, 0, 8, 6, 8],
          sleepTime: 0.2,
        },
        async (world) => {
          // A particle resting on a static one.
          world.setParticles({
            spheres: new Float32Array([2, 0.5, 2, 0.5, 2, 1.5, 2, 0.5]),
            velocities: new Float32Array(6),
            inverseMasses: new Float32Array([0, 1]),
          });
          await world.step(1 / 60, 40);
          expect(await world.sleepingCount()).toBe(1);
          const resting = (await world.read()).spheres[5];
          if (how === 'moved') world.setParticle(0, { position: [6, 0.5, 6] });
          else gpu.device.queue.writeBuffer(world.buffers.spheres, 12, new Float32Array([0.3]));
          await world.step(1 / 60, 30);
          const { spheres } = await world.read();
          expect(spheres[5], `${how}: the particle on it fell`).toBeLessThan(resting - 0.15);
        },
      );
    }
  });

  it('a velocity written into world.buffers wakes a sleeper, even one slower than sleepSpeed', async () => {
    for (const how of ['setParticle', 'buffer'] as const) {
      // No gravity and no friction: woken, the particle drifts on at what it was given.
      await withWorld({ capacity: 1, bounds: [0, 0, 0, 4, 4, 4], sleepTime: 0.1, sleepSpeed: 0.05 }, async (world) => {
        world.setParticles({ spheres: new Float32Array([2, 2, 2, 0.5]), velocities: new Float32Array(3) });
        await world.step(1 / 60, 10);
        expect(await world.sleepingCount()).toBe(1);
        if (how === 'setParticle') world.setParticle(0, { velocity: [0.01, 0, 0] });
        else gpu.device.queue.writeBuffer(world.buffers.velocities, 0, new Float32Array([0.01, 0, 0, 1]));
        await world.step(1 / 60, 3);
        // A review found the buffer write erased (the sleeper kept its 0): it stayed at x = 2.
        expect(await world.sleepingCount(), how).toBe(0);
        expect((await world.read()).spheres[0], how).toBeCloseTo(2 + 0.03 / 60, 5);
      });
    }
  });

  it('sleepTime 0 sleeps only what has come to rest: a falling particle keeps falling, one at the top of its flight never hangs there', async () => {
    for (const vy of [-5, 0.45]) {
      await withWorld(
        { capacity: 1, gravity: [0, -9.8, 0], bounds: [0, 0, 0, 4, 24, 4], sleepTime: 0, restitution: 0 },
        async (world) => {
          world.setParticles({ spheres: new Float32Array([2, 20, 2, 0.5]), velocities: new Float32Array([0, vy, 0]) });
          await world.step(1 / 60, 20);
          expect(await world.sleepingCount(), `thrown at ${vy}`).toBe(0);
          expect((await world.read()).spheres[1], `thrown at ${vy}`).toBeLessThan(20 - 0.2);
          // It lands and sleeps on the floor.
          await world.step(1 / 60, 150);
          expect((await world.read()).spheres[1]).toBeCloseTo(0.5, 3);
          expect(await world.sleepingCount()).toBe(1);
        },
      );
    }
  });

  it('sleepTime Infinity never sleeps; a lone particle at rest sleeps after sleepTime', async () => {
    for (const sleepTime of [0.5, Infinity]) {
      await withWorld(
        { capacity: 1, gravity: [0, -9.8, 0], friction: 0.5, restitution: 0, bounds: [0, 0, 0, 4, 4, 4], sleepTime },
        async (world) => {
          world.setParticles({ spheres: new Float32Array([2, 0.5, 2, 0.5]), velocities: new Float32Array(3) });
          await world.step(1 / 60, 29);
          expect(await world.sleepingCount()).toBe(0);
          await world.step(1 / 60, 6);
          expect(await world.sleepingCount(), `sleepTime ${sleepTime}`).toBe(sleepTime === Infinity ? 0 : 1);
          const { spheres } = await world.read();
          expect(spheres[1]).toBeCloseTo(0.5, 5);
        },
      );
    }
  });

  it('sleepSpeed and sleepTime: negative, NaN or infinite speed refused with the argument named; capacity, bounds and dispatch cannot change', async () => {
    await withWorld({ capacity: 1 }, async (world) => {
      // The options only createParticleWorld takes are refused too, not ignored.
      for (const [key, value] of [
        ['sleepSpeed', -1],
        ['sleepSpeed', NaN],
        ['sleepSpeed', Infinity],
        ['sleepTime', -0.5],
        ['sleepTime', NaN],
        ['capacity', 5],
        ['bounds', [0, 0, 0, 1, 1, 1]],
        ['dispatch', 'direct'],
      ] as const) {
        let error: unknown;
        try {
          world.setParameters({ [key]: value });
        } catch (e) {
          error = e;
        }
        expect(error, `${key} ${value}`).toBeInstanceOf(InvalidInputError);
        expect((error as InvalidInputError).argument).toBe(`options.${key}`);
      }
    });
  });
});

describe('conservation and stability', () => {
  it('momentum is conserved to float rounding with no walls and no gravity (seed 1101)', async () => {
    const scene = boxScene(2000, 1101, { fraction: 0.3, mixed: true });
    await withWorld({ capacity: 2000 }, async (world) => {
      world.setParticles({ spheres: scene.spheres, velocities: scene.velocities });
      const momentum = async (): Promise<number[]> => {
        const { velocities, inverseMasses } = await world.read();
        const p = [0, 0, 0];
        for (let i = 0; i < inverseMasses.length; i++)
          for (let a = 0; a < 3; a++) p[a] += velocities[3 * i + a] / inverseMasses[i];
        return p;
      };
      const before = await momentum();
      let scale = 0;
      for (let i = 0; i < 2000; i++)
        scale +=
          Math.hypot(scene.velocities[3 * i], scene.velocities[3 * i + 1], scene.velocities[3 * i + 2]) /
          defaultInverseMass(scene.spheres[4 * i + 3]);
      await world.step(1 / 120, 50);
      expect(await world.contactCount()).toBeGreaterThan(100);
      const after = await momentum();
      for (let a = 0; a < 3; a++) expect(Math.abs(after[a] - before[a]) / scale).toBeLessThan(1e-5);
    });
  });

  for (const e of [1, 0.5]) {
    it(`kinetic energy does not rise, e = ${e}, in a closed box (seed 1102)`, async () => {
      const scene = boxScene(2000, 1102, { fraction: 0.3 });
      await withWorld({ capacity: 2000, restitution: e, bounds: scene.bounds }, async (world) => {
        world.setParticles({ spheres: scene.spheres, velocities: scene.velocities });
        let { velocities, inverseMasses } = await world.read();
        let energy = kinetic(velocities, inverseMasses);
        const first = energy;
        for (let step = 0; step < 100; step++) {
          await world.step(1 / 120);
          ({ velocities, inverseMasses } = await world.read());
          const next = kinetic(velocities, inverseMasses);
          // CONTRACT, "Limits of the method": with e = 1, a cluster that starts overlapping may
          // return a little more than came in (at most 2% in the first step, 0.2% in a later one).
          const limit = e < 1 ? 1e-5 : step === 0 ? 0.02 : 0.002;
          expect(next, `step ${step}`).toBeLessThanOrEqual(energy * (1 + limit));
          energy = next;
        }
        expect(energy).toBeLessThan(first);
      });
    });
  }

  it(
    '2,000 substeps of a dense box under gravity: nothing escapes, no NaN (seed 1103)',
    async () => {
      const scene = boxScene(1000, 1103, { fraction: 0.35, mixed: true, speed: 5 });
      await withWorld(
        { capacity: 1000, gravity: [0, -9.8, 0], restitution: 0.9, bounds: scene.bounds },
        async (world) => {
          world.setParticles({ spheres: scene.spheres, velocities: scene.velocities });
          for (let batch = 0; batch < 5; batch++) await world.step(1 / 60, 100);
          const { spheres, velocities } = await world.read();
          for (let i = 0; i < 1000; i++) {
            for (let a = 0; a < 3; a++) {
              expect(Number.isFinite(spheres[4 * i + a]) && Number.isFinite(velocities[3 * i + a])).toBe(true);
              // The whole sphere, not only its centre, stays inside (to f32 rounding).
              const r = spheres[4 * i + 3];
              expect(spheres[4 * i + a] - r).toBeGreaterThanOrEqual(scene.bounds[a] - 1e-5);
              expect(spheres[4 * i + a] + r).toBeLessThanOrEqual(scene.bounds[a + 3] + 1e-5);
            }
          }
        },
      );
    },
    LONG,
  );

  it('coincident particles separate, without NaN', async () => {
    await withWorld({ capacity: 20, bounds: [-10, -10, -10, 10, 10, 10] }, async (world) => {
      const spheres = new Float32Array(4 * 20);
      for (let i = 0; i < 20; i++) spheres.set([1, 2, 3, 0.5], 4 * i);
      world.setParticles({ spheres, velocities: new Float32Array(60) });
      await world.step(1 / 60, 200);
      const { spheres: out, velocities } = await world.read();
      expect(Array.from(out).every(Number.isFinite) && Array.from(velocities).every(Number.isFinite)).toBe(true);
      let closest = Infinity;
      for (let i = 0; i < 20; i++)
        for (let j = i + 1; j < 20; j++)
          closest = Math.min(
            closest,
            Math.hypot(out[4 * i] - out[4 * j], out[4 * i + 1] - out[4 * j + 1], out[4 * i + 2] - out[4 * j + 2]),
          );
      expect(closest).toBeGreaterThan(0.5); // no longer coincident: well apart (touching is 1)
    });
  });
});

describe('determinism', () => {
  it(
    'the same start gives bitwise-identical states after 100 steps (seed 1201)',
    async () => {
      const scene = boxScene(3000, 1201, { fraction: 0.3, mixed: true });
      const run = () =>
        withWorld({ capacity: 3000, gravity: [0, -9.8, 0], restitution: 0.8, bounds: scene.bounds }, async (world) => {
          world.setParticles({ spheres: scene.spheres, velocities: scene.velocities });
          await world.step(1 / 120, 100);
          return world.read();
        });
      const a = await run();
      const b = await run();
      expect(sameBits(a.spheres, b.spheres)).toBe(true);
      expect(sameBits(a.velocities, b.velocities)).toBe(true);
    },
    LONG,
  );

  it(
    'direct and indirect dispatch give bitwise-identical states: a pile that searches, keeps its lists and sleeps (seed 1202)',
    async () => {
      // (A box tall enough for the pile: in one 12 high the 1,200 balls were jammed to the lid,
      // overlapping by 16% of a radius on average, and particles pressed that deep no longer sleep.)
      const scene = pileScene({ n: 1200, bounds: [0, 0, 0, 8, 24, 8], seed: 1202 });
      const run = (dispatch: 'direct' | 'indirect') =>
        withWorld(
          {
            capacity: 1200,
            gravity: [0, -9.8, 0],
            restitution: 0.2,
            friction: 0.5,
            bounds: scene.bounds,
            dispatch,
            sleepTime: 0.25,
          },
          async (world) => {
            expect(world.dispatch).toBe(dispatch);
            world.setParticles({ spheres: scene.spheres, velocities: scene.velocities });
            // One step a call, then several steps a submission.
            for (let k = 0; k < 60; k++) await world.step(1 / 60);
            for (let k = 0; k < 12; k++) await world.step(1 / 60, 30);
            return {
              state: await world.read(),
              searches: await world.contactSearches(),
              asleep: await world.sleepingCount(),
            };
          },
        );
      const direct = await run('direct');
      const indirect = await run('indirect');
      // Every branch ran: steps that searched, steps that kept the lists, sleepers.
      expect(direct.searches.searches).toBeGreaterThan(0);
      expect(direct.searches.searches).toBeLessThan(direct.searches.steps);
      expect(direct.asleep).toBeGreaterThan(0);
      expect(indirect.searches).toEqual(direct.searches);
      expect(indirect.asleep).toBe(direct.asleep);
      expect(sameBits(direct.state.spheres, indirect.state.spheres)).toBe(true);
      expect(sameBits(direct.state.velocities, indirect.state.velocities)).toBe(true);
    },
    LONG,
  );

  it("'auto' dispatch is indirect on a software adapter, direct on a GPU", async () => {
    await withWorld({ capacity: 2 }, async (world) => {
      expect(world.dispatch).toBe(describeDevice(gpu.device)?.software ? 'indirect' : 'direct');
    });
  });
});

describe('bad parameters get typed errors', () => {
  const spheres = new Float32Array([0, 0, 0, 1, 3, 0, 0, 1]);
  const velocities = new Float32Array(6);
  const invalid = async (fn: () => unknown, argument: string, rule: string, index = -1): Promise<void> => {
    const error = await Promise.resolve()
      .then(fn)
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(InvalidInputError);
    expect({
      argument: (error as InvalidInputError).argument,
      rule: (error as InvalidInputError).rule,
      index: (error as InvalidInputError).index,
    }).toEqual({ argument, rule, index });
  };

  it("options.dispatch not 'auto', 'direct' or 'indirect'", async () => {
    await invalid(
      () => createParticleWorld({ device: gpu.device, capacity: 2, dispatch: 'fast' as never }),
      'options.dispatch',
      RULES.option,
    );
  });

  it('dt ≤ 0, NaN or infinite; steps not a positive integer', async () => {
    await withWorld({ capacity: 2 }, async (world) => {
      world.setParticles({ spheres, velocities });
      for (const dt of [0, -1, NaN, Infinity]) await invalid(() => world.step(dt), 'dt', RULES.option);
      await invalid(() => world.step(0.01, 0), 'steps', RULES.option);
      await invalid(() => world.step(0.01, 1.5), 'steps', RULES.option);
      // Beyond f32 (it gave a NaN state once), and so small that 1 / substep leaves f32.
      await invalid(() => world.step(1e39), 'dt', RULES.option);
      await invalid(() => world.step(1e-20), 'dt', RULES.option);
      await invalid(() => world.step(undefined as unknown as number), 'dt', RULES.option);
    });
  });

  it('gravity beyond 2^60, friction < 0, iterations and substeps outside 1–64', async () => {
    await invalid(
      () => createParticleWorld({ device: gpu.device, capacity: 2, gravity: [0, 1e39, 0] }),
      'options.gravity',
      RULES.magnitude,
    );
    await invalid(
      () => createParticleWorld({ device: gpu.device, capacity: 2, friction: -0.1 }),
      'options.friction',
      RULES.option,
    );
    await invalid(
      () => createParticleWorld({ device: gpu.device, capacity: 2, friction: Infinity }),
      'options.friction',
      RULES.option,
    );
    for (const iterations of [0, 65, 1.5])
      await invalid(
        () => createParticleWorld({ device: gpu.device, capacity: 2, iterations }),
        'options.iterations',
        RULES.option,
      );
    await invalid(
      () => createParticleWorld({ device: gpu.device, capacity: 2, substeps: 0 }),
      'options.substeps',
      RULES.option,
    );
    await invalid(
      () => createParticleWorld({ device: gpu.device, capacity: 2, maxPushSpeed: -1 }),
      'options.maxPushSpeed',
      RULES.option,
    );
  });

  it(
    'the colours dispatched one by one change nothing: every colour in the one-workgroup tail, each alone, or as the scene wants (seed 1203)',
    async () => {
      const scene = pileScene({ n: 1200, bounds: [0, 0, 0, 8, 24, 8], seed: 1203 });
      const run = (slots: number | null) =>
        withWorld(
          { capacity: 1200, gravity: [0, -9.8, 0], restitution: 0.2, friction: 0.5, bounds: scene.bounds },
          async (world) => {
            world.pinColourSlots(slots);
            world.setParticles({ spheres: scene.spheres, velocities: scene.velocities });
            for (let k = 0; k < 30; k++) await world.step(1 / 60);
            await world.step(1 / 60, 10);
            return world.read();
          },
        );
      const followed = await run(null);
      for (const slots of [0, 32]) {
        const pinned = await run(slots);
        expect(sameBits(pinned.spheres, followed.spheres)).toBe(true);
        expect(sameBits(pinned.velocities, followed.velocities)).toBe(true);
      }
    },
    LONG,
  );

  it('huge inverse masses (1e38, 3e38) are refused; large but finite ones give a finite state', async () => {
    await withWorld({ capacity: 2, gravity: [0, -9.8, 0], bounds: [-5, -5, -5, 5, 5, 5] }, async (world) => {
      for (const w of [1e38, 3e38])
        await invalid(
          () => world.setParticles({ spheres, velocities, inverseMasses: new Float32Array([1, w]) }),
          'inverseMasses',
          RULES.magnitude,
          1,
        );
      world.setParticles({
        spheres: new Float32Array([0, 0, 0, 1, 1.5, 0, 0, 1]),
        velocities,
        inverseMasses: new Float32Array([1, 2 ** 60]),
      });
      await world.step(1 / 60, 10);
      const state = await world.read();
      expect([...state.spheres, ...state.velocities].every(Number.isFinite)).toBe(true);
    });
  });

  it('a bounded world holding a radius-0 particle steps (it hung once in the grid plan)', async () => {
    await withWorld({ capacity: 3, gravity: [0, -9.8, 0], bounds: [0, 0, 0, 20, 60, 20] }, async (world) => {
      world.setParticles({
        spheres: new Float32Array([5, 5, 5, 0.5, 6, 5, 5, 0.5, 10, 10, 10, 0]),
        velocities: new Float32Array(9),
        inverseMasses: new Float32Array([1, 1, 1]),
      });
      await world.step(1 / 60, 10);
      const state = await world.read();
      expect([...state.spheres, ...state.velocities].every(Number.isFinite)).toBe(true);
      expect(state.spheres[9]).toBeLessThan(10); // the point falls too
    });
  });

  it('restitution, percent outside [0, 1]; negative slop; bad gravity, bounds, capacity', async () => {
    for (const restitution of [-0.1, 1.1, NaN])
      await invalid(
        () => createParticleWorld({ device: gpu.device, capacity: 2, restitution }),
        'options.restitution',
        RULES.option,
      );
    await invalid(
      () => createParticleWorld({ device: gpu.device, capacity: 2, percent: 2 }),
      'options.percent',
      RULES.option,
    );
    await invalid(
      () => createParticleWorld({ device: gpu.device, capacity: 2, slop: -1 }),
      'options.slop',
      RULES.option,
    );
    await invalid(
      () => createParticleWorld({ device: gpu.device, capacity: 2, gravity: [0, NaN, 0] }),
      'options.gravity',
      RULES.vector,
    );
    await invalid(
      () => createParticleWorld({ device: gpu.device, capacity: 2, bounds: [0, 0, 0, 1, -1, 1] }),
      'options.bounds',
      RULES.bounds,
    );
    await invalid(() => createParticleWorld({ device: gpu.device, capacity: 0 }), 'options.capacity', RULES.option);
    await invalid(() => createParticleWorld({ device: gpu.device, capacity: 2.5 }), 'options.capacity', RULES.option);
  });

  it('more particles than the capacity: CapacityError with the true count', async () => {
    await withWorld({ capacity: 1 }, async (world) => {
      const error = (() => {
        try {
          world.setParticles({ spheres, velocities });
        } catch (e) {
          return e;
        }
      })() as CapacityError;
      expect(error).toBeInstanceOf(CapacityError);
      expect([error.what, error.count, error.capacity]).toEqual(['spheres', 2, 1]);
      expect(error.message).toMatch(/world of a larger capacity/);
    });
  });

  it('particles: mismatched counts, bad inverse masses, a centre outside the bounds', async () => {
    await withWorld({ capacity: 4, bounds: [-5, -5, -5, 5, 5, 5] }, async (world) => {
      await invalid(() => world.setParticles({ spheres, velocities: new Float32Array(3) }), 'velocities', RULES.count);
      await invalid(
        () => world.setParticles({ spheres, velocities: new Float32Array([0, 0, 0, 0, NaN, 0]) }),
        'velocities',
        RULES.finite,
        1,
      );
      await invalid(
        () => world.setParticles({ spheres, velocities, inverseMasses: new Float32Array([1, -1]) }),
        'inverseMasses',
        RULES.inverseMass,
        1,
      );
      await invalid(
        () => world.setParticles({ spheres, velocities, inverseMasses: new Float32Array([1]) }),
        'inverseMasses',
        RULES.count,
      );
      await invalid(
        () => world.setParticles({ spheres: new Float32Array([0, 0, 0, 1, 0, 6, 0, 1]), velocities }),
        'spheres',
        RULES.outside,
        1,
      );
      await invalid(
        () => world.setParticles({ spheres: new Float32Array([0, 0, 0, -1]), velocities: new Float32Array(3) }),
        'spheres',
        RULES.radius,
        0,
      );
    });
  });

  it('a radius whose default inverse mass (1 / volume) leaves f32: defaultMass, unless inverseMasses are given', async () => {
    await withWorld({ capacity: 2 }, async (world) => {
      const v = new Float32Array(6);
      await invalid(
        () => world.setParticles({ spheres: new Float32Array([0, 0, 0, 1, 5, 0, 0, 1e-14]), velocities: v }),
        'spheres',
        RULES.defaultMass,
        1,
      );
      await invalid(
        () => world.setParticles({ spheres: new Float32Array([0, 0, 0, 1e14, 5, 0, 0, 1]), velocities: v }),
        'spheres',
        RULES.defaultMass,
        0,
      );
      world.setParticles({
        spheres: new Float32Array([0, 0, 0, 1e14, 5, 0, 0, 1e-14]),
        velocities: v,
        inverseMasses: new Float32Array([0, 1]),
      });
      world.setParticles({ spheres: new Float32Array([0, 0, 0, 1e12, 5e12, 0, 0, 1e-12]), velocities: v });
      expect(Array.from((await world.read()).inverseMasses).every((w) => w > 0 && Number.isFinite(w))).toBe(true);
    });
  });
});

describe('reads and queries see the world as it was when they were called', () => {
  const moving = (): ParticleSet => ({
    spheres: new Float32Array([0, 0, 0, 1, 10, 0, 0, 1]),
    velocities: new Float32Array([0, 0, 0, 100, 0, 0]),
  });

  it('read() and contactCount() called before a step return the state before it', async () => {
    await withWorld({ capacity: 2 }, async (world) => {
      world.setParticles(moving());
      const before = world.read();
      const step = world.step(1);
      const after = world.read();
      await step;
      expect((await before).spheres[4]).toBe(10);
      expect((await after).spheres[4]).toBeCloseTo(110, 3); // 100 in four substeps of 1/4 s: rounded
    });
  });

  it('a raycast called before a step answers for the particles before it, even when queued behind another query', async () => {
    await withWorld({ capacity: 2 }, async (world) => {
      world.setParticles(moving());
      const ray = new Float32Array([10, 20, 0, 10, -20, 0]); // down through x = 10
      const first = world.raycast(ray, { broadphase: 'all-pairs', allHits: true });
      const queued = world.raycast(ray, { broadphase: 'grid' });
      const step = world.step(1); // moves particle 1 to x = 110
      const later = world.raycast(ray);
      await step;
      expect(Array.from((await first).index)).toEqual([1]);
      expect(Array.from((await queued).index)).toEqual([1]);
      expect(Array.from((await later).index)).toEqual([-1]);
    });
  });
});

describe('queries before any particles', () => {
  it('raycast and sphereCast of a world with no particles yet: every cast misses (bounded and unbounded)', async () => {
    for (const bounds of [[0, 0, 0, 10, 10, 10], undefined]) {
      await withWorld({ capacity: 4, bounds }, async (world) => {
        const ray = new Float32Array([1, 1, 1, 9, 9, 9]);
        expect(Array.from((await world.raycast(ray)).index)).toEqual([-1]);
        expect(Array.from((await world.raycast(ray, { allHits: true })).offsets)).toEqual([0, 0]);
        expect(Array.from((await world.sphereCast(new Float32Array([1, 1, 1, 9, 9, 9, 0.5]))).index)).toEqual([-1]);
        await expect(world.raycast(ray, { broadphase: 'sweep' })).rejects.toThrow(/does not serve|option/);
      });
    }
  });
});

describe('queries against the particles', () => {
  it('raycast and sphereCast of the current particles match the reference, both broad phases (seed 1301)', async () => {
    const scene = boxScene(3000, 1301, { fraction: 0.25 });
    await withWorld({ capacity: 3000, gravity: [0, -9.8, 0], bounds: scene.bounds }, async (world) => {
      world.setParticles({ spheres: scene.spheres, velocities: scene.velocities });
      await world.step(1 / 60, 5);
      const { spheres } = await world.read();
      const rand = mulberry32(1301);
      const rays = new Float32Array(6 * 500);
      for (let k = 0; k < 500; k++)
        rays.set(
          [0, 1, 2, 3, 4, 5].map(() => (rand() * 1.4 - 0.2) * scene.side),
          6 * k,
        );
      const casts = new Float32Array(7 * 300);
      for (let k = 0; k < 300; k++) casts.set([...rays.subarray(6 * k, 6 * k + 6), 0.3], 7 * k);
      for (const broadphase of ['all-pairs', 'grid'] as const) {
        const hits = await world.raycast(rays, { broadphase });
        expect(nearestViolations(rays, 6, spheres, hits), broadphase).toEqual([]);
        expect(hits.index.filter((i) => i >= 0).length).toBeGreaterThan(100);
        const all = await world.raycast(rays, { broadphase, allHits: true });
        expect(allHitsViolations(rays, 6, spheres, all), broadphase).toEqual([]);
        expect(nearestViolations(casts, 7, spheres, await world.sphereCast(casts, { broadphase })), broadphase).toEqual(
          [],
        );
      }
    });
  });

  it('encodeRaycast writes the same hits into a GPU buffer, with no readback of its own (seed 1302)', async () => {
    const scene = boxScene(2000, 1302);
    await withWorld({ capacity: 2000, bounds: scene.bounds }, async (world) => {
      world.setParticles({ spheres: scene.spheres, velocities: scene.velocities });
      const rand = mulberry32(1302);
      const count = 256;
      const rays = new Float32Array(6 * count);
      const packedRays = new Float32Array(8 * count);
      for (let k = 0; k < count; k++) {
        const ray = [0, 1, 2, 3, 4, 5].map(() => rand() * scene.side);
        rays.set(ray, 6 * k);
        packedRays.set([...ray.slice(0, 3), 0, ...ray.slice(3), 0], 8 * k);
      }
      const device = gpu.device;
      const raysBuffer = device.createBuffer({
        size: packedRays.byteLength,
        usage: BufferUsage.STORAGE | BufferUsage.COPY_DST,
      });
      const hitsBuffer = device.createBuffer({
        size: CastHitRecord.size * count,
        usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC,
      });
      try {
        device.queue.writeBuffer(raysBuffer, 0, packedRays);
        const encoder = device.createCommandEncoder();
        world.encodeRaycast(encoder, raysBuffer, count, hitsBuffer, Math.sqrt(3) * scene.side);
        device.queue.submit([encoder.finish()]);
        const records = new Int32Array(await readBuffer(device, hitsBuffer, 0, CastHitRecord.size * count));
        const expected = await world.raycast(rays, { broadphase: 'grid' });
        const got = Array.from(
          { length: count },
          (_, k) => records[(CastHitRecord.size / 4) * k + CastHitRecord.offsets.index / 4],
        );
        expect(got).toEqual(Array.from(expected.index));
      } finally {
        raysBuffer.destroy();
        hitsBuffer.destroy();
      }
    });
  });

  it('encodeRaycast with no particles writes a miss for every ray, over whatever the hits buffer held', async () => {
    await withWorld({ capacity: 4, bounds: [-10, -10, -10, 10, 10, 10] }, async (world) => {
      const device = gpu.device;
      const rays = device.createBuffer({ size: 2 * 32, usage: BufferUsage.STORAGE | BufferUsage.COPY_DST });
      const hits = device.createBuffer({
        size: 2 * CastHitRecord.size,
        usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC,
      });
      try {
        device.queue.writeBuffer(rays, 0, new Float32Array([-9, 0, 0, 0, 9, 0, 0, 0, -9, 5, 5, 0, 9, 5, 5, 0]));
        const indices = async (): Promise<number[]> => {
          const encoder = device.createCommandEncoder();
          world.encodeRaycast(encoder, rays, 2, hits, 20);
          device.queue.submit([encoder.finish()]);
          const records = new Int32Array(await readBuffer(device, hits, 0, 2 * CastHitRecord.size));
          return [0, 1].map((k) => records[(CastHitRecord.size / 4) * k + CastHitRecord.offsets.index / 4]);
        };
        expect(await indices(), 'a world never given particles (a zeroed record would read as sphere 0)').toEqual([
          -1, -1,
        ]);
        world.setParticles({ spheres: new Float32Array([0, 0, 0, 1]), velocities: new Float32Array(3) });
        expect(await indices()).toEqual([0, -1]);
        world.setParticles({ spheres: new Float32Array(0), velocities: new Float32Array(0) });
        expect(await indices(), 'the particles replaced by none: the old hit is not left in place').toEqual([-1, -1]);
      } finally {
        rays.destroy();
        hits.destroy();
      }
    });
  });

  it('encodeRaycast checks count, both buffers and maxRayLength: a typed error, never a silent wrong answer', async () => {
    await withWorld({ capacity: 2, bounds: [-10, -10, -10, 10, 10, 10] }, async (world) => {
      world.setParticles({ spheres: new Float32Array([0, 0, 0, 1, 5, 0, 0, 1]), velocities: new Float32Array(6) });
      const device = gpu.device;
      const rays = device.createBuffer({ size: 3 * 32, usage: BufferUsage.STORAGE | BufferUsage.COPY_DST });
      const hits = device.createBuffer({
        size: 3 * CastHitRecord.size,
        usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC,
      });
      const uniform = device.createBuffer({ size: 3 * 32, usage: BufferUsage.UNIFORM });
      try {
        const encoder = device.createCommandEncoder();
        const call = (count: unknown, r: unknown, h: unknown, length: unknown) => {
          try {
            world.encodeRaycast(encoder, r as GPUBuffer, count as number, h as GPUBuffer, length as number);
            return null;
          } catch (error) {
            return error as InvalidInputError;
          }
        };
        for (const [count, r, h, length, argument, rule] of [
          [1.5, rays, hits, 100, 'count', RULES.option],
          [-1, rays, hits, 100, 'count', RULES.option],
          [undefined, rays, hits, 100, 'count', RULES.option],
          [4, rays, hits, 100, 'rays', RULES.gpuRecords], // the buffers hold 3
          [3, rays, uniform, 100, 'hits', RULES.gpuRecords],
          [3, null, hits, 100, 'rays', RULES.gpuRecords],
          [3, rays, hits, NaN, 'maxRayLength', RULES.option],
          [3, rays, hits, Infinity, 'maxRayLength', RULES.option],
          [3, rays, hits, -1, 'maxRayLength', RULES.option],
          [3, rays, rays, 100, 'hits', RULES.gpuRecords], // the same buffer read and written
        ] as const) {
          const error = call(count, r, h, length);
          expect(error, `count ${count}, maxRayLength ${length}`).toBeInstanceOf(InvalidInputError);
          expect({ argument: error!.argument, rule: error!.rule }).toEqual({ argument, rule });
        }
        expect(() => world.encodeRaycast(undefined as never, rays, 3, hits, 100)).toThrow(InvalidInputError);
        expect(() => world.encode(null as never, 1 / 60)).toThrow(InvalidInputError);
        expect(() => world.encode(encoder, 1 / 60, 1, 'profile' as never)).toThrow(InvalidInputError);
        expect(call(3, rays, hits, 0)).toBeNull();
        expect(call(0, rays, hits, 100)).toBeNull();
        encoder.finish();
      } finally {
        rays.destroy();
        hits.destroy();
        uniform.destroy();
      }
    });
  });

  // Found by a review: a step that overflowed its lists ran again from its start, and undid what
  // the calls made while it ran had done.
  it('calls made while a step runs are kept when that step overflows its lists (setParticle, setParticles)', async () => {
    // 100 particles 0.01 apart: each lists all the others, far past the 8 entries a particle lists at first.
    const cluster = new Float32Array(400);
    for (let i = 0; i < 100; i++)
      cluster.set([5 + 0.01 * (i % 5), 5 + 0.01 * (Math.floor(i / 5) % 5), 5 + 0.01 * Math.floor(i / 25), 0.5], 4 * i);
    await withWorld({ capacity: 200, bounds: [0, 0, 0, 10, 10, 10] }, async (world) => {
      world.setParticles({ spheres: cluster, velocities: new Float32Array(300) });
      const capacity = world.contactCapacity;
      const stepping = world.step(1 / 60);
      world.setParticle(0, { position: [1, 9, 1] });
      await stepping;
      expect(world.contactCapacity).toBeGreaterThan(capacity); // it did overflow, and grew
      expect(Array.from((await world.read()).spheres.subarray(0, 3))).toEqual([1, 9, 1]);
      world.setParticles({ spheres: cluster, velocities: new Float32Array(300) });
      const again = world.step(1 / 60);
      world.setParticles({
        spheres: new Float32Array([1, 1, 1, 0.5, 9, 9, 9, 0.5]),
        velocities: new Float32Array([1, 0, 0, 0, 0, 0]),
      });
      await again;
      const { spheres } = await world.read();
      expect(world.count).toBe(2);
      expect(Array.from(spheres)).toEqual([1, 1, 1, 0.5, 9, 9, 9, 0.5]);
    });
  });

  it('reads and queries made while a step runs answer for a state the world had: that step then keeps its result (it does not run again)', async () => {
    const cluster = new Float32Array(400);
    for (let i = 0; i < 100; i++)
      cluster.set([5 + 0.01 * (i % 5), 5 + 0.01 * (Math.floor(i / 5) % 5), 5 + 0.01 * Math.floor(i / 25), 0.5], 4 * i);
    const ray = new Float32Array([0, 5.02, 5.02, 10, 5.02, 5.02]);
    for (const name of ['read', 'contactCount', 'raycast'] as const) {
      // A world each: the lists, once grown, stay grown.
      await withWorld({ capacity: 200, bounds: [0, 0, 0, 10, 10, 10] }, async (world) => {
        const observe = {
          read: () => world.read().then((r) => Array.from(r.spheres)),
          contactCount: () => world.contactCount(),
          raycast: () => world.raycast(ray).then((r) => Array.from(r.distance)),
        }[name];
        world.setParticles({ spheres: cluster, velocities: new Float32Array(300) });
        const capacity = world.contactCapacity;
        const stepping = world.step(1 / 60);
        const during = observe();
        await stepping;
        expect(world.contactCapacity, name).toBeGreaterThan(capacity); // it overflowed
        // A review found the step then ran again from its start: the read had seen its first
        // attempt, a state the world never kept (positions 0.035 and velocities 0.96 off).
        expect(await during, name).toEqual(await observe());
      });
    }
  });

  it('of two steps not awaited, the one that nothing changed after runs again when its lists overflow', async () => {
    const cluster = new Float32Array(400);
    for (let i = 0; i < 100; i++)
      cluster.set([5 + 0.01 * (i % 5), 5 + 0.01 * (Math.floor(i / 5) % 5), 5 + 0.01 * Math.floor(i / 25), 0.5], 4 * i);
    await withWorld({ capacity: 200, bounds: [0, 0, 0, 10, 10, 10] }, async (world) => {
      world.setParticles({ spheres: cluster, velocities: new Float32Array(300) });
      // Counted from outside: a step runs again through the solver's restore.
      const solver = (world as unknown as { solver: { restore: (...args: unknown[]) => void } }).solver;
      const restore = solver.restore.bind(solver);
      let restores = 0;
      solver.restore = (...args: unknown[]) => {
        restores++;
        restore(...args);
      };
      // Both overflow the first lists. The first is followed by the second (a change): it keeps
      // its result. The second, followed by nothing, must run again; a review found it compared
      // its need with the lists the first had already grown, and kept its dropped contacts.
      await Promise.all([world.step(1 / 60), world.step(1 / 60)]);
      expect(restores).toBe(1);
    });
  });

  it('a static support made dynamic falls with its sleeper, also when the step that sees it runs again', async () => {
    for (const overflow of [false, true]) {
      const n = 22;
      await withWorld(
        {
          capacity: n,
          gravity: [0, -9.8, 0],
          restitution: 0,
          friction: 0.5,
          bounds: [0, 0, 0, 40, 20, 40],
          sleepTime: 0.2,
        },
        async (world) => {
          const spheres = new Float32Array(4 * n);
          const inverseMasses = new Float32Array(n).fill(1);
          spheres.set([5, 5, 5, 0.5, 5, 6, 5, 0.5]); // 1 rests on 0, which floats, static
          inverseMasses[0] = 0;
          for (let i = 2; i < n; i++)
            spheres.set([10 + 2 * ((i - 2) % 5), 0.5, 10 + 2 * Math.floor((i - 2) / 5), 0.5], 4 * i);
          world.setParticles({ spheres, velocities: new Float32Array(3 * n), inverseMasses });
          await world.step(1 / 60, 60);
          expect(await world.sleepingCount()).toBe(n - 1);
          gpu.device.queue.writeBuffer(world.buffers.velocities, 12, new Float32Array([1])); // particle 0 made dynamic
          // Teleported onto one spot, the others overflow the lists of the step that sees the change.
          if (overflow) for (let i = 2; i < n; i++) world.setParticle(i, { position: [30, 10, 30] });
          const capacity = world.contactCapacity;
          await world.step(1 / 60, 30);
          if (overflow) expect(world.contactCapacity).toBeGreaterThan(capacity);
          const { spheres: after } = await world.read();
          // Half a second of free fall from y 5 and 6: about 3.77 and 4.77.
          expect(after[1], `overflow ${overflow}`).toBeLessThan(3.8);
          expect(after[5], `overflow ${overflow}`).toBeLessThan(4.8);
        },
      );
    }
  });

  it('a loaded static particle made dynamic conserves momentum: it takes the impulses its partners held', async () => {
    // A column of 6 balls resting on a static ball in the air; the ball is made dynamic by a buffer
    // write. Found by a review: its entries (never solved while static) started at 0 while its
    // partner's held the column's weight, and momentum after the first step was a third of m·g·dt.
    // (Sleep off: while sleepers are static for a step, momentum is not conserved by design.)
    for (const sleepTime of [Infinity]) {
      const n = 7;
      await withWorld({ capacity: n, gravity: [0, -9.8, 0], restitution: 0, sleepTime }, async (world) => {
        const spheres = new Float32Array(4 * n);
        const inverseMasses = new Float32Array(n).fill(1);
        for (let i = 0; i < n; i++) spheres.set([0, i, 0, 0.5], 4 * i);
        inverseMasses[0] = 0;
        world.setParticles({ spheres, velocities: new Float32Array(3 * n), inverseMasses });
        await world.step(1 / 60, 120);
        gpu.device.queue.writeBuffer(world.buffers.velocities, 12, new Float32Array([1]));
        for (let k = 1; k <= 3; k++) {
          await world.step(1 / 60);
          const { velocities } = await world.read();
          let momentum = 0;
          for (let i = 0; i < n; i++) momentum += velocities[3 * i + 1]; // every mass is 1
          expect(momentum, `sleepTime ${sleepTime}, step ${k}`).toBeCloseTo(-n * 9.8 * (k / 60), 2);
        }
      });
    }
  });

  it('a support made dynamic under a sleeper: both awake, momentum conserved, whichever has the higher index', async () => {
    // With the support above its sleeper in index order, the two-sleepers rule made the support
    // keep its empty entry while the sleeper kept its own (a review's find): momentum 0.97 of m·g·dt.
    for (const support of [0, 1]) {
      await withWorld({ capacity: 2, gravity: [0, -9.8, 0], restitution: 0, sleepTime: 0.5 }, async (world) => {
        const spheres = new Float32Array(8);
        spheres.set([0, 0, 0, 0.5], 4 * support);
        spheres.set([0, 1, 0, 0.5], 4 * (1 - support));
        const inverseMasses = new Float32Array([1, 1]);
        inverseMasses[support] = 0;
        world.setParticles({ spheres, velocities: new Float32Array(6), inverseMasses });
        await world.step(1 / 60, 120);
        expect(await world.sleepingCount()).toBe(1);
        gpu.device.queue.writeBuffer(world.buffers.velocities, 16 * support + 12, new Float32Array([1]));
        for (let k = 1; k <= 3; k++) {
          await world.step(1 / 60);
          const { velocities } = await world.read();
          expect(velocities[1] + velocities[4], `support ${support}, step ${k}`).toBeCloseTo(-2 * 9.8 * (k / 60), 3);
        }
        expect(await world.sleepingCount()).toBe(0);
      });
    }
  });

  it('a sleeper given a velocity slower than sleepSpeed by setParticle moves', async () => {
    await withWorld({ capacity: 1, bounds: [0, 0, 0, 10, 10, 10] }, async (world) => {
      world.setParticles({ spheres: new Float32Array([5, 5, 5, 0.5]), velocities: new Float32Array(3) });
      await world.step(1 / 60, 60);
      expect(await world.sleepingCount()).toBe(1);
      world.setParticle(0, { velocity: [0.04, 0, 0] }); // sleepSpeed is 0.05 here (0.1 × the radius)
      await world.step(1 / 60, 6);
      expect((await world.read()).spheres[0]).toBeCloseTo(5 + 0.04 * 0.1, 4);
    });
  });

  it('setParticle without its change, and setParameters after destroy, are typed errors', async () => {
    const world = await createParticleWorld({ device: gpu.device, capacity: 1 });
    world.setParticles({ spheres: new Float32Array([0, 0, 0, 1]), velocities: new Float32Array(3) });
    expect(() => world.setParticle(0, undefined as never)).toThrow(InvalidInputError);
    world.destroy();
    expect(() => world.setParameters({ restitution: 0.5 })).toThrow(DestroyedError);
  });

  it('setParticle moves and pushes one particle; the next step sees it', async () => {
    await withWorld({ capacity: 2, bounds: [-10, -10, -10, 10, 10, 10] }, async (world) => {
      world.setParticles({ spheres: new Float32Array([0, 0, 0, 1, 5, 0, 0, 1]), velocities: new Float32Array(6) });
      world.setParticle(1, { position: [-5, 2, 1], velocity: [0, 3, 0] });
      await world.step(0.1);
      const { spheres, velocities } = await world.read();
      expect(Array.from(spheres.subarray(4, 7)).map((v) => +v.toFixed(4))).toEqual([-5, 2.3, 1]);
      expect(velocities[4]).toBe(3);
      expect(() => world.setParticle(2, { velocity: [0, 0, 0] })).toThrow(InvalidInputError);
    });
  });
});
