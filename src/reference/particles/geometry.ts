/**
 * The particle twin's vector math and contact geometry, in double precision: the WGSL helpers
 * `coincidentNormal` (shaders/particles/common.wgsl.ts), the entry geometry, `rotate`,
 * `boxGeometry` (shaders/particles/colliders.wgsl.ts) and the friction cone.
 */
import { hashRow } from '../grid.js';

export const f32 = Math.fround;

export type Vec3 = [number, number, number];

export const dot = (a: ArrayLike<number>, b: ArrayLike<number>): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
export const length = (a: ArrayLike<number>): number => Math.sqrt(dot(a, a));
export const cross = (a: ArrayLike<number>, b: ArrayLike<number>): Vec3 => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
];

/** The WGSL `coincidentNormal` twin: a unit vector hashed from the pair, from the lower index to the higher. */
export function coincidentNormal(i: number, j: number): Vec3 {
  const lo = Math.min(i, j);
  const hi = Math.max(i, j);
  const raw = [1, 2, 3].map((k) => f32(f32(hashRow(lo, hi, k) >>> 16) / 32767.5) - 1);
  const len2 = raw[0] ** 2 + raw[1] ** 2 + raw[2] ** 2;
  const u = len2 > 1e-6 ? raw.map((v) => v / Math.sqrt(len2)) : [1, 0, 0];
  return (i < j ? u : u.map((v) => -v)) as Vec3;
}

/** A pair's geometry ({@link pairGeometry}). */
export interface Geometry {
  /** The unit normal from A to B (a fixed one when the centres coincide). */
  n: Vec3;
  /** |AB| − rA − rB: negative when they overlap. */
  gap: number;
}

/**
 * The WGSL entry geometry's twin: the normal from A to B and the gap |AB| − rA − rB. Coincident
 * centres take `fallback` (the solver: the entry's last normal) unless it is absent or 0 (an
 * entry the search just made), else the pair's hashed normal.
 */
export function pairGeometry(
  pa: ArrayLike<number>,
  ia: number,
  pb: ArrayLike<number>,
  ib: number,
  fallback?: Vec3,
): Geometry {
  const d = [pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]];
  const dist = Math.sqrt(d[0] ** 2 + d[1] ** 2 + d[2] ** 2);
  const hasFallback = fallback !== undefined && (fallback[0] !== 0 || fallback[1] !== 0 || fallback[2] !== 0);
  const n = (dist > 0 ? d.map((v) => v / dist) : hasFallback ? fallback : coincidentNormal(ia, ib)) as Vec3;
  return { n, gap: dist - (pa[3] + pb[3]) };
}

/** A sphere's contact geometry with a box ({@link boxGeometry}). */
export interface BoxGeometry {
  /** The unit normal from the sphere toward the box. */
  n: Vec3;
  /** The distance from the sphere to the box less its radius (negative inside). */
  gap: number;
  /** The contact point on the box's surface, relative to its centre (world axes). */
  point: Vec3;
}

/** v rotated by unit quaternion q (x, y, z, w), or by its inverse. */
export function rotate(q: ArrayLike<number>, v: ArrayLike<number>, inverse = false): Vec3 {
  const u = inverse ? [-q[0], -q[1], -q[2]] : [q[0], q[1], q[2]];
  const t = cross(u, v).map((x) => 2 * x);
  const ut = cross(u, t);
  return [v[0] + q[3] * t[0] + ut[0], v[1] + q[3] * t[1] + ut[1], v[2] + q[3] * t[2] + ut[2]];
}

/**
 * The WGSL `boxGeometry` twin: sphere s against box k: the unit normal from the sphere toward
 * the box, the gap (negative inside), and the contact point on the box relative to its centre.
 * From inside, out through the nearest face (x before y before z on a tie).
 */
export function boxGeometry(s: ArrayLike<number>, poses: Float32Array, k: number): BoxGeometry {
  const c = poses.subarray(12 * k, 12 * k + 3);
  const half = poses.subarray(12 * k + 4, 12 * k + 7);
  const q = poses.subarray(12 * k + 8, 12 * k + 12);
  const local = rotate(q, [s[0] - c[0], s[1] - c[1], s[2] - c[2]], true);
  const clamped = local.map((x, a) => Math.min(Math.max(x, -half[a]), half[a]));
  const d = local.map((x, a) => x - clamped[a]);
  const dist = length(d);
  if (dist > 0)
    return {
      n: rotate(
        q,
        d.map((x) => -x / dist),
      ),
      gap: dist - s[3],
      point: rotate(q, clamped),
    };
  const depth = local.map((x, a) => half[a] - Math.abs(x));
  let axis = 0;
  if (depth[1] < depth[axis]) axis = 1;
  if (depth[2] < depth[axis]) axis = 2;
  const side = local[axis] < 0 ? -1 : 1;
  const n: Vec3 = [0, 0, 0];
  n[axis] = -side;
  const onFace = [...local];
  onFace[axis] = side * half[axis];
  return { n: rotate(q, n), gap: -depth[axis] - s[3], point: rotate(q, onFace) };
}

/** Coulomb's cone: lt − vt/k, shortened to at most `limit`. */
export function coulomb(lt: number[], vt: number[], k: number, limit: number): number[] {
  const next = lt.map((x, a) => x - vt[a] / k);
  const len2 = dot(next, next);
  return len2 > limit * limit ? next.map((x) => x * (limit / Math.sqrt(len2))) : next;
}
