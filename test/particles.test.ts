/**
 * The particle world: GPU steps against the CPU twin on seeded scenes (seed in the names), the
 * textbook collisions, conservation laws, stability, determinism, and bad parameters.
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from './support/gpu.js';
import { sameBits } from './support/device.js';
import { createParticleWorld, defaultInverseMass, type ParticleWorld, type ParticleWorldOptions, type ParticleSet } from '../src/particles.js';
import { particleStep, type StepParams } from '../src/reference/particles.js';
import { InvalidInputError, CapacityError } from '../src/errors.js';
import { RULES } from '../src/validate.js';
import { mulberry32, gaussian } from './support/random.js';
import { nearestViolations, allHitsViolations } from './support/casts.js';
import { BufferUsage } from '../src/gpu/flags.js';
import { readBuffer } from '../src/gpu/buffers.js';
import { CastHitRecord } from '../src/layout.js';

const gpu = useGpu();

async function withWorld<T>(options: Omit<ParticleWorldOptions, 'device'>, body: (world: ParticleWorld) => Promise<T>): Promise<T> {
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
    if (inverseMasses[i] > 0) e += (0.5 / inverseMasses[i]) * (velocities[3 * i] ** 2 + velocities[3 * i + 1] ** 2 + velocities[3 * i + 2] ** 2);
  }
  return e;
}

describe('GPU step vs the CPU twin', () => {
  for (const [name, seed, mixed, gravity, bounded] of [
    ['2000 equal spheres in a box with gravity', 1001, false, [0, -9.8, 0], true],
    ['2000 mixed radii (1:2) in a box', 1002, true, [0, 0, 0], true],
    ['1500 unbounded, hashed grid', 1003, false, [0, 0, 0], false],
  ] as const) {
    it(`${name}, seed ${seed}: 5 steps particle by particle`, async () => {
      const scene = boxScene(seed === 1003 ? 1500 : 2000, seed, { mixed });
      const options = { capacity: 4000, gravity, restitution: 0.7, bounds: bounded ? scene.bounds : undefined };
      await withWorld(options, async (world) => {
        world.setParticles({ spheres: scene.spheres, velocities: scene.velocities });
        expect(world.plan!.dense).toBe(bounded);
        const params: StepParams = { dt: 1 / 120, gravity, restitution: 0.7, percent: 0.8, slop: 0.01, bounds: bounded ? scene.bounds : null };
        let cpu: { spheres: Float32Array; velocities: Float32Array } = { spheres: scene.spheres.slice(), velocities: packed(scene.velocities, scene.spheres) };
        for (let step = 1; step <= 5; step++) {
          await world.step(params.dt);
          cpu = particleStep(cpu.spheres, cpu.velocities, params, world.plan!);
          const gpu = await world.read();
          let worst = 0;
          for (let i = 0; i < gpu.inverseMasses.length; i++) {
            for (let a = 0; a < 3; a++) {
              worst = Math.max(worst, Math.abs(gpu.spheres[4 * i + a] - cpu.spheres[4 * i + a]) / scene.side);
              worst = Math.max(worst, Math.abs(gpu.velocities[3 * i + a] - cpu.velocities[4 * i + a]) / 10);
            }
          }
          expect(worst, `step ${step}: largest difference (relative to the box and to speed 10)`).toBeLessThan(2e-5);
        }
        expect(await world.contactCount()).toBeGreaterThan(10);
      });
    });
  }
});

describe('folded dispatches', () => {
  it('with at most 3 workgroups per dimension the step folds and still matches the CPU twin (seed 1004)', async () => {
    const scene = boxScene(1000, 1004); // 8 workgroups of 128 particles: 3 × 3
    await withWorld({ capacity: 1000, bounds: scene.bounds, maxWorkgroupsPerDimension: 3 }, async (world) => {
      world.setParticles({ spheres: scene.spheres, velocities: scene.velocities });
      await world.step(1 / 120);
      const cpu = particleStep(scene.spheres, packed(scene.velocities, scene.spheres), { dt: 1 / 120, gravity: [0, 0, 0], restitution: 1, percent: 0.8, slop: 0.01, bounds: scene.bounds }, world.plan!);
      const gpu = await world.read();
      let worst = 0;
      for (let i = 0; i < 1000; i++) for (let a = 0; a < 3; a++) worst = Math.max(worst, Math.abs(gpu.spheres[4 * i + a] - cpu.spheres[4 * i + a]));
      expect(worst / scene.side).toBeLessThan(2e-5);
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

  it('unequal masses: v1\' = ((m1 − e m2) v1 + (1 + e) m2 v2) / (m1 + m2), and symmetrically', async () => {
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
    await withWorld({ capacity: 2, percent: 1, slop: 0 }, async (world) => {
      // Overlap 0.5 along x; B is 3 times lighter (inverse mass 3 vs 1): it moves 3/4 of it.
      world.setParticles({ spheres: new Float32Array([0, 0, 0, 1, 1.5, 0, 0, 1]), velocities: new Float32Array(6), inverseMasses: new Float32Array([1, 3]) });
      await world.step(1e-6);
      const { spheres } = await world.read();
      expect(spheres[0]).toBeCloseTo(-0.125, 5);
      expect(spheres[4]).toBeCloseTo(1.5 + 0.375, 5);
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
        for (let i = 0; i < inverseMasses.length; i++) for (let a = 0; a < 3; a++) p[a] += velocities[3 * i + a] / inverseMasses[i];
        return p;
      };
      const before = await momentum();
      let scale = 0;
      for (let i = 0; i < 2000; i++) scale += Math.hypot(scene.velocities[3 * i], scene.velocities[3 * i + 1], scene.velocities[3 * i + 2]) / defaultInverseMass(scene.spheres[4 * i + 3]);
      await world.step(1 / 120, 50);
      expect(await world.contactCount()).toBeGreaterThan(100);
      const after = await momentum();
      for (let a = 0; a < 3; a++) expect(Math.abs(after[a] - before[a]) / scale).toBeLessThan(1e-5);
    });
  });

  for (const e of [1, 0.5]) {
    it(`kinetic energy never increases, e = ${e}, in a closed box (seed 1102)`, async () => {
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
          expect(next, `step ${step}`).toBeLessThanOrEqual(energy * (1 + 1e-5));
          energy = next;
        }
        if (e < 1) expect(energy).toBeLessThan(first);
      });
    });
  }

  it('2,000 steps of a dense box under gravity: nothing escapes, no NaN (seed 1103)', async () => {
    const scene = boxScene(1000, 1103, { fraction: 0.35, mixed: true, speed: 5 });
    await withWorld({ capacity: 1000, gravity: [0, -9.8, 0], restitution: 0.9, bounds: scene.bounds }, async (world) => {
      world.setParticles({ spheres: scene.spheres, velocities: scene.velocities });
      for (let batch = 0; batch < 20; batch++) await world.step(1 / 240, 100);
      const { spheres, velocities } = await world.read();
      for (let i = 0; i < 1000; i++) {
        for (let a = 0; a < 3; a++) {
          expect(Number.isFinite(spheres[4 * i + a]) && Number.isFinite(velocities[3 * i + a])).toBe(true);
          expect(spheres[4 * i + a]).toBeGreaterThanOrEqual(scene.bounds[a]);
          expect(spheres[4 * i + a]).toBeLessThanOrEqual(scene.bounds[a + 3]);
        }
      }
    });
  });

  it('coincident particles separate, without NaN', async () => {
    await withWorld({ capacity: 20, bounds: [-10, -10, -10, 10, 10, 10] }, async (world) => {
      const spheres = new Float32Array(4 * 20);
      for (let i = 0; i < 20; i++) spheres.set([1, 2, 3, 0.5], 4 * i);
      world.setParticles({ spheres, velocities: new Float32Array(60) });
      await world.step(1 / 60, 200);
      const { spheres: out, velocities } = await world.read();
      expect(Array.from(out).every(Number.isFinite) && Array.from(velocities).every(Number.isFinite)).toBe(true);
      let closest = Infinity;
      for (let i = 0; i < 20; i++) for (let j = i + 1; j < 20; j++) closest = Math.min(closest, Math.hypot(out[4 * i] - out[4 * j], out[4 * i + 1] - out[4 * j + 1], out[4 * i + 2] - out[4 * j + 2]));
      expect(closest).toBeGreaterThan(0.5); // no longer coincident: well apart (touching is 1)
    });
  });
});

describe('determinism', () => {
  it('the same start gives bitwise-identical states after 100 steps (seed 1201)', async () => {
    const scene = boxScene(3000, 1201, { fraction: 0.3, mixed: true });
    const run = () => withWorld({ capacity: 3000, gravity: [0, -9.8, 0], restitution: 0.8, bounds: scene.bounds }, async (world) => {
      world.setParticles({ spheres: scene.spheres, velocities: scene.velocities });
      await world.step(1 / 120, 100);
      return world.read();
    });
    const a = await run();
    const b = await run();
    expect(sameBits(a.spheres, b.spheres)).toBe(true);
    expect(sameBits(a.velocities, b.velocities)).toBe(true);
  });
});

describe('bad parameters get typed errors', () => {
  const spheres = new Float32Array([0, 0, 0, 1, 3, 0, 0, 1]);
  const velocities = new Float32Array(6);
  const invalid = async (fn: () => unknown, argument: string, rule: string, index = -1): Promise<void> => {
    const error = await Promise.resolve().then(fn).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect({ argument: (error as InvalidInputError).argument, rule: (error as InvalidInputError).rule, index: (error as InvalidInputError).index }).toEqual({ argument, rule, index });
  };

  it('dt ≤ 0, NaN or infinite; steps not a positive integer', async () => {
    await withWorld({ capacity: 2 }, async (world) => {
      world.setParticles({ spheres, velocities });
      for (const dt of [0, -1, NaN, Infinity]) await invalid(() => world.step(dt), 'dt', RULES.option);
      await invalid(() => world.step(0.01, 0), 'steps', RULES.option);
      await invalid(() => world.step(0.01, 1.5), 'steps', RULES.option);
    });
  });

  it('restitution, percent outside [0, 1]; negative slop; bad gravity, bounds, capacity', async () => {
    for (const restitution of [-0.1, 1.1, NaN]) await invalid(() => createParticleWorld({ device: gpu.device, capacity: 2, restitution }), 'options.restitution', RULES.option);
    await invalid(() => createParticleWorld({ device: gpu.device, capacity: 2, percent: 2 }), 'options.percent', RULES.option);
    await invalid(() => createParticleWorld({ device: gpu.device, capacity: 2, slop: -1 }), 'options.slop', RULES.option);
    await invalid(() => createParticleWorld({ device: gpu.device, capacity: 2, gravity: [0, NaN, 0] }), 'options.gravity', RULES.vector);
    await invalid(() => createParticleWorld({ device: gpu.device, capacity: 2, bounds: [0, 0, 0, 1, -1, 1] }), 'options.bounds', RULES.bounds);
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
      expect([error.count, error.capacity]).toEqual([2, 1]);
    });
  });

  it('particles: mismatched counts, bad inverse masses, a centre outside the bounds', async () => {
    await withWorld({ capacity: 4, bounds: [-5, -5, -5, 5, 5, 5] }, async (world) => {
      await invalid(() => world.setParticles({ spheres, velocities: new Float32Array(3) }), 'velocities', RULES.count);
      await invalid(() => world.setParticles({ spheres, velocities: new Float32Array([0, 0, 0, 0, NaN, 0]) }), 'velocities', RULES.finite, 1);
      await invalid(() => world.setParticles({ spheres, velocities, inverseMasses: new Float32Array([1, -1]) }), 'inverseMasses', RULES.inverseMass, 1);
      await invalid(() => world.setParticles({ spheres, velocities, inverseMasses: new Float32Array([1]) }), 'inverseMasses', RULES.count);
      await invalid(() => world.setParticles({ spheres: new Float32Array([0, 0, 0, 1, 0, 6, 0, 1]), velocities }), 'spheres', RULES.outside, 1);
      await invalid(() => world.setParticles({ spheres: new Float32Array([0, 0, 0, -1]), velocities: new Float32Array(3) }), 'spheres', RULES.radius, 0);
    });
  });

  it('a radius whose default inverse mass (1 / volume) leaves f32: defaultMass, unless inverseMasses are given', async () => {
    await withWorld({ capacity: 2 }, async (world) => {
      const v = new Float32Array(6);
      await invalid(() => world.setParticles({ spheres: new Float32Array([0, 0, 0, 1, 5, 0, 0, 1e-14]), velocities: v }), 'spheres', RULES.defaultMass, 1);
      await invalid(() => world.setParticles({ spheres: new Float32Array([0, 0, 0, 1e14, 5, 0, 0, 1]), velocities: v }), 'spheres', RULES.defaultMass, 0);
      world.setParticles({ spheres: new Float32Array([0, 0, 0, 1e14, 5, 0, 0, 1e-14]), velocities: v, inverseMasses: new Float32Array([0, 1]) });
      world.setParticles({ spheres: new Float32Array([0, 0, 0, 1e12, 5e12, 0, 0, 1e-12]), velocities: v });
      expect(Array.from((await world.read()).inverseMasses).every((w) => w > 0 && Number.isFinite(w))).toBe(true);
    });
  });
});

describe('reads and queries see the world as it was when they were called', () => {
  const moving = (): ParticleSet => ({ spheres: new Float32Array([0, 0, 0, 1, 10, 0, 0, 1]), velocities: new Float32Array([0, 0, 0, 100, 0, 0]) });

  it('read() and contactCount() called before a step return the state before it', async () => {
    await withWorld({ capacity: 2 }, async (world) => {
      world.setParticles(moving());
      const before = world.read();
      const step = world.step(1);
      const after = world.read();
      await step;
      expect((await before).spheres[4]).toBe(10);
      expect((await after).spheres[4]).toBe(110);
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

describe('queries against the particles', () => {
  it('raycast and sphereCast of the current particles match the reference, both broad phases (seed 1301)', async () => {
    const scene = boxScene(3000, 1301, { fraction: 0.25 });
    await withWorld({ capacity: 3000, gravity: [0, -9.8, 0], bounds: scene.bounds }, async (world) => {
      world.setParticles({ spheres: scene.spheres, velocities: scene.velocities });
      await world.step(1 / 60, 5);
      const { spheres } = await world.read();
      const rand = mulberry32(1301);
      const rays = new Float32Array(6 * 500);
      for (let k = 0; k < 500; k++) rays.set([0, 1, 2, 3, 4, 5].map(() => (rand() * 1.4 - 0.2) * scene.side), 6 * k);
      const casts = new Float32Array(7 * 300);
      for (let k = 0; k < 300; k++) casts.set([...rays.subarray(6 * k, 6 * k + 6), 0.3], 7 * k);
      for (const broadphase of ['all-pairs', 'grid'] as const) {
        const hits = await world.raycast(rays, { broadphase });
        expect(nearestViolations(rays, 6, spheres, hits), broadphase).toEqual([]);
        expect(hits.index.filter((i) => i >= 0).length).toBeGreaterThan(100);
        const all = await world.raycast(rays, { broadphase, allHits: true });
        expect(allHitsViolations(rays, 6, spheres, all), broadphase).toEqual([]);
        expect(nearestViolations(casts, 7, spheres, await world.sphereCast(casts, { broadphase })), broadphase).toEqual([]);
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
      const raysBuffer = device.createBuffer({ size: packedRays.byteLength, usage: BufferUsage.STORAGE | BufferUsage.COPY_DST });
      const hitsBuffer = device.createBuffer({ size: CastHitRecord.size * count, usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC });
      try {
        device.queue.writeBuffer(raysBuffer, 0, packedRays);
        const encoder = device.createCommandEncoder();
        world.encodeRaycast(encoder, raysBuffer, count, hitsBuffer, Math.sqrt(3) * scene.side);
        device.queue.submit([encoder.finish()]);
        const records = new Int32Array(await readBuffer(device, hitsBuffer, 0, CastHitRecord.size * count));
        const expected = await world.raycast(rays, { broadphase: 'grid' });
        const got = Array.from({ length: count }, (_, k) => records[(CastHitRecord.size / 4) * k + CastHitRecord.offsets.index / 4]);
        expect(got).toEqual(Array.from(expected.index));
      } finally {
        raysBuffer.destroy();
        hitsBuffer.destroy();
      }
    });
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
