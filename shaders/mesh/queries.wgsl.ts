/**
 * Rays, sphere casts and sphere–triangle contacts against a mesh's BVH (its build:
 * ./build.wgsl.ts), one thread a query: the query is moved into the mesh's frame (its pose),
 * walks the LBVH's child boxes (BvhChildBoxes) with the LBVH's walk (bvhWalk, shaders/spatial/bvhWalk.wgsl.ts:
 * nearer child first; a nearest query skips what lies past its best hit) and tests each
 * triangle it reaches (./triangle.wgsl.ts: the math). The CPU reference is src/reference/mesh.ts (double precision, every
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
import { BvhChildBoxes } from '../spatial/bvhLayout.js';
import { bvhWalk, WALK_DEFER } from '../spatial/bvhWalk.wgsl.js';
import { BVH_STACK } from '../../src/spatial/bvhShape.js';
import { flatWorkgroup } from '../common.wgsl.js';
import { PairCounter } from '../../src/layout.js';
import { triangleMath } from './triangle.wgsl.js';
import { sortHitRun } from '../passes/casts.wgsl.js';
import { bindings, uniform, readOnly, readWrite, entry, WG } from '../../src/gpu/kernel.js';
import type { CastMode } from '../../src/queryKinds.js';

/** The kernels' entries (src/gpu/kernel.ts). */
export const meshCastEntry = entry({ name: 'meshCast', index: 'k', bound: 'params.queryCount' });
export const meshContactsEntry = entry({ name: 'meshContacts', index: 'k', bound: 'params.queryCount' });

/** The node boxes' growth: 2^-18 of the query's reach and length (the walk's rounding, relative to its origin: rayBoxEntry). */
export const MESH_WALK_GROW = 2 ** -18;

/**
 * rayBoxEntry (shaders/spatial/bvhWalk.wgsl.ts) with the direction's inverse taken once a query:
 * multiplications where it divides at every node. A product rounds where the quotient rounded,
 * within an ulp of t: the boxes' growth (2^-18 of the query's length) covers it.
 */
const rayBoxInverse = /* wgsl */ `
fn rayBoxInverse(a: vec3f, inv: vec3f, still: vec3<bool>, tStop: f32, lo: vec3f, hi: vec3f, g: vec3f) -> f32 {
  let dlo = (lo - a) - g;
  let dhi = (hi - a) + g;
  let ta = dlo * inv;
  let tb = dhi * inv;
  let near = select(min(ta, tb), vec3f(0.0), still);
  let far = select(max(ta, tb), vec3f(tStop), still);
  let t0 = max(max(0.0, near.x), max(near.y, near.z));
  let t1 = min(min(tStop, far.x), min(far.y, far.z));
  let outside = any(still & ((dlo > vec3f(0.0)) | (dhi < vec3f(0.0))));
  return select(-1.0, t0, t0 <= t1 && !outside);
}
`;

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

/** What the ray and cast kernels bind: the parameters, the queries, the tree, the results. */
export const meshCastBindings = bindings({
  params: uniform('MeshQueryParams'),
  casts: readOnly('array<vec4f>'),
  children: readOnly('array<BvhChildBoxes>'),
  sorted: readOnly('array<vec4f>'),
  ids: readOnly('array<u32>'),
  hits: readWrite('array<MeshHitRecord>'),
  counts: readWrite('array<u32>'),
});

/**
 * The ray and sphere-cast kernel of one mode. A cast is two vec4f, (A, radius), (B, 0), in world
 * space; radius 0 is a ray. `ray`: the rays' kernel, the radius 0 whatever the w (raycastMesh),
 * without the sphere cast's test (on SwiftShader a branch's arms both run, under a lane mask).
 */
export const meshCastShader = ({
  mode,
  ray,
  stack = BVH_STACK,
}: {
  mode: CastMode;
  ray: boolean;
  stack?: number;
}) => wgsl`
${MeshQueryParams.wgsl}
${MeshHitRecord.wgsl}
${BvhChildBoxes.wgsl}
${meshCastBindings.wgsl}
${flatWorkgroup}
${pose}
${triangleMath}
${rayBoxInverse}
${WG.wgsl}

// The touch of the query (origin o in the mesh's frame, unit n, len, r) with sorted leaf u: t, or −1.
fn touch(o: vec3f, n: vec3f, len: f32, r: f32, u: u32) -> f32 {
  let tri = triangleAt(sorted[3u * u], sorted[3u * u + 1u], sorted[3u * u + 2u], o);
  if (all(tri.normal == vec3f(0.0))) {
    return -1.0; // degenerate
  }
#if ${ray}
  return rayTriangle(n, len, tri).x;
#else
  if (r == 0.0) {
    return rayTriangle(n, len, tri).x;
  }
  return castTriangle(n, len, r, tri);
#endif
}

// The hit record of the query at t on sorted leaf u (in world space: the centre from the world
// ray, the touched point and the normal turned by the pose).
fn record(aw: vec3f, nw: vec3f, o: vec3f, n: vec3f, r: f32, t: f32, u: u32) -> MeshHitRecord {
  let tri = triangleAt(sorted[3u * u], sorted[3u * u + 1u], sorted[3u * u + 2u], o);
  let e = closestOnTriangle(tri, n * t);
  let world = aw + nw * t;
  let contact = select(world + dirToWorld(e.point), world, r == 0.0);
  return MeshHitRecord(world, t, contact, i32(ids[u]), dirToWorld(tri.normal), e.u, e.v);
}

${meshCastEntry.wgsl}
  let aw = casts[2u * k].xyz;
  let r = ${ray ? '0.0' : 'casts[2u * k].w'};
  let bw = casts[2u * k + 1u].xyz;
  let lenW = length(bw - aw);
  let nw = (bw - aw) / max(lenW, 1e-38);
  let o = toLocal(aw);
  let ab = toLocal(bw) - o;
  let len = length(ab);
  let n = ab / max(len, 1e-38);
  let moving = lenW > 0.0 && len > 0.0; // a zero-length ray hits nothing
  let grow = vec3f(r + (r + len) * ${MESH_WALK_GROW} + 1e-30);
  let still = n == vec3f(0.0);
  let inv = 1.0 / select(n, vec3f(1.0), still);
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
        test: `let key = rayBoxInverse(o, inv, still, ${mode === 'nearest' ? 'min(len, bestT)' : 'len'}, lo, hi, grow);`,
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
        defer: WALK_DEFER[mode === 'nearest' ? 'nearest' : 'list'],
        children: true,
        stack,
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
  ${sortHitRun('triangle')}
#endif
}
`;

export const meshContactsBindings = bindings({
  params: uniform('MeshQueryParams'),
  spheres: readOnly('array<vec4f>'),
  children: readOnly('array<BvhChildBoxes>'),
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
export const meshContactsShader = ({ stack = BVH_STACK }: { stack?: number } = {}) => wgsl`
${MeshQueryParams.wgsl}
${MeshContactRecord.wgsl}
${PairCounter.wgsl}
${BvhChildBoxes.wgsl}
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
        test: 'let key = select(-1.0, 0.0, all(lo <= qHi) && all(hi >= qLo));',
        leaf: '',
        visit: `let first = sorted[3u * u];
          let tri = triangleAt(first, sorted[3u * u + 1u], sorted[3u * u + 2u], o);
          if (any(tri.normal != vec3f(0.0))) {
            let e = closestOnTriangle(tri, vec3f(0.0));
            let d2 = dot(e.point, e.point);
            if (d2 <= r * r && (r > 0.0 || all(e.point == vec3f(0.0)))) {
              let d = sqrt(d2);
              let away = select(tri.normal, -e.point / d, d > 0.0);
              appendContact(MeshContactRecord(s.xyz + dirToWorld(e.point), r - d, dirToWorld(away), k, ids[u]));
            }
          }`,
        defer: WALK_DEFER.list,
        children: true,
        stack,
      },
      'params.triangleCount',
    )}
  }
}
`;
