/**
 * An outside oracle for the mesh queries, three-mesh-bvh (a MeshBVH over a THREE.BufferGeometry
 * of the same mesh, in double precision), and the comparators that hold a result against the
 * float64 reference (src/reference/mesh.ts) within docs/CONTRACT.md's "Mesh tolerances".
 *
 * The oracle: nearest hits by `bvh.raycastFirst(ray, DoubleSide, 0, |AB|)` (three.js's watertight
 * ray–triangle test), every hit by `bvh.raycast`; sphere casts by `bvh.shapecast` (node boxes
 * against the capsule's box and the segment against the box grown by r; per triangle,
 * ExtendedTriangle.closestPointToSegment rejects those the capsule misses and gives the point of
 * the path nearest T, where f(t) = dist(A + n t, T), convex in t, is least (golden-section search
 * if rounding says otherwise); the first t with f(t) ≤ r before it is found by Newton steps from
 * the left, safeguarded by bisection, f' = n·(C − E)/|C − E|; r = 0 is the ray's test, as the
 * contract says); contacts by `shapecast` (the sphere
 * against node boxes, Triangle.closestPointToPoint per triangle). The pose is applied to the
 * queries (taken into the mesh's frame with THREE.Matrix4) so the geometry stays exact. Degenerate
 * triangles (e1 × e2 = 0 exactly) are left out as the contract says. Triangles keep their index
 * (the BVH is built `indirect`).
 */
import {
  BufferAttribute,
  BufferGeometry,
  Box3,
  DoubleSide,
  Line3,
  Matrix4,
  Quaternion,
  Ray,
  Triangle,
  Vector3,
  type Intersection,
} from 'three';
import { MeshBVH, type ExtendedTriangle } from 'three-mesh-bvh';
import { TRIANGLE_STRIDE, packMesh, type MeshGeometry } from '../../src/reference/mesh.js';

/** Options of the oracle's queries. */
export interface OracleOptions {
  allHits?: boolean;
  pose?: ArrayLike<number>;
}

type V3 = [number, number, number];

/** A MeshBVH over the mesh (built once, reused by every query). */
export class MeshOracle {
  readonly bvh: MeshBVH;
  readonly degenerate: Uint8Array;
  readonly triangles: number;

  constructor(readonly mesh: MeshGeometry) {
    const geometry = new BufferGeometry();
    geometry.setAttribute('position', new BufferAttribute(mesh.positions, 3));
    this.triangles = (mesh.indices ? mesh.indices.length : mesh.positions.length / 3) / 3;
    const index = mesh.indices ?? Uint32Array.from({ length: 3 * this.triangles }, (_, i) => i);
    geometry.setIndex(new BufferAttribute(index, 1));
    this.bvh = new MeshBVH(geometry, { indirect: true });
    const T = packMesh(mesh);
    this.degenerate = new Uint8Array(this.triangles);
    for (let k = 0; k < this.triangles; k++) this.degenerate[k] = T[k * TRIANGLE_STRIDE + 12] === 0 ? 1 : 0;
  }

  /** `raycastMesh` by three-mesh-bvh (see the header), in the reference's result shape. */
  raycast(rays: Float32Array, options: OracleOptions = {}): MeshHitsLike {
    const frame = new Frame(options.pose);
    const lists: Hit[][] = [];
    for (let k = 0; k < rays.length / 6; k++) {
      const { A, n, len } = segment(rays, 6, k);
      lists.push(len > 0 ? this.rayHits(frame, A, n, len, options.allHits === true) : []);
    }
    const out = this.shape(lists, options.allHits === true, frame);
    return { ...out, point: out.center, center: undefined, contact: undefined };
  }

  /** One ray's hits: the nearest by raycastFirst (every hit when it is degenerate), or all by raycast. */
  private rayHits(frame: Frame, A: V3, n: V3, len: number, allHits: boolean): Hit[] {
    const ray = new Ray(frame.toLocal(A), frame.dirToLocal(n));
    const toHit = (h: Intersection): Hit => {
      const [u, v] = this.barycentrics(h.faceIndex!, h.point);
      return {
        triangle: h.faceIndex!,
        t: h.distance,
        at: frame.toWorld(h.point),
        contact: frame.toWorld(h.point),
        u,
        v,
      };
    };
    const first = allHits ? null : this.bvh.raycastFirst(ray, DoubleSide, 0, len);
    if (!allHits && (!first || !this.degenerate[first.faceIndex!])) return first ? [toHit(first)] : [];
    const hits = this.bvh
      .raycast(ray, DoubleSide, 0, len)
      .filter((h) => !this.degenerate[h.faceIndex!])
      .map(toHit);
    hits.sort((p, q) => p.t - q.t || p.triangle - q.triangle);
    return allHits ? hits : hits.slice(0, 1);
  }

  /** u, v of point p on triangle k: ((p − P0) × e2)·N' / |N'|², (e1 × (p − P0))·N' / |N'|² (three's getBarycoord loses slivers). */
  private barycentrics(k: number, p: Vector3): [number, number] {
    const idx = (j: number) => (this.mesh.indices ? this.mesh.indices[3 * k + j] : 3 * k + j);
    const P = (j: number) => new Vector3().fromArray(this.mesh.positions, 3 * idx(j));
    const p0 = P(0);
    const e1 = P(1).sub(p0),
      e2 = P(2).sub(p0),
      w = p.clone().sub(p0);
    const N = new Vector3().crossVectors(e1, e2);
    const nn = N.lengthSq();
    return [new Vector3().crossVectors(w, e2).dot(N) / nn, new Vector3().crossVectors(e1, w).dot(N) / nn];
  }

  /** `sphereCastMesh` by three-mesh-bvh's shapecast (see the header). */
  sphereCast(casts: Float32Array, options: OracleOptions = {}): MeshHitsLike {
    const frame = new Frame(options.pose);
    const lists: Hit[][] = [];
    const box = new Box3();
    const C = new Vector3();
    const E = new Vector3();
    const line = new Line3();
    const ray = new Ray();
    const grown = new Box3();
    const P = new Vector3();
    for (let k = 0; k < casts.length / 7; k++) {
      const { A, n, len } = segment(casts, 7, k);
      const r = casts[7 * k + 6];
      if (!(len > 0) || r === 0) {
        lists.push(len > 0 ? this.rayHits(frame, A, n, len, options.allHits === true) : []); // r = 0: the ray
        continue;
      }
      const a = frame.toLocal(A);
      const dir = frame.dirToLocal(n);
      let reach = len; // nearest: shortened to the best hit so far
      const reachTo = (t: number) => {
        reach = t;
        line.set(a, a.clone().addScaledVector(dir, t));
        box.makeEmpty().expandByPoint(line.start).expandByPoint(line.end).expandByScalar(r);
      };
      reachTo(len);
      ray.set(a, dir);
      const hits: Hit[] = [];
      let best = Infinity;
      let slope = 0;
      /** f(t) = dist(A + n t, T), and f'(t) = n·(C − E)/|C − E| in `slope`. */
      const f = (tri: ExtendedTriangle, t: number) => {
        C.copy(a).addScaledVector(dir, t);
        tri.closestPointToPoint(C, E);
        const d = C.distanceTo(E);
        slope = d > 0 ? (dir.x * (C.x - E.x) + dir.y * (C.y - E.y) + dir.z * (C.z - E.z)) / d : 0;
        return d;
      };
      this.bvh.shapecast({
        // The capsule's box, then the segment against the node's box grown by r (slabs); nearer nodes first.
        intersectsBounds: (node) => {
          if (!node.intersectsBox(box)) return false;
          grown.copy(node).expandByScalar(r);
          if (grown.containsPoint(a)) return true;
          const entry = ray.intersectBox(grown, P);
          return entry !== null && entry.distanceTo(a) <= reach;
        },
        boundsTraverseOrder: (node) => node.distanceToPoint(a),
        intersectsTriangle: (tri, index) => {
          if (this.degenerate[index]) return false;
          if (tri.closestPointToSegment(line, undefined, P) > r) return false;
          const f0 = f(tri, 0);
          if (f0 < r) return false; // starts overlapping: ignored
          // The segment's point nearest T (three-mesh-bvh's) is where f is least: start from it.
          const t =
            f0 === r
              ? 0
              : firstContact(
                  (t) => f(tri, t),
                  () => slope,
                  reach,
                  r,
                  Math.min(P.distanceTo(a), reach),
                );
          if (t < 0 || (!options.allHits && (t > best || (t === best && index > hits[0].triangle)))) return false;
          f(tri, t);
          const [u, v] = this.barycentrics(index, E);
          const hit = { triangle: index, t, at: frame.toWorld(C), contact: frame.toWorld(E), u, v };
          if (options.allHits) hits.push(hit);
          else {
            [best, hits[0]] = [t, hit];
            reachTo(t);
          }
          return false;
        },
      });
      hits.sort((p, q) => p.t - q.t || p.triangle - q.triangle);
      lists.push(hits);
    }
    return this.shape(lists, options.allHits === true, frame);
  }

  /** `sphereTriangleContacts` by three-mesh-bvh's shapecast, sorted by (sphere, triangle). */
  contacts(spheres: Float32Array, options: OracleOptions = {}): MeshContactsLike {
    const frame = new Frame(options.pose);
    const found: { s: number; tri: number; point: V3; normal: V3; depth: number }[] = [];
    const E = new Vector3();
    const N = new Vector3();
    for (let s = 0; s < spheres.length / 4; s++) {
      const r = spheres[4 * s + 3];
      const S = frame.toLocal([spheres[4 * s], spheres[4 * s + 1], spheres[4 * s + 2]]);
      this.bvh.shapecast({
        intersectsBounds: (node) => node.distanceToPoint(S) <= r,
        intersectsTriangle: (tri, index) => {
          if (this.degenerate[index]) return false;
          tri.closestPointToPoint(S, E);
          const d = S.distanceTo(E);
          if (d > r) return false;
          if (d > 0) N.copy(S).sub(E).divideScalar(d);
          else tri.getNormal(N);
          found.push({ s, tri: index, point: frame.toWorld(E), normal: frame.dirToWorld(N), depth: r - d });
          return false;
        },
      });
    }
    found.sort((p, q) => p.s - q.s || p.tri - q.tri);
    return {
      pairs: Uint32Array.from(found.flatMap((c) => [c.s, c.tri])),
      point: Float64Array.from(found.flatMap((c) => c.point)),
      normal: Float64Array.from(found.flatMap((c) => c.normal)),
      depth: Float64Array.from(found.map((c) => c.depth)),
    };
  }

  /** The result arrays (nearest: one entry a query; allHits: every hit and offsets). */
  private shape(
    lists: Hit[][],
    allHits: boolean,
    frame: Frame,
  ): MeshHitsLike & { center: Float64Array; contact: Float64Array } {
    const entries = allHits ? lists.reduce((s, l) => s + l.length, 0) : lists.length;
    const out = {
      triangle: new Int32Array(entries).fill(-1),
      distance: new Float64Array(entries).fill(NaN),
      center: new Float64Array(3 * entries).fill(NaN),
      contact: new Float64Array(3 * entries).fill(NaN),
      u: new Float64Array(entries).fill(NaN),
      v: new Float64Array(entries).fill(NaN),
      normal: new Float64Array(3 * entries).fill(NaN),
      offsets: allHits ? new Uint32Array(lists.length + 1) : undefined,
    };
    const tri = new Triangle();
    const N = new Vector3();
    let e = 0;
    lists.forEach((hits, k) => {
      if (!allHits) e = k;
      for (const h of hits) {
        out.triangle[e] = h.triangle;
        out.distance[e] = h.t;
        out.u[e] = h.u;
        out.v[e] = h.v;
        const idx = (j: number) => (this.mesh.indices ? this.mesh.indices[3 * h.triangle + j] : 3 * h.triangle + j);
        const P = (j: number) => new Vector3().fromArray(this.mesh.positions, 3 * idx(j));
        tri.set(P(0), P(1), P(2)).getNormal(N);
        out.center.set(h.at, 3 * e);
        out.contact.set(h.contact, 3 * e);
        out.normal.set(frame.dirToWorld(N), 3 * e);
        e++;
      }
      if (out.offsets) out.offsets[k + 1] = e;
    });
    return out;
  }
}

interface Hit {
  triangle: number;
  t: number;
  /** The hit point (rays) or the centre at contact (casts), world. */
  at: V3;
  /** The contact point (casts), world. */
  contact: V3;
  u: number;
  v: number;
}

/** The pose as three.js matrices (the oracle's own way, independent of the reference's). */
class Frame {
  private readonly world = new Matrix4();
  private readonly local = new Matrix4();
  private readonly rotation = new Quaternion();
  private readonly inverse = new Quaternion();

  constructor(pose?: ArrayLike<number>) {
    if (!pose) return;
    this.rotation.set(pose[3], pose[4], pose[5], pose[6]).normalize();
    this.inverse.copy(this.rotation).invert();
    this.world.compose(new Vector3(pose[0], pose[1], pose[2]), this.rotation, new Vector3(1, 1, 1));
    this.local.copy(this.world).invert();
  }
  toLocal(p: ArrayLike<number>): Vector3 {
    return new Vector3(p[0], p[1], p[2]).applyMatrix4(this.local);
  }
  dirToLocal(d: ArrayLike<number>): Vector3 {
    return new Vector3(d[0], d[1], d[2]).applyQuaternion(this.inverse);
  }
  toWorld(p: Vector3): V3 {
    return p.clone().applyMatrix4(this.world).toArray() as V3;
  }
  dirToWorld(d: Vector3): V3 {
    return d.clone().applyQuaternion(this.rotation).toArray() as V3;
  }
}

/** Query k's A, unit n and |AB|. */
const GOLDEN = (Math.sqrt(5) - 1) / 2;

/**
 * The first t in [0, hi] with f(t) ≤ r for a convex f with f(0) > r, or −1: a point with f ≤ r
 * (the hint, else the minimum by golden-section search), then the crossing on [0, that point].
 */
function firstContact(f: (t: number) => number, df: () => number, hi: number, r: number, hint: number): number {
  if (f(hint) <= r) return crossing(f, df, hint, r, hi);
  let lo = 0,
    top = hi;
  let x1 = top - GOLDEN * (top - lo),
    x2 = lo + GOLDEN * (top - lo);
  let f1 = f(x1),
    f2 = f(x2);
  let tMin = f1 < f2 ? x1 : x2;
  let fMin = Math.min(f1, f2);
  const fHi = f(hi);
  if (fHi < fMin) [tMin, fMin] = [hi, fHi];
  for (let i = 0; i < 200 && top - lo > 1e-17 * hi && fMin > r; i++) {
    if (f1 <= f2) {
      top = x2;
      [x2, f2] = [x1, f1];
      x1 = top - GOLDEN * (top - lo);
      f1 = f(x1);
    } else {
      lo = x1;
      [x1, f1] = [x2, f2];
      x2 = lo + GOLDEN * (top - lo);
      f2 = f(x2);
    }
    if (Math.min(f1, f2) < fMin) [tMin, fMin] = f1 < f2 ? [x1, f1] : [x2, f2];
  }
  return fMin > r ? -1 : crossing(f, df, tMin, r, hi);
}

/**
 * The first t in [0, b] with f(t) ≤ r, given f(0) > r ≥ f(b) and f convex (so decreasing on
 * [0, b]): Newton steps from the left (a convex f's tangent never passes the crossing, so they
 * approach it from below), bisection where a step leaves the bracket [a, b]. To 1e-14·hi.
 */
function crossing(f: (t: number) => number, df: () => number, b: number, r: number, hi: number): number {
  let a = 0;
  let fa = f(0);
  let ga = df();
  for (let i = 0; i < 300 && b - a > 1e-14 * hi; i++) {
    const step = ga < 0 ? (fa - r) / -ga : NaN;
    if (a + step < b && step <= 1e-14 * hi) return a + step;
    const m = a + step < b ? a + step : a + (b - a) / 2;
    const fm = f(m);
    if (fm <= r) b = m;
    else [a, fa, ga] = [m, fm, df()];
  }
  return b;
}

export {
  compareMeshHits,
  compareMeshContacts,
  type MeshHitsLike,
  type MeshContactsLike,
  type CompareOptions,
} from './meshCompare.js';
import { segment, type MeshHitsLike, type MeshContactsLike } from './meshCompare.js';
