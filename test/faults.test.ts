/**
 * Device faults and lifetimes: a device lost mid-call rejects pending and later calls with a
 * typed error and hangs nothing; a new device then works; destroying a collider or world
 * mid-call rejects with DestroyedError; a thousand create/destroy cycles do not grow memory.
 */
import { describe, it, expect } from 'vitest';
import { requestTestDevice, inBrowser } from './support/device.js';
import { createCollider } from '../src/collider.js';
import { createParticleWorld } from '../src/particles/index.js';
import { DeviceLostError, DestroyedError, CapacityError } from '../src/errors.js';
import { uniformScene } from './support/scenes.js';
import { bruteForceSpherePairs, sortPairs } from '../src/reference/spherePairs.js';

describe('device loss', () => {
  it('a device destroyed mid-call: pending and later calls reject with DeviceLostError, nothing hangs, a new device works', {
    timeout: 30_000,
  }, async () => {
    const device = await requestTestDevice();
    const collider = await createCollider({ device });
    const world = await createParticleWorld({ device, capacity: 1000 });
    world.setParticles({ spheres: uniformScene(1000, { seed: 1 }), velocities: new Float32Array(3000) });
    const scene = uniformScene(20_000, { seed: 2 });
    const pending = [
      collider.spherePairs(scene),
      collider.raycast(new Float32Array([0, 0, 0, 50, 50, 50]), scene),
      world.step(1 / 60, 10),
      world.read(),
    ];
    device.destroy();
    const outcomes = await Promise.allSettled(pending);
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(DeviceLostError);
    }
    await expect(collider.spherePairs(scene)).rejects.toBeInstanceOf(DeviceLostError);
    await expect(world.step(1 / 60)).rejects.toBeInstanceOf(DeviceLostError);
    collider.destroy();
    world.destroy();

    const fresh = await requestTestDevice();
    try {
      const again = await createCollider({ device: fresh });
      const small = uniformScene(500, { seed: 3 });
      expect(sortPairs(await again.spherePairs(small))).toEqual(bruteForceSpherePairs(small));
      again.destroy();
    } finally {
      fresh.destroy();
    }
  });

  it('a collider or world destroyed mid-call: the call rejects with DestroyedError (a read already copied still answers)', {
    timeout: 30_000,
  }, async () => {
    const device = await requestTestDevice();
    try {
      const collider = await createCollider({ device });
      const call = collider.spherePairs(uniformScene(5000, { seed: 4 }));
      collider.destroy();
      await expect(call).rejects.toBeInstanceOf(DestroyedError);

      const world = await createParticleWorld({ device, capacity: 100 });
      world.setParticles({ spheres: uniformScene(100, { seed: 5 }), velocities: new Float32Array(300) });
      // A read copies the state when it is called: one made before destroy() still answers.
      const read = world.read();
      const query = world.raycast(new Float32Array([0, 0, 0, 50, 50, 50])).catch((error: unknown) => error);
      world.destroy();
      expect((await read).spheres.length).toBe(400);
      expect(await query).toBeInstanceOf(DestroyedError);
      await expect(world.read()).rejects.toBeInstanceOf(DestroyedError);
      await expect(world.step(1 / 60)).rejects.toBeInstanceOf(DestroyedError);
    } finally {
      device.destroy();
    }
  });
});

describe('lifetimes', () => {
  /** The labels of the buffers `device` made that are not destroyed yet. */
  function trackBuffers(device: GPUDevice): Map<GPUBuffer, string> {
    const live = new Map<GPUBuffer, string>();
    const create = device.createBuffer.bind(device);
    device.createBuffer = (descriptor: GPUBufferDescriptor): GPUBuffer => {
      const buffer = create(descriptor);
      live.set(buffer, descriptor.label ?? '(no label)');
      const destroy = buffer.destroy.bind(buffer);
      buffer.destroy = () => {
        live.delete(buffer);
        destroy();
      };
      return buffer;
    };
    return live;
  }

  it('destroy() frees every buffer a call made: one that ran again, one refused by maxPairs, one in flight (it rejects)', {
    timeout: 60_000,
  }, async () => {
    const device = await requestTestDevice();
    const live = trackBuffers(device);
    const remaining = (): string[] => [...live.values()].filter((label) => !label.includes('readback'));
    try {
      // 7,000-odd pairs: more than the first list holds (4,096), so the call runs again.
      const dense = uniformScene(3000, { seed: 7, fraction: 0.6 });
      const rays = new Float32Array(60);
      for (let k = 0; k < 10; k++) rays.set([0, k, 0, 30, k, 30], 6 * k);
      const collider = await createCollider({ device });
      expect(sortPairs(await collider.spherePairs(dense))).toEqual(bruteForceSpherePairs(dense));
      expect((await collider.raycast(rays, dense, { allHits: true })).offsets[10]).toBeGreaterThan(10);
      collider.destroy();
      expect(remaining(), 'after calls that ran again').toEqual([]);

      const refusing = await createCollider({ device });
      for (let k = 0; k < 5; k++)
        await expect(refusing.spherePairs(dense, { maxPairs: 1 })).rejects.toBeInstanceOf(CapacityError);
      refusing.destroy();
      expect(remaining(), 'after calls refused by maxPairs').toEqual([]);

      const busy = await createCollider({ device });
      const call = busy.spherePairs(dense);
      await new Promise((resolve) => setTimeout(resolve, 5));
      busy.destroy();
      await expect(call).rejects.toBeInstanceOf(DestroyedError);
      expect(remaining(), 'after a call in flight').toEqual([]);

      const world = await createParticleWorld({ device, capacity: 3000 });
      world.setParticles({ spheres: dense, velocities: new Float32Array(9000) });
      expect((await world.raycast(rays, { allHits: true })).offsets[10]).toBeGreaterThan(10);
      const encoder = device.createCommandEncoder();
      world.encode(encoder, 1 / 60);
      device.queue.submit([encoder.finish()]);
      const check = world.checkContactCapacity();
      world.destroy();
      await expect(check, 'checkContactCapacity in flight grows no list after destroy()').rejects.toBeInstanceOf(
        DestroyedError,
      );
      expect(remaining(), 'after a world').toEqual([]);
    } finally {
      device.destroy();
    }
  });

  // Dawn returns the memory of destroyed resources when the queue is next waited on; every cycle
  // here reads something back, as a user does. (A loop that never waits holds that memory until
  // it does: docs/RELIABILITY.md.)
  it.skipIf(inBrowser)(
    '1,000 collider and world create/query/destroy cycles: resident memory stays flat',
    { timeout: 300_000 },
    async () => {
      const device = await requestTestDevice();
      const scene = uniformScene(300, { seed: 6 });
      const expected = bruteForceSpherePairs(scene);
      const cycle = async (): Promise<void> => {
        const collider = await createCollider({ device });
        expect(sortPairs(await collider.spherePairs(scene, { broadphase: 'grid' }))).toEqual(expected);
        collider.destroy();
        const world = await createParticleWorld({ device, capacity: 300 });
        world.setParticles({ spheres: scene, velocities: new Float32Array(900) });
        await world.step(1 / 60);
        expect(await world.contactCount()).toBeGreaterThanOrEqual(0); // a readback, as any user makes
        world.destroy();
      };
      const gc = (globalThis as { gc?: () => void }).gc;
      // A destroyed buffer's wrapper still holds native memory until it is collected and its
      // finaliser has run, which happens after the collection, in a later task: collect, let the
      // finalisers run, collect again. (One bare gc() left 13–70 MiB uncollected, by timing.)
      const settle = async (): Promise<void> => {
        for (let k = 0; k < 3; k++) {
          gc?.();
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      };
      try {
        for (let k = 0; k < 100; k++) await cycle(); // warm up: caches, JIT, allocator pools
        await settle();
        const before = process.memoryUsage().rss;
        for (let k = 0; k < 1000; k++) await cycle();
        await settle();
        const grown = (process.memoryUsage().rss - before) / 2 ** 20;
        expect(grown, `resident memory grew by ${grown.toFixed(1)} MiB`).toBeLessThan(24);
      } finally {
        device.destroy();
      }
    },
  );
});
