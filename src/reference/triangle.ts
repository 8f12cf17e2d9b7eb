/**
 * One triangle against a ray, a point and a swept sphere, the oracle (double precision), as
 * docs/CONTRACT.md ("Meshes") writes the math. T = (P0, P1, P2), e1 = P1 − P0, e2 = P2 − P0,
 * N' = e1 × e2 (N = N'/|N'|, by the winding); T is degenerate iff N' = 0 exactly (the f32
 * vertices are exact in double, and so are e1 and e2 but for vertices 2²⁹ times apart).
 *
 * Ray (A, unit n, length L): with qᵢ = Pᵢ − A (everything relative to the origin), the signed
 * volumes s₀ = n·(q₁ × q₂), s₁ = n·(q₂ × q₀), s₂ = n·(q₀ × q₁) sum to n·N' and are the
 * barycentrics of the line's crossing scaled by it: the line meets T iff they share a sign (zeros
 * count: edges and vertices hit), and then u = s₁/Σ, v = s₂/Σ. An edge shared by two triangles
 * gives the same volume to both, negated (a × b = −(b × a) exactly in floating point), so a ray
 * never slips between two triangles. t = (q₀·N') / (n·N'); a hit needs n·N' ≠ 0 (a ray parallel
 * to the plane misses, in it too) and 0 ≤ t ≤ L.
 *
 * Sphere cast (radius r > 0): the first t in [0, L] with dist(A + n t, T) ≤ r is the first entry
 * of the line into T ⊕ ball(r) = the prism T × [−r, r]N ∪ the three edges' capsules. The prism is
 * entered through an offset plane s = ±r (a side wall lies inside an edge's cylinder), a finite
 * cylinder through its side (an end cap lies inside a vertex's ball), so the answer is the least
 * of: the face (the plane s(t) = ±r, the centre's projection inside T), three edges (the infinite
 * cylinder |(m + n t) × d|² = r²|d|², m = A − P, d = Q − P, its foot within the segment) and three
 * vertices (|m + n t|² = r²). Each quadratic a t² + 2b t + c = 0 with c > 0 (outside), b < 0
 * (approaching) is solved as t = c / (−b + √(b² − ac)), without cancellation; the cylinder's
 * coefficients come from cross products (a = |n × d|², b = (m × d)·(n × d), c = |m × d|² − r²|d|²).
 * A cast whose start overlaps T (dist(A, T) < r) ignores it; dist(A, T) = r is a hit at t = 0.
 * r = 0 is the ray's test exactly.
 *
 * Closest point of T to p: Ericson, Real-Time Collision Detection §5.1.5 (the Voronoi regions of
 * the vertices, then the edges, then the face), with the vertices taken relative to p.
 */

/** Doubles a packed triangle takes: P0, P1, P2, N', |N'|², then its box (min, max). */
export const TRIANGLE_STRIDE = 19;

/** A point (or vector) in double precision. */
export type Vec3 = [number, number, number];

/** A ray's hit on a triangle: D = A + n t = P0 + u e1 + v e2. */
export interface TriangleHit {
  /** Distance along the ray (or the cast) from A. */
  t: number;
  /** Weight of e1 in the hit (or contact) point. */
  u: number;
  /** Weight of e2 in the hit (or contact) point. */
  v: number;
}

/** A sphere cast's first contact: centre C = A + n t, contact point E = P0 + u e1 + v e2. */
export interface TriangleCastHit extends TriangleHit {
  /** The sphere's centre at contact, A + n·t. */
  center: Vec3;
  /** The point E of T it touches. */
  contact: Vec3;
}

/** The point of a triangle closest to another. */
export interface ClosestPoint {
  /** E = P0 + u·e1 + v·e2. */
  point: Vec3;
  /** Weight of e1. */
  u: number;
  /** Weight of e2. */
  v: number;
}

/** A ray's unit direction and length. */
export interface RayDirection {
  /** AB / |AB| (NaN for a zero-length ray). */
  n: Vec3;
  /** |AB|. */
  len: number;
}

/** Writes triangle (P0, P1, P2) into `out` at `o`: the vertices, N' = e1 × e2, |N'|² and its box. */
export function packTriangle(
  out: Float64Array,
  o: number,
  p0: ArrayLike<number>,
  p1: ArrayLike<number>,
  p2: ArrayLike<number>,
): void {
  for (let a = 0; a < 3; a++) {
    out[o + a] = p0[a];
    out[o + 3 + a] = p1[a];
    out[o + 6 + a] = p2[a];
    out[o + 13 + a] = Math.min(p0[a], p1[a], p2[a]);
    out[o + 16 + a] = Math.max(p0[a], p1[a], p2[a]);
  }
  const e1x = p1[0] - p0[0],
    e1y = p1[1] - p0[1],
    e1z = p1[2] - p0[2];
  const e2x = p2[0] - p0[0],
    e2y = p2[1] - p0[1],
    e2z = p2[2] - p0[2];
  const nx = e1y * e2z - e1z * e2y,
    ny = e1z * e2x - e1x * e2z,
    nz = e1x * e2y - e1y * e2x;
  out[o + 9] = nx;
  out[o + 10] = ny;
  out[o + 11] = nz;
  out[o + 12] = nx * nx + ny * ny + nz * nz;
}

/** Degenerate: e1 × e2 is exactly zero (repeated or collinear vertices). Never hit by any query. */
export function isDegenerateTriangle(p0: ArrayLike<number>, p1: ArrayLike<number>, p2: ArrayLike<number>): boolean {
  const scratch = new Float64Array(TRIANGLE_STRIDE);
  packTriangle(scratch, 0, p0, p1, p2);
  return scratch[9] === 0 && scratch[10] === 0 && scratch[11] === 0;
}

/**
 * The ray's test on packed triangle `o` of `T` (the header's signed volumes): t, or −1 for a miss;
 * u, v go to out[0], out[1]. n is the unit direction, len = |AB|.
 */
export function rayHitPacked(
  T: Float64Array,
  o: number,
  ax: number,
  ay: number,
  az: number,
  nx: number,
  ny: number,
  nz: number,
  len: number,
  out: Float64Array,
): number {
  const Nx = T[o + 9],
    Ny = T[o + 10],
    Nz = T[o + 11];
  const denom = nx * Nx + ny * Ny + nz * Nz;
  if (denom === 0) return -1; // parallel to the plane, or degenerate (N' = 0)
  const q0x = T[o] - ax,
    q0y = T[o + 1] - ay,
    q0z = T[o + 2] - az;
  let t = (q0x * Nx + q0y * Ny + q0z * Nz) / denom;
  if (!(t >= 0 && t <= len)) return -1;
  const q1x = T[o + 3] - ax,
    q1y = T[o + 4] - ay,
    q1z = T[o + 5] - az;
  const q2x = T[o + 6] - ax,
    q2y = T[o + 7] - ay,
    q2z = T[o + 8] - az;
  const s0 = nx * (q1y * q2z - q1z * q2y) + ny * (q1z * q2x - q1x * q2z) + nz * (q1x * q2y - q1y * q2x);
  const s1 = nx * (q2y * q0z - q2z * q0y) + ny * (q2z * q0x - q2x * q0z) + nz * (q2x * q0y - q2y * q0x);
  const s2 = nx * (q0y * q1z - q0z * q1y) + ny * (q0z * q1x - q0x * q1z) + nz * (q0x * q1y - q0y * q1x);
  if ((s0 < 0 || s1 < 0 || s2 < 0) && (s0 > 0 || s1 > 0 || s2 > 0)) return -1;
  const sum = s0 + s1 + s2;
  if (sum === 0) return -1; // all three volumes vanish only for a line in the plane
  if (t === 0) t = 0; // not −0
  out[0] = s1 / sum + 0; // + 0: not −0
  out[1] = s2 / sum + 0;
  return t;
}

/**
 * Ericson's closest point of packed triangle `o` to p: writes E − p (x, y, z) and E's
 * barycentrics u, v to out[0..4]; returns |E − p|². A degenerate triangle gets the closest point
 * of its three edges.
 */
export function closestPointPacked(
  T: Float64Array,
  o: number,
  px: number,
  py: number,
  pz: number,
  out: Float64Array,
): number {
  const ax = T[o] - px,
    ay = T[o + 1] - py,
    az = T[o + 2] - pz;
  const abx = T[o + 3] - T[o],
    aby = T[o + 4] - T[o + 1],
    abz = T[o + 5] - T[o + 2];
  const acx = T[o + 6] - T[o],
    acy = T[o + 7] - T[o + 1],
    acz = T[o + 8] - T[o + 2];
  let u = 0,
    v = 0;
  if (T[o + 12] === 0) {
    const uv = degenerateClosest(ax, ay, az, abx, aby, abz, acx, acy, acz);
    u = uv[0];
    v = uv[1];
  } else {
    // ap = p − a = −(a − p)
    const d1 = -(abx * ax + aby * ay + abz * az),
      d2 = -(acx * ax + acy * ay + acz * az);
    const d3 = d1 - (abx * abx + aby * aby + abz * abz),
      d4 = d2 - (acx * abx + acy * aby + acz * abz);
    const d5 = d1 - (abx * acx + aby * acy + abz * acz),
      d6 = d2 - (acx * acx + acy * acy + acz * acz);
    const vc = d1 * d4 - d3 * d2,
      vb = d5 * d2 - d1 * d6,
      va = d3 * d6 - d5 * d4;
    if (d1 <= 0 && d2 <= 0)
      u = 0; // vertex P0
    else if (d3 >= 0 && d4 <= d3) u = 1;
    else if (vc <= 0 && d1 >= 0 && d3 <= 0) u = d1 / (d1 - d3);
    else if (d6 >= 0 && d5 <= d6) v = 1;
    else if (vb <= 0 && d2 >= 0 && d6 <= 0) v = d2 / (d2 - d6);
    else if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
      v = (d4 - d3) / (d4 - d3 + (d5 - d6));
      u = 1 - v;
    } else {
      const denom = va + vb + vc;
      u = vb / denom;
      v = vc / denom;
    }
  }
  out[0] = ax + u * abx + v * acx;
  out[1] = ay + u * aby + v * acy;
  out[2] = az + u * abz + v * acz;
  out[3] = u;
  out[4] = v;
  return out[0] * out[0] + out[1] * out[1] + out[2] * out[2];
}

/** The nearest of a degenerate triangle's three edges to the origin (a relative to p): (u, v). */
function degenerateClosest(
  ax: number,
  ay: number,
  az: number,
  bx: number,
  by: number,
  bz: number,
  cx: number,
  cy: number,
  cz: number,
): [number, number] {
  // Edges a→a+b, a→a+c, a+b→a+c; each point as (u, v) over (b, c).
  const edges: [number, number, number, number][] = [
    [0, 0, 1, 0],
    [0, 0, 0, 1],
    [1, 0, 0, 1],
  ];
  let best = Infinity;
  let bu = 0,
    bv = 0;
  for (const [u0, v0, u1, v1] of edges) {
    const sx = ax + u0 * bx + v0 * cx,
      sy = ay + u0 * by + v0 * cy,
      sz = az + u0 * bz + v0 * cz;
    const dx = (u1 - u0) * bx + (v1 - v0) * cx,
      dy = (u1 - u0) * by + (v1 - v0) * cy,
      dz = (u1 - u0) * bz + (v1 - v0) * cz;
    const dd = dx * dx + dy * dy + dz * dz;
    const s = dd > 0 ? Math.min(Math.max(-(sx * dx + sy * dy + sz * dz) / dd, 0), 1) : 0;
    const ex = sx + s * dx,
      ey = sy + s * dy,
      ez = sz + s * dz;
    const d2 = ex * ex + ey * ey + ez * ez;
    if (d2 < best) {
      best = d2;
      bu = u0 + s * (u1 - u0);
      bv = v0 + s * (v1 - v0);
    }
  }
  return [bu, bv];
}

/** The smaller root of a t² + 2b t + c = 0 when the origin is outside (c > 0) and approaching (b < 0), else −1. */
function entryRoot(a: number, b: number, c: number): number {
  if (!(c > 0 && b < 0)) return -1;
  const disc = b * b - a * c;
  if (disc < 0) return -1;
  return c / (-b + Math.sqrt(disc));
}

/**
 * The sphere cast's test on packed triangle `o` (the header's method): t, or −1 for a miss or an
 * ignored (starting overlap) triangle; E − A goes to out[0..2], E's u, v to out[3], out[4].
 * `scratch` is a Float64Array of 5 for the closest point.
 */
export function castHitPacked(
  T: Float64Array,
  o: number,
  ax: number,
  ay: number,
  az: number,
  nx: number,
  ny: number,
  nz: number,
  len: number,
  r: number,
  out: Float64Array,
): number {
  if (r === 0) {
    const t = rayHitPacked(T, o, ax, ay, az, nx, ny, nz, len, out);
    if (t < 0) return -1;
    const u = out[0],
      v = out[1];
    for (let a = 0; a < 3; a++)
      out[a] =
        T[o + a] + u * (T[o + 3 + a] - T[o + a]) + v * (T[o + 6 + a] - T[o + a]) - (a === 0 ? ax : a === 1 ? ay : az);
    out[3] = u;
    out[4] = v;
    return t;
  }
  if (T[o + 12] === 0) return -1; // degenerate
  const d0 = closestPointPacked(T, o, ax, ay, az, out);
  if (d0 < r * r) return -1; // starts overlapping: ignored
  if (d0 === r * r) return 0; // touching at the start; out holds E − A
  let best = Infinity;
  let bu = 0,
    bv = 0;
  // Face: the plane offset by ±r on the side A starts, the centre's projection inside T.
  const Nx = T[o + 9],
    Ny = T[o + 10],
    Nz = T[o + 11];
  const nl = Math.sqrt(T[o + 12]);
  const mx = ax - T[o],
    my = ay - T[o + 1],
    mz = az - T[o + 2];
  const s0 = (mx * Nx + my * Ny + mz * Nz) / nl;
  const dn = (nx * Nx + ny * Ny + nz * Nz) / nl;
  if (Math.abs(s0) > r && s0 * dn < 0) {
    const t = (Math.abs(s0) - r) / Math.abs(dn);
    const wx = mx + nx * t,
      wy = my + ny * t,
      wz = mz + nz * t;
    const e1x = T[o + 3] - T[o],
      e1y = T[o + 4] - T[o + 1],
      e1z = T[o + 5] - T[o + 2];
    const e2x = T[o + 6] - T[o],
      e2y = T[o + 7] - T[o + 1],
      e2z = T[o + 8] - T[o + 2];
    // u = (w × e2)·N' / |N'|², v = (e1 × w)·N' / |N'|²: the projection's barycentrics.
    const u = ((wy * e2z - wz * e2y) * Nx + (wz * e2x - wx * e2z) * Ny + (wx * e2y - wy * e2x) * Nz) / T[o + 12];
    const v = ((e1y * wz - e1z * wy) * Nx + (e1z * wx - e1x * wz) * Ny + (e1x * wy - e1y * wx) * Nz) / T[o + 12];
    if (u >= 0 && v >= 0 && u + v <= 1 && t <= len) {
      best = t;
      bu = u;
      bv = v;
    }
  }
  // Edges P0→P1, P1→P2, P2→P0: (u, v) of P + s d is (s, 0), (1 − s, s), (0, 1 − s).
  for (let k = 0; k < 3; k++) {
    const p = o + 3 * k,
      q = o + 3 * ((k + 1) % 3);
    const dx = T[q] - T[p],
      dy = T[q + 1] - T[p + 1],
      dz = T[q + 2] - T[p + 2];
    const ex = ax - T[p],
      ey = ay - T[p + 1],
      ez = az - T[p + 2];
    const mdx = ey * dz - ez * dy,
      mdy = ez * dx - ex * dz,
      mdz = ex * dy - ey * dx;
    const ndx = ny * dz - nz * dy,
      ndy = nz * dx - nx * dz,
      ndz = nx * dy - ny * dx;
    const dd = dx * dx + dy * dy + dz * dz;
    const t = entryRoot(
      ndx * ndx + ndy * ndy + ndz * ndz,
      mdx * ndx + mdy * ndy + mdz * ndz,
      mdx * mdx + mdy * mdy + mdz * mdz - r * r * dd,
    );
    if (t < 0 || t >= best || t > len) continue;
    const s = ((ex + nx * t) * dx + (ey + ny * t) * dy + (ez + nz * t) * dz) / dd;
    if (s < 0 || s > 1) continue;
    best = t;
    bu = k === 0 ? s : k === 1 ? 1 - s : 0;
    bv = k === 0 ? 0 : k === 1 ? s : 1 - s;
  }
  // Vertices.
  for (let k = 0; k < 3; k++) {
    const ex = ax - T[o + 3 * k],
      ey = ay - T[o + 3 * k + 1],
      ez = az - T[o + 3 * k + 2];
    const t = entryRoot(nx * nx + ny * ny + nz * nz, ex * nx + ey * ny + ez * nz, ex * ex + ey * ey + ez * ez - r * r);
    if (t < 0 || t >= best || t > len) continue;
    best = t;
    bu = k === 1 ? 1 : 0;
    bv = k === 2 ? 1 : 0;
  }
  if (best === Infinity) return -1;
  for (let a = 0; a < 3; a++) {
    const origin = a === 0 ? ax : a === 1 ? ay : az;
    out[a] = T[o + a] - origin + bu * (T[o + 3 + a] - T[o + a]) + bv * (T[o + 6 + a] - T[o + a]);
  }
  out[3] = bu;
  out[4] = bv;
  return best;
}

/** Unit direction and length of A→B in double (n is NaN for a zero-length ray). */
export function rayDirection(a: ArrayLike<number>, b: ArrayLike<number>): RayDirection {
  const dx = b[0] - a[0],
    dy = b[1] - a[1],
    dz = b[2] - a[2];
  const len = Math.hypot(dx, dy, dz);
  return { n: [dx / len, dy / len, dz / len], len };
}

/** The ray (A, unit n, length len) against T (CONTRACT): { t, u, v } or null. */
export function rayTriangle(
  a: ArrayLike<number>,
  n: ArrayLike<number>,
  len: number,
  p0: ArrayLike<number>,
  p1: ArrayLike<number>,
  p2: ArrayLike<number>,
): TriangleHit | null {
  const T = new Float64Array(TRIANGLE_STRIDE);
  packTriangle(T, 0, p0, p1, p2);
  const out = new Float64Array(5);
  const t = rayHitPacked(T, 0, a[0], a[1], a[2], n[0], n[1], n[2], len, out);
  return t < 0 ? null : { t, u: out[0], v: out[1] };
}

/** The point E of T closest to p, and its barycentrics (E = P0 + u e1 + v e2). */
export function closestPointOnTriangle(
  p: ArrayLike<number>,
  p0: ArrayLike<number>,
  p1: ArrayLike<number>,
  p2: ArrayLike<number>,
): ClosestPoint {
  const T = new Float64Array(TRIANGLE_STRIDE);
  packTriangle(T, 0, p0, p1, p2);
  const out = new Float64Array(5);
  closestPointPacked(T, 0, p[0], p[1], p[2], out);
  return { point: [p[0] + out[0], p[1] + out[1], p[2] + out[2]], u: out[3], v: out[4] };
}

/** A sphere of radius r swept from A along unit n for len, against T (CONTRACT): the first contact or null. */
export function sphereCastTriangle(
  a: ArrayLike<number>,
  n: ArrayLike<number>,
  len: number,
  r: number,
  p0: ArrayLike<number>,
  p1: ArrayLike<number>,
  p2: ArrayLike<number>,
): TriangleCastHit | null {
  const T = new Float64Array(TRIANGLE_STRIDE);
  packTriangle(T, 0, p0, p1, p2);
  const out = new Float64Array(5);
  const t = castHitPacked(T, 0, a[0], a[1], a[2], n[0], n[1], n[2], len, r, out);
  if (t < 0) return null;
  return {
    t,
    u: out[3],
    v: out[4],
    center: [a[0] + n[0] * t, a[1] + n[1] * t, a[2] + n[2] * t],
    contact: [a[0] + out[0], a[1] + out[1], a[2] + out[2]],
  };
}
