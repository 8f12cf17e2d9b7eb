/**
 * Precision far from the origin: a scene translated by 1e5 and by 1e6 gives the same pairs and
 * hits as at the origin. The scene's coordinates are multiples of 1/8, exact in f32 up to 2^21,
 * so the translated inputs are exact translates; only the library's own arithmetic could then
 * differ, and it computes differences (and grid cells relative to a local origin), not absolute
 * positions.
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from '../support/gpu.js';
import { mulberry32 } from '../support/random.js';
import { sortPairs, bruteForceSpherePairs } from '../../src/reference/spherePairs.js';

const gpu = useGpu();
const rand = mulberry32(1501);
const eighth = (range: number): number => Math.round(rand() * range * 8) / 8;
const N = 2000;
const spheres = Float32Array.from({ length: 4 * N }, (_, k) => (k % 4 === 3 ? 0.25 + eighth(0.75) : eighth(48)));
const aabbs = Float32Array.from({ length: 6 * 200 }, () => eighth(48)).map((v, k, a) =>
  k % 6 < 3 ? v : a[k - 3] + eighth(4),
);
const boxes = Float32Array.from({ length: 10 * 200 }, (_, k) =>
  k % 10 < 3 ? eighth(48) : k % 10 < 6 ? eighth(3) : [0, 0, 0.6, 0.8][(k % 10) - 6],
);
const rays = Float32Array.from({ length: 6 * 400 }, () => eighth(48));

const shifted = (records: Float32Array, stride: number, translated: number, offset: number): Float32Array =>
  records.map((v, k) => (k % stride < translated ? v + offset : v));

describe('precision far from the origin', () => {
  it('the inputs are exact translates (multiples of 1/8 are exact in f32 up to 2^21)', () => {
    for (const offset of [1e5, 1e6]) {
      const moved = shifted(spheres, 4, 3, offset);
      for (let k = 0; k < moved.length; k++) if (k % 4 < 3) expect(moved[k] - offset).toBe(spheres[k]);
    }
  });

  for (const offset of [1e5, 1e6]) {
    it(`translated by ${offset.toExponential(0)}: the same pairs, box pairs and hits as at the origin`, async () => {
      const here = {
        pairs: sortPairs(await gpu.collider.spherePairs(spheres, { broadphase: 'grid' })),
        boxes: sortPairs(await gpu.collider.sphereBoxPairs(spheres, aabbs, { broadphase: 'grid' })),
        oriented: sortPairs(await gpu.collider.sphereOrientedBoxPairs(spheres, boxes, { broadphase: 'grid' })),
        rays: await gpu.collider.raycast(rays, spheres, { broadphase: 'grid' }),
      };
      expect(here.pairs).toEqual(bruteForceSpherePairs(spheres));
      const s = shifted(spheres, 4, 3, offset);
      for (const broadphase of ['all-pairs', 'grid'] as const) {
        expect(sortPairs(await gpu.collider.spherePairs(s, { broadphase })), `pairs, ${broadphase}`).toEqual(
          here.pairs,
        );
        expect(
          sortPairs(await gpu.collider.sphereBoxPairs(s, shifted(aabbs, 6, 6, offset), { broadphase })),
          `boxes, ${broadphase}`,
        ).toEqual(here.boxes);
        expect(
          sortPairs(await gpu.collider.sphereOrientedBoxPairs(s, shifted(boxes, 10, 3, offset), { broadphase })),
          `oriented boxes, ${broadphase}`,
        ).toEqual(here.oriented);
        const far = await gpu.collider.raycast(shifted(rays, 6, 6, offset), s, { broadphase });
        expect(Array.from(far.index), `ray hits, ${broadphase}`).toEqual(Array.from(here.rays.index));
        for (let k = 0; k < far.index.length; k++)
          if (far.index[k] >= 0)
            expect(Math.abs(far.distance[k] - here.rays.distance[k])).toBeLessThanOrEqual(
              1e-5 * (1 + here.rays.distance[k]),
            );
      }
    });
  }
});
