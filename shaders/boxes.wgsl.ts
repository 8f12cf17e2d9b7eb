/**
 * Sphere–box math shared by every box kernel: the overlap tests of a sphere with an axis-aligned
 * box (AABB) or an oriented box (OBB), a box's test and world bounds by kind. The CPU twins are in
 * src/reference/sphereBox.ts. The kernels live with their broad phases (shaders/broadphase/<name>/)
 * and the particle world's colliders.
 *
 * On the GPU, an AABB is two vec4 (min, max) and an oriented box three (centre, half extents,
 * unit quaternion): validation packs and normalises them.
 */
import { tinyGuards } from './common.wgsl.js';

import type { BoxKind } from '../src/queryKinds.js';

/**
 * sphere–AABB: clamp the centre into the box (closest point C); overlap iff |C − S|² ≤ r².
 * sphere–oriented box: the same in box space, the centre rotated by the inverse rotation.
 */
export const boxMath = /* wgsl */ `
${tinyGuards}
// A point (r = 0) touches only when it lies in the box: a tiny distance's square underflows.
fn sphereAabbOverlap(s: vec4f, boxMin: vec3f, boxMax: vec3f) -> bool {
  let d = clamp(s.xyz, boxMin, boxMax) - s.xyz;
  return withinReach(d, s.w) && (s.w > 0.0 || pointInBox(s.xyz, boxMin, boxMax));
}

// v rotated by the inverse of unit quaternion q: v' = v + 2w (u × v) + 2 u × (u × v), u = −q.xyz.
fn rotateInverse(q: vec4f, v: vec3f) -> vec3f {
  let u = -q.xyz;
  let t = 2.0 * cross(u, v);
  return v + q.w * t + cross(u, t);
}

fn sphereObbOverlap(s: vec4f, center: vec3f, half: vec3f, q: vec4f) -> bool {
  let v = rotateInverse(q, s.xyz - center);
  let d = clamp(v, -half, half) - v;
  return withinReach(d, s.w) && (s.w > 0.0 || all(d == vec3f(0.0)));
}

// Half extents of an oriented box's world-space bounds: e_a = Σ_j |R_aj| h_j, R from q.
fn obbWorldHalfExtents(half: vec3f, q: vec4f) -> vec3f {
  let x = q.x; let y = q.y; let z = q.z; let w = q.w;
  let r0 = vec3f(1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - z * w), 2.0 * (x * z + y * w));
  let r1 = vec3f(2.0 * (x * y + z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - x * w));
  let r2 = vec3f(2.0 * (x * z - y * w), 2.0 * (y * z + x * w), 1.0 - 2.0 * (x * x + y * y));
  return vec3f(dot(abs(r0), half), dot(abs(r1), half), dot(abs(r2), half));
}
`;

/** The overlap test of sphere `s` with box `k` (boxes bound as `boxes: array<vec4f>`). */
export const boxTest = (kind: BoxKind, k: string): string =>
  kind === 'aabb'
    ? `sphereAabbOverlap(s, boxes[2u * ${k}].xyz, boxes[2u * ${k} + 1u].xyz)`
    : `sphereObbOverlap(s, boxes[3u * ${k}].xyz, boxes[3u * ${k} + 1u].xyz, boxes[3u * ${k} + 2u])`;

/**
 * Declares `boxMin` and `boxMax`, the world bounds of box `k`: an AABB's own, an oriented box's
 * grown a little so that rounding cannot shrink them (the grid's cell range of an oriented box
 * is computed from its centre's offset from each level's origin instead, `center`, `e` and
 * `span` here, which the rounding grows far less). Every axis grows by 2^-16 + 2^-20 of `span`,
 * the sum of the world half extents: sphereObbOverlap rounds in the box's frame, by ulps of the
 * sphere's whole offset from the centre, so a box long on one axis and thin on a world axis (a
 * plank at an angle) accepts spheres past its thin extent by ulps of its long one (grown by ulps
 * of each axis' own extent, a box 2000 × 0.02 × 0.02 turned about two axes would miss in the
 * grid pairs that all-pairs reports). And by 2^-22 of the centre's coordinates: the bounds'
 * own rounding (centre − e, then the growth: half an ulp each), covered twice over. (The BVH
 * bounds its oriented boxes its own way, with no term of the coordinates: bvhBoxBounds.)
 */
export const boxBounds = (kind: BoxKind, k: string): string =>
  kind === 'aabb'
    ? `let boxMin = boxes[2u * ${k}].xyz;
  let boxMax = boxes[2u * ${k} + 1u].xyz;`
    : `let center = boxes[3u * ${k}].xyz;
  let e = obbWorldHalfExtents(boxes[3u * ${k} + 1u].xyz, boxes[3u * ${k} + 2u]);
  let span = vec3f(e.x + e.y + e.z);
  let grow = span * (1.0 / 65536.0 + 1.0 / 1048576.0) + abs(center) * (1.0 / 4194304.0);
  let boxMin = center - e - grow;
  let boxMax = center + e + grow;`;
