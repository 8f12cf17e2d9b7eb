/**
 * A cast walk's reach and the rounding slack that grows it: what the grid's walk (its kernel,
 * its CPU twin and 'auto''s estimate of its work) and every phase's `castSlack` read.
 */

/** What decides a cast walk's rounding slack: the largest |coordinate| of a cast or a sphere, the longest cast, the largest sphere radius. */
export interface CastReach {
  maxAbs: number;
  maxLength: number;
  maxRadius: number;
}

/** The fraction of a walk's magnitudes that its slack is (2^-20: 16 roundings of 2^-24). */
export const GRID_WALK_SLACK = 2 ** -20;

/**
 * The grid walk's slack for one cast at one level, added to its reach (the kernel computes it per
 * cast and level, shaders/broadphase/grid/casts.wgsl.ts; the CPU twin and 'auto''s estimate alike).
 * The walk works in the level's frame: A's offset from the level's origin (`offset`, its largest
 * component), positions A + n·t along the cast from there, slab bounds at whole cells (exact) ±
 * the reach. Each rounds to 2^-24 of a magnitude at most offset + length + reaches + a cell, and
 * a sphere that the f32 hit test accepts is within its reach of the cast plus ulps of that
 * distance, its own cell (from its offset from the origin, exact where the two are of a size)
 * rounded by ulps of the same magnitude; 2^-20 of it covers 16 such roundings. Far from the
 * world's origin (a lattice at 1e6) this is ulps of the scene's extent, not of 1e6.
 */
export function gridWalkSlack(
  offset: number,
  length: number,
  castRadius: number,
  levelRadius: number,
  cellSize: number,
): number {
  return (offset + length + castRadius + levelRadius + cellSize) * GRID_WALK_SLACK;
}
