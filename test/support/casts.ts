/**
 * Comparing GPU raycasts and sphere casts with the double-precision reference, within a
 * tolerance derived from f32 rounding (documented in docs/TESTING.md):
 *
 *   ε = 1e-6 (about 16 f32 ulps), for a ray A→B of length L against sphere (S, r2), R = r1 + r2,
 *   d = S − A:
 *   - "inside or not" (|d|² < R²) may flip when ||d|² − R²| ≤ ε (|d|² + R²);
 *   - "tangent or not" (disc = R² − |d × n|² ≥ 0) may flip when |disc| ≤ ε (|d|² + R²);
 *   - the distance t = d·n − √disc may differ by
 *       tolT = 1e-5 (|d| + L + R) + min(√δ, δ / (2√disc)),  δ = ε (|d|² + R²),
 *     the second term being the square root's sensitivity near tangency;
 *   - "on the segment or not" may flip when t is within tolT of 0 or of L.
 * A sphere is a robust hit when the reference hits it and none of these may flip; a borderline
 * one when one of them may. The GPU's nearest must not be farther than the nearest robust hit,
 * must be a robust or borderline hit, and its distance must match that sphere's within tolT.
 */
import { castHit } from '../../src/reference/casts.js';

const EPS = 1e-6;

export interface Classified {
  /** Reference distance (even for a borderline miss: the distance with disc clamped to 0). */
  t: number;
  tol: number;
  robust: boolean;
  borderline: boolean;
}

/** How the reference sees ray k against sphere i. */
export function classify(rays: Float32Array, stride: 6 | 7, k: number, spheres: Float32Array, i: number): Classified {
  const o = stride * k;
  const ax = rays[o],
    ay = rays[o + 1],
    az = rays[o + 2];
  const lx = rays[o + 3] - ax,
    ly = rays[o + 4] - ay,
    lz = rays[o + 5] - az;
  const length = Math.hypot(lx, ly, lz);
  const r1 = stride === 7 ? rays[o + 6] : 0;
  const R = r1 + spheres[4 * i + 3];
  const dx = spheres[4 * i] - ax,
    dy = spheres[4 * i + 1] - ay,
    dz = spheres[4 * i + 2] - az;
  const d2 = dx * dx + dy * dy + dz * dz;
  if (length === 0) return { t: NaN, tol: 0, robust: false, borderline: false };
  const nx = lx / length,
    ny = ly / length,
    nz = lz / length;
  const ac = dx * nx + dy * ny + dz * nz;
  const disc = R * R - Math.max(d2 - ac * ac, 0);
  const delta = EPS * (d2 + R * R);
  const tol =
    1e-5 * (Math.sqrt(d2) + length + R) +
    (disc > 0 ? Math.min(Math.sqrt(delta), delta / (2 * Math.sqrt(disc))) : Math.sqrt(delta));
  const t = ac - Math.sqrt(Math.max(disc, 0));
  const hit =
    castHit(
      ax,
      ay,
      az,
      rays[o + 3],
      rays[o + 4],
      rays[o + 5],
      r1,
      spheres[4 * i],
      spheres[4 * i + 1],
      spheres[4 * i + 2],
      spheres[4 * i + 3],
    ) !== null;
  const fragile =
    Math.abs(d2 - R * R) <= delta || Math.abs(disc) <= delta || Math.abs(t) <= tol || Math.abs(t - length) <= tol;
  // A sphere that is far from touching the line, or behind and outside, is a robust miss.
  const near = disc >= -delta && t <= length + tol && t >= -tol;
  return { t, tol, robust: hit && !fragile, borderline: fragile && (hit || near) };
}

export interface NearestResult {
  index: Int32Array;
  distance: Float32Array;
}

/** Per ray, the reference's nearest robust hit: its distance (Infinity with none) and tolerance. */
export interface NearestTruth {
  t: Float64Array;
  tol: Float64Array;
}

/**
 * The nearest robust hit of every ray, by testing every sphere (rays × spheres classifications):
 * compute it once to check several results of the same casts.
 */
export function nearestTruth(rays: Float32Array, stride: 6 | 7, spheres: Float32Array): NearestTruth {
  const count = rays.length / stride;
  const n = spheres.length / 4;
  const truth = { t: new Float64Array(count).fill(Infinity), tol: new Float64Array(count) };
  for (let k = 0; k < count; k++) {
    for (let i = 0; i < n; i++) {
      const c = classify(rays, stride, k, spheres, i);
      if (c.robust && c.t < truth.t[k]) {
        truth.t[k] = c.t;
        truth.tol[k] = c.tol;
      }
    }
  }
  return truth;
}

/**
 * Problems with a GPU nearest-hit result (empty when it agrees within the tolerance). `truth`
 * (from {@link nearestTruth}) saves the brute-force pass when several results are checked.
 */
export function nearestViolations(
  rays: Float32Array,
  stride: 6 | 7,
  spheres: Float32Array,
  gpu: NearestResult,
  limit = 10,
  truth?: NearestTruth,
): string[] {
  const out: string[] = [];
  const count = rays.length / stride;
  const n = spheres.length / 4;
  const reference = truth ?? nearestTruth(rays, stride, spheres);
  for (let k = 0; k < count && out.length < limit; k++) {
    const nearestRobust = reference.t[k];
    const nearestRobustTol = reference.tol[k];
    const j = gpu.index[k];
    if (j < 0) {
      if (nearestRobust < Infinity) out.push(`ray ${k}: GPU misses, but a robust hit is at ${nearestRobust}`);
      continue;
    }
    if (j >= n) {
      out.push(`ray ${k}: index ${j} out of range`);
      continue;
    }
    const c = classify(rays, stride, k, spheres, j);
    if (!c.robust && !c.borderline) out.push(`ray ${k}: GPU hits ${j}, which the reference does not hit`);
    else if (Math.abs(gpu.distance[k] - c.t) > c.tol)
      out.push(`ray ${k}: sphere ${j} at ${gpu.distance[k]}, reference ${c.t} (tolerance ${c.tol})`);
    else if (gpu.distance[k] > nearestRobust + nearestRobustTol + c.tol)
      out.push(`ray ${k}: GPU's hit at ${gpu.distance[k]} is beyond a robust hit at ${nearestRobust}`);
  }
  return out;
}

/** Problems with a GPU all-hits result. */
export function allHitsViolations(
  rays: Float32Array,
  stride: 6 | 7,
  spheres: Float32Array,
  gpu: { offsets: Uint32Array; index: Int32Array; distance: Float32Array },
  limit = 10,
): string[] {
  const out: string[] = [];
  const count = rays.length / stride;
  const n = spheres.length / 4;
  if (gpu.offsets.length !== count + 1 || gpu.offsets[count] !== gpu.index.length)
    return [`offsets do not span the hits`];
  for (let k = 0; k < count && out.length < limit; k++) {
    const mine = new Set<number>();
    for (let h = gpu.offsets[k]; h < gpu.offsets[k + 1]; h++) {
      const j = gpu.index[h];
      if (mine.has(j)) out.push(`ray ${k}: sphere ${j} listed twice`);
      mine.add(j);
      if (h > gpu.offsets[k] && gpu.distance[h] < gpu.distance[h - 1])
        out.push(`ray ${k}: hits not sorted by distance`);
      if (h > gpu.offsets[k] && gpu.distance[h] === gpu.distance[h - 1] && j < gpu.index[h - 1])
        out.push(`ray ${k}: a tie not sorted by index`);
      const c = classify(rays, stride, k, spheres, j);
      if (!c.robust && !c.borderline) out.push(`ray ${k}: GPU hits ${j}, which the reference does not hit`);
      else if (Math.abs(gpu.distance[h] - c.t) > c.tol)
        out.push(`ray ${k}: sphere ${j} at ${gpu.distance[h]}, reference ${c.t}`);
    }
    for (let i = 0; i < n; i++) {
      if (!mine.has(i) && classify(rays, stride, k, spheres, i).robust)
        out.push(`ray ${k}: GPU misses robust hit ${i}`);
    }
  }
  return out.slice(0, limit);
}
