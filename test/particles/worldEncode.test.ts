/**
 * world.encode shares a submission: several encode calls, with different dt and step counts,
 * recorded into one encoder and submitted once, give bit for bit the state that the same steps
 * give through step() one call at a time (seed in the name). With box colliders, and the
 * collider contacts read out of the same encoder.
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from '../support/gpu.js';
import { sameBits } from '../support/device.js';
import { createParticleWorld } from '../../src/particles/index.js';
import { mulberry32 } from '../support/random.js';
import { BufferUsage } from '../../src/gpu/flags.js';
import { readBuffer } from '../../src/gpu/buffers.js';
import { CastHitRecord } from '../../shaders/passes/layout.js';

const gpu = useGpu();

describe('world.encode: several steps in one submission', () => {
  it('encode(1/60, 2), encode(1/120, 3), encode(1/90) in one encoder equal step() called so, seed 3101', async () => {
    const rand = mulberry32(3101);
    const n = 400;
    const spheres = new Float32Array(4 * n);
    const velocities = new Float32Array(3 * n);
    for (let i = 0; i < n; i++) {
      spheres.set([-4 + (i % 20) * 0.42, 0.5 + Math.floor(i / 20) * 0.42, 0.2 * (rand() - 0.5), 0.2], 4 * i);
      velocities.set([rand() - 0.5, -rand(), rand() - 0.5], 3 * i);
    }
    const boxes = new Float32Array([
      0,
      0,
      0,
      6,
      0.1,
      3,
      0,
      0,
      Math.sin(0.1),
      Math.cos(0.1),
      2,
      1,
      0,
      0.3,
      0.3,
      0.3,
      0,
      0,
      0,
      1,
    ]);
    const boxVelocities = new Float32Array([0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 2]);
    const make = async () => {
      const world = await createParticleWorld({
        device: gpu.device,
        capacity: 500,
        bounds: [-8, -2, -3, 8, 12, 3],
        gravity: [0, -9.8, 0],
        restitution: 0.3,
        friction: 0.4,
      });
      world.setParticles({ spheres, velocities });
      world.setColliders({ boxes, velocities: boxVelocities });
      return world;
    };
    const a = await make();
    const b = await make();
    try {
      const encoder = gpu.device.createCommandEncoder();
      a.encode(encoder, 1 / 60, 2);
      a.encode(encoder, 1 / 120, 3);
      const contacts = a.encodeColliderContacts(encoder);
      a.encode(encoder, 1 / 90);
      gpu.device.queue.submit([encoder.finish()]);
      await b.step(1 / 60, 2);
      await b.step(1 / 120, 3);
      const expected = await b.colliderContacts();
      await b.step(1 / 90);
      const [sa, sb] = [await a.read(), await b.read()];
      expect(sameBits(sa.spheres, sb.spheres), 'positions').toBe(true);
      expect(sameBits(sa.velocities, sb.velocities), 'velocities').toBe(true);
      const got = await contacts.read();
      const key = (r: { particles: Uint32Array; boxes: Uint32Array }): string[] =>
        Array.from(r.particles, (p, k) => `${p} ${r.boxes[k]}`).sort();
      expect(key(got)).toEqual(key(expected));
      expect(got.particles.length).toBeGreaterThan(0);
    } finally {
      a.destroy();
      b.destroy();
    }
  });
});

describe('world.encodeRaycast shares a submission', () => {
  /** `count` random rays across the box [lo, hi]^3, as the host takes them (6 floats) and packed for the GPU (8). */
  const raysIn = (count: number, lo: number, hi: number, rand: () => number) => {
    const host = new Float32Array(6 * count);
    const packed = new Float32Array(8 * count);
    for (let k = 0; k < count; k++) {
      const ray = [0, 1, 2, 3, 4, 5].map(() => lo + rand() * (hi - lo));
      host.set(ray, 6 * k);
      packed.set([...ray.slice(0, 3), 0, ...ray.slice(3), 0], 8 * k);
    }
    return { host, packed };
  };

  for (const bounded of [true, false]) {
    it(`raycasts, steps and raycasts again in one encoder give what raycast() gives between step() calls (${bounded ? 'bounded' : 'unbounded'}, seed 3102)`, async () => {
      const rand = mulberry32(3102);
      const n = 1500;
      const spheres = new Float32Array(4 * n);
      const velocities = new Float32Array(3 * n);
      for (let i = 0; i < n; i++) {
        spheres.set([-4 + 8 * rand(), 0.3 + 6 * rand(), -4 + 8 * rand(), 0.1 + 0.15 * rand()], 4 * i);
        velocities.set([rand() - 0.5, -2 * rand(), rand() - 0.5], 3 * i);
      }
      const options = {
        device: gpu.device,
        capacity: n,
        gravity: [0, -9.8, 0] as [number, number, number],
        restitution: 0.3,
        friction: 0.4,
        ...(bounded ? { bounds: [-5, 0, -5, 5, 8, 5] as [number, number, number, number, number, number] } : {}),
      };
      const a = await createParticleWorld(options);
      const b = await createParticleWorld(options);
      const device = gpu.device;
      const batches = [raysIn(300, -5, 8, rand), raysIn(200, -5, 8, rand), raysIn(77, -5, 8, rand)];
      const buffers = batches.map(({ packed }) => {
        const rays = device.createBuffer({
          size: packed.byteLength,
          usage: BufferUsage.STORAGE | BufferUsage.COPY_DST,
        });
        device.queue.writeBuffer(rays, 0, packed);
        const hits = device.createBuffer({
          size: CastHitRecord.size * (packed.length / 8),
          usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC,
        });
        return { rays, hits, count: packed.length / 8 };
      });
      try {
        a.setParticles({ spheres, velocities });
        b.setParticles({ spheres, velocities });
        const encoder = device.createCommandEncoder();
        // Two batches before the steps, one after, each of its own count: with parameters shared, the last (fewest) would cut the others short.
        for (const k of [0, 1]) a.encodeRaycast(encoder, buffers[k].rays, buffers[k].count, buffers[k].hits, 25);
        a.encode(encoder, 1 / 60, 3);
        a.encodeRaycast(encoder, buffers[2].rays, buffers[2].count, buffers[2].hits, 25);
        device.queue.submit([encoder.finish()]);
        const expected = [await b.raycast(batches[0].host), await b.raycast(batches[1].host)];
        await b.step(1 / 60, 3);
        expected.push(await b.raycast(batches[2].host));
        for (let k = 0; k < 3; k++) {
          const records = await readBuffer(device, buffers[k].hits, 0, CastHitRecord.size * buffers[k].count);
          const words = CastHitRecord.size / 4;
          const index = new Int32Array(records);
          const floats = new Float32Array(records);
          const got = Array.from(
            { length: buffers[k].count },
            (_, r) => index[words * r + CastHitRecord.offsets.index / 4],
          );
          expect(got, `batch ${k}`).toEqual(Array.from(expected[k].index));
          expect(got.filter((i) => i >= 0).length, `batch ${k} hits something`).toBeGreaterThan(10);
          for (let r = 0; r < buffers[k].count; r++) {
            if (got[r] < 0) continue;
            expect(
              Math.abs(floats[words * r + CastHitRecord.offsets.distance / 4] - expected[k].distance[r]),
              `batch ${k} ray ${r}`,
            ).toBeLessThan(1e-4);
          }
        }
      } finally {
        for (const { rays, hits } of buffers) {
          rays.destroy();
          hits.destroy();
        }
        a.destroy();
        b.destroy();
      }
    });
  }
});
