/**
 * The scan's 'tiled' variant (the one 'auto' takes on a GPU) under every caller of the scan: the
 * grid's bucket offsets, the radix sort's digit offsets (the BVH's and the sweep's sorts), the
 * casts' all-hits offsets, and the particle solver's contact list (gated, direct and indirect).
 * A second device is told to prefer it; its answers must be the 'serial' device's, bit for bit
 * (a scan is integer arithmetic: the variants differ in order of work only). On a GPU, where
 * the fixture's device already runs 'tiled', the other device runs 'serial'.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { useGpu } from '../support/gpu.js';
import { requestTestDevice, sameBits } from '../support/device.js';
import { uniformScene, mixedRadiiScene } from '../support/scenes.js';
import { pileScene } from '../support/pile.js';
import { mulberry32 } from '../support/random.js';
import { createCollider, type Collider } from '../../src/collider.js';
import { createParticleWorld, type ParticleWorldOptions } from '../../src/particles/index.js';
import { autoScanVariant, preferScanVariant, type ScanVariant } from '../../src/passes/scan.js';

const gpu = useGpu();
let other: { device: GPUDevice; collider: Collider; variant: ScanVariant };

beforeAll(async () => {
  const device = await requestTestDevice();
  const variant = autoScanVariant(gpu.device) === 'serial' ? 'tiled' : 'serial';
  preferScanVariant(device, variant);
  other = { device, collider: await createCollider({ device }), variant };
});

afterAll(() => {
  other?.collider.destroy();
  other?.device.destroy();
});

const sortedPairs = (pairs: Uint32Array): string[] => {
  const out: string[] = [];
  for (let k = 0; k < pairs.length; k += 2) out.push(`${pairs[k]},${pairs[k + 1]}`);
  return out.sort();
};

/** Rays from random points to random points across the scene's cube. */
function rays(count: number, side: number, seed: number): Float32Array {
  const rand = mulberry32(seed);
  return Float32Array.from({ length: 6 * count }, () => rand() * side);
}

describe("the scan's other variant under every caller gives the same answers", () => {
  it('the devices run different variants', () => {
    expect(autoScanVariant(other.device)).toBe(other.variant);
    expect(autoScanVariant(gpu.device)).not.toBe(other.variant);
  });

  for (const broadphase of ['grid', 'bvh', 'sweep'] as const) {
    it(`sphere pairs, broadphase '${broadphase}' (seed 1301)`, async () => {
      const spheres = mixedRadiiScene(6000, { seed: 1301 }, 0.05, 1);
      const mine = await gpu.collider.spherePairs(spheres, { broadphase });
      const theirs = await other.collider.spherePairs(spheres, { broadphase });
      expect(mine.length).toBeGreaterThan(1000);
      expect(sortedPairs(theirs)).toEqual(sortedPairs(mine));
    });
  }

  for (const broadphase of ['grid', 'bvh'] as const) {
    it(`all hits of 3,000 rays, broadphase '${broadphase}' (seed 1302)`, async () => {
      const spheres = uniformScene(4000, { seed: 1302 });
      let side = 0;
      for (let k = 0; k < spheres.length; k += 4) side = Math.max(side, spheres[k], spheres[k + 1], spheres[k + 2]);
      const batch = rays(3000, side, 1302);
      const mine = await gpu.collider.raycast(batch, spheres, { broadphase, allHits: true });
      const theirs = await other.collider.raycast(batch, spheres, { broadphase, allHits: true });
      expect(mine.index.length).toBeGreaterThan(3000);
      expect(Array.from(theirs.offsets)).toEqual(Array.from(mine.offsets));
      expect(sameBits(theirs.index, mine.index)).toBe(true);
      expect(sameBits(theirs.distance, mine.distance)).toBe(true);
    });
  }

  it('a particle pile that searches, keeps its lists and sleeps, direct and indirect (seed 1303)', async () => {
    // (A box tall enough for the pile: particles jammed deeper than slop + 2% of a radius do not sleep.)
    const scene = pileScene({ n: 1000, bounds: [0, 0, 0, 8, 24, 8], seed: 1303 });
    const run = async (device: GPUDevice, dispatch: 'direct' | 'indirect') => {
      const options: ParticleWorldOptions = {
        device,
        capacity: 1000,
        gravity: [0, -9.8, 0],
        restitution: 0.2,
        friction: 0.5,
        bounds: scene.bounds,
        dispatch,
        sleepTime: 0.25,
      };
      const world = await createParticleWorld(options);
      try {
        world.setParticles({ spheres: scene.spheres, velocities: scene.velocities });
        for (let k = 0; k < 60; k++) await world.step(1 / 60);
        for (let k = 0; k < 12; k++) await world.step(1 / 60, 30);
        return {
          state: await world.read(),
          searches: await world.contactSearches(),
          asleep: await world.sleepingCount(),
        };
      } finally {
        world.destroy();
      }
    };
    const mine = await run(gpu.device, 'indirect');
    expect(mine.searches.searches).toBeGreaterThan(0);
    expect(mine.searches.searches).toBeLessThan(mine.searches.steps);
    expect(mine.asleep).toBeGreaterThan(0);
    for (const dispatch of ['direct', 'indirect'] as const) {
      const theirs = await run(other.device, dispatch);
      expect(theirs.searches, dispatch).toEqual(mine.searches);
      expect(theirs.asleep, dispatch).toBe(mine.asleep);
      expect(sameBits(theirs.state.spheres, mine.state.spheres), dispatch).toBe(true);
      expect(sameBits(theirs.state.velocities, mine.state.velocities), dispatch).toBe(true);
    }
  }, 600_000);
});
