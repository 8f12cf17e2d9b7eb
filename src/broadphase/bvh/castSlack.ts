/** The BVH phase's cast slack (BroadPhase.castSlack). */
import type { CastReach } from '../../spatial/reach.js';

/**
 * The BVH walk's slack, added to every node box: the boxes hold their spheres but for the
 * rounding of x ± P(r) (half an ulp of x: 2^-24 of the coordinates, with a hair more for the
 * slack's own rounding to f32), and the slab test's t values are rounded relative to the
 * distances along the cast (2^-20 of its length and reach, as castHit's own rounding). The walk
 * grows the boxes after moving them to the cast's origin (rayBoxEntry), so the growth itself
 * rounds by no ulp of the coordinates. Not 2^-20 of the coordinates (the grid's): at 1e6 that is
 * about 1, eight spacings of a touching lattice of radius 1/16, and a ray through it would test
 * many times the nodes it tests at the origin (test/broadphase/bvh/bvhCliff.test.ts).
 */
export function bvhCastSlack(reach: CastReach): number {
  return reach.maxAbs * (2 ** -24 + 2 ** -40) + (reach.maxLength + reach.maxRadius) * 2 ** -20;
}
