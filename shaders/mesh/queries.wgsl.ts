/**
 * Rays, sphere casts and sphere–triangle contacts against a mesh's BVH (its build:
 * ./build.wgsl.ts), one thread a query: the query is moved into the mesh's frame (its pose),
 * walks the LBVH's nodes with the LBVH's walk (bvhWalk, shaders/broadphase/bvh/walk.wgsl.ts:
 * nearer child first; a nearest query skips what lies past its best hit) and tests each
 * triangle it reaches. The CPU reference is src/reference/mesh.ts (double precision, every
 * triangle), and docs/CONTRACT.md ("Meshes") is the math.
 *
 * Every triangle test takes the vertices relative to the query's origin (A, or the centre S)
 * first: the offsets are what the answer depends on, and each is one rounding of the
 * difference of two f32 values, so the rounding scales with the query's own distances, never
 * with the size of the coordinates (a mesh at 1e6 is answered as well as one at the origin).
 *
 *   raycast      Möller–Trumbore on the offsets: D = A + n·t = P0 + u·e1 + v·e2; parallel
 *                (det = 0) misses; edges count (u, v ≥ 0, u + v ≤ 1); 0 ≤ t ≤ |AB|
 *   sphere cast  the first t at which the swept sphere touches the triangle: the least of the
 *                face (the plane moved by r towards A, the touch point inside), the three edges
 *                (the ray against the cylinder of radius r about each, the foot within it) and
 *                the three vertices (the ray against a sphere of radius r); the Minkowski sum of
 *                a triangle and a ball is the union of these, so the least is the first touch
 *   contacts     the closest point E of the triangle to S (Ericson, Real-Time Collision
 *                Detection 5.1.5), a contact when |S − E| ≤ r
 *
 * Modes of the ray and cast kernels, as the sphere casts' (shaders/passes/casts.wgsl.ts): the
 * nearest hit (ties to the lowest triangle), the count of hits, every hit (written at the
 * scanned counts, each query's sorted by (distance, triangle)).
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { MeshQueryParams, MeshHitRecord, MeshContactRecord } from './layout.js';
import { BvhNode } from '../spatial/bvhLayout.js';
import { bvhWalk, rayBoxEntry } from '../spatial/bvhWalk.wgsl.js';
import { flatWorkgroup } from '../common.wgsl.js';
import { PairCounter } from '../../src/layout.js';
import { bindings, uniform, readOnly, readWrite, entry, WG } from '../../src/gpu/kernel.js';
import type { CastMode } from '../../src/queryKinds.js';

/** The kernels' entries (src/gpu/kernel.ts). */
export const meshCastEntry = entry({ name: 'meshCast', index: 'k', bound: 'params.queryCount' });
export const meshContactsEntry = entry({ name: 'meshContacts', index: 'k', bound: 'params.queryCount' });

/** The node boxes' growth: 2^-18 of the query's reach and length (the walk's rounding, relative to its origin: rayBoxEntry). */
export const MESH_WALK_GROW = 2 ** -18;

/** The pose: world = centre + q·local, and back. */
const pose = /* wgsl */ `
fn rotateBy(q: vec4f, v: vec3f) -> vec3f {
  let t = 2.0 * cross(q.xyz, v);
  return v + q.w * t + cross(q.xyz, t);
}
fn toLocal(p: vec3f) -> vec3f {
  if (params.posed == 0u) {
    return p;
  }
  return rotateBy(vec4f(-params.rotation.xyz, params.rotation.w), p - params.centre);
}
fn dirToWorld(v: vec3f) -> vec3f {
  if (params.posed == 0u) {
    return v;
  }
  return rotateBy(params.rotation, v);
}
`;

/**
 * The triangle math on offsets from the query's origin (a, b, c: the vertices minus the origin).
 * A triangle whose edges' cross product is zero (scaled first, so that tiny and huge triangles
 * neither underflow nor overflow) is degenerate and never touched.
 */
export const triangleMath = /* wgsl */ `
struct Closest {
  point: vec3f,
  u: f32,
  v: f32,
}

// The unit face normal of (a, b, c), or 0 for a degenerate triangle.
fn faceNormal(a: vec3f, b: vec3f, c: vec3f) -> vec3f {
  let e1 = b - a;
  let e2 = c - a;
  let m = max(max(max(abs(e1.x), abs(e1.y)), max(abs(e1.z), abs(e2.x))), max(abs(e2.y), abs(e2.z)));
  if (m == 0.0) {
    return vec3f(0.0);
  }
  let s = 1.0 / m;
  let cr = cross(e1 * s, e2 * s);
  if (all(cr == vec3f(0.0))) {
    return vec3f(0.0);
  }
  return normalize(cr);
}

// The ray from the origin along unit n, up to len, against (a, b, c): (t, u, v), t < 0 a miss.
fn rayTriangle(n: vec3f, len: f32, a: vec3f, b: vec3f, c: vec3f) -> vec3f {
  let miss = vec3f(-1.0, 0.0, 0.0);
  let e1 = b - a;
  let e2 = c - a;
  let pv = cross(n, e2);
  let det = dot(e1, pv);
  if (det == 0.0) {
    return miss; // parallel to the plane (or degenerate)
  }
  let inv = 1.0 / det;
  let tv = -a;
  let u = dot(tv, pv) * inv;
  if (u < 0.0 || u > 1.0) {
    return miss;
  }
  let qv = cross(tv, e1);
  let v = dot(n, qv) * inv;
  if (v < 0.0 || u + v > 1.0) {
    return miss;
  }
  let t = dot(e2, qv) * inv;
  if (t < 0.0 || t > len) {
    return miss;
  }
  return vec3f(t, u, v);
}

// The point of (a, b, c) closest to the origin, with its barycentrics (Ericson 5.1.5).
fn closestOnTriangle(a: vec3f, b: vec3f, c: vec3f) -> Closest {
  let ab = b - a;
  let ac = c - a;
  let d1 = -dot(ab, a);
  let d2 = -dot(ac, a);
  if (d1 <= 0.0 && d2 <= 0.0) {
    return Closest(a, 0.0, 0.0);
  }
  let d3 = -dot(ab, b);
  let d4 = -dot(ac, b);
  if (d3 >= 0.0 && d4 <= d3) {
    return Closest(b, 1.0, 0.0);
  }
  let vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
    let v = d1 / (d1 - d3);
    return Closest(a + v * ab, v, 0.0);
  }
  let d5 = -dot(ab, c);
  let d6 = -dot(ac, c);
  if (d6 >= 0.0 && d5 <= d6) {
    return Closest(c, 0.0, 1.0);
  }
  let vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
    let w = d2 / (d2 - d6);
    return Closest(a + w * ac, 0.0, w);
  }
  let va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) {
    let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    return Closest(b + w * (c - b), 1.0 - w, w);
  }
  let denom = 1.0 / (va + vb + vc);
  let v = vb * denom;
  let w = vc * denom;
  return Closest(a + ab * v + ac * w, v, w);
}

// The first t in [0, len] at which a sphere of radius r moved from the origin along unit n is
// within r of (a, b, c), or −1; r > 0. A cast that starts within r (strictly) ignores it.
fn castTriangle(n: vec3f, len: f32, r: f32, a: vec3f, b: vec3f, c: vec3f) -> f32 {
  let normal = faceNormal(a, b, c);
  if (all(normal == vec3f(0.0))) {
    return -1.0;
  }
  let start = closestOnTriangle(a, b, c).point;
  if (dot(start, start) < r * r) {
    return -1.0;
  }
  var best = 3.0e38;
  // The face: the plane moved by r towards the origin's side, met moving towards it.
  let h0 = -dot(a, normal); // the origin's signed distance from the plane
  let dn = dot(n, normal);
  let side = select(-1.0, 1.0, h0 >= 0.0);
  if (abs(h0) >= r && dn * side < 0.0) {
    let t = (side * r - h0) / dn;
    let p = n * t - (side * r) * normal - a; // the touch point, from a
    let e1 = b - a;
    let e2 = c - a;
    let d00 = dot(e1, e1);
    let d01 = dot(e1, e2);
    let d11 = dot(e2, e2);
    let d20 = dot(p, e1);
    let d21 = dot(p, e2);
    let den = d00 * d11 - d01 * d01;
    let u = (d11 * d20 - d01 * d21) / den;
    let v = (d00 * d21 - d01 * d20) / den;
    if (u >= 0.0 && v >= 0.0 && u + v <= 1.0) {
      best = t;
    }
  }
  // The edges: |t·(n × e) − (p × e)|² = r²|e|², the smaller root, from outside the cylinder.
  for (var i = 0u; i < 3u; i++) {
    let p = select(select(c, b, i == 1u), a, i == 0u);
    let q = select(select(a, c, i == 1u), b, i == 0u);
    let e = q - p;
    let ee = dot(e, e);
    let x = cross(n, e);
    let y = cross(p, e);
    let xx = dot(x, x);
    let xy = dot(x, y);
    let cc = dot(y, y) - r * r * ee;
    if (xx > 0.0 && cc > 0.0 && xy > 0.0) {
      let disc = xy * xy - xx * cc;
      if (disc >= 0.0) {
        let t = cc / (xy + sqrt(disc));
        let s = dot(n * t - p, e) / ee;
        if (s >= 0.0 && s <= 1.0 && t < best) {
          best = t;
        }
      }
    }
  }
  // The vertices: the ray against a sphere of radius r about each.
  for (var i = 0u; i < 3u; i++) {
    let p = select(select(c, b, i == 1u), a, i == 0u);
    let along = dot(p, n);
    let side2 = cross(p, n);
    let disc = r * r - dot(side2, side2);
    let cc = dot(p, p) - r * r;
    if (along > 0.0 && disc >= 0.0 && cc >= 0.0) {
      let t = cc / (along + sqrt(disc));
      if (t < best) {
        best = t;
      }
    }
  }
  return select(-1.0, best, best <= len);
}
`;

/** What the ray and cast kernels bind: the parameters, the queries, the tree, the results. */
export const meshCastBindings = bindings({
  params: uniform('MeshQueryParams'),
  casts: readOnly('array<vec4f>'),
  nodes: readOnly('array<BvhNode>'),
  sorted: readOnly('array<vec4f>'),
  ids: readOnly('array<u32>'),
  hits: readWrite('array<MeshHitRecord>'),
  counts: readWrite('array<u32>'),
});

/**
 * The ray and sphere-cast kernel of one mode. A cast is two vec4f, (A, radius), (B, 0), in world
 * space; radius 0 is a ray.
 */
export const meshCastShader = ({ mode }: { mode: CastMode }) => wgsl`
${MeshQueryParams.wgsl}
${MeshHitRecord.wgsl}
${BvhNode.wgsl}
${meshCastBindings.wgsl}
${flatWorkgroup}
${pose}
${triangleMath}
${rayBoxEntry}
${WG.wgsl}

// The touch of the query (origin o in the mesh's frame, unit n, len, r) with sorted leaf u: t, or −1.
fn touch(o: vec3f, n: vec3f, len: f32, r: f32, u: u32) -> f32 {
  let a = sorted[3u * u].xyz - o;
  let b = sorted[3u * u + 1u].xyz - o;
  let c = sorted[3u * u + 2u].xyz - o;
  if (r == 0.0) {
    if (all(faceNormal(a, b, c) == vec3f(0.0))) {
      return -1.0;
    }
    return rayTriangle(n, len, a, b, c).x;
  }
  return castTriangle(n, len, r, a, b, c);
}

// The hit record of the query at t on sorted leaf u (in world space: the centre from the world
// ray, the touched point and the normal turned by the pose).
fn record(aw: vec3f, nw: vec3f, o: vec3f, n: vec3f, r: f32, t: f32, u: u32) -> MeshHitRecord {
  let a = sorted[3u * u].xyz - o;
  let b = sorted[3u * u + 1u].xyz - o;
  let c = sorted[3u * u + 2u].xyz - o;
  let centre = n * t;
  let e = closestOnTriangle(a - centre, b - centre, c - centre);
  let world = aw + nw * t;
  let contact = select(world + dirToWorld(e.point), world, r == 0.0);
  return MeshHitRecord(world, t, contact, i32(ids[u]), dirToWorld(faceNormal(a, b, c)), e.u, e.v);
}

${meshCastEntry.wgsl}
  let aw = casts[2u * k].xyz;
  let r = casts[2u * k].w;
  let bw = casts[2u * k + 1u].xyz;
  let lenW = length(bw - aw);
  let nw = (bw - aw) / max(lenW, 1e-38);
  let o = toLocal(aw);
  let ab = toLocal(bw) - o;
  let len = length(ab);
  let n = ab / max(len, 1e-38);
  let moving = lenW > 0.0 && len > 0.0; // a zero-length ray hits nothing
  let grow = vec3f(r + (r + len) * ${MESH_WALK_GROW} + 1e-30);
#if ${mode === 'nearest'}
  var bestT = 3.0e38;
  var bestIndex = 0xffffffffu;
  var bestLeaf = 0u;
#else
  var found = 0u;
#endif
#if ${mode === 'write'}
  let first = counts[k];
#endif
  if (moving && params.triangleCount > 0u) {
    ${bvhWalk(
      {
        test: `let key = rayBoxEntry(o, n, ${mode === 'nearest' ? 'min(len, bestT)' : 'len'}, nodes[c].lo, nodes[c].hi, grow);`,
        leaf: '',
        skip: mode === 'nearest' ? 'key > bestT' : undefined,
        visit:
          mode === 'nearest'
            ? `let t = touch(o, n, len, r, u);
          if (t >= 0.0 && t <= bestT) {
            let index = ids[u];
            if (t < bestT || index < bestIndex) {
              bestT = t;
              bestIndex = index;
              bestLeaf = u;
            }
          }`
            : mode === 'count'
              ? `if (touch(o, n, len, r, u) >= 0.0) {
            found += 1u;
          }`
              : `let t = touch(o, n, len, r, u);
          if (t >= 0.0) {
            let slot = first + found;
            found += 1u;
            if (slot < arrayLength(&hits)) {
              hits[slot] = record(aw, nw, o, n, r, t, u);
            }
          }`,
      },
      'params.triangleCount',
    )}
  }
#if ${mode === 'nearest'}
  if (bestIndex == 0xffffffffu) {
    hits[k] = MeshHitRecord(vec3f(0.0), -1.0, vec3f(0.0), -1, vec3f(0.0), 0.0, 0.0);
  } else {
    hits[k] = record(aw, nw, o, n, r, bestT, bestLeaf);
  }
#elif ${mode === 'count'}
  counts[k] = found;
#else
  // This query's hits by (distance, triangle): insertion sort of a short run, in place.
  if (first + found <= arrayLength(&hits)) {
    for (var i = first + 1u; i < first + found; i++) {
      let h = hits[i];
      var j = i;
      while (j > first && (hits[j - 1u].distance > h.distance || (hits[j - 1u].distance == h.distance && hits[j - 1u].triangle > h.triangle))) {
        hits[j] = hits[j - 1u];
        j -= 1u;
      }
      hits[j] = h;
    }
  }
#endif
}
`;

export const meshContactsBindings = bindings({
  params: uniform('MeshQueryParams'),
  spheres: readOnly('array<vec4f>'),
  nodes: readOnly('array<BvhNode>'),
  sorted: readOnly('array<vec4f>'),
  ids: readOnly('array<u32>'),
  contacts: readWrite('array<MeshContactRecord>'),
  counter: readWrite('PairCounter'),
});

/**
 * Every sphere–triangle contact: one thread a sphere, its box (S ± r, grown by 2^-18 of r)
 * against the nodes', each triangle reached tested by its closest point. The contacts are
 * appended behind an atomic counter that keeps counting past the list (the caller grows it to
 * the count and runs again).
 */
export const meshContactsShader = () => wgsl`
${MeshQueryParams.wgsl}
${MeshContactRecord.wgsl}
${PairCounter.wgsl}
${BvhNode.wgsl}
${meshContactsBindings.wgsl}
${flatWorkgroup}
${pose}
${triangleMath}
${WG.wgsl}

fn appendContact(contact: MeshContactRecord) {
  let slot = atomicAdd(&counter.count, 1u);
  if (slot == 0xffffffffu) {
    atomicAdd(&counter.countHi, 1u);
  }
  if (slot < arrayLength(&contacts)) {
    contacts[slot] = contact;
  }
}

${meshContactsEntry.wgsl}
  let s = spheres[k];
  let r = s.w;
  let o = toLocal(s.xyz);
  let reach = vec3f(r + r * ${MESH_WALK_GROW} + 1e-30);
  let qLo = o - reach;
  let qHi = o + reach;
  if (params.triangleCount > 0u) {
    ${bvhWalk(
      {
        test: 'let key = select(-1.0, 0.0, all(nodes[c].lo <= qHi) && all(nodes[c].hi >= qLo));',
        leaf: '',
        visit: `let a = sorted[3u * u].xyz - o;
          let b = sorted[3u * u + 1u].xyz - o;
          let c = sorted[3u * u + 2u].xyz - o;
          let normal = faceNormal(a, b, c);
          if (any(normal != vec3f(0.0))) {
            let e = closestOnTriangle(a, b, c);
            let d2 = dot(e.point, e.point);
            if (d2 <= r * r && (r > 0.0 || all(e.point == vec3f(0.0)))) {
              let d = sqrt(d2);
              let out = select(normal, -e.point / d, d > 0.0);
              appendContact(MeshContactRecord(s.xyz + dirToWorld(e.point), r - d, dirToWorld(out), k, ids[u]));
            }
          }`,
      },
      'params.triangleCount',
    )}
  }
}
`;
