/**
 * Radius-0 spheres (points) and tiny segments: the f32 square of a distance below about 1e-19
 * underflows to 0, so without care two points 1e-30 apart "touch", and a ray 1e-30 beside a
 * point "hits" it. The contract: points touch (a point, a box; a ray, a point) only when they
 * coincide exactly; a ray or cast shorter than 2^-60 is refused (InvalidInputError, rule tiny).
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from './support/gpu.js';
import { bruteForceSpherePairs, sortPairs } from '../src/reference/spherePairs.js';
import { bruteForceSphereAabbPairs } from '../src/reference/sphereBox.js';
import { InvalidInputError } from '../src/errors.js';
import { RULES } from '../src/validate.js';

const gpu = useGpu();
const PAIR_PHASES = ['all-pairs', 'grid', 'sweep', 'bvh'] as const;
const CAST_PHASES = ['all-pairs', 'grid', 'bvh'] as const;

describe('points', () => {
  it('two points 1e-30 apart do not touch; coincident points do (every broad phase)', async () => {
    // 0: origin; 1: 1e-30 away in x; 2: coincident with 0; 3: 1e-30 away in y and z from 0; 4: a denormal-free 1e-20 in z
    const spheres = new Float32Array([0, 0, 0, 0, 1e-30, 0, 0, 0, 0, 0, 0, 0, 0, 1e-30, 1e-30, 0, 0, 0, 1e-20, 0]);
    const oracle = bruteForceSpherePairs(spheres);
    expect(Array.from(oracle)).toEqual([0, 2]);
    for (const broadphase of PAIR_PHASES) {
      expect(Array.from(sortPairs(await gpu.collider.spherePairs(spheres, { broadphase }))), broadphase).toEqual([0, 2]);
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

  it('a segment shorter than 2^-60 is refused; zero length is valid and hits nothing', async () => {
    const spheres = new Float32Array([0, 0, 0, 1]);
    const error = await gpu.collider.raycast(new Float32Array([1e-30, 0, 0, 2e-30, 0, 0]), spheres).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).rule).toBe(RULES.tiny);
    expect((error as InvalidInputError).index).toBe(0);
    const zero = await gpu.collider.raycast(new Float32Array([2, 0, 0, 2, 0, 0]), spheres);
    expect(Array.from(zero.index)).toEqual([-1]);
  });
});
