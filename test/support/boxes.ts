/**
 * Sphere–box pair margins for diffPairs, normalised so that |margin| ≤ 1 means "within float
 * rounding of touching" (documented in docs/TESTING.md):
 * - AABB: the clamp is exact, so the band is the sphere pairs' (docs/CONTRACT.md): |d² − r²| ≤ 1e-5 r².
 * - oriented box: rotating S − centre into box space costs a few ulps of |S − centre|:
 *   with δ = 1e-6 (|S − centre| + |h|), |d² − r²| ≤ 1e-5 r² + 2δ (r + δ).
 * A point sphere (r = 0) touching nothing has margin +∞ unless d² is within the band.
 */
import { sphereAabbDistance2, sphereObbDistance2 } from '../../src/reference/sphereBox.js';

const normalise = (d2: number, r: number, band: number): number => {
  if (band === 0) return d2 === r * r ? 0 : Infinity;
  return (d2 - r * r) / band;
};

export function aabbMargin(aabbs: Float32Array) {
  return (spheres: Float32Array, i: number, k: number): number => {
    const r = spheres[4 * i + 3];
    return normalise(sphereAabbDistance2(spheres, i, aabbs, k), r, 1e-5 * r * r);
  };
}

export function obbMargin(boxes: Float32Array) {
  return (spheres: Float32Array, i: number, k: number): number => {
    const r = spheres[4 * i + 3];
    const b = 10 * k;
    const far = Math.hypot(
      spheres[4 * i] - boxes[b],
      spheres[4 * i + 1] - boxes[b + 1],
      spheres[4 * i + 2] - boxes[b + 2],
    );
    const delta = 1e-6 * (far + Math.hypot(boxes[b + 3], boxes[b + 4], boxes[b + 5]));
    return normalise(sphereObbDistance2(spheres, i, boxes, k), r, 1e-5 * r * r + 2 * delta * (r + delta));
  };
}
