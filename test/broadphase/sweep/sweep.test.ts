/**
 * The sort-and-sweep broad phase beyond the shared scene lists (test/collider/spherePairs.test.ts and
 * test/collider/boxes.test.ts run it on every scene there, against the oracle and the grid): the axis
 * it picks, scenes long along each axis, a 100k-sphere long scene, and what it refuses.
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from '../../support/gpu.js';
import { mulberry32 } from '../../support/random.js';
import { bruteForceSpherePairs, sortPairs } from '../../../src/reference/spherePairs.js';
import { sweepSpherePairs, sweepOrder } from '../../../src/reference/sweep.js';
import { sweepAxis } from '../../../src/broadphase/sweep/axis.js';
import { chooseBroadphase } from '../../../src/broadphase/index.js';
import { validateSpheres } from '../../../src/validate.js';
import { InvalidInputError } from '../../../src/errors.js';

const gpu = useGpu();

/** n spheres (r in [0.2, 0.7]) in a box `long` long along `axis` and `short` across. */
function longScene(n: number, seed: number, axis: number, long: number, short: number): Float32Array {
  const rand = mulberry32(seed);
  const out = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) {
    const p = [0, 1, 2].map((a) => rand() * (a === axis ? long : short));
    out.set([...p, 0.2 + 0.5 * rand()], 4 * i);
  }
  return out;
}

describe("broadphase: 'sweep'", () => {
  for (const axis of [0, 1, 2]) {
    it(`sweeps along the long axis ${'xyz'[axis]} and finds the oracle's pairs (seed ${1500 + axis})`, async () => {
      const spheres = longScene(6000, 1500 + axis, axis, 3000, 6);
      expect(sweepAxis(validateSpheres('spheres', spheres))).toBe(axis);
      const oracle = bruteForceSpherePairs(spheres);
      expect(oracle.length).toBeGreaterThan(500);
      expect(sortPairs(await gpu.collider.spherePairs(spheres, { broadphase: 'sweep' }))).toEqual(
        sortPairs(await gpu.collider.spherePairs(spheres, { broadphase: 'grid' })),
      );
      expect(sortPairs(sweepSpherePairs(spheres))).toEqual(oracle);
    });
  }

  it('the sort orders lower ends (ties by index) and the twin agrees with it', () => {
    const spheres = new Float32Array([5, 0, 0, 1, 3, 0, 0, 1, 4, 0, 0, 0, -1, 0, 0, 0, 4, 0, 0, 0]);
    const { order, lower } = sweepOrder(spheres, 0);
    expect(Array.from(order)).toEqual([3, 1, 0, 2, 4]);
    expect(Array.from(lower)).toEqual([-1, 2, 4, 4, 4]);
  });

  it('100,000 spheres along a 20,000-long scene (seed 1510): the same pairs as the grid', async () => {
    const spheres = longScene(100_000, 1510, 0, 20_000, 10);
    const sweep = sortPairs(await gpu.collider.spherePairs(spheres, { broadphase: 'sweep' }));
    const grid = sortPairs(await gpu.collider.spherePairs(spheres, { broadphase: 'grid' }));
    expect(sweep.length).toBeGreaterThan(10_000);
    expect(sweep).toEqual(grid);
  });

  it('two and three spheres: touching counts, a gap does not, whatever the input order', async () => {
    const touching = new Float32Array([2, 0, 0, 1, 0, 0, 0, 1]);
    expect(Array.from(await gpu.collider.spherePairs(touching, { broadphase: 'sweep' }))).toEqual([0, 1]);
    const apart = new Float32Array([2.001, 0, 0, 1, 0, 0, 0, 1, 10, 0, 0, 7.999]);
    expect(sortPairs(await gpu.collider.spherePairs(apart, { broadphase: 'sweep' }))).toEqual(
      bruteForceSpherePairs(apart),
    );
  });

  it("'auto' sweeps the pairs of a long thin scene and keeps the grid for cubes, slabs and coincident piles", async () => {
    const pick = (spheres: Float32Array): string =>
      chooseBroadphase('auto', {
        query: 'pairs',
        sphereCount: spheres.length / 4,
        gridPlan: () => gpu.collider.planFor(spheres),
        stats: validateSpheres('spheres', spheres),
      });
    expect(pick(longScene(20_000, 1512, 1, 20_000, 4))).toBe('sweep');
    expect(pick(longScene(20_000, 1513, 0, 100, 100))).toBe('grid'); // a cube
    const slab = longScene(20_000, 1514, 2, 4, 400); // thin in z, wide in x and y
    expect(pick(slab)).toBe('grid');
    expect(pick(new Float32Array(4 * 1000).fill(1))).toBe('grid'); // all coincident
    expect(pick(longScene(100, 1515, 0, 20_000, 4))).toBe('all-pairs'); // few spheres
    // Through the Collider: the profile names the sweep's stages, and the pairs are the grid's.
    const long = longScene(20_000, 1512, 1, 20_000, 4);
    const auto = await gpu.collider.spherePairs(long, { profile: true });
    expect(gpu.collider.lastProfile?.stages.some((s) => s.name.startsWith('sweep'))).toBe(true);
    expect(sortPairs(auto)).toEqual(sortPairs(await gpu.collider.spherePairs(long, { broadphase: 'grid' })));
  });

  it('refuses rays and sphere casts with a typed error naming the option', async () => {
    const spheres = longScene(100, 1511, 0, 100, 5);
    for (const call of [
      () => gpu.collider.raycast(new Float32Array([0, 0, 0, 1, 1, 1]), spheres, { broadphase: 'sweep' as never }),
      () =>
        gpu.collider.sphereCast(new Float32Array([0, 0, 0, 1, 1, 1, 0.5]), spheres, { broadphase: 'sweep' as never }),
    ]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as InvalidInputError).argument).toBe('options.broadphase');
      expect((error as Error).message).toMatch(/'sweep' does not serve raycasts/);
    }
  });
});
