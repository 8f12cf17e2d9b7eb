/**
 * The sweep's host-side arithmetic, pure (no GPU, no shader): the axis it sorts along, the slack
 * its intervals are widened by, and the estimate 'auto' sweeps sphere pairs by. The phase
 * (./phase.ts), its CPU twin (src/reference/sweep.ts) and its registry line (../registry.ts)
 * share them.
 */
import type { SphereStats } from '../../spatial/stats.js';

/** The axis of greatest variance of the centres (x on ties). */
export function sweepAxis(stats: SphereStats): 0 | 1 | 2 {
  const [vx, vy, vz] = stats.variance;
  return vz > vx && vz > vy ? 2 : vy > vx ? 1 : 0;
}

/**
 * What every interval's upper end is widened by: well above the f32 rounding of positions of
 * this size, so that the sweep never prunes a pair the overlap test (the same in every broad
 * phase) would keep.
 */
export function sweepSlack(stats: SphereStats): number {
  const abs = Math.max(0, ...stats.min.map(Math.abs), ...stats.max.map(Math.abs));
  return (abs + stats.maxRadius) * 2 ** -20;
}

/**
 * 'auto' sweeps sphere pairs when each sphere's interval along the sweep axis meets at most this
 * many others (about): measured on SwiftShader at 100k spheres (docs/PERFORMANCE.md), the sweep
 * costs ~0.13 µs a sphere plus ~15 ns a candidate and the grid's walk ~0.7 µs a sphere, so they
 * cross near 38; 'auto' takes the sweep below 32.
 */
export const AUTO_SWEEP_MAX_CANDIDATES = 32;
/** …and only when the scene is this many times longer along the sweep axis than across it (so ties along the axis, as in a lattice, stay few). */
export const AUTO_SWEEP_MIN_ELONGATION = 4;

/**
 * The sweep's expected candidates a sphere, n·2r̄/L (r̄ the mean radius from the octave
 * histogram's upper ends, L the axis's extent from its variance as if uniform: √(12 var)), and
 * how elongated the scene is along the axis (L over the larger of the other two extents).
 */
export function sweepEstimate(stats: SphereStats): { candidates: number; elongation: number } {
  const extents = stats.variance.map((v) => Math.sqrt(12 * v));
  const axis = sweepAxis(stats);
  const across = Math.max(...extents.filter((_, a) => a !== axis));
  let radii = 0;
  stats.log2Hist.forEach((count, bin) => {
    radii += count * stats.log2MaxRadius[bin];
  });
  const meanRadius = stats.count > 0 ? radii / stats.count : 0;
  const length = extents[axis];
  return {
    candidates: length > 0 ? (stats.count * 2 * meanRadius) / length : Infinity,
    elongation: across > 0 ? length / across : length > 0 ? Infinity : 0,
  };
}

/** Whether the sweep pays for these spheres' pairs: few candidates a sphere along a long thin scene (sweepEstimate). */
export function sweepPays(stats: SphereStats): boolean {
  const { candidates, elongation } = sweepEstimate(stats);
  return candidates <= AUTO_SWEEP_MAX_CANDIDATES && elongation >= AUTO_SWEEP_MIN_ELONGATION;
}
