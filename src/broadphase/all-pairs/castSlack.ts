/** The all-pairs phase's cast slack (BroadPhase.castSlack). */
import type { CastReach } from '../../spatial/reach.js';

/**
 * The slack of a walk that computes cells from absolute positions along the cast (A + n·t, then
 * minus the level's origin), each rounded to 2^-24 of the coordinates: 2^-20 (16 such roundings)
 * of the coordinates and the cast's length. The all-pairs kernel tests every cast
 * against every sphere in absolute coordinates.
 */
export function allPairsCastSlack(reach: CastReach): number {
  return (reach.maxAbs + reach.maxLength + reach.maxRadius) * 2 ** -20;
}
