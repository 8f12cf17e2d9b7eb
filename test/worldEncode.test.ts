/**
 * world.encode shares a submission: several encode calls, with different dt and step counts,
 * recorded into one encoder and submitted once, give bit for bit the state that the same steps
 * give through step() one call at a time (seed in the name). With box colliders, and the
 * collider contacts read out of the same encoder.
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from './support/gpu.js';
import { sameBits } from './support/device.js';
import { createParticleWorld } from '../src/particles/index.js';
import { mulberry32 } from './support/random.js';

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
    const boxes = new Float32Array([0, 0, 0, 6, 0.1, 3, 0, 0, Math.sin(0.1), Math.cos(0.1), 2, 1, 0, 0.3, 0.3, 0.3, 0, 0, 0, 1]);
    const boxVelocities = new Float32Array([0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 2]);
    const make = async () => {
      const world = await createParticleWorld({ device: gpu.device, capacity: 500, bounds: [-8, -2, -3, 8, 12, 3], gravity: [0, -9.8, 0], restitution: 0.3, friction: 0.4 });
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
      const key = (r: { particles: Uint32Array; boxes: Uint32Array }): string[] => Array.from(r.particles, (p, k) => `${p} ${r.boxes[k]}`).sort();
      expect(key(got)).toEqual(key(expected));
      expect(got.particles.length).toBeGreaterThan(0);
    } finally {
      a.destroy();
      b.destroy();
    }
  });
});
