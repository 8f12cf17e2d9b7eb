/**
 * The LBVH broad phase beyond the shared scene lists (test/collider/spherePairs.test.ts, test/collider/boxes.test.ts
 * and test/collider/casts.test.ts run it on every scene there): its edge cases (no sphere, one, two, all
 * coincident, equal Morton codes, a huge radius spread, far outliers, points), the CPU twin
 * against the oracle and the depth bound, the GPU against the grid and brute force exactly,
 * and 100k spheres.
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from '../../support/gpu.js';
import { mulberry32 } from '../../support/random.js';
import { uniformScene, mixedRadiiScene, outlierScene, coincidentScene, giantsScene } from '../../support/scenes.js';
import { bruteForceSpherePairs, sortPairs } from '../../../src/reference/spherePairs.js';
import { bruteForceSphereAabbPairs, bruteForceSphereObbPairs } from '../../../src/reference/sphereBox.js';
import { bruteForceNearestCasts } from '../../../src/reference/casts.js';
import {
  buildBvh,
  walkBvh,
  mortonCodes,
  bvhSpherePairs,
  bvhSphereBoxPairs,
  bvhNearestCasts,
} from '../../../src/reference/bvh.js';
import { bvhPyramidLevels } from '../../../src/broadphase/bvh/phase.js';
import { BVH_LEAF, BVH_STACK, BVH_MAX_DEPTH } from '../../../src/spatial/bvhShape.js';

const gpu = useGpu();

/** Spheres on a coarse lattice with many copies per site: runs of equal Morton codes. */
function duplicateCodes(n: number, seed: number): Float32Array {
  const rand = mulberry32(seed);
  const out = new Float32Array(4 * n);
  for (let i = 0; i < n; i++)
    out.set(
      [Math.floor(rand() * 4) * 10, Math.floor(rand() * 4) * 10, Math.floor(rand() * 4) * 10, 0.5 + rand() * 6],
      4 * i,
    );
  return out;
}

/** Points (radius 0), half of them duplicated: only coincident points touch. */
function points(n: number, seed: number): Float32Array {
  const rand = mulberry32(seed);
  const out = new Float32Array(4 * n);
  for (let i = 0; i < n; i++)
    out.set(
      i % 2 === 1
        ? out.slice(4 * (i - 1), 4 * i)
        : [Math.floor(rand() * 30), Math.floor(rand() * 30), Math.floor(rand() * 30), 0],
      4 * i,
    );
  return out;
}

/** Radii from 1e-3 to 1e3 (log-uniform) in a cube of side 200. */
function radiusSpread(n: number, seed: number): Float32Array {
  const rand = mulberry32(seed);
  const out = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) out.set([rand() * 200, rand() * 200, rand() * 200, 10 ** (-3 + 6 * rand() ** 4)], 4 * i);
  return out;
}

/** Rays (or casts with radius up to `radius`) between random points around the spheres' bounds. */
function randomRays(spheres: Float32Array, count: number, seed: number, radius = 0): Float32Array {
  const rand = mulberry32(seed);
  // Around the middle 90% of the centres (far outliers would leave every ray in empty space).
  const sorted = spheres.filter((_, i) => i % 4 !== 3).sort();
  const lo = sorted[Math.floor(0.05 * sorted.length)] ?? 0;
  const hi = sorted[Math.floor(0.95 * sorted.length)] ?? 0;
  const span = hi - lo || 1;
  const stride = radius > 0 ? 7 : 6;
  const out = new Float32Array(stride * count);
  for (let k = 0; k < count; k++) {
    const p = Array.from({ length: 6 }, () => lo - 0.2 * span + rand() * 1.4 * span);
    out.set(radius > 0 ? [...p, rand() * radius] : p, stride * k);
  }
  return out;
}

const scenes: [string, () => Float32Array][] = [
  ['no sphere', () => new Float32Array(0)],
  ['one sphere', () => new Float32Array([1, 2, 3, 4])],
  ['two touching spheres', () => new Float32Array([2, 0, 0, 1, 0, 0, 0, 1])],
  ['two spheres a hair apart', () => new Float32Array([2.001, 0, 0, 1, 0, 0, 0, 1])],
  ['all coincident, 300 spheres', () => coincidentScene(300)],
  ['equal Morton codes: 64 sites, 2000 spheres (seed 1401)', () => duplicateCodes(2000, 1401)],
  ['radii 1e-3 to 1e3, 3000 spheres (seed 1402)', () => radiusSpread(3000, 1402)],
  ['far outliers (±1e6), 3000 spheres (seed 1403)', () => outlierScene(3000, { seed: 1403 })],
  ['points, half coincident, 2000 (seed 1404)', () => points(2000, 1404)],
  ['uniform 5000 (seed 1405)', () => uniformScene(5000, { seed: 1405 })],
  ['mixed radii at 1e5 (seed 1406)', () => mixedRadiiScene(3000, { seed: 1406, offset: 1e5 })],
  ['giants among small spheres (seed 1407)', () => giantsScene(3000, 6, { seed: 1407 })],
];

describe("broadphase: 'bvh', sphere pairs", () => {
  for (const [name, make] of scenes) {
    it(name, async () => {
      const spheres = make();
      const oracle = bruteForceSpherePairs(spheres);
      const bvh = sortPairs(await gpu.collider.spherePairs(spheres, { broadphase: 'bvh' }));
      expect(bvh, 'bvh vs grid').toEqual(sortPairs(await gpu.collider.spherePairs(spheres, { broadphase: 'grid' })));
      expect(sortPairs(bvhSpherePairs(spheres)), 'twin vs oracle').toEqual(oracle);
      if (name.startsWith('all coincident')) expect(bvh.length).toBe(300 * 299);
    });
  }

  it('100,000 uniform spheres (seed 1410): the same pairs as the grid', async () => {
    const spheres = uniformScene(100_000, { seed: 1410 });
    const bvh = sortPairs(await gpu.collider.spherePairs(spheres, { broadphase: 'bvh' }));
    expect(bvh.length).toBeGreaterThan(20_000);
    expect(bvh).toEqual(sortPairs(await gpu.collider.spherePairs(spheres, { broadphase: 'grid' })));
  });
});

describe("broadphase: 'bvh', the tree (CPU twin)", () => {
  it('equal codes are ordered by index and split on it: a balanced tree over 300 coincident spheres', () => {
    const tree = buildBvh(coincidentScene(300));
    expect(new Set(tree.codes.high).size).toBe(1);
    expect(new Set(tree.codes.low).size).toBe(1);
    expect(Array.from(tree.order)).toEqual(Array.from({ length: 300 }, (_, i) => i));
    expect(tree.depth).toBeLessThanOrEqual(Math.ceil(Math.log2(300)));
  });

  for (const [name, make] of scenes.slice(1)) {
    it(`${name}: every leaf under exactly one parent, boxes nest, the stack stays within ${BVH_STACK}`, () => {
      const spheres = make();
      const n = spheres.length / 4;
      const tree = buildBvh(spheres);
      const parents = new Uint32Array(n);
      for (const node of tree.nodes) {
        for (const child of [node.left, node.right]) {
          if (child & BVH_LEAF) parents[child & ~BVH_LEAF]++;
          else
            for (let a = 0; a < 3; a++) {
              expect(tree.nodes[child].lo[a]).toBeGreaterThanOrEqual(node.lo[a]);
              expect(tree.nodes[child].hi[a]).toBeLessThanOrEqual(node.hi[a]);
            }
        }
      }
      if (n > 1) expect(Array.from(parents).every((p) => p === 1)).toBe(true);
      expect(tree.depth).toBeLessThanOrEqual(BVH_MAX_DEPTH);
      const visited = new Uint32Array(n);
      const deepest = walkBvh(
        tree,
        () => 0,
        (u) => visited[u]++,
      );
      expect(Array.from(visited).every((v) => v === 1)).toBe(true);
      expect(deepest).toBeLessThan(BVH_STACK);
    });
  }

  it('Morton codes interleave x, y, z from the high bit, 20 bits an axis in two words; a flat axis codes 0', () => {
    const half = mortonCodes(new Float32Array([0, 0, 0, 1, 1, 1, 1, 1, 0.5, 0, 0, 1, 0, 0.5, 0, 1, 0, 0, 0.5, 1]));
    expect(Array.from(half.high)).toEqual([0, 2 ** 30 - 1, 2 ** 29, 2 ** 28, 2 ** 27]);
    expect(Array.from(half.low)).toEqual([0, 2 ** 30 - 1, 0, 0, 0]);
    // 2^-20 of the extent along x: the lowest x bit of the low word.
    const fine = mortonCodes(new Float32Array([0, 0, 0, 1, 2 ** -20, 0, 0, 1, 1, 1, 1, 1]));
    expect([fine.high[1], fine.low[1]]).toEqual([0, 4]);
    const flat = mortonCodes(new Float32Array([0, 0, 5, 1, 1, 1, 5, 1]));
    expect(Array.from(flat.high)).toEqual([0, (2 ** 30 - 1) & ~0x09249249]);
    expect(Array.from(flat.low)).toEqual([0, (2 ** 30 - 1) & ~0x09249249]);
    // Cells are cubic, 2^20 across the largest extent (x, 4 long): y = 1 is cell 2^18, high bits 256.
    const long = mortonCodes(new Float32Array([0, 0, 0, 1, 4, 1, 0, 1]));
    expect(Array.from(long.high)).toEqual([0, (0x24924924 | (2 ** 25)) >>> 0]);
  });

  it('the pyramid holds the full blocks of every level', () => {
    expect(bvhPyramidLevels(0)).toEqual([]);
    expect(bvhPyramidLevels(1)).toEqual([]);
    expect(bvhPyramidLevels(7)).toEqual([
      { count: 3, base: 0 },
      { count: 1, base: 3 },
    ]);
    expect(bvhPyramidLevels(8).map((l) => l.count)).toEqual([4, 2, 1]);
  });
});

describe("broadphase: 'bvh', sphere–box pairs", () => {
  const randomBoxes = (count: number, seed: number, side: number, size: number, oriented: boolean): Float32Array => {
    const rand = mulberry32(seed);
    const out = new Float32Array((oriented ? 10 : 6) * count);
    for (let k = 0; k < count; k++) {
      const c = [rand() * side, rand() * side, rand() * side];
      const h = [rand() * size, rand() * size, rand() * size];
      if (oriented) {
        const q = [rand() - 0.5, rand() - 0.5, rand() - 0.5, rand() - 0.5];
        const l = Math.hypot(...q);
        out.set([...c, ...h, ...q.map((v) => v / l)], 10 * k);
      } else out.set([c[0] - h[0], c[1] - h[1], c[2] - h[2], c[0] + h[0], c[1] + h[1], c[2] + h[2]], 6 * k);
    }
    return out;
  };

  for (const [name, make] of [scenes[5], scenes[6], scenes[7], scenes[9]]) {
    it(`AABBs and oriented boxes over ${name}`, async () => {
      const spheres = make();
      const aabbs = randomBoxes(300, 1420, 40, 6, false);
      const obbs = randomBoxes(300, 1421, 40, 6, true);
      const aabbOracle = bruteForceSphereAabbPairs(spheres, aabbs);
      expect(aabbOracle.length).toBeGreaterThan(0);
      expect(sortPairs(await gpu.collider.sphereBoxPairs(spheres, aabbs, { broadphase: 'bvh' }))).toEqual(
        sortPairs(await gpu.collider.sphereBoxPairs(spheres, aabbs, { broadphase: 'grid' })),
      );
      expect(sortPairs(await gpu.collider.sphereOrientedBoxPairs(spheres, obbs, { broadphase: 'bvh' }))).toEqual(
        sortPairs(await gpu.collider.sphereOrientedBoxPairs(spheres, obbs, { broadphase: 'grid' })),
      );
      expect(sortPairs(bvhSphereBoxPairs(spheres, aabbs, 'aabb'))).toEqual(aabbOracle);
      expect(sortPairs(bvhSphereBoxPairs(spheres, obbs, 'obb'))).toEqual(bruteForceSphereObbPairs(spheres, obbs));
    });
  }
});

describe("broadphase: 'bvh', raycasts and sphere casts", () => {
  for (const [name, make] of [scenes[4], scenes[5], scenes[6], scenes[7], scenes[9], scenes[10]]) {
    it(`nearest and all hits over ${name}: brute force's records exactly`, async () => {
      const spheres = make();
      const rays = randomRays(spheres, 600, 1430 + name.length);
      const casts = randomRays(spheres, 400, 1440 + name.length, 2);
      const bvh = await gpu.collider.raycast(rays, spheres, { broadphase: 'bvh' });
      const brute = await gpu.collider.raycast(rays, spheres, { broadphase: 'all-pairs' });
      expect(bvh.index.filter((i) => i >= 0).length, 'some rays hit').toBeGreaterThan(10);
      expect(bvh).toEqual(brute);
      expect(await gpu.collider.sphereCast(casts, spheres, { broadphase: 'bvh' })).toEqual(
        await gpu.collider.sphereCast(casts, spheres, { broadphase: 'all-pairs' }),
      );
      expect(await gpu.collider.raycast(rays, spheres, { broadphase: 'bvh', allHits: true })).toEqual(
        await gpu.collider.raycast(rays, spheres, { broadphase: 'all-pairs', allHits: true }),
      );
      expect(await gpu.collider.sphereCast(casts, spheres, { broadphase: 'bvh', allHits: true })).toEqual(
        await gpu.collider.sphereCast(casts, spheres, { broadphase: 'all-pairs', allHits: true }),
      );
      // The twin's pruned walk gives the oracle's nearest hits.
      const oracle = bruteForceNearestCasts(rays, 6, spheres);
      const twin = bvhNearestCasts(rays, 6, spheres);
      expect(Array.from(twin.index)).toEqual(Array.from(oracle.index));
      expect(Array.from(bvhNearestCasts(casts, 7, spheres).index)).toEqual(
        Array.from(bruteForceNearestCasts(casts, 7, spheres).index),
      );
    });
  }

  it('no sphere, one sphere, zero-length rays', async () => {
    const rays = new Float32Array([-5, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 6, 0]);
    expect(Array.from((await gpu.collider.raycast(rays, new Float32Array(0), { broadphase: 'bvh' })).index)).toEqual([
      -1, -1, -1,
    ]);
    const one = await gpu.collider.raycast(rays, new Float32Array([0, 0, 0, 1]), { broadphase: 'bvh' });
    expect(Array.from(one.index)).toEqual([0, -1, -1]);
    expect(one.distance[0]).toBe(4);
  });

  it('ties go to the lowest index: three copies of every sphere (seed 1450)', async () => {
    const base = uniformScene(500, { seed: 1450 });
    const spheres = new Float32Array(3 * base.length);
    for (let i = 0; i < 500; i++)
      for (let copy = 0; copy < 3; copy++) spheres.set(base.subarray(4 * i, 4 * i + 4), 4 * (copy * 500 + i));
    const res = await gpu.collider.raycast(randomRays(base, 600, 1450), spheres, { broadphase: 'bvh' });
    const hits = Array.from(res.index).filter((i) => i >= 0);
    expect(hits.length).toBeGreaterThan(100);
    expect(hits.every((i) => i < 500)).toBe(true);
  });
});
