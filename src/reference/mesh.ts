/**
 * Triangle-mesh queries, the oracle (double precision, every triangle tested), as docs/CONTRACT.md
 * ("Meshes") writes them: raycastMesh, sphereCastMesh and sphereTriangleContacts. The tests of one
 * triangle are in ./triangle.ts (its header states the math); here the mesh, the pose and the
 * result shapes.
 *
 * A mesh is `{ positions, indices? }`: x, y, z per vertex; three indices a triangle, or without
 * them every three vertices a triangle. Triangle k keeps its index. Degenerate triangles
 * (e1 × e2 = 0) are never reported.
 *
 * Pose (cx, cy, cz, qx, qy, qz, qw), q normalised in double: world = c + q·local. A query is taken
 * into the mesh's frame (A and S by q⁻¹(p − c), directions by q⁻¹), tested there, and its answer
 * taken back: t is the same in both frames (a rotation keeps lengths), the hit point is A + n·t
 * in world space from the world A and n, contact points and normals are rotated back.
 *
 * Each query first prunes what its path cannot reach (the segment grown by r, and by a relative
 * 1e-12 for the rounding of the frame change): runs of 16 consecutive triangles whose box it
 * misses (slabs), then triangles whose box misses its box. Only fewer tests: never another answer.
 */
import { TRIANGLE_STRIDE, packTriangle, castHitPacked, closestPointPacked, type Vec3 } from './triangle.js';

export {
  TRIANGLE_STRIDE,
  packTriangle,
  isDegenerateTriangle,
  rayHitPacked,
  closestPointPacked,
  castHitPacked,
  rayDirection,
  rayTriangle,
  closestPointOnTriangle,
  sphereCastTriangle,
  type Vec3,
  type TriangleHit,
  type TriangleCastHit,
  type ClosestPoint,
  type RayDirection,
} from './triangle.js';

/** A triangle mesh as `collider.createMesh` takes it. */
export interface MeshGeometry {
  /** x, y, z per vertex. */
  positions: Float32Array;
  /** Three vertex indices a triangle; omitted, every three vertices are one. */
  indices?: Uint32Array;
}

/** Options of the mesh queries: every hit or the nearest, and the mesh's pose (7 numbers). */
export interface MeshReferenceOptions {
  /** Every hit of each query (with `offsets`) instead of the nearest. */
  allHits?: boolean;
  /** The mesh's placement: centre x, y, z, quaternion x, y, z, w. */
  pose?: ArrayLike<number>;
}

/** The number of triangles: indices / 3, or vertices / 3 for a non-indexed mesh. */
export function meshTriangleCount(mesh: MeshGeometry): number {
  return Math.floor((mesh.indices ? mesh.indices.length : mesh.positions.length / 3) / 3);
}

/** The three vertices of triangle k, as doubles. */
export function triangleVertices(mesh: MeshGeometry, k: number): [Vec3, Vec3, Vec3] {
  const vertex = (j: number): Vec3 => {
    const i = mesh.indices ? mesh.indices[3 * k + j] : 3 * k + j;
    return [mesh.positions[3 * i], mesh.positions[3 * i + 1], mesh.positions[3 * i + 2]];
  };
  return [vertex(0), vertex(1), vertex(2)];
}

/** Every triangle packed (./triangle.ts's layout, TRIANGLE_STRIDE doubles each). */
export function packMesh(mesh: MeshGeometry): Float64Array {
  const count = meshTriangleCount(mesh);
  const T = new Float64Array(count * TRIANGLE_STRIDE);
  for (let k = 0; k < count; k++) {
    const [p0, p1, p2] = triangleVertices(mesh, k);
    packTriangle(T, k * TRIANGLE_STRIDE, p0, p1, p2);
  }
  return T;
}

/** Consecutive triangles a cluster: each query tests a cluster's box before its triangles. */
const CLUSTER = 16;

/** The box (min, max) of every CLUSTER consecutive packed triangles. */
function clusterBoxes(T: Float64Array): Float64Array {
  const triangles = T.length / TRIANGLE_STRIDE;
  const boxes = new Float64Array(6 * Math.ceil(triangles / CLUSTER));
  for (let c = 0; c < boxes.length / 6; c++) {
    for (let a = 0; a < 3; a++) {
      let lo = Infinity,
        hi = -Infinity;
      for (let i = c * CLUSTER; i < Math.min(triangles, (c + 1) * CLUSTER); i++) {
        lo = Math.min(lo, T[i * TRIANGLE_STRIDE + 13 + a]);
        hi = Math.max(hi, T[i * TRIANGLE_STRIDE + 16 + a]);
      }
      boxes[6 * c + a] = lo;
      boxes[6 * c + 3 + a] = hi;
    }
  }
  return boxes;
}

/**
 * Whether the segment a + n·[0, len] may come within pad of box b (slabs, the box grown by pad;
 * a NaN from a zero component keeps the box: the prune only ever keeps too much).
 */
function segmentMeetsBox(B: Float64Array, b: number, a: Vec3, n: Vec3, len: number, pad: number): boolean {
  let tmin = -pad,
    tmax = len + pad;
  for (let k = 0; k < 3; k++) {
    const t0 = (B[b + k] - pad - a[k]) / n[k],
      t1 = (B[b + 3 + k] + pad - a[k]) / n[k];
    tmin = Math.max(tmin, Math.min(t0, t1));
    tmax = Math.min(tmax, Math.max(t0, t1));
    if (tmin > tmax) return false;
  }
  return true;
}

/** Whether p lies in box b grown by pad. */
function pointNearBox(B: Float64Array, b: number, p: Vec3, pad: number): boolean {
  for (let k = 0; k < 3; k++) if (p[k] < B[b + k] - pad || p[k] > B[b + 3 + k] + pad) return false;
  return true;
}

/** The unit face normal N = e1 × e2 / |e1 × e2| of packed triangle `o` (NaN when degenerate). */
export function packedNormal(T: Float64Array, o: number): Vec3 {
  const l = Math.sqrt(T[o + 12]);
  return [T[o + 9] / l, T[o + 10] / l, T[o + 11] / l];
}

/** A pose's maps between the mesh's frame (local) and the world. */
export interface PoseTransform {
  /** True for no pose: every map is the identity, exactly. */
  identity: boolean;
  /** The pose's centre c. */
  centre: Vec3;
  /** The normalised quaternion x, y, z, w. */
  rotation: [number, number, number, number];
  /** A world point in the mesh's frame: q⁻¹·(p − c). */
  toLocal(p: ArrayLike<number>): Vec3;
  /** A world direction in the mesh's frame: q⁻¹·d. */
  dirToLocal(d: ArrayLike<number>): Vec3;
  /** A point of the mesh's frame in the world: c + q·p. */
  toWorld(p: ArrayLike<number>): Vec3;
  /** A direction of the mesh's frame in the world: q·d. */
  dirToWorld(d: ArrayLike<number>): Vec3;
}

/** v rotated by the unit quaternion (x, y, z, w): v + 2w (q × v) + 2 q × (q × v). */
function rotate(x: number, y: number, z: number, w: number, v: ArrayLike<number>): Vec3 {
  const tx = 2 * (y * v[2] - z * v[1]),
    ty = 2 * (z * v[0] - x * v[2]),
    tz = 2 * (x * v[1] - y * v[0]);
  return [v[0] + w * tx + (y * tz - z * ty), v[1] + w * ty + (z * tx - x * tz), v[2] + w * tz + (x * ty - y * tx)];
}

/** The maps of pose (cx, cy, cz, qx, qy, qz, qw): world = c + q·local (q normalised here). No pose: the identity. */
export function poseTransform(pose?: ArrayLike<number>): PoseTransform {
  if (!pose) {
    const copy = (p: ArrayLike<number>): Vec3 => [p[0], p[1], p[2]];
    return {
      identity: true,
      centre: [0, 0, 0],
      rotation: [0, 0, 0, 1],
      toLocal: copy,
      dirToLocal: copy,
      toWorld: copy,
      dirToWorld: copy,
    };
  }
  const c: Vec3 = [pose[0], pose[1], pose[2]];
  const l = Math.hypot(pose[3], pose[4], pose[5], pose[6]);
  const [x, y, z, w] = [pose[3] / l, pose[4] / l, pose[5] / l, pose[6] / l];
  return {
    identity: false,
    centre: c,
    rotation: [x, y, z, w],
    toLocal: (p) => rotate(-x, -y, -z, w, [p[0] - c[0], p[1] - c[1], p[2] - c[2]]),
    dirToLocal: (d) => rotate(-x, -y, -z, w, d),
    toWorld: (p) => {
      const r = rotate(x, y, z, w, p);
      return [c[0] + r[0], c[1] + r[1], c[2] + r[2]];
    },
    dirToWorld: (d) => rotate(x, y, z, w, d),
  };
}

/** One query's hits, before the result's shape: per hit the triangle, t, u, v and E − A (local). */
interface SweepHits {
  offsets: Uint32Array;
  /** triangle, t, u, v, ex, ey, ez per hit. */
  records: number[];
}

const RECORD = 7;

/**
 * Every query (stride 6: A, B; 7: A, B, r) against every triangle with ./triangle.ts's cast test
 * (r = 0 is the ray's). Nearest: at most one hit a query, the least t, ties to the lowest index.
 * All: every hit, by (t, triangle).
 */
function sweep(
  queries: Float32Array,
  stride: 6 | 7,
  T: Float64Array,
  pose: PoseTransform,
  allHits: boolean,
): SweepHits {
  const count = Math.floor(queries.length / stride);
  const triangles = T.length / TRIANGLE_STRIDE;
  const boxes = clusterBoxes(T);
  const offsets = new Uint32Array(count + 1);
  const records: number[] = [];
  const out = new Float64Array(5);
  const found: number[] = [];
  for (let k = 0; k < count; k++) {
    const q = stride * k;
    const A = [queries[q], queries[q + 1], queries[q + 2]];
    const dx = queries[q + 3] - A[0],
      dy = queries[q + 4] - A[1],
      dz = queries[q + 5] - A[2];
    const len = Math.hypot(dx, dy, dz);
    const r = stride === 7 ? queries[q + 6] : 0;
    if (len > 0) {
      const a = pose.toLocal(A);
      const n = pose.dirToLocal([dx / len, dy / len, dz / len]);
      const [ax, ay, az] = a;
      const [nx, ny, nz] = n;
      const pad = r + 1e-12 * (Math.abs(ax) + Math.abs(ay) + Math.abs(az) + len);
      const bx = ax + nx * len,
        by = ay + ny * len,
        bz = az + nz * len;
      const loX = Math.min(ax, bx) - pad,
        loY = Math.min(ay, by) - pad,
        loZ = Math.min(az, bz) - pad;
      const hiX = Math.max(ax, bx) + pad,
        hiY = Math.max(ay, by) + pad,
        hiZ = Math.max(az, bz) + pad;
      let best = Infinity;
      found.length = 0;
      for (let i = 0, o = 0; i < triangles; i++, o += TRIANGLE_STRIDE) {
        if (i % CLUSTER === 0 && !segmentMeetsBox(boxes, (6 * i) / CLUSTER, a, n, len, pad)) {
          i += CLUSTER - 1;
          o += (CLUSTER - 1) * TRIANGLE_STRIDE;
          continue;
        }
        if (
          T[o + 13] > hiX ||
          T[o + 16] < loX ||
          T[o + 14] > hiY ||
          T[o + 17] < loY ||
          T[o + 15] > hiZ ||
          T[o + 18] < loZ
        )
          continue;
        const t = castHitPacked(T, o, ax, ay, az, nx, ny, nz, allHits ? len : Math.min(len, best), r, out);
        if (t < 0 || (!allHits && t >= best)) continue;
        if (!allHits) {
          best = t;
          found.length = 0;
        }
        found.push(i, t, out[3], out[4], out[0], out[1], out[2]);
      }
      if (allHits && found.length > RECORD) sortRecords(found);
      for (const value of found) records.push(value);
    }
    offsets[k + 1] = records.length / RECORD;
  }
  return { offsets, records };
}

/** Sorts hit records by (t, triangle) in place. */
function sortRecords(found: number[]): void {
  const n = found.length / RECORD;
  const order = Array.from({ length: n }, (_, j) => j);
  order.sort((p, q) => found[RECORD * p + 1] - found[RECORD * q + 1] || found[RECORD * p] - found[RECORD * q]);
  const copy = found.slice();
  for (let j = 0; j < n; j++) for (let f = 0; f < RECORD; f++) found[RECORD * j + f] = copy[RECORD * order[j] + f];
}

/** `raycastMesh`'s result (CONTRACT), with each hit's t in double as `distance64`. */
export interface MeshRayHits {
  /** The triangle hit, −1 for a miss. */
  triangle: Int32Array;
  /** t, the distance from A (NaN for a miss, as every field below). */
  distance: Float32Array;
  /** D = A + n·t, xyz. */
  point: Float32Array;
  /** D's weight of e1. */
  u: Float32Array;
  /** D's weight of e2. */
  v: Float32Array;
  /** The triangle's unit face normal N (world space), xyz. */
  normal: Float32Array;
  /** allHits: hits of ray k are [offsets[k], offsets[k + 1]). */
  offsets?: Uint32Array;
  /** t of each entry in double (NaN for a miss). */
  distance64: Float64Array;
}

/** `sphereCastMesh`'s result (CONTRACT), with `distance64` as above. */
export interface MeshCastHits {
  /** The triangle hit, −1 for a miss. */
  triangle: Int32Array;
  /** t, the distance travelled to the contact (NaN for a miss, as every field below). */
  distance: Float32Array;
  /** The centre at contact C = A + n·t, xyz. */
  center: Float32Array;
  /** The contact point E (the point of T closest to C), xyz. */
  contact: Float32Array;
  /** E's weight of e1. */
  u: Float32Array;
  /** E's weight of e2. */
  v: Float32Array;
  /** The triangle's unit face normal N (world space), xyz. */
  normal: Float32Array;
  /** allHits: hits of cast k are [offsets[k], offsets[k + 1]). */
  offsets?: Uint32Array;
  /** t of each entry in double (NaN for a miss). */
  distance64: Float64Array;
}

/** The CONTRACT's result arrays from the sweep's records: one entry a query, or every hit. */
function shapeHits(
  queries: Float32Array,
  stride: 6 | 7,
  T: Float64Array,
  pose: PoseTransform,
  hits: SweepHits,
  allHits: boolean,
): MeshCastHits {
  const { offsets, records } = hits;
  const count = offsets.length - 1;
  const entries = allHits ? records.length / RECORD : count;
  const result: MeshCastHits = {
    triangle: new Int32Array(entries).fill(-1),
    distance: new Float32Array(entries).fill(NaN),
    center: new Float32Array(3 * entries).fill(NaN),
    contact: new Float32Array(3 * entries).fill(NaN),
    u: new Float32Array(entries).fill(NaN),
    v: new Float32Array(entries).fill(NaN),
    normal: new Float32Array(3 * entries).fill(NaN),
    distance64: new Float64Array(entries).fill(NaN),
  };
  if (allHits) result.offsets = offsets;
  for (let k = 0; k < count; k++) {
    const q = stride * k;
    const A = [queries[q], queries[q + 1], queries[q + 2]];
    const len = Math.hypot(queries[q + 3] - A[0], queries[q + 4] - A[1], queries[q + 5] - A[2]);
    const local = pose.toLocal(A);
    for (let h = offsets[k]; h < offsets[k + 1]; h++) {
      const e = allHits ? h : k;
      const rec = RECORD * h;
      const tri = records[rec],
        t = records[rec + 1];
      result.triangle[e] = tri;
      result.distance[e] = t;
      result.distance64[e] = t;
      result.u[e] = records[rec + 2];
      result.v[e] = records[rec + 3];
      const contact = pose.toWorld([
        local[0] + records[rec + 4],
        local[1] + records[rec + 5],
        local[2] + records[rec + 6],
      ]);
      const normal = pose.dirToWorld(packedNormal(T, tri * TRIANGLE_STRIDE));
      for (let a = 0; a < 3; a++) {
        result.center[3 * e + a] = A[a] + ((queries[q + 3 + a] - A[a]) / len) * t;
        result.contact[3 * e + a] = contact[a];
        result.normal[3 * e + a] = normal[a];
      }
    }
  }
  return result;
}

/**
 * `raycastMesh` by brute force: rays A, B (6 floats each) against every triangle. Nearest: one
 * entry a ray (triangle −1 and NaN for a miss; ties to the lowest index). allHits: every hit,
 * each ray's by (distance, triangle), and `offsets`. point = A + n·t, normal = N, both in world space.
 */
export function bruteForceRaycastMesh(
  rays: Float32Array,
  mesh: MeshGeometry,
  options: MeshReferenceOptions = {},
): MeshRayHits {
  const T = packMesh(mesh);
  const pose = poseTransform(options.pose);
  const allHits = options.allHits === true;
  const { center, contact: _, ...rest } = shapeHits(rays, 6, T, pose, sweep(rays, 6, T, pose, allHits), allHits);
  return { ...rest, point: center };
}

/**
 * `sphereCastMesh` by brute force: casts A, B, r (7 floats each) against every triangle, as
 * `bruteForceRaycastMesh`; center = A + n·t, contact E (world), normal N.
 */
export function bruteForceSphereCastMesh(
  casts: Float32Array,
  mesh: MeshGeometry,
  options: MeshReferenceOptions = {},
): MeshCastHits {
  const T = packMesh(mesh);
  const pose = poseTransform(options.pose);
  const allHits = options.allHits === true;
  return shapeHits(casts, 7, T, pose, sweep(casts, 7, T, pose, allHits), allHits);
}

/** `sphereTriangleContacts`'s result (CONTRACT), sorted by (sphere, triangle). */
export interface MeshContacts {
  /** sphere, triangle per pair. */
  pairs: Uint32Array;
  /** The contact point E, xyz per pair. */
  point: Float32Array;
  /** (S − E)/|S − E|, or N when S lies on T, xyz per pair. */
  normal: Float32Array;
  /** r − |S − E| per pair. */
  depth: Float32Array;
  /** |S − E| in double per pair. */
  distance64: Float64Array;
}

/**
 * `sphereTriangleContacts` by brute force: every (sphere, triangle) with |S − E| ≤ r, E the
 * closest point of T (Ericson); the normal (S − E)/|S − E| (N when S is on T), depth r − |S − E|.
 */
export function bruteForceSphereTriangleContacts(
  spheres: Float32Array,
  mesh: MeshGeometry,
  options: { pose?: ArrayLike<number> } = {},
): MeshContacts {
  const T = packMesh(mesh);
  const pose = poseTransform(options.pose);
  const triangles = T.length / TRIANGLE_STRIDE;
  const pairs: number[] = [];
  const point: number[] = [];
  const normal: number[] = [];
  const depth: number[] = [];
  const distance: number[] = [];
  const boxes = clusterBoxes(T);
  const out = new Float64Array(5);
  for (let s = 0; s < spheres.length / 4; s++) {
    const r = spheres[4 * s + 3];
    const S = pose.toLocal([spheres[4 * s], spheres[4 * s + 1], spheres[4 * s + 2]]);
    const pad = r + 1e-12 * (Math.abs(S[0]) + Math.abs(S[1]) + Math.abs(S[2]));
    for (let i = 0, o = 0; i < triangles; i++, o += TRIANGLE_STRIDE) {
      if (i % CLUSTER === 0 && !pointNearBox(boxes, (6 * i) / CLUSTER, S, pad)) {
        i += CLUSTER - 1;
        o += (CLUSTER - 1) * TRIANGLE_STRIDE;
        continue;
      }
      if (T[o + 12] === 0) continue; // degenerate
      if (
        T[o + 13] > S[0] + pad ||
        T[o + 16] < S[0] - pad ||
        T[o + 14] > S[1] + pad ||
        T[o + 17] < S[1] - pad ||
        T[o + 15] > S[2] + pad ||
        T[o + 18] < S[2] - pad
      )
        continue;
      const d2 = closestPointPacked(T, o, S[0], S[1], S[2], out);
      if (d2 > r * r) continue;
      const d = Math.sqrt(d2);
      const n = d > 0 ? pose.dirToWorld([-out[0] / d, -out[1] / d, -out[2] / d]) : pose.dirToWorld(packedNormal(T, o));
      pairs.push(s, i);
      point.push(...pose.toWorld([S[0] + out[0], S[1] + out[1], S[2] + out[2]]));
      normal.push(...n);
      depth.push(r - d);
      distance.push(d);
    }
  }
  return {
    pairs: Uint32Array.from(pairs),
    point: Float32Array.from(point),
    normal: Float32Array.from(normal),
    depth: Float32Array.from(depth),
    distance64: Float64Array.from(distance),
  };
}
