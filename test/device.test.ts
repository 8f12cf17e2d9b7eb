/**
 * The Node device: what it reports, the limits it asks for, and the dawn.node crash of
 * PLATFORM.md: if Dawn's instance is collected while its device is in use, the process dies at
 * the next GC. requestNodeDevice holds the instance; this test makes the instance unreachable
 * from our side and forces collections between dispatches (vitest runs with --expose-gc).
 */
import { describe, it, expect } from 'vitest';
import { requestNodeDevice, describeDevice, liveDeviceCount } from '../src/node.js';
import { createCollider } from '../src/collider.js';
import { uniformScene } from './support/scenes.js';
import { bruteForceSpherePairs, sortPairs } from '../src/reference/spherePairs.js';

const gc = (globalThis as { gc?: () => void }).gc;

describe('requestNodeDevice', () => {
  it('reports its adapter and asks for the adapter limits', async () => {
    const device = await requestNodeDevice();
    try {
      const info = describeDevice(device)!;
      expect(info).toBeDefined();
      expect(typeof info.isFallbackAdapter).toBe('boolean');
      expect(info.vendor.length + info.description.length).toBeGreaterThan(0);
      // WebGPU's default is 128 MiB; every adapter we run on offers more, and we take it.
      expect(device.limits.maxStorageBufferBindingSize).toBeGreaterThan(128 * 1024 * 1024);
    } finally {
      device.destroy();
    }
  });

  it('keeps Dawn alive under forced GC between dispatches, and lets it go after destroy', { timeout: 120_000 }, async () => {
    expect(gc, 'vitest must run node with --expose-gc').toBeTypeOf('function');
    const before = liveDeviceCount();
    // Only the device escapes this function: the GPU instance is unreachable from here on.
    const device = await (async () => requestNodeDevice())();
    expect(liveDeviceCount()).toBe(before + 1);
    const collider = await createCollider({ device });
    const spheres = uniformScene(300, { seed: 301 });
    const expected = bruteForceSpherePairs(spheres);
    // 1,000 dispatches (each call submits several), with a forced collection every 10 calls.
    for (let k = 0; k < 1000; k++) {
      if (k % 10 === 0) {
        gc!();
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      const pairs = await collider.spherePairs(spheres, { broadphase: k % 2 ? 'grid' : 'all-pairs' });
      if (k % 50 === 0) expect(sortPairs(pairs)).toEqual(expected);
    }
    collider.destroy();
    device.destroy();
    await device.lost;
    expect(liveDeviceCount()).toBe(before);
    gc!();
  });
});
