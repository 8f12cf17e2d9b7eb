/** A cast walk's rounding slack (BroadPhase.castSlack). No runtime import of src/options.ts here: the registry loads this. */
import type { CastReach } from '../../castQueries.js';

/**
 * The slack of a walk that computes cells from absolute positions along the cast (A + n·t, then
 * minus the level's origin), each rounded to 2^-24 of the coordinates: 2^-20 (16 such roundings)
 * of the coordinates and the cast's length. The all-pairs phase reports it; the grid's own walk
 * no longer rounds by the coordinates (gridWalkSlack).
 */
export function gridCastSlack(reach: CastReach): number {
  return (reach.maxAbs + reach.maxLength + reach.maxRadius) * 2 ** -20;
}

/** The fraction of a walk's magnitudes that its slack is (2^-20: 16 roundings of 2^-24). */
export const GRID_WALK_SLACK = 2 ** -20;

/**
 * The grid walk's slack for one cast at one level, added to its reach (the kernel computes it per
 * cast and level, src/broadphase/grid/casts.wgsl.ts; the CPU twin and 'auto''s estimate alike).
 * The walk works in the level's frame: A's offset from the level's origin (`offset`, its largest
 * component), positions A + n·t along the cast from there, slab bounds at whole cells (exact) ±
 * the reach. Each rounds to 2^-24 of a magnitude at most offset + length + reaches + a cell, and
 * a sphere that the f32 hit test accepts is within its reach of the cast plus ulps of that
 * distance, its own cell (from its offset from the origin, exact where the two are of a size)
 * rounded by ulps of the same magnitude; 2^-20 of it covers 16 such roundings. Far from the
 * world's origin (a lattice at 1e6) this is ulps of the scene's extent, not of 1e6.
 */
export function gridWalkSlack(offset: number, length: number, castRadius: number, levelRadius: number, cellSize: number): number {
  return (offset + length + castRadius + levelRadius + cellSize) * GRID_WALK_SLACK;
}
