/**
 * Sphere–box overlap, the oracle (double precision).
 *
 * sphere–AABB: clamp the centre S into the box to get its closest point C; overlap iff
 *   |C − S|² ≤ r²                      (touching counts; a centre inside gives C = S)
 * sphere–oriented box: the same in box space: v = q⁻¹ (S − centre) q, C = clamp(v, −h, h),
 *   overlap iff |C − v|² ≤ r². The quaternion is normalised first (the library does that at
 *   the API boundary; zero is invalid).
 */

/** The WGSL `sphereAabbOverlap` twin: sphere i of `spheres` against box k of `aabbs` (6 floats). */
export function sphereAabbOverlap(spheres: Float32Array, i: number, aabbs: Float32Array, k: number): boolean {
  return sphereAabbDistance2(spheres, i, aabbs, k) <= spheres[4 * i + 3] ** 2;
}

/** |C − S|² for sphere i and AABB k. */
export function sphereAabbDistance2(spheres: Float32Array, i: number, aabbs: Float32Array, k: number): number {
  let d2 = 0;
  for (let a = 0; a < 3; a++) {
    const s = spheres[4 * i + a];
    const c = Math.min(Math.max(s, aabbs[6 * k + a]), aabbs[6 * k + 3 + a]);
    d2 += (c - s) ** 2;
  }
  return d2;
}

/** Every (sphere, box) with overlap, sphere-major order, by testing all N·M pairs. */
export function bruteForceSphereAabbPairs(spheres: Float32Array, aabbs: Float32Array): Uint32Array {
  const out: number[] = [];
  const n = spheres.length / 4;
  const m = aabbs.length / 6;
  for (let i = 0; i < n; i++) for (let k = 0; k < m; k++) if (sphereAabbOverlap(spheres, i, aabbs, k)) out.push(i, k);
  return Uint32Array.from(out);
}

/** v rotated by the inverse of the unit quaternion (x, y, z, w): q⁻¹ v q = conj(q) v q. */
export function rotateInverse(
  qx: number,
  qy: number,
  qz: number,
  qw: number,
  vx: number,
  vy: number,
  vz: number,
): [number, number, number] {
  // For a unit quaternion, the inverse rotation is the rotation by (−x, −y, −z, w):
  // v' = v + 2w' (u × v) + 2 u × (u × v), with u = −(x, y, z), w' = w.
  const ux = -qx,
    uy = -qy,
    uz = -qz;
  const tx = 2 * (uy * vz - uz * vy);
  const ty = 2 * (uz * vx - ux * vz);
  const tz = 2 * (ux * vy - uy * vx);
  return [vx + qw * tx + (uy * tz - uz * ty), vy + qw * ty + (uz * tx - ux * tz), vz + qw * tz + (ux * ty - uy * tx)];
}

/** The sphere centre in box space and the box's half extents, for sphere i and oriented box k (10 floats). */
export function sphereInBoxSpace(
  spheres: Float32Array,
  i: number,
  boxes: Float32Array,
  k: number,
): { v: [number, number, number]; h: [number, number, number] } {
  const b = 10 * k;
  const len = Math.hypot(boxes[b + 6], boxes[b + 7], boxes[b + 8], boxes[b + 9]);
  const v = rotateInverse(
    boxes[b + 6] / len,
    boxes[b + 7] / len,
    boxes[b + 8] / len,
    boxes[b + 9] / len,
    spheres[4 * i] - boxes[b],
    spheres[4 * i + 1] - boxes[b + 1],
    spheres[4 * i + 2] - boxes[b + 2],
  );
  return { v, h: [boxes[b + 3], boxes[b + 4], boxes[b + 5]] };
}

/** |C − v|² in box space for sphere i and oriented box k. */
export function sphereObbDistance2(spheres: Float32Array, i: number, boxes: Float32Array, k: number): number {
  const { v, h } = sphereInBoxSpace(spheres, i, boxes, k);
  let d2 = 0;
  for (let a = 0; a < 3; a++) d2 += (Math.min(Math.max(v[a], -h[a]), h[a]) - v[a]) ** 2;
  return d2;
}

/** The WGSL `sphereObbOverlap` twin. */
export function sphereObbOverlap(spheres: Float32Array, i: number, boxes: Float32Array, k: number): boolean {
  return sphereObbDistance2(spheres, i, boxes, k) <= spheres[4 * i + 3] ** 2;
}

/** Every (sphere, oriented box) pair that overlaps, by testing all of them: `[sphere, box, ...]`. */
export function bruteForceSphereObbPairs(spheres: Float32Array, boxes: Float32Array): Uint32Array {
  const out: number[] = [];
  const n = spheres.length / 4;
  const m = boxes.length / 10;
  for (let i = 0; i < n; i++) for (let k = 0; k < m; k++) if (sphereObbOverlap(spheres, i, boxes, k)) out.push(i, k);
  return Uint32Array.from(out);
}

/**
 * The world half extents of oriented box k (10 floats a box: centre, half extents, quaternion):
 * e_a = Σ_j |R_aj|·h_j, R from the quaternion normalised in double (as the oracle's test takes it).
 * The broad phases' twins grow them as their GPU kernels do.
 */
export function obbWorldHalfExtents(boxes: Float32Array, k: number): [number, number, number] {
  const b = 10 * k;
  const len = Math.hypot(boxes[b + 6], boxes[b + 7], boxes[b + 8], boxes[b + 9]);
  const [x, y, z, w] = [6, 7, 8, 9].map((o) => boxes[b + o] / len);
  const h = [boxes[b + 3], boxes[b + 4], boxes[b + 5]];
  const rows = [
    [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
    [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
    [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
  ];
  return rows.map((row) => row.reduce((sum, r, j) => sum + Math.abs(r) * h[j], 0)) as [number, number, number];
}
