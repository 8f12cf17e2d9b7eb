/**
 * The CPU twin of the sort-and-sweep broad phase (shaders/broadphase/sweep/sweep.wgsl.ts): the same axis, the
 * same f32 interval ends and slack, a stable sort by lower end, the same sweep and binary
 * search. The pair test is the oracle's (double precision), so on scenes away from the rounding
 * band it must give the oracle's pairs exactly: that checks the sweep never prunes a pair.
 */
import { spheresOverlap } from './spherePairs.js';
import { sphereAabbOverlap, sphereObbOverlap, obbWorldHalfExtents } from './sphereBox.js';
import { sweepAxis, sweepSlack } from '../broadphase/sweep/axis.js';
import { validateSpheres } from '../validate.js';

const f32 = Math.fround;

/** Sphere indices by their interval's f32 lower end along `axis` (stable), with those ends. */
export function sweepOrder(spheres: Float32Array, axis: number): { order: Uint32Array; lower: Float32Array } {
  const n = spheres.length / 4;
  const lower = new Float32Array(n);
  for (let i = 0; i < n; i++) lower[i] = spheres[4 * i + axis] - spheres[4 * i + 3];
  const order = Uint32Array.from({ length: n }, (_, i) => i).sort((a, b) => lower[a] - lower[b] || a - b);
  return { order, lower: Float32Array.from(order, (i) => lower[i]) };
}

/** Every overlapping pair (i < j) found by sorting and sweeping, in no particular order. */
export function sweepSpherePairs(spheres: Float32Array): Uint32Array {
  const stats = validateSpheres('spheres', spheres);
  const axis = sweepAxis(stats);
  const slack = f32(sweepSlack(stats));
  const { order, lower } = sweepOrder(spheres, axis);
  const out: number[] = [];
  for (let k = 0; k < order.length; k++) {
    const i = order[k];
    const upper = f32(f32(spheres[4 * i + axis] + spheres[4 * i + 3]) + slack);
    for (let u = k + 1; u < order.length && lower[u] <= upper; u++) {
      const j = order[u];
      if (spheresOverlap(spheres, i, j)) out.push(Math.min(i, j), Math.max(i, j));
    }
  }
  return Uint32Array.from(out);
}

/** World bounds (min xyz, max xyz) of box k: an AABB's (6 floats), an oriented box's (10 floats: centre, half extents, quaternion), grown as the GPU grows them. */
export function boxWorldBounds(boxes: Float32Array, kind: 'aabb' | 'obb', k: number): number[] {
  if (kind === 'aabb') return Array.from(boxes.subarray(6 * k, 6 * k + 6));
  const b = 10 * k;
  const out = new Array<number>(6);
  const e = obbWorldHalfExtents(boxes, k);
  const span = e[0] + e[1] + e[2];
  for (let a = 0; a < 3; a++) {
    const grow = span * (2 ** -16 + 2 ** -20) + Math.abs(boxes[b + a]) * 2 ** -22;
    out[a] = boxes[b + a] - e[a] - grow;
    out[a + 3] = boxes[b + a] + e[a] + grow;
  }
  return out;
}

/**
 * Every (sphere, box) that overlap, found by a binary search of the sorted spheres per box.
 * `kind` 'aabb': boxes are (min, max), 6 floats; 'obb': centre, half extents, quaternion.
 */
export function sweepSphereBoxPairs(spheres: Float32Array, boxes: Float32Array, kind: 'aabb' | 'obb'): Uint32Array {
  const stats = validateSpheres('spheres', spheres);
  const axis = sweepAxis(stats);
  const slack = f32(sweepSlack(stats));
  const { order, lower } = sweepOrder(spheres, axis);
  const boxCount = boxes.length / (kind === 'aabb' ? 6 : 10);
  const out: number[] = [];
  for (let k = 0; k < boxCount; k++) {
    const b = boxWorldBounds(boxes, kind, k);
    const from = f32(f32(b[axis] - f32(2 * stats.maxRadius)) - slack);
    const to = f32(b[axis + 3] + slack);
    let lo = 0;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (lower[mid] < from) lo = mid + 1;
      else hi = mid;
    }
    for (let u = lo; u < order.length && lower[u] <= to; u++) {
      const i = order[u];
      const hit = kind === 'aabb' ? sphereAabbOverlap(spheres, i, boxes, k) : sphereObbOverlap(spheres, i, boxes, k);
      if (hit) out.push(i, k);
    }
  }
  return Uint32Array.from(out);
}
