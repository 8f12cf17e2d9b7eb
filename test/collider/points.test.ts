/**
 * Radius-0 spheres (points) and tiny segments: the f32 square of a distance below about 1e-19
 * underflows to 0, so without care two points 1e-30 apart "touch", and a ray 1e-30 beside a
 * point "hits" it. The contract: points touch (a point, a box; a ray, a point) only when they
 * coincide exactly; a ray or cast shorter than 2^-60 is refused (InvalidInputError, rule tiny).
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from '../support/gpu.js';
import { bruteForceSpherePairs, sortPairs } from '../../src/reference/spherePairs.js';
import { bruteForceSphereAabbPairs, bruteForceSphereObbPairs } from '../../src/reference/sphereBox.js';
import { bruteForceNearestCasts } from '../../src/reference/casts.js';
import { InvalidInputError } from '../../src/errors.js';
import { RULES } from '../../src/checks.js';
import { phasesServing } from '../../src/broadphase/registry.js';

const gpu = useGpu();
const PAIR_PHASES = phasesServing('pairs');
const CAST_PHASES = phasesServing('casts');

describe('points', () => {
  it('two points 1e-30 apart do not touch; coincident points do (every broad phase)', async () => {
    // 0: origin; 1: 1e-30 away in x; 2: coincident with 0; 3: 1e-30 away in y and z from 0; 4: a denormal-free 1e-20 in z
    const spheres = new Float32Array([0, 0, 0, 0, 1e-30, 0, 0, 0, 0, 0, 0, 0, 0, 1e-30, 1e-30, 0, 0, 0, 1e-20, 0]);
    const oracle = bruteForceSpherePairs(spheres);
    expect(Array.from(oracle)).toEqual([0, 2]);
    for (const broadphase of PAIR_PHASES) {
      expect(Array.from(sortPairs(await gpu.collider.spherePairs(spheres, { broadphase }))), broadphase).toEqual([
        0, 2,
      ]);
    }
  });

  it('a point 1e-30 outside a box does not touch it; one on its face does (every broad phase)', async () => {
    const spheres = new Float32Array([-1e-30, 0.5, 0.5, 0, 0, 0.5, 0.5, 0, 0.5, 0.5, 1 + 1e-7, 0]);
    const aabbs = new Float32Array([0, 0, 0, 1, 1, 1]);
    const oracle = bruteForceSphereAabbPairs(spheres, aabbs);
    expect(Array.from(oracle)).toEqual([1, 0]);
    for (const broadphase of PAIR_PHASES) {
      expect(Array.from(await gpu.collider.sphereBoxPairs(spheres, aabbs, { broadphase })), broadphase).toEqual([1, 0]);
    }
  });

  it('a ray 1e-30 beside a point misses it; a ray through it hits (every broad phase)', async () => {
    const spheres = new Float32Array([0, 1e-30, 0, 0, 0, 0, 5, 0]);
    const rays = new Float32Array([-1, 0, 0, 1, 0, 0, -1, 0, 5, 1, 0, 5]);
    for (const broadphase of CAST_PHASES) {
      const hits = await gpu.collider.raycast(rays, spheres, { broadphase });
      expect(Array.from(hits.index), broadphase).toEqual([-1, 1]);
      expect(hits.distance[1]).toBe(1);
    }
  });

  // WGSL lets a GPU flush subnormals to zero in arithmetic and comparisons; SwiftShader does.
  it('points a subnormal apart do not touch, nor a point a subnormal outside a box (every broad phase)', async () => {
    const points = new Float32Array([0, 0, 0, 0, 1e-45, 0, 0, 0, 0, -1e-44, 0, 0, -0, 0, 0, 0]);
    expect(Array.from(bruteForceSpherePairs(points))).toEqual([0, 3]); // −0 and +0 coincide
    const aabbs = new Float32Array([-1, -1, -1, 0, 1, 1]);
    const outside = new Float32Array([1e-45, 0, 0, 0, 0, 0, 0, 0, -1e-45, 0, 0, 0]);
    expect(Array.from(bruteForceSphereAabbPairs(outside, aabbs))).toEqual([1, 0, 2, 0]);
    for (const broadphase of PAIR_PHASES) {
      expect(Array.from(sortPairs(await gpu.collider.spherePairs(points, { broadphase }))), broadphase).toEqual([0, 3]);
      const pairs = await gpu.collider.sphereBoxPairs(outside, aabbs, { broadphase });
      expect(Array.from(sortPairs(pairs)), broadphase).toEqual([1, 0, 2, 0]);
    }
  });

  it('at the smallest radius (2^-60), an offset whose square is subnormal still counts (pairs, boxes, casts)', async () => {
    const r = 2 ** -60;
    // Apart by 2^-59 in x and 2^-64 in y: |d|² exceeds (2r)² by 2^-128, 2^-10 of it; a flush of
    // the y² term made every broad phase report the pair.
    const spheres = new Float32Array([0, 0, 0, r, 2 ** -59, 2 ** -64, 0, r]);
    expect(Array.from(bruteForceSpherePairs(spheres))).toEqual([]);
    const s = new Float32Array([r, 2 ** -64, 0, r]);
    const aabbs = new Float32Array([-1, -1, -1, 0, 0, 1]);
    const obbs = new Float32Array([-r, -r, 0, r, r, r, 0, 0, 0, 1]);
    expect(Array.from(bruteForceSphereAabbPairs(s, aabbs))).toEqual([]);
    expect(Array.from(bruteForceSphereObbPairs(s, obbs))).toEqual([]);
    for (const broadphase of PAIR_PHASES) {
      expect(Array.from(await gpu.collider.spherePairs(spheres, { broadphase })), broadphase).toEqual([]);
      expect(Array.from(await gpu.collider.sphereBoxPairs(s, aabbs, { broadphase })), broadphase).toEqual([]);
      expect(Array.from(await gpu.collider.sphereOrientedBoxPairs(s, obbs, { broadphase })), broadphase).toEqual([]);
    }
    // A ray passing 2^-64 outside tangency of a sphere of radius 2^-60, and a cast of that radius past a point.
    const rays = new Float32Array([-(2 ** -58), r, 2 ** -64, 2 ** -58, r, 2 ** -64]);
    const casts = new Float32Array([-(2 ** -58), r, 2 ** -64, 2 ** -58, r, 2 ** -64, r]);
    expect(Array.from(bruteForceNearestCasts(rays, 6, new Float32Array([0, 0, 0, r])).index)).toEqual([-1]);
    for (const broadphase of CAST_PHASES) {
      expect(
        Array.from((await gpu.collider.raycast(rays, new Float32Array([0, 0, 0, r]), { broadphase })).index),
        broadphase,
      ).toEqual([-1]);
      expect(
        Array.from((await gpu.collider.sphereCast(casts, new Float32Array([0, 0, 0, 0]), { broadphase })).index),
        broadphase,
      ).toEqual([-1]);
    }
    // The same scaled test still finds what touches: the pair 2^-59 apart on x alone.
    const touching = new Float32Array([0, 0, 0, r, 2 ** -59, 0, 0, r]);
    for (const broadphase of PAIR_PHASES)
      expect(Array.from(await gpu.collider.spherePairs(touching, { broadphase })), broadphase).toEqual([0, 1]);
  });

  it('a segment shorter than 2^-60 is refused; zero length is valid and hits nothing', async () => {
    const spheres = new Float32Array([0, 0, 0, 1]);
    const error = await gpu.collider
      .raycast(new Float32Array([1e-30, 0, 0, 2e-30, 0, 0]), spheres)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).rule).toBe(RULES.tiny);
    expect((error as InvalidInputError).index).toBe(0);
    const zero = await gpu.collider.raycast(new Float32Array([2, 0, 0, 2, 0, 0]), spheres);
    expect(Array.from(zero.index)).toEqual([-1]);
  });
});
