/** The BVH phase's cast slack (BroadPhase.castSlack). */
import type { CastReach } from '../../spatial/reach.js';

/**
 * The BVH walk's slack, added to every node box: the boxes hold their spheres but for the
 * rounding of x ± P(r) (half an ulp of x: 2^-24 of the coordinates, with a hair more for the
 * slack's own rounding to f32), and the slab test's t values are rounded relative to the
 * distances along the cast (2^-20 of its length and reach, as castHit's own rounding). The walk
 * grows the boxes after moving them to the cast's origin (rayBoxEntry), so the growth itself
 * rounds by no ulp of the coordinates. It used to grow them first, which rounded by another half
 * ulp, and the term was 2^-22 of the coordinates (both, twice over): at 1e6 about 0.24, two
 * spacings of the touching lattice of radius 1/16, and each ray through it tested 231 nodes
 * against 32 at the origin (now 51; test/bvhCliff.test.ts). Not 2^-20 of the coordinates (the
 * grid's): 8 times more leaves again on each axis across the cast.
 */
export function bvhCastSlack(reach: CastReach): number {
  return reach.maxAbs * (2 ** -24 + 2 ** -40) + (reach.maxLength + reach.maxRadius) * 2 ** -20;
}
