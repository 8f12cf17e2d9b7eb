/**
 * The LBVH's shape, pure: the constants and host functions that its kernels
 * (shaders/spatial/bvh.wgsl.ts, bvhWalk.wgsl.ts), broad phase 'bvh' (src/broadphase/bvh/), the
 * meshes (src/mesh/) and the CPU twin (src/reference/bvh.ts) share. No GPU, no shader text: the twin imports this module and no runtime GPU module.
 */
import type { SphereStats } from '../validate.js';

/** Morton cells per axis: 2^20 (two 30-bit words of code). */
export const MORTON_CELLS = 2 ** 20;

/** The leaf flag of a child index. */
export const BVH_LEAF = 0x80000000;
/** Entries of the walks' stack: more than the 92 the depth bound allows (shaders/spatial/bvh.wgsl.ts's comment). */
export const BVH_STACK = 96;
/** The largest internal-node depth the keys allow (shaders/spatial/bvh.wgsl.ts's comment). */
export const BVH_MAX_DEPTH = 92;

/**
 * The stack a walk of a tree needs, given a bound on its internal nodes' depth: a walk holds at
 * most one pushed node for each internal ancestor of the node it is at, fewer than the depth.
 * In steps of 8 (one compiled walk a step), at most BVH_STACK. Each walk zero-fills its stack
 * (WGSL initialises every `var`): on SwiftShader, where the array is memory, a 20k-ray call
 * against a one-triangle mesh took 19–23 ms with 96 entries and 10–13 with 8. On an H200 the
 * size made no difference measured (docs/PERFORMANCE.md, "NVIDIA H200 (2026-11-30)").
 */
export function walkStackFor(depth: number): number {
  return Math.min(BVH_STACK, Math.max(8, Math.ceil(depth / 8) * 8));
}

/** The relative growth of a box's radius (P(r) = r·BVH_PAD + BVH_TINY, shaders/broadphase/bvh/walk.wgsl.ts's comment). */
export const BVH_PAD = 1 + 2 ** -18;
/** The absolute growth of a box's radius: above any flushed subnormal (2^-126). */
export const BVH_TINY = 2 ** -100;

/**
 * The relative growth of an oriented box's world half extents for the BVH's box walk (the
 * rotation's and the narrow test's rounding, in ulps of the box's own size: `bvhBoxBounds`,
 * shaders/broadphase/bvh/walk.wgsl.ts). The same 2^-16 + 2^-20 of the span as the shared
 * boxBounds, without its 2^-22 of the centre's coordinates: the walk rounds the bounds once,
 * monotonically.
 */
export const BVH_OBB_GROW = 2 ** -16 + 2 ** -20;

/**
 * The Morton grid over the centres' bounds: origin, and cubic cells, 2^20 across the largest
 * extent (the same scale on every axis; 0 when every extent is 0). Cubic, not stretched to each
 * axis: stretched, a long thin scene (100k spheres 32,725 long, 4 wide) splits its 4-wide axes
 * as often as its long one near the root, every node's box spans the whole length, and the
 * pair query walks many times the nodes (measured: docs/PERFORMANCE.md).
 */
export function bvhMortonGrid(stats: Pick<SphereStats, 'count' | 'min' | 'max'>): {
  origin: number[];
  scale: number[];
} {
  if (stats.count === 0) return { origin: [0, 0, 0], scale: [0, 0, 0] };
  const origin = stats.min.slice();
  const extent = Math.max(...stats.min.map((lo, a) => stats.max[a] - lo));
  const s = Math.fround(MORTON_CELLS / extent);
  const scale = extent > 0 && Number.isFinite(s) ? s : 0;
  return { origin, scale: [scale, scale, scale] };
}

/** The pyramid's levels for n leaves: level L ≥ 1 holds n >> L blocks, from `base[L]` on. */
export function bvhPyramidLevels(n: number): { count: number; base: number }[] {
  const levels: { count: number; base: number }[] = [];
  let base = 0;
  for (let level = 1; n >> level >= 1; level++) {
    levels.push({ count: n >> level, base });
    base += n >> level;
  }
  return levels;
}
