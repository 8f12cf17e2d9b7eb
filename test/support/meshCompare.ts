/**
 * The comparators that hold a mesh query's result (GPU, or the oracle's) against the float64
 * reference (src/reference/mesh.ts) within docs/CONTRACT.md's "Mesh tolerances": each returns
 * the differences the band does not explain (empty when they agree). No three.js here, so that
 * every engine's test runner (Deno included) can load them; the outside oracle is
 * ./meshOracle.ts.
 */
import {
  TRIANGLE_STRIDE,
  castHitPacked,
  closestPointPacked,
  packMesh,
  packedNormal,
  poseTransform,
  rayHitPacked,
  type MeshGeometry,
  type PoseTransform,
} from '../../src/reference/mesh.js';

type V3 = [number, number, number];

/** Query k's segment: its origin, unit direction and length. */
export function segment(queries: Float32Array, stride: number, k: number): { A: V3; n: V3; len: number } {
  const o = stride * k;
  const A: V3 = [queries[o], queries[o + 1], queries[o + 2]];
  const d = [queries[o + 3] - A[0], queries[o + 4] - A[1], queries[o + 5] - A[2]];
  const len = Math.hypot(d[0], d[1], d[2]);
  return { A, n: [d[0] / len, d[1] / len, d[2] / len], len };
}

/** Hits as the mesh queries return them (rays: `point`; casts: `center` and `contact`). */
export interface MeshHitsLike {
  triangle: Int32Array;
  distance: ArrayLike<number>;
  point?: ArrayLike<number>;
  center?: ArrayLike<number>;
  contact?: ArrayLike<number>;
  u: ArrayLike<number>;
  v: ArrayLike<number>;
  normal: ArrayLike<number>;
  offsets?: Uint32Array;
}

/** Contacts as `sphereTriangleContacts` returns them. */
export interface MeshContactsLike {
  pairs: Uint32Array;
  point: ArrayLike<number>;
  normal: ArrayLike<number>;
  depth: ArrayLike<number>;
}

// ————————————————————————————————————————————————————————————————————————————————————————————
// The comparators.
//
// δ = scale·(1e-5·L + 1e-6·(|A| + |centre|) with a pose), L = |A − P0| + |AB| + r + |e1| + |e2|
// (contacts: |S − P0| + r + |e1| + |e2|), c = max(|n·N|, 1e-3): CONTRACT's "Mesh tolerances".
// A distance may differ by tolT = δ/c (casts: plus min(δ / max(|n·ν|, 1e-3), 3√(δr)) for ν the
// contact normal, the sensitivity of a contact on a curved part, an edge's cylinder or a vertex's
// ball, near tangency). Borderline (hit or not may differ), evaluated in double:
//   ray: |n·N| ≤ 1e-4; the plane's crossing D (t within tolT of [0, |AB|]) within δ of T's edges;
//        D within δ of T and t within tolT of 0 or |AB|.
//   cast (r > 0): |dist(A, T) − r| ≤ δ (starting in contact), |dist(AB, T) − r| ≤ δ (grazing),
//        |dist(B, T) − r| ≤ δ or a hit within tolT of |AB| (the end), |n·N| ≤ 1e-4 near T.
//   contact: ||S − E| − r| ≤ δ.
// A reported hit must be one the reference makes (its distance within tolT) or a borderline one
// whose point is plausible (within δ + tolT of T, or of r from T for a cast); a hit the reference
// makes may be missing only when borderline; the nearest may not be farther than the reference's
// nearest non-borderline hit by more than the tolerance. Fields: the point (centre) within δ of
// A + n·t, N within 1e-4, the barycentrics as a point P0 + u e1 + v e2 within δ + tolT of the
// reference's (and of the reported point), the contact within δ + tolT; contacts: E and the depth
// within δ, the normal within max(1e-4, 2δ/|S − E|) (any direction where S is within 2δ of T).
// Points come back as f32, so each point's comparison also allows its f32 rounding,
// 2⁻²⁴·(|x| + |y| + |z|): 1/32 at 1e6 from the origin, more than δ for a query a few units long.
// ————————————————————————————————————————————————————————————————————————————————————————————

/** Options of the comparators. */
export interface CompareOptions {
  pose?: ArrayLike<number>;
  allHits?: boolean;
  /** Multiplies every tolerance (1: the contract's band; smaller for a double-precision result). */
  scale?: number;
  /** The most differences reported (default 20). */
  limit?: number;
}

interface Query {
  k: number;
  A: V3;
  n: V3;
  a: V3;
  dir: V3;
  len: number;
  r: number;
}

interface Judgement {
  delta: number;
  tolT: number;
  /** The reference's t for this triangle, or −1. */
  t: number;
  /** The reference's point on T (hit point or contact), local. */
  E: V3;
  borderline: string | null;
}

const sub = (p: ArrayLike<number>, q: ArrayLike<number>): V3 => [p[0] - q[0], p[1] - q[1], p[2] - q[2]];
const cross = (p: V3, q: V3): V3 => [p[1] * q[2] - p[2] * q[1], p[2] * q[0] - p[0] * q[2], p[0] * q[1] - p[1] * q[0]];
const dot = (p: ArrayLike<number>, q: ArrayLike<number>) => p[0] * q[0] + p[1] * q[1] + p[2] * q[2];
const norm = (p: ArrayLike<number>) => Math.hypot(p[0], p[1], p[2]);
const along = (p: V3, d: V3, t: number): V3 => [p[0] + d[0] * t, p[1] + d[1] * t, p[2] + d[2] * t];
const at3 = (a: ArrayLike<number>, e: number): V3 => [a[3 * e], a[3 * e + 1], a[3 * e + 2]];
/** The rounding of a point stored as f32 (half an ulp a component, at most): 2⁻²⁴·(|x| + |y| + |z|). */
const f32Slack = (p: ArrayLike<number>) => 2 ** -24 * (Math.abs(p[0]) + Math.abs(p[1]) + Math.abs(p[2]));

/** Squared distance between segments p1q1 and p2q2 (Ericson §5.1.9). */
function segmentSegment2(p1: V3, q1: V3, p2: V3, q2: V3): number {
  const d1 = sub(q1, p1),
    d2 = sub(q2, p2),
    r = sub(p1, p2);
  const a = dot(d1, d1),
    e = dot(d2, d2),
    f = dot(d2, r);
  let s = 0,
    t = 0;
  if (a === 0 && e === 0) return dot(r, r);
  if (a === 0) t = Math.min(Math.max(f / e, 0), 1);
  else {
    const c = dot(d1, r);
    if (e === 0) s = Math.min(Math.max(-c / a, 0), 1);
    else {
      const b = dot(d1, d2),
        denom = a * e - b * b;
      s = denom !== 0 ? Math.min(Math.max((b * f - c * e) / denom, 0), 1) : 0;
      t = (b * s + f) / e;
      if (t < 0) [t, s] = [0, Math.min(Math.max(-c / a, 0), 1)];
      else if (t > 1) [t, s] = [1, Math.min(Math.max((b - c) / a, 0), 1)];
    }
  }
  const x = sub(along(p1, d1, s), along(p2, d2, t));
  return dot(x, x);
}

/** The band's evaluation of queries and triangles, in double, in the mesh's frame. */
class Band {
  readonly T: Float64Array;
  readonly pose: PoseTransform;
  readonly scale: number;
  private readonly out = new Float64Array(5);

  constructor(
    mesh: MeshGeometry,
    readonly options: CompareOptions,
  ) {
    this.T = packMesh(mesh);
    this.pose = poseTransform(options.pose);
    this.scale = options.scale ?? 1;
  }

  get triangles(): number {
    return this.T.length / TRIANGLE_STRIDE;
  }

  query(queries: Float32Array, stride: 6 | 7, k: number): Query {
    const { A, n, len } = segment(queries, stride, k);
    const r = stride === 7 ? queries[7 * k + 6] : 0;
    return { k, A, n, a: this.pose.toLocal(A), dir: this.pose.dirToLocal(n), len, r };
  }

  vertex(tri: number, j: number): V3 {
    const o = tri * TRIANGLE_STRIDE + 3 * j;
    return [this.T[o], this.T[o + 1], this.T[o + 2]];
  }

  degenerate(tri: number): boolean {
    return this.T[tri * TRIANGLE_STRIDE + 12] === 0;
  }

  /** δ for a query point p (local; `world` in the world) with reach `reach` (|AB| + r, or r) against triangle tri. */
  delta(p: V3, world: V3, reach: number, tri: number): number {
    const [p0, p1, p2] = [0, 1, 2].map((j) => this.vertex(tri, j));
    const L = norm(sub(p, p0)) + reach + norm(sub(p1, p0)) + norm(sub(p2, p0));
    const c = this.pose.identity ? 0 : 1e-6 * (norm(world) + norm(this.pose.centre));
    return this.scale * (1e-5 * L + c);
  }

  /** dist(p, T) (local), and the closest point. */
  distance(p: V3, tri: number): { d: number; E: V3 } {
    const d2 = closestPointPacked(this.T, tri * TRIANGLE_STRIDE, p[0], p[1], p[2], this.out);
    return { d: Math.sqrt(d2), E: [p[0] + this.out[0], p[1] + this.out[1], p[2] + this.out[2]] };
  }

  /** The distance from p (in T's plane) to T's boundary. */
  toEdges(p: V3, tri: number): number {
    const v = [0, 1, 2].map((j) => this.vertex(tri, j));
    return Math.sqrt(Math.min(...[0, 1, 2].map((j) => segmentSegment2(p, p, v[j], v[(j + 1) % 3]))));
  }

  /** The distance between the query's segment and T. */
  segmentDistance(q: Query, tri: number): number {
    const o = tri * TRIANGLE_STRIDE;
    if (rayHitPacked(this.T, o, q.a[0], q.a[1], q.a[2], q.dir[0], q.dir[1], q.dir[2], q.len, this.out) >= 0) return 0;
    const b = along(q.a, q.dir, q.len);
    const v = [0, 1, 2].map((j) => this.vertex(tri, j));
    const d2 = Math.min(...[0, 1, 2].map((j) => segmentSegment2(q.a, b, v[j], v[(j + 1) % 3])));
    return Math.min(Math.sqrt(d2), this.distance(q.a, tri).d, this.distance(b, tri).d);
  }

  /** The reference's answer for query q on triangle tri, its tolerances and whether it is borderline. */
  judge(q: Query, tri: number): Judgement {
    const o = tri * TRIANGLE_STRIDE;
    const delta = this.delta(q.a, q.A, q.len + q.r, tri);
    const N = packedNormal(this.T, o);
    const ndot = Math.abs(dot(q.dir, N));
    const c = Math.max(ndot, 1e-3);
    const out = this.out;
    const t = castHitPacked(this.T, o, q.a[0], q.a[1], q.a[2], q.dir[0], q.dir[1], q.dir[2], q.len, q.r, out);
    const E: V3 = [q.a[0] + out[0], q.a[1] + out[1], q.a[2] + out[2]];
    let tolT = delta / c;
    if (t >= 0 && q.r > 0) {
      const C = along(q.a, q.dir, t);
      const nu = Math.abs(dot(q.dir, sub(C, E))) / Math.max(norm(sub(C, E)), 1e-300);
      tolT += Math.min(delta / Math.max(nu, 1e-3), 3 * Math.sqrt(delta * q.r));
    }
    const j: Judgement = { delta, tolT, t, E, borderline: null };
    if (this.degenerate(tri)) return j;
    if (q.r === 0) {
      if (ndot <= 1e-4) j.borderline = 'ray parallel to the face within 1e-4';
      else {
        const p0 = this.vertex(tri, 0);
        const tp = dot(sub(p0, q.a), N) / dot(q.dir, N);
        if (tp >= -tolT && tp <= q.len + tolT) {
          const D = along(q.a, q.dir, tp);
          if (this.toEdges(D, tri) <= delta) j.borderline = 'the hit point is within δ of an edge';
          else if ((Math.abs(tp) <= tolT || Math.abs(tp - q.len) <= tolT) && this.distance(D, tri).d <= delta)
            j.borderline = 't is within tolerance of 0 or |AB|';
        }
      }
      return j;
    }
    const seg = this.segmentDistance(q, tri);
    if (Math.abs(this.distance(q.a, tri).d - q.r) <= delta) j.borderline = 'the cast starts in contact (within δ)';
    else if (Math.abs(seg - q.r) <= delta) j.borderline = 'the cast grazes the triangle (within δ)';
    else if (Math.abs(this.distance(along(q.a, q.dir, q.len), tri).d - q.r) <= delta)
      j.borderline = 'the cast ends in contact (within δ)';
    else if (t >= 0 && q.len - t <= tolT) j.borderline = 't is within tolerance of |AB|';
    else if (t < 0 && seg <= q.r) {
      const longer = castHitPacked(
        this.T,
        o,
        q.a[0],
        q.a[1],
        q.a[2],
        q.dir[0],
        q.dir[1],
        q.dir[2],
        q.len + tolT,
        q.r,
        out,
      );
      if (longer >= 0) j.borderline = 't is within tolerance of |AB|';
    }
    if (!j.borderline && ndot <= 1e-4 && seg <= q.r + delta) j.borderline = 'cast parallel to the face within 1e-4';
    return j;
  }

  /** Whether a hit at da on tri, which the reference does not make, is where it could be. */
  plausible(q: Query, tri: number, j: Judgement, da: number): boolean {
    if (!(da >= -j.tolT && da <= q.len + j.tolT)) return false;
    const d = this.distance(along(q.a, q.dir, da), tri).d;
    return Math.abs(d - q.r) <= j.delta + j.tolT;
  }

  /** The least t over the hits of query q that are not borderline (Infinity if none), and its tolerance. */
  strictNearest(q: Query): { t: number; tri: number; tolT: number } {
    let best = { t: Infinity, tri: -1, tolT: 0 };
    for (let tri = 0; tri < this.triangles; tri++) {
      const o = tri * TRIANGLE_STRIDE;
      const t = castHitPacked(this.T, o, q.a[0], q.a[1], q.a[2], q.dir[0], q.dir[1], q.dir[2], q.len, q.r, this.out);
      if (t < 0 || t >= best.t) continue;
      const j = this.judge(q, tri);
      if (!j.borderline) best = { t, tri, tolT: j.tolT };
    }
    return best;
  }
}

/**
 * Differences between `actual` (a raycastMesh or sphereCastMesh result, GPU or oracle) and
 * `expected` (the reference's for the same queries) that the band does not explain; empty when
 * they agree. `queries` are the rays (6 floats) or casts (7).
 */
export function compareMeshHits(
  kind: 'ray' | 'cast',
  actual: MeshHitsLike,
  expected: MeshHitsLike,
  queries: Float32Array,
  mesh: MeshGeometry,
  options: CompareOptions = {},
): string[] {
  const band = new Band(mesh, options);
  const stride = kind === 'ray' ? 6 : 7;
  const count = queries.length / stride;
  const limit = options.limit ?? 20;
  const problems: string[] = [];
  const fail = (q: Query, message: string) => {
    if (problems.length < limit) problems.push(`${kind} ${q.k} (A ${fmt(q.A)}, |AB| ${q.len}, r ${q.r}): ${message}`);
  };
  const spots = kind === 'ray' ? actual.point : actual.center;
  if (!spots || (kind === 'cast' && !actual.contact))
    return [`${kind}: the result lacks ${kind === 'ray' ? 'point' : 'center or contact'}`];

  const checkFields = (q: Query, e: number, tri: number, j: Judgement, da: number) => {
    const tolN = 1e-4 * band.scale;
    const slack = j.delta + j.tolT;
    const spot = at3(spots, e);
    const onRay = along(q.A, q.n, da);
    const round = f32Slack(spot); // points come back as f32: at 1e6 that is 1/32, more than δ
    if (!(norm(sub(spot, onRay)) <= j.delta + round))
      fail(q, `${kind === 'ray' ? 'point' : 'center'} ${fmt(spot)} is not A + n·t = ${fmt(onRay)}`);
    const N = packedNormal(band.T, tri * TRIANGLE_STRIDE);
    const Na = band.pose.dirToLocal(at3(actual.normal, e));
    if (!(norm(sub(Na, N)) <= tolN))
      fail(q, `normal ${fmt(at3(actual.normal, e))}, the triangle's ${fmt(band.pose.dirToWorld(N))}`);
    const [p0, p1, p2] = [0, 1, 2].map((i) => band.vertex(tri, i));
    // A sliver's closest point is ill-conditioned in f32: the contact and the barycentrics may
    // also differ by 1e-6·κ·(|e1| + |e2|), κ = |e1||e2| / |e1 × e2| (CONTRACT, "Mesh tolerances").
    const e1 = sub(p1, p0);
    const e2 = sub(p2, p0);
    const kappa = Math.min((norm(e1) * norm(e2)) / Math.max(norm(cross(e1, e2)), 1e-300), 1e6);
    const sliver = 1e-6 * band.scale * kappa * (norm(e1) + norm(e2));
    const u = actual.u[e],
      v = actual.v[e];
    const P = [0, 1, 2].map((i) => p0[i] + u * (p1[i] - p0[i]) + v * (p2[i] - p0[i])) as V3;
    const own = kind === 'ray' ? band.pose.toLocal(spot) : band.pose.toLocal(at3(actual.contact!, e));
    if (!(norm(sub(P, own)) <= (kind === 'ray' ? slack : j.delta) + sliver + round))
      fail(
        q,
        `barycentrics (${u}, ${v}) give ${fmt(P)} (local), not the reported ${kind === 'ray' ? 'point' : 'contact'}`,
      );
    if (j.t >= 0 && !(norm(sub(P, j.E)) <= slack + sliver))
      fail(q, `barycentrics (${u}, ${v}), the reference's point ${fmt(j.E)} (local)`);
    if (kind === 'cast') {
      const Ea = band.pose.toLocal(at3(actual.contact!, e));
      if (j.t >= 0 && !(norm(sub(Ea, j.E)) <= slack + sliver + f32Slack(at3(actual.contact!, e))))
        fail(q, `contact ${fmt(at3(actual.contact!, e))}, the reference's ${fmt(band.pose.toWorld(j.E))}`);
      if (j.t < 0 && !(Math.abs(norm(sub(band.pose.toLocal(spot), Ea)) - q.r) <= slack + 2 * round))
        fail(q, 'contact is not r from the centre');
    }
  };

  /** One reported hit (entry e): is it a hit of the reference or a plausible borderline one, and its fields. */
  const checkHit = (q: Query, e: number): { tri: number; da: number; tolT: number } | null => {
    const tri = actual.triangle[e];
    const da = actual.distance[e];
    if (!(tri >= 0 && tri < band.triangles)) {
      fail(q, `triangle ${tri} out of range`);
      return null;
    }
    if (band.degenerate(tri)) {
      fail(q, `reported degenerate triangle ${tri}`);
      return null;
    }
    const j = band.judge(q, tri);
    if (j.t >= 0) {
      if (!(Math.abs(da - j.t) <= j.tolT) && !(j.borderline && band.plausible(q, tri, j, da)))
        fail(q, `triangle ${tri}: distance ${da}, the reference's ${j.t} (tolerance ${j.tolT.toExponential(2)})`);
    } else if (!j.borderline) fail(q, `hit triangle ${tri} at ${da}, which the reference misses (not borderline)`);
    else if (!band.plausible(q, tri, j, da)) fail(q, `hit borderline triangle ${tri} at an implausible distance ${da}`);
    checkFields(q, e, tri, j, da);
    return { tri, da, tolT: j.tolT };
  };

  if (options.allHits) {
    const ao = actual.offsets,
      eo = expected.offsets;
    if (!ao || !eo || ao.length !== count + 1 || eo.length !== count + 1)
      return [`${kind}: offsets missing or not ${count + 1} long`];
    for (let k = 0; k < count; k++) {
      const q = band.query(queries, stride, k);
      if (!(ao[k + 1] >= ao[k])) {
        fail(q, 'offsets decrease');
        continue;
      }
      const seen = new Map<number, number>();
      for (let e = ao[k]; e < ao[k + 1]; e++) {
        const tri = actual.triangle[e];
        if (seen.has(tri)) fail(q, `triangle ${tri} reported twice`);
        seen.set(tri, e);
        const [d, dPrev] = [actual.distance[e], actual.distance[e - 1]];
        if (e > ao[k] && !(d > dPrev || (d === dPrev && tri > actual.triangle[e - 1])))
          fail(q, `hits not sorted by (distance, triangle) at entry ${e}`);
        checkHit(q, e);
      }
      for (let e = eo[k]; e < eo[k + 1]; e++) {
        const tri = expected.triangle[e];
        if (seen.has(tri)) continue;
        if (!band.judge(q, tri).borderline)
          fail(q, `missed triangle ${tri} (the reference's t ${expected.distance[e]}, not borderline)`);
      }
    }
    return problems;
  }

  if (actual.triangle.length !== count || expected.triangle.length !== count)
    return [`${kind}: ${actual.triangle.length} entries for ${count} queries`];
  for (let k = 0; k < count; k++) {
    const q = band.query(queries, stride, k);
    const te = expected.triangle[k];
    const ta = actual.triangle[k];
    if (!(q.len > 0)) {
      if (ta !== -1) fail(q, `a zero-length ${kind} hit triangle ${ta}`);
      continue;
    }
    let strict = { t: Infinity, tri: -1, tolT: 0 };
    if (te >= 0) {
      const je = band.judge(q, te);
      strict = je.borderline ? band.strictNearest(q) : { t: je.t, tri: te, tolT: je.tolT };
    }
    if (ta < 0) {
      if (strict.tri >= 0) fail(q, `missed: the reference hits triangle ${strict.tri} at ${strict.t} (not borderline)`);
      continue;
    }
    const hit = checkHit(q, k);
    if (hit && !(hit.da <= strict.t + Math.max(hit.tolT, strict.tolT)))
      fail(
        q,
        `triangle ${ta} at ${hit.da} is farther than the reference's nearest, triangle ${strict.tri} at ${strict.t}`,
      );
  }
  return problems;
}

/**
 * Differences between `actual` (a sphereTriangleContacts result, in any order) and `expected`
 * (the reference's) that the band does not explain; empty when they agree.
 */
export function compareMeshContacts(
  actual: MeshContactsLike,
  expected: MeshContactsLike,
  spheres: Float32Array,
  mesh: MeshGeometry,
  options: CompareOptions = {},
): string[] {
  const band = new Band(mesh, options);
  const limit = options.limit ?? 20;
  const problems: string[] = [];
  const fail = (s: number, tri: number, message: string) => {
    if (problems.length < limit) problems.push(`contact (sphere ${s}, triangle ${tri}): ${message}`);
  };
  const judge = (s: number, tri: number) => {
    const r = spheres[4 * s + 3];
    const world = at3(spheres.subarray(4 * s, 4 * s + 3), 0);
    const S = band.pose.toLocal(world);
    const delta = band.delta(S, world, r, tri);
    const { d, E } = band.distance(S, tri);
    return { r, S, delta, d, E, borderline: Math.abs(d - r) <= delta };
  };
  const key = (s: number, tri: number) => s * 2 ** 32 + tri;
  const reported = new Map<number, number>();
  for (let p = 0; p < actual.pairs.length / 2; p++) {
    const s = actual.pairs[2 * p],
      tri = actual.pairs[2 * p + 1];
    if (!(s < spheres.length / 4 && tri < band.triangles)) {
      fail(s, tri, 'out of range');
      continue;
    }
    if (reported.has(key(s, tri))) fail(s, tri, 'reported twice');
    reported.set(key(s, tri), p);
    if (band.degenerate(tri)) {
      fail(s, tri, 'degenerate triangle reported');
      continue;
    }
    const j = judge(s, tri);
    if (j.d > j.r && !j.borderline) fail(s, tri, `reported, but |S − E| = ${j.d} > r = ${j.r} (not borderline)`);
    const Ea = band.pose.toLocal(at3(actual.point, p));
    if (!(norm(sub(Ea, j.E)) <= j.delta + f32Slack(at3(actual.point, p))))
      fail(s, tri, `point ${fmt(at3(actual.point, p))}, the reference's ${fmt(band.pose.toWorld(j.E))}`);
    const depth = actual.depth[p];
    if (!(depth >= 0 && Math.abs(depth - (j.r - j.d)) <= j.delta))
      fail(s, tri, `depth ${depth}, the reference's ${j.r - j.d}`);
    const na = band.pose.dirToLocal(at3(actual.normal, p));
    const nRef = j.d > 0 ? (sub(j.S, j.E).map((x) => x / j.d) as V3) : packedNormal(band.T, tri * TRIANGLE_STRIDE);
    const tolN = Math.max(1e-4 * band.scale, (2 * j.delta) / j.d);
    if (!(Math.abs(norm(na) - 1) <= 1e-4 * band.scale) || !(norm(sub(na, nRef)) <= tolN))
      fail(s, tri, `normal ${fmt(at3(actual.normal, p))}, the reference's ${fmt(band.pose.dirToWorld(nRef))}`);
  }
  for (let p = 0; p < expected.pairs.length / 2; p++) {
    const s = expected.pairs[2 * p],
      tri = expected.pairs[2 * p + 1];
    if (reported.has(key(s, tri))) continue;
    const j = judge(s, tri);
    if (!j.borderline) fail(s, tri, `missing (|S − E| = ${j.d}, r = ${j.r}, not borderline)`);
  }
  return problems;
}

function fmt(p: ArrayLike<number>): string {
  return `(${Array.from(p, (x) => +x.toPrecision(9)).join(', ')})`;
}
