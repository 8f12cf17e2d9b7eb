/**
 * The bench's CPU BVH peer (bench/peers/cpuBvh.ts) against the CPU oracle (`reference`): its
 * sphere pairs equal the brute-force oracle's as sorted sets (it tests pairs as the oracle does,
 * in double precision), each once with i < j; its sphere–AABB pairs exactly, its sphere–oriented
 * box pairs within the rounding band; its nearest cast hits the oracle's, the distance within a
 * tolerance. CPU only, small seeded scenes.
 */
import { describe, expect, it } from 'vitest';
import { reference } from '../../src/index.js';
import {
  cpuBvhSpherePairs,
  cpuBvhSphereBoxPairs,
  cpuBvhRaycast,
  cpuBvhSphereCast,
  buildCpuBvh,
  LEAF_SIZE,
} from '../../bench/peers/cpuBvh.js';
import { PAIR_SCENES, boxScene, castSceneOf } from '../../bench/scenes.js';
import { diffPairs, bandViolations } from '../support/pairs.js';
import { obbMargin } from '../support/boxes.js';
import { nearestViolations } from '../support/casts.js';
import { uniformScene, mixedRadiiScene, clusteredScene, coincidentScene, outlierScene } from '../support/scenes.js';
import { mulberry32 } from '../support/random.js';

function expectPairs(spheres: Float32Array): void {
  const pairs = cpuBvhSpherePairs(spheres);
  for (let k = 0; k < pairs.length; k += 2) {
    if (!(pairs[k] < pairs[k + 1])) throw new Error(`pair (${pairs[k]}, ${pairs[k + 1]}) is not i < j`);
  }
  const expected = reference.bruteForceSpherePairs(spheres);
  expect(pairs.length / 2).toBe(expected.length / 2);
  expect(reference.sortPairs(pairs)).toEqual(expected);
}

/** Nearest hits: the same sphere as the oracle's brute force (ties to the lower index) at the same distance, and within the contract's tolerance. */
function expectCasts(casts: Float32Array, stride: 6 | 7, spheres: Float32Array): void {
  const got = stride === 6 ? cpuBvhRaycast(casts, spheres) : cpuBvhSphereCast(casts, spheres);
  const want = reference.bruteForceNearestCasts(casts, stride, spheres);
  expect(nearestViolations(casts, stride, spheres, got)).toEqual([]);
  const count = casts.length / stride;
  let hits = 0;
  for (let k = 0; k < count; k++) {
    expect(got.index[k]).toBe(want.index[k]);
    if (want.index[k] < 0) {
      expect(got.distance[k]).toBeNaN();
      continue;
    }
    hits++;
    expect(Math.abs(got.distance[k] - want.distance[k])).toBeLessThanOrEqual(1e-6 * (1 + Math.abs(want.distance[k])));
    const [px, py, pz] = reference.pointAlong(casts, stride, k, want.distance[k]);
    const p = 'point' in got ? got.point : got.center;
    const scale =
      1e-5 *
      (1 +
        Math.abs(casts[stride * k]) +
        Math.abs(casts[stride * k + 1]) +
        Math.abs(casts[stride * k + 2]) +
        want.distance[k]);
    expect(Math.abs(p[3 * k] - px) + Math.abs(p[3 * k + 1] - py) + Math.abs(p[3 * k + 2] - pz)).toBeLessThanOrEqual(
      3 * scale,
    );
    if ('contact' in got) {
      const e = reference.contactPoint([px, py, pz], spheres, want.index[k], casts[stride * k + 6]);
      expect(
        Math.abs(got.contact[3 * k] - e[0]) +
          Math.abs(got.contact[3 * k + 1] - e[1]) +
          Math.abs(got.contact[3 * k + 2] - e[2]),
      ).toBeLessThanOrEqual(3 * scale);
    }
  }
  if (count >= 100) expect(hits).toBeGreaterThan(0);
}

describe('CPU BVH peer: sphere pairs equal the oracle', () => {
  const scenes: [string, () => Float32Array][] = [
    ['uniform', () => uniformScene(2000, { seed: 1 })],
    ['dense', () => uniformScene(2000, { seed: 2, fraction: 0.4 })],
    ['mixed radii 1:100', () => mixedRadiiScene(2000, { seed: 3 })],
    ['clustered', () => clusteredScene(2000, { seed: 5 })],
    ['all coincident', () => coincidentScene(200)],
    ['all coincident points', () => coincidentScene(200, {}, 0)],
    ['far outliers', () => outlierScene(2000, { seed: 8 })],
    ['offset 1e6', () => uniformScene(2000, { seed: 9, offset: 1e6 })],
    ['one sphere', () => new Float32Array([0, 0, 0, 1])],
    ['none', () => new Float32Array(0)],
  ];
  for (const [name, make] of scenes) it(name, () => expectPairs(make()));
  for (const kind of Object.keys(PAIR_SCENES))
    it(`bench scene: ${kind}`, () => expectPairs(PAIR_SCENES[kind].make(1500)));

  it('exactly touching spheres count (a lattice of spacing 1, radius 0.5), points 1e-30 apart do not', () => {
    const out = new Float32Array(4 * 512);
    for (let i = 0; i < 512; i++) out.set([i % 8, Math.floor(i / 8) % 8, Math.floor(i / 64), 0.5], 4 * i);
    expectPairs(out);
    expect(cpuBvhSpherePairs(out).length / 2).toBe(3 * 7 * 64);
    expect(cpuBvhSpherePairs(new Float32Array([0, 0, 0, 0, 1e-30, 0, 0, 0, 0, 0, 0, 0])).length / 2).toBe(1);
  });

  it('builds a tree with leaves of at most LEAF_SIZE spheres covering every sphere once', () => {
    const spheres = PAIR_SCENES.blobs.make(3000);
    const tree = buildCpuBvh(spheres);
    const seen = new Uint8Array(3000);
    let leaves = 0;
    for (let k = 0; k < tree.nodes; k++) {
      if (tree.child[k] >= 0) continue;
      leaves++;
      expect(tree.end[k] - tree.start[k]).toBeLessThanOrEqual(LEAF_SIZE);
      for (let q = tree.start[k]; q < tree.end[k]; q++) seen[tree.id[q]]++;
    }
    expect(leaves).toBe(tree.leaves);
    expect([...seen].every((c) => c === 1)).toBe(true);
    expect(tree.depth).toBeLessThan(40);
  });
});

describe('CPU BVH peer: sphere–box pairs equal the oracle', () => {
  for (const kind of ['uniform', 'mixed', 'blobs', 'lattice', 'plane', 'points', 'far']) {
    it(`AABBs on ${kind}`, () => {
      const { spheres, boxes } = boxScene(kind, 1500, 300, 'aabb');
      const got = reference.sortPairs(cpuBvhSphereBoxPairs(spheres, boxes, 'aabb'));
      expect(got).toEqual(reference.sortPairs(reference.bruteForceSphereAabbPairs(spheres, boxes)));
    });
    it(`oriented boxes on ${kind}`, () => {
      const { spheres, boxes } = boxScene(kind, 1500, 300, 'obb');
      const got = cpuBvhSphereBoxPairs(spheres, boxes, 'obb');
      const expected = reference.bruteForceSphereObbPairs(spheres, boxes);
      expect(expected.length).toBeGreaterThan(0);
      expect(bandViolations(diffPairs(spheres, got, expected, obbMargin(boxes), false), 1)).toEqual([]);
    });
  }
  it('identity-quaternion boxes give the AABB pairs', () => {
    const spheres = uniformScene(1000, { seed: 4 });
    const rand = mulberry32(5);
    const aabbs = new Float32Array(6 * 200),
      obbs = new Float32Array(10 * 200);
    for (let k = 0; k < 200; k++) {
      const c = [rand() * 20, rand() * 20, rand() * 20],
        h = [rand() * 3, rand() * 3, rand() * 3];
      aabbs.set([c[0] - h[0], c[1] - h[1], c[2] - h[2], c[0] + h[0], c[1] + h[1], c[2] + h[2]], 6 * k);
      obbs.set([...c, ...h, 0, 0, 0, 1], 10 * k);
    }
    const a = cpuBvhSphereBoxPairs(spheres, aabbs, 'aabb');
    expect(a.length).toBeGreaterThan(0);
    expect(
      bandViolations(diffPairs(spheres, cpuBvhSphereBoxPairs(spheres, obbs, 'obb'), a, obbMargin(obbs), false), 1),
    ).toEqual([]);
  });
});

describe('CPU BVH peer: nearest cast hits equal the oracle', () => {
  for (const kind of [
    'uniform',
    'mixed',
    'clustered',
    'blobs',
    'outliers',
    'lattice',
    'line',
    'plane',
    'coincident',
    'points',
  ]) {
    for (const radius of [0, 0.3]) {
      it(`${radius ? 'sphere casts' : 'rays'} on ${kind}`, () => {
        const { spheres, casts, stride } = castSceneOf(kind, 1500, 400, radius);
        expectCasts(casts, stride, spheres);
      });
    }
  }
  it('tangent rays hit, zero-length rays miss, ties go to the lower index, starts inside are ignored', () => {
    // Spheres 0 and 2 coincide (a tie); sphere 1 contains the second ray's origin; 3 is tangent to the third ray.
    const spheres = new Float32Array([5, 0, 0, 1, 5, 10, 0, 2, 5, 0, 0, 1, 5, 0, 3, 1]);
    const rays = new Float32Array([
      -10,
      0,
      0,
      10,
      0,
      0, // hits 0 (tie with 2) at 14
      5,
      10,
      0,
      5,
      -10,
      0, // starts inside 1: hits 0 at 9
      -10,
      0,
      4,
      10,
      0,
      4, // tangent to 3 at x = 5
      1,
      1,
      1,
      1,
      1,
      1, // zero length
      -10,
      0,
      0,
      3.9,
      0,
      0, // ends short
      -10,
      0,
      0,
      4,
      0,
      0, // ends on the surface: hits
    ]);
    const got = cpuBvhRaycast(rays, spheres);
    expect([...got.index]).toEqual([0, 0, 3, -1, -1, 0]);
    expect([...got.distance].map((d) => (Number.isNaN(d) ? -1 : d))).toEqual([14, 9, 15, -1, -1, 14]);
    expectCasts(rays, 6, spheres);
  });
});
