/** A cast walk's rounding slack (BroadPhase.castSlack). No runtime import of src/options.ts here: the registry loads this. */
import type { CastReach } from '../../castQueries.js';

/**
 * The BVH walk's slack, added to every node box: the boxes hold their spheres but for the
 * rounding of x ± P(r) and of the growth itself (half an ulp of x each: 2^-22 of the
 * coordinates covers both twice over), and the slab test's t values are rounded relative to
 * the distances along the cast (2^-20 of its length and reach, as castHit's own rounding). No
 * 2^-20 of the coordinates: at 1e6 that was about 1 unit, and every cast of a touching lattice
 * of radius 1/16 reached some 8 times more leaves on each axis across it than it needed.
 */
export function bvhCastSlack(reach: CastReach): number {
  return reach.maxAbs * 2 ** -22 + (reach.maxLength + reach.maxRadius) * 2 ** -20;
}
