/**
 * The LBVH far from the origin: a touching lattice (radius 1/16, spacing 1/8) at 1e6 on every
 * axis, where an f32 ulp is 1/16. The walks' work is counted on the CPU twin, whose tree, f32
 * boxes and walk order are the GPU's (src/reference/bvh.ts), so the bounds hold however loaded
 * the machine is. With leaf boxes grown by 2^-20 of the coordinates (about 1 unit at 1e6, eight
 * lattice spacings) a pair query reached 2,957 leaves (3,347 node tests) instead of 33 (84),
 * and 15,625 spheres took 16.5 s on SwiftShader where the grid takes 42 ms. Now the boxes grow
 * by 2^-18 of each radius, and the work is the same at 1e6 as at 0. The same holds now for
 * oriented boxes (their bounds no longer grow by 2^-22 of the centre: one monotone rounding
 * instead) and for casts (2^-24 of the coordinates, the growth applied after the move to the
 * cast's origin), and the pair walk drops the subtrees before the query's own sphere; the new
 * bounds below are about 1.3× the work (the casts': 2× the work at 0), and the old walks exceed
 * them. The GPU answers on the far lattice, and on one whose radii put every pair in the
 * rounding band, must be the grid's exactly (and the twin's the oracle's).
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from '../../support/gpu.js';
import { mulberry32 } from '../../support/random.js';
import { bruteForceSpherePairs, sortPairs } from '../../../src/reference/spherePairs.js';
import { bruteForceSphereAabbPairs } from '../../../src/reference/sphereBox.js';
import {
  buildBvh,
  bvhPairWork,
  bvhBoxWork,
  bvhSpherePairs,
  bvhSphereBoxPairs,
  bvhNearestCasts,
  type BvhWork,
} from '../../../src/reference/bvh.js';

const gpu = useGpu();

/** side³ spheres of radius 1/16 on a cubic lattice of spacing 1/8 (each touches its 6 neighbours), `offset` on every axis. */
function lattice(side: number, offset: number): Float32Array {
  const out = new Float32Array(4 * side ** 3);
  for (let i = 0; i < side ** 3; i++)
    out.set(
      [
        offset + (i % side) / 8,
        offset + (Math.floor(i / side) % side) / 8,
        offset + Math.floor(i / side ** 2) / 8,
        1 / 16,
      ],
      4 * i,
    );
  return out;
}

/** AABBs on the lattice's 1/16 grid (exact at 1e6 too), 1/16 to 1/4 half-wide. */
function latticeBoxes(count: number, side: number, offset: number, seed: number): Float32Array {
  const rand = mulberry32(seed);
  const out = new Float32Array(6 * count);
  for (let k = 0; k < count; k++) {
    const c = [0, 1, 2].map(() => Math.round(rand() * 2 * side) / 16);
    const h = [0, 1, 2].map(() => (1 + Math.floor(rand() * 4)) / 16);
    out.set([0, 1, 2].map((a) => offset + c[a] - h[a]).concat([0, 1, 2].map((a) => offset + c[a] + h[a])), 6 * k);
  }
  return out;
}

/** Oriented boxes centred on the lattice's 1/16 grid, 1/16 to 5/16 half-wide, turned at random (10 floats each). */
function latticeObbs(count: number, side: number, offset: number, seed: number): Float32Array {
  const rand = mulberry32(seed);
  const out = new Float32Array(10 * count);
  for (let k = 0; k < count; k++) {
    const c = [0, 1, 2].map(() => offset + Math.round(rand() * 2 * side) / 16);
    const h = [0, 1, 2].map(() => (1 + Math.floor(rand() * 5)) / 16);
    const q = [rand() - 0.5, rand() - 0.5, rand() - 0.5, rand() - 0.5];
    const l = Math.hypot(q[0], q[1], q[2], q[3]);
    out.set([...c, ...h, ...q.map((v) => v / l)], 10 * k);
  }
  return out;
}

/** Rays (stride 6) or casts of radius `radius` (stride 7) from outside the lattice, each aimed at one of its spheres, half again past it. */
function latticeCasts(count: number, side: number, offset: number, radius: number, seed: number): Float32Array {
  const rand = mulberry32(seed);
  const stride = radius > 0 ? 7 : 6;
  const out = new Float32Array(stride * count);
  const extent = (side - 1) / 8;
  for (let k = 0; k < count; k++) {
    const target = [0, 1, 2].map(() => Math.floor(rand() * side) / 8 + (rand() - 0.5) / 16);
    // From a random point on a face of the bounds grown by 1 + the radius.
    const from = [0, 1, 2].map(() => -1 - radius + rand() * (extent + 2 + 2 * radius));
    const axis = Math.floor(rand() * 3);
    from[axis] = rand() < 0.5 ? -1 - radius : extent + 1 + radius;
    const to = target.map((t, a) => t + 0.5 * (t - from[a]));
    out.set(
      [...from.map((v) => offset + v), ...to.map((v) => offset + v), ...(radius > 0 ? [radius] : [])],
      stride * k,
    );
  }
  return out;
}

const FAR = 1e6;

describe("broadphase: 'bvh' far from the origin: the walks' work (CPU twin)", () => {
  it('a pair query on a 25³ touching lattice tests ≤ 64 nodes and reaches ≤ 24 leaves, at 0 and at 1e6 alike', () => {
    const near = bvhPairWork(lattice(25, 0));
    const far = bvhPairWork(lattice(25, FAR));
    // 49.6 node tests and 16.8 leaves a query at both: the walk drops the subtrees wholly at or
    // before the query's sorted position (dropLeft). Without that, 84.4 and 32.7; with the old
    // 2^-20·|x| slack, 3,347 and 2,957 at 1e6.
    for (const w of [near, far]) {
      expect(w.queries).toBe(15_625);
      expect(w.nodeTests / w.queries, 'node tests a query').toBeLessThanOrEqual(64);
      expect(w.leafVisits / w.queries, 'leaves a query').toBeLessThanOrEqual(24);
    }
    expect(far.nodeTests, 'far vs near').toBeLessThanOrEqual(1.1 * near.nodeTests);
  });

  it('an oriented-box query on the same lattice tests ≤ 420 nodes and reaches ≤ 280 leaves, at 1e6 within 1.3× of at 0', () => {
    const near = bvhBoxWork(lattice(25, 0), latticeObbs(500, 25, 0, 1507), 'obb');
    const far = bvhBoxWork(lattice(25, FAR), latticeObbs(500, 25, FAR, 1507), 'obb');
    // 283 node tests and 179 leaves a box at 0, 338 and 223 at 1e6 (f32 rounds the boxes' ends
    // there). With the shared bounds' 2^-22 of the centre (0.24 at 1e6), the far boxes reached
    // about 3.5× the leaves (bench boxes, lattice-far OBB: 876 node tests and 673 leaves a box).
    for (const w of [near, far]) {
      expect(w.nodeTests / w.queries, 'node tests a box').toBeLessThanOrEqual(420);
      expect(w.leafVisits / w.queries, 'leaves a box').toBeLessThanOrEqual(280);
    }
    expect(far.nodeTests, 'far vs near').toBeLessThanOrEqual(1.3 * near.nodeTests);
  });

  it('a raycast or sphere cast through the same lattice tests as many nodes at 1e6 as at 0, within 2×', () => {
    for (const radius of [0, 0.5]) {
      const work = (offset: number): BvhWork => {
        const w: BvhWork = { queries: 0, nodeTests: 0, leafVisits: 0 };
        bvhNearestCasts(
          latticeCasts(300, 25, offset, radius, 1508),
          radius > 0 ? 7 : 6,
          lattice(25, offset),
          undefined,
          w,
        );
        return w;
      };
      const near = work(0);
      const far = work(FAR);
      // Rays: 30.7 node tests a cast at 0, 49.7 at 1e6; casts of radius 0.5: 202 and 249. With the
      // slack's old 2^-22 of the coordinates, grown before the move to the cast's origin (0.24 at
      // 1e6), a ray tested 7.5× the nodes at 1e6 (231 against 30 on the bench's lattice-far).
      expect(near.queries).toBe(300);
      expect(far.nodeTests, `radius ${radius}: far vs near`).toBeLessThanOrEqual(2 * near.nodeTests);
    }
  });

  it('an AABB query on the same lattice tests ≤ 420 nodes and reaches ≤ 200 leaves, at 0 and at 1e6 alike', () => {
    // Fixed: 137.9 node tests and 67.5 leaves a box at both.
    const near = bvhBoxWork(lattice(25, 0), latticeBoxes(500, 25, 0, 1501), 'aabb');
    const far = bvhBoxWork(lattice(25, FAR), latticeBoxes(500, 25, FAR, 1501), 'aabb');
    for (const w of [near, far]) {
      expect(w.nodeTests / w.queries, 'node tests a box').toBeLessThanOrEqual(420);
      expect(w.leafVisits / w.queries, 'leaves a box').toBeLessThanOrEqual(200);
    }
    expect(far.nodeTests, 'far vs near').toBeLessThanOrEqual(1.1 * near.nodeTests);
  });
});

describe("broadphase: 'bvh' far from the origin: exact answers", () => {
  it('15,625 touching spheres at 1e6: the 45,000 pairs, as the grid', async () => {
    const spheres = lattice(25, FAR);
    const bvh = sortPairs(await gpu.collider.spherePairs(spheres, { broadphase: 'bvh' }));
    expect(bvh.length).toBe(2 * 3 * 24 * 625);
    expect(bvh).toEqual(sortPairs(await gpu.collider.spherePairs(spheres, { broadphase: 'grid' })));
  });

  it("a 12³ lattice at 1e6 with radii 1/16 ± 2^-22 (every pair in the band) and AABBs on it: the grid's answers; the twin's are the oracle's", async () => {
    const spheres = lattice(12, FAR);
    const rand = mulberry32(1502);
    for (let i = 0; i < spheres.length / 4; i++) spheres[4 * i + 3] = 1 / 16 + (Math.floor(rand() * 3) - 1) * 2 ** -22;
    const pairs = sortPairs(await gpu.collider.spherePairs(spheres, { broadphase: 'bvh' }));
    expect(pairs.length).toBeGreaterThan(1000);
    expect(pairs).toEqual(sortPairs(await gpu.collider.spherePairs(spheres, { broadphase: 'grid' })));
    const tree = buildBvh(spheres);
    expect(sortPairs(bvhSpherePairs(spheres, tree))).toEqual(bruteForceSpherePairs(spheres));
    const boxes = latticeBoxes(300, 12, FAR, 1503);
    const oracle = bruteForceSphereAabbPairs(spheres, boxes);
    expect(oracle.length).toBeGreaterThan(1000);
    expect(sortPairs(await gpu.collider.sphereBoxPairs(spheres, boxes, { broadphase: 'bvh' }))).toEqual(
      sortPairs(await gpu.collider.sphereBoxPairs(spheres, boxes, { broadphase: 'grid' })),
    );
    expect(sortPairs(bvhSphereBoxPairs(spheres, boxes, 'aabb', tree))).toEqual(oracle);
  });

  it("raycasts and sphere casts through a 12³ lattice at 1e6: all-pairs' records exactly", async () => {
    const spheres = lattice(12, FAR);
    const rand = mulberry32(1504);
    const rays = new Float32Array(6 * 100).map(() => FAR - 0.3 + rand() * 2.1);
    const casts = new Float32Array(7 * 100).map((_, c) => (c % 7 === 6 ? 0.05 * rand() : FAR - 0.3 + rand() * 2.1));
    const nearest = await gpu.collider.raycast(rays, spheres, { broadphase: 'bvh' });
    expect(nearest.index.filter((i) => i >= 0).length, 'some rays hit').toBeGreaterThan(25);
    expect(nearest).toEqual(await gpu.collider.raycast(rays, spheres, { broadphase: 'all-pairs' }));
    expect(await gpu.collider.raycast(rays, spheres, { broadphase: 'bvh', allHits: true })).toEqual(
      await gpu.collider.raycast(rays, spheres, { broadphase: 'all-pairs', allHits: true }),
    );
    expect(await gpu.collider.sphereCast(casts, spheres, { broadphase: 'bvh' })).toEqual(
      await gpu.collider.sphereCast(casts, spheres, { broadphase: 'all-pairs' }),
    );
  });
  /**
   * Rays and casts that graze spheres (pass within r·(1 ± 2^-20) of the centre) far from the
   * origin, where the BVH's slack is 2^-22 of the coordinates (bvhCastSlack) rather than the
   * grid's 2^-20: the same f32 hit test decides, so every hit must be all-pairs' exactly.
   */
  for (const offset of [1e6, 1e7]) {
    it(`grazing raycasts and sphere casts at ${offset.toExponential(0)}: the BVH's hits are all-pairs' exactly (seed 1505)`, async () => {
      const rand = mulberry32(1505);
      const n = 8 ** 3;
      const spheres = new Float32Array(4 * n);
      for (let i = 0; i < n; i++)
        spheres.set(
          [
            offset + 4 * (i % 8) + rand(),
            offset + 4 * (Math.floor(i / 8) % 8) + rand(),
            offset + 4 * Math.floor(i / 64) + rand(),
            0.25 + rand(),
          ],
          4 * i,
        );
      const count = 600;
      const rays = new Float32Array(6 * count);
      const casts = new Float32Array(7 * count);
      for (let k = 0; k < count; k++) {
        const i = Math.floor(rand() * n);
        const c = [spheres[4 * i], spheres[4 * i + 1], spheres[4 * i + 2]];
        const r1 = k % 2 ? 0.125 * rand() : 0;
        const reach = spheres[4 * i + 3] + r1;
        // A unit direction d and a unit normal e to it: the line passes at reach·(1 ± 2^-20) from the centre.
        const d = [rand() - 0.5, rand() - 0.5, rand() - 0.5];
        const ld = Math.hypot(d[0], d[1], d[2]);
        for (let a = 0; a < 3; a++) d[a] /= ld;
        const t = [rand() - 0.5, rand() - 0.5, rand() - 0.5];
        const dot = t[0] * d[0] + t[1] * d[1] + t[2] * d[2];
        const e = t.map((v, a) => v - dot * d[a]);
        const le = Math.hypot(e[0], e[1], e[2]);
        const off = reach * (1 + (2 * rand() - 1) * 2 ** -20);
        const p = c.map((v, a) => v + (e[a] / le) * off);
        const from = p.map((v, a) => v - d[a] * (3 + 6 * rand()));
        const to = p.map((v, a) => v + d[a] * (3 + 6 * rand()));
        rays.set([...from, ...to], 6 * k);
        casts.set([...from, ...to, r1], 7 * k);
      }
      const all = await gpu.collider.raycast(rays, spheres, { broadphase: 'all-pairs', allHits: true });
      expect(all.offsets[count], 'some rays graze and hit').toBeGreaterThan(100);
      expect(await gpu.collider.raycast(rays, spheres, { broadphase: 'bvh', allHits: true })).toEqual(all);
      expect(await gpu.collider.raycast(rays, spheres, { broadphase: 'bvh' })).toEqual(
        await gpu.collider.raycast(rays, spheres, { broadphase: 'all-pairs' }),
      );
      expect(await gpu.collider.sphereCast(casts, spheres, { broadphase: 'bvh', allHits: true })).toEqual(
        await gpu.collider.sphereCast(casts, spheres, { broadphase: 'all-pairs', allHits: true }),
      );
    });
  }
  /**
   * Oriented boxes far from the origin whose faces, edges and corners sphere surfaces touch within
   * r·(1 ± 2^-20): their world bounds grow by 2^-22 of the centre's coordinates (boxBounds), not
   * 2^-20, so every broad phase that walks them must still find all-pairs' pairs exactly.
   */
  for (const offset of [1e6, 1e7]) {
    it(`oriented boxes grazed by spheres at ${offset.toExponential(0)}: BVH, sweep and grid find all-pairs' pairs exactly (seed 1506)`, async () => {
      const rand = mulberry32(1506);
      const count = 300;
      const boxes = new Float32Array(10 * count);
      const spheres: number[] = [];
      for (let k = 0; k < count; k++) {
        const c = [0, 1, 2].map(() => offset + 64 * rand());
        const h = [0, 1, 2].map(() => 0.05 + 3 * rand());
        const q = [rand() - 0.5, rand() - 0.5, rand() - 0.5, rand() - 0.5];
        const lq = Math.hypot(q[0], q[1], q[2], q[3]);
        const [x, y, z, w] = q.map((v) => v / lq);
        boxes.set([...c, ...h, x, y, z, w], 10 * k);
        const R = [
          [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
          [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
          [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ];
        // Four spheres a box: each touches a point of its surface (a face, an edge or a corner) from outside.
        for (let j = 0; j < 4; j++) {
          const local = h.map((hv) => (rand() < 0.5 ? -hv : hv) * (rand() < 0.5 ? 1 : rand()));
          const out = local.map((v, a) => (Math.abs(v) === h[a] ? Math.sign(v) : 0));
          const lo = Math.hypot(out[0], out[1], out[2]) || 1;
          const r = 0.01 + 0.5 * rand();
          const dist = r * (1 + (2 * rand() - 1) * 2 ** -20);
          const p = local.map((v, a) => v + (out[a] / lo) * dist);
          const world = [0, 1, 2].map((a) => c[a] + R[a][0] * p[0] + R[a][1] * p[1] + R[a][2] * p[2]);
          spheres.push(...world, r);
        }
      }
      const s = new Float32Array(spheres);
      const expected = sortPairs(await gpu.collider.sphereOrientedBoxPairs(s, boxes, { broadphase: 'all-pairs' }));
      expect(expected.length / 2, 'some pairs').toBeGreaterThan(300);
      for (const broadphase of ['bvh', 'sweep', 'grid'] as const) {
        expect(
          Array.from(sortPairs(await gpu.collider.sphereOrientedBoxPairs(s, boxes, { broadphase }))),
          broadphase,
        ).toEqual(Array.from(expected));
      }
    });
  }
});
