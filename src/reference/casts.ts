/**
 * Raycasts and sphere casts against spheres, the oracle (double precision), as docs/CONTRACT.md writes
 * the seeds' math.
 *
 * Raycast, ray from A to B, sphere (S, r): n = AB/|AB|, C the foot of the perpendicular from S
 * on the line, |AC| = AS·n, |CS|² = |AS|² − |AC|²; the hit point is
 *   D = A + n (|AC| − √(r² − |CS|²)),   a hit iff r² − |CS|² ≥ 0 (tangent hits) and 0 ≤ |AD| ≤ |AB|.
 * A ray whose origin is strictly inside the sphere (|AS|² < r²) ignores it. A zero-length ray
 * hits nothing. The nearest hit wins; ties go to the lowest sphere index.
 *
 * Sphere cast, a sphere of radius r1 moved from A to B, against (S, r2): the same with
 * R = r1 + r2 (the centre at contact is C = A + n (|AD| − √(R² − |DS|²)), D now the foot), and
 * the contact point E = C + (S − C)·r1/R. A hit needs 0 ≤ |AC| ≤ |AB| (the seed omits the upper
 * bound; we do not). A cast that starts overlapping (|AS| < R) ignores that sphere.
 */

export interface CastHit {
  /** Distance from A along the ray: |AD| for a ray, |AC| for a cast. */
  t: number;
  /** r² − |CS|² (or R² − |DS|²): ≥ 0 for a hit; near 0 for a tangent one. */
  disc: number;
}

/**
 * The WGSL `castHit` twin: where the ray (A, B) with radius r1 (0 for a ray) first touches
 * sphere (S, r2), or null. Also gives the discriminant so tests can tell tangent cases.
 */
export function castHit(
  ax: number,
  ay: number,
  az: number,
  bx: number,
  by: number,
  bz: number,
  r1: number,
  sx: number,
  sy: number,
  sz: number,
  r2: number,
): CastHit | null {
  const lx = bx - ax,
    ly = by - ay,
    lz = bz - az;
  const l2 = lx * lx + ly * ly + lz * lz;
  if (l2 === 0) return null;
  const length = Math.sqrt(l2);
  const dx = sx - ax,
    dy = sy - ay,
    dz = sz - az;
  const R = r1 + r2;
  const as2 = dx * dx + dy * dy + dz * dz;
  if (as2 < R * R) return null; // starts inside (ray) or overlapping (cast): ignored
  // |CS|² = |AS|² − |AC|² (the seed's formula), taken as |AS × AB|² / |AB|²: the same number,
  // without the cancellation of two large squares when A is far from S (the GPU kernel does the
  // same), and with AB not normalised first: its components are differences of f32 values, so a
  // point exactly on the segment gives a cross product of exactly 0 (a rounded n = AB / |AB|
  // would give a tiny positive |CS|² there, and a miss).
  const cx = dy * lz - dz * ly,
    cy = dz * lx - dx * lz,
    cz = dx * ly - dy * lx;
  const disc = (R * R * l2 - (cx * cx + cy * cy + cz * cz)) / l2;
  if (disc < 0) return null;
  // t·|AB| = AS·AB − √disc·|AB|, compared with 0 and |AB|² before the division: a point at A or
  // B exactly is then inside the segment exactly.
  const tl = dx * lx + dy * ly + dz * lz - Math.sqrt(disc) * length;
  if (tl < 0 || tl > l2) return null;
  return { t: tl / length, disc };
}

/** The nearest hit of each ray or cast. */
export interface NearestHits {
  /** The sphere hit, or −1 for a miss. */
  index: Int32Array;
  /** The distance travelled to the hit (NaN for a miss). */
  distance: Float32Array;
}

/**
 * Nearest hit of every ray (stride 6) or cast (stride 7: radius last) against every sphere.
 * index −1 and distance NaN for a miss.
 */
export function bruteForceNearestCasts(rays: Float32Array, stride: 6 | 7, spheres: Float32Array): NearestHits {
  const count = rays.length / stride;
  const n = spheres.length / 4;
  const index = new Int32Array(count).fill(-1);
  const distance = new Float32Array(count).fill(NaN);
  for (let k = 0; k < count; k++) {
    const o = stride * k;
    const r1 = stride === 7 ? rays[o + 6] : 0;
    let best = Infinity;
    let bestIndex = -1;
    for (let i = 0; i < n; i++) {
      const hit = castHit(
        rays[o],
        rays[o + 1],
        rays[o + 2],
        rays[o + 3],
        rays[o + 4],
        rays[o + 5],
        r1,
        spheres[4 * i],
        spheres[4 * i + 1],
        spheres[4 * i + 2],
        spheres[4 * i + 3],
      );
      if (hit && hit.t < best) {
        best = hit.t;
        bestIndex = i;
      }
    }
    index[k] = bestIndex;
    if (bestIndex >= 0) distance[k] = best;
  }
  return { index, distance };
}

/** Every hit of every ray or cast: hits of ray k are [offsets[k], offsets[k+1]), by distance then index. */
export function bruteForceAllCasts(
  rays: Float32Array,
  stride: 6 | 7,
  spheres: Float32Array,
): { offsets: Uint32Array; index: Int32Array; distance: Float64Array } {
  const count = rays.length / stride;
  const n = spheres.length / 4;
  const offsets = new Uint32Array(count + 1);
  const index: number[] = [];
  const distance: number[] = [];
  for (let k = 0; k < count; k++) {
    const o = stride * k;
    const r1 = stride === 7 ? rays[o + 6] : 0;
    const hits: [number, number][] = [];
    for (let i = 0; i < n; i++) {
      const hit = castHit(
        rays[o],
        rays[o + 1],
        rays[o + 2],
        rays[o + 3],
        rays[o + 4],
        rays[o + 5],
        r1,
        spheres[4 * i],
        spheres[4 * i + 1],
        spheres[4 * i + 2],
        spheres[4 * i + 3],
      );
      if (hit) hits.push([hit.t, i]);
    }
    hits.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    for (const [t, i] of hits) {
      distance.push(t);
      index.push(i);
    }
    offsets[k + 1] = index.length;
  }
  return { offsets, index: Int32Array.from(index), distance: Float64Array.from(distance) };
}

/** The hit point D = A + n·t of a ray (or the centre at contact C of a cast). */
export function pointAlong(rays: Float32Array, stride: number, k: number, t: number): [number, number, number] {
  const o = stride * k;
  const lx = rays[o + 3] - rays[o],
    ly = rays[o + 4] - rays[o + 1],
    lz = rays[o + 5] - rays[o + 2];
  const length = Math.hypot(lx, ly, lz);
  return [rays[o] + (lx / length) * t, rays[o + 1] + (ly / length) * t, rays[o + 2] + (lz / length) * t];
}

/** The contact point E = C + (S − C)·r1/(r1 + r2) of a cast whose centre at contact is C. */
export function contactPoint(
  center: [number, number, number],
  spheres: Float32Array,
  i: number,
  r1: number,
): [number, number, number] {
  const R = r1 + spheres[4 * i + 3];
  const f = R > 0 ? r1 / R : 0;
  return [0, 1, 2].map((a) => center[a] + (spheres[4 * i + a] - center[a]) * f) as [number, number, number];
}
