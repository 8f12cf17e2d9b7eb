/** A cast walk's rounding slack (BroadPhase.castSlack). No runtime import of src/options.ts here: the registry loads this. */
import type { CastReach } from '../../castQueries.js';

/**
 * The grid walk's slack, added to every reach: it computes cells from absolute positions along
 * the cast (A + n·t, then minus the level's origin), each rounded to 2^-24 of the coordinates,
 * so the slack is 2^-20 (16 such roundings) of the coordinates and the cast's length.
 */
export function gridCastSlack(reach: CastReach): number {
  return (reach.maxAbs + reach.maxLength + reach.maxRadius) * 2 ** -20;
}
