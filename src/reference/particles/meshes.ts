/**
 * The twin of the particle solver's mesh colliders (shaders/particles/meshes.wgsl.ts): meshFind
 * (each moving particle's triangles near its path over the step, brute force over the mesh's
 * triangles in tree order) and `triangleGeometry` (a particle's contact with a triangle of a
 * slot). The slots, their prepare and their solve are the boxes' (./colliders.ts).
 */
import { f32, dot, length, cross, rotate, type Vec3, type BoxGeometry } from './geometry.js';

/** Bit of edge v0→v1, v1→v2, v2→v0 in a triangle's flags (src/mesh/edges.ts), and of a start behind its plane. */
const EDGE_AB = 1;
const EDGE_BC = 2;
const EDGE_CA = 4;
export const SIDE_BACK = 8;

/**
 * A mesh as the GPU holds it, for the twin: its triangles in tree order (`sorted`: three vertices
 * a triangle, x, y, z and the face normal's component in w, as `mesh.tree.sorted`), each one's
 * triangle index (`ids`) and the active-edge flags by triangle index (`flags`).
 */
export interface MeshTwin {
  /** Three vec4f a triangle in tree order: its vertices, and the face normal's components in their w. */
  sorted: Float32Array;
  /** The triangle index of each tree position. */
  ids: Uint32Array;
  /** The active-edge flags (src/mesh/edges.ts) by triangle index. */
  flags: Uint32Array;
}

/** A slot's triangle: its vertices in the mesh's frame, the mesh, the triangle's index and its flags. */
export interface SlotTriangle {
  v: [Vec3, Vec3, Vec3];
  mesh: number;
  triangle: number;
  flags: number;
}

/** The closest point of triangle (a, b, c) to p, relative to p, and its feature (the WGSL `closestOnTriangle`, Ericson 5.1.5). */
function closest(tri: Tri, at: Vec3): { point: Vec3; edges: number } {
  const a = sub(tri.a, at);
  const ab = tri.e1;
  const ac = tri.e2;
  const b: Vec3 = [a[0] + ab[0], a[1] + ab[1], a[2] + ab[2]];
  const c: Vec3 = [a[0] + ac[0], a[1] + ac[1], a[2] + ac[2]];
  const d1 = -dot(ab, a);
  const d2 = -dot(ac, a);
  if (d1 <= 0 && d2 <= 0) return { point: a, edges: EDGE_AB | EDGE_CA };
  const d3 = -dot(ab, b);
  const d4 = -dot(ac, b);
  if (d3 >= 0 && d4 <= d3) return { point: b, edges: EDGE_AB | EDGE_BC };
  const vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return { point: along(a, ab, d1 / (d1 - d3)), edges: EDGE_AB };
  const d5 = -dot(ab, c);
  const d6 = -dot(ac, c);
  if (d6 >= 0 && d5 <= d6) return { point: c, edges: EDGE_BC | EDGE_CA };
  const vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return { point: along(a, ac, d2 / (d2 - d6)), edges: EDGE_CA };
  const va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0)
    return { point: along(b, tri.e3, (d4 - d3) / (d4 - d3 + (d5 - d6))), edges: EDGE_BC };
  const h = dot(a, tri.normal);
  return { point: [tri.normal[0] * h, tri.normal[1] * h, tri.normal[2] * h], edges: 0 };
}

interface Tri {
  a: Vec3;
  e1: Vec3;
  e2: Vec3;
  e3: Vec3;
  normal: Vec3;
}

const sub = (a: ArrayLike<number>, b: ArrayLike<number>): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const along = (p: Vec3, d: Vec3, t: number): Vec3 => [p[0] + d[0] * t, p[1] + d[1] * t, p[2] + d[2] * t];

/** The WGSL `faceNormal` twin: the unit normal of (a, b, c) from its scaled edges, 0 when degenerate. */
export function faceNormal(a: Vec3, b: Vec3, c: Vec3): Vec3 {
  const e1 = sub(b, a);
  const e2 = sub(c, a);
  const m = Math.max(...e1.map(Math.abs), ...e2.map(Math.abs));
  if (m === 0) return [0, 0, 0];
  const n = cross(
    e1.map((x) => x / m),
    e2.map((x) => x / m),
  );
  const len = length(n);
  return len === 0 ? [0, 0, 0] : [n[0] / len, n[1] / len, n[2] / len];
}

/** The triangle with its first vertex relative to `origin` (the WGSL `Tri`). */
function triFrom(v: [Vec3, Vec3, Vec3], origin: Vec3, normal: Vec3): Tri {
  return { a: sub(v[0], origin), e1: sub(v[1], v[0]), e2: sub(v[2], v[0]), e3: sub(v[2], v[1]), normal };
}

/**
 * The WGSL `triangleGeometry` twin: sphere s against a slot's triangle of the mesh posed at
 * (centre, q): the normal from the sphere toward the triangle, the gap, and the contact point
 * relative to the mesh's centre (world axes).
 */
export function triangleGeometry(
  s: ArrayLike<number>,
  tri: SlotTriangle,
  centre: ArrayLike<number>,
  q: ArrayLike<number>,
): BoxGeometry {
  const local = rotate(q, sub(s, centre), true);
  const t = triFrom(tri.v, local, faceNormal(...tri.v));
  const e = closest(t, [0, 0, 0]);
  const dist = length(e.point);
  const contact = rotate(q, [local[0] + e.point[0], local[1] + e.point[1], local[2] + e.point[2]]);
  if ((e.edges & tri.flags) === 0 || dist === 0) {
    const side = tri.flags & SIDE_BACK ? -1 : 1;
    const out = t.normal.map((x) => x * side);
    const gap = (dot(t.a, out) > 0 ? -dist : dist) - s[3];
    return {
      n: rotate(
        q,
        out.map((x) => -x),
      ),
      gap,
      point: contact,
    };
  }
  return {
    n: rotate(
      q,
      e.point.map((x) => x / dist),
    ),
    gap: dist - s[3],
    point: contact,
  };
}

/** Squared distance between segments p1 + s·d1 and p2 + t·d2 (the WGSL `segmentsDistance2`). */
function segmentsDistance2(p1: Vec3, d1: Vec3, p2: Vec3, d2: Vec3): number {
  const r = sub(p1, p2);
  const a = dot(d1, d1);
  const e = dot(d2, d2);
  const f = dot(d2, r);
  let s = 0;
  let t = 0;
  if (a === 0) t = e > 0 ? Math.min(Math.max(f / e, 0), 1) : 0;
  else {
    const c = dot(d1, r);
    if (e === 0) s = Math.min(Math.max(-c / a, 0), 1);
    else {
      const b = dot(d1, d2);
      const denom = a * e - b * b;
      s = denom !== 0 ? Math.min(Math.max((b * f - c * e) / denom, 0), 1) : 0;
      t = (b * s + f) / e;
      if (t < 0) {
        t = 0;
        s = Math.min(Math.max(-c / a, 0), 1);
      } else if (t > 1) {
        t = 1;
        s = Math.min(Math.max((b - c) / a, 0), 1);
      }
    }
  }
  const gap = [r[0] + d1[0] * s - d2[0] * t, r[1] + d1[1] * s - d2[1] * t, r[2] + d1[2] * s - d2[2] * t];
  return dot(gap, gap);
}

/** Whether the segment from the origin along `path` crosses the triangle's face (Möller–Trumbore). */
function crosses(t: Tri, path: Vec3): boolean {
  const len = length(path);
  const n = path.map((x) => x / len);
  if (Math.abs(dot(n, t.normal)) <= 1e-5) return false;
  const pv = cross(n, t.e2);
  const det = dot(t.e1, pv);
  if (det === 0) return false;
  const tv = t.a.map((x) => -x);
  const u = dot(tv, pv) / det;
  if (u < 0 || u > 1) return false;
  const qv = cross(tv, t.e1);
  const v = dot(n, qv) / det;
  if (v < 0 || u + v > 1) return false;
  const at = dot(t.e2, qv) / det;
  return at >= 0 && at <= len;
}

/**
 * meshFind for one particle (sphere s, velocity v) and mesh m, posed at (centre, q) with linear
 * and angular velocity (vm, wm) and its reach from the centre `extent`: its triangles (tree
 * positions) within its path's reach over the step, grown by `struck` (how far a particle may send
 * it in the step), in tree order, with their slot triangles.
 */
export function meshFind(
  s: ArrayLike<number>,
  v: ArrayLike<number>,
  mesh: MeshTwin,
  m: number,
  pose: ArrayLike<number>,
  velocity: ArrayLike<number>,
  margin: number,
  frameDt: number,
  struck: number,
): { u: number; triangle: SlotTriangle }[] {
  const centre = Array.from(pose).slice(0, 3);
  const q = Array.from(pose).slice(8, 12);
  const o = rotate(q, sub(s, centre), true);
  const travel =
    f32(
      length([velocity[0], velocity[1], velocity[2]]) +
        length([velocity[4], velocity[5], velocity[6]]) * length([pose[4], pose[5], pose[6]]),
    ) * frameDt;
  const path = rotate(q, [v[0] * frameDt, v[1] * frameDt, v[2] * frameDt], true);
  const pathLength = length(path);
  const reach = s[3] + margin + travel + struck;
  const swept = pathLength > s[3];
  const radius = swept ? reach : reach + pathLength;
  const out: { u: number; triangle: SlotTriangle }[] = [];
  const T = mesh.ids.length;
  for (let u = 0; u < T; u++) {
    const w = mesh.sorted.subarray(12 * u, 12 * u + 12);
    const verts: [Vec3, Vec3, Vec3] = [
      [w[0], w[1], w[2]],
      [w[4], w[5], w[6]],
      [w[8], w[9], w[10]],
    ];
    const normal: Vec3 = [w[3], w[7], w[11]];
    if (normal[0] === 0 && normal[1] === 0 && normal[2] === 0) continue;
    const t = triFrom(verts, o, normal);
    const near = closest(t, [0, 0, 0]).point;
    let hit = dot(near, near) <= radius * radius;
    if (!hit && swept) {
      const r2 = radius * radius;
      const end = closest(t, path).point;
      const b = along(t.a, t.e1, 1);
      hit =
        dot(end, end) <= r2 ||
        segmentsDistance2([0, 0, 0], path, t.a, t.e1) <= r2 ||
        segmentsDistance2([0, 0, 0], path, t.a, t.e2) <= r2 ||
        segmentsDistance2([0, 0, 0], path, b, t.e3) <= r2 ||
        crosses(t, path);
    }
    if (!hit) continue;
    const id = mesh.ids[u];
    const back = dot(t.a, normal) > 0 ? SIDE_BACK : 0;
    out.push({ u, triangle: { v: verts, mesh: m, triangle: id, flags: mesh.flags[id] | back } });
  }
  return out;
}
