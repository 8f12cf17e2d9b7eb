/**
 * Mesh colliders in the particle world (world.setMeshes): static, kinematic and deforming
 * triangle meshes (collider.createMesh), solved with the particles as the boxes are (contacts
 * with an infinitely heavy body, in the same collider slots: ./colliders.wgsl.ts). The CPU twin
 * is src/reference/particles/meshes.ts.
 *
 * A mesh's pose and velocities follow the boxes' in the colliders' buffers (collider boxCount +
 * m), so colliderSpeed and colliderMove move a kinematic mesh as a box. Per step, after
 * colliderFind (the boxes), for each mesh:
 *   meshFind       one thread per moving particle walks the mesh's BVH with the particle's path
 *                  over the step in the mesh's frame: a capsule from its centre along its
 *                  velocity × dt (a sphere grown by that travel when it is shorter than the
 *                  radius), of radius r + margin + the mesh's own travel + how far a particle
 *                  could send it within the step ((1 + e) × the fastest particle's speed × dt,
 *                  at most r: a ball resting a hair above the mesh, struck from above); the
                  triangles it reaches are postponed and tested 16 at a time (bvhWalk's `defer`:
                  the test inline at each child cost 3× the find on SwiftShader). Each triangle within
 *                  reach joins the particle's found colliders (id: the mesh's idBase + its tree
 *                  position), with its vertices in the mesh's frame, the mesh, the triangle's
 *                  index, its active edges (src/mesh/edges.ts) and the side of its plane the
 *                  particle's centre starts on; past its `foundSlots` it keeps counting
 *                  (ParticleStats.boxSlotsNeeded), as colliderFind.
 * meshReduce drops the triangles a nearer one holds the particle from first (their number
 * within reach grows with the mesh's detail; the contacts left seldom pass a few), and
 * colliderList orders the rest with the boxes by id (boxes first) and keeps each triangle in
 * `slotTriangles`, where colliderPrepare reads it each substep (triangleGeometry, below) with
 * the mesh's pose then.
 *
 * A particle touches a triangle (triangleGeometry) at its closest point E, at the distance
 * |c − E|; through the face, an inactive edge or a vertex between two inactive edges the normal
 * is the face's, on the side the centre started the step on (so a thin shell holds from both
 * sides, and a particle pushed past its plane within a step is pushed back, not through); at an
 * active edge or vertex, the direction from E to the centre.
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { ParticleParams, ParticleBody, ParticleStats, MeshFindParams, WideBox } from './layout.js';
import { BvhChildBoxes } from '../spatial/bvhLayout.js';
import { bvhWalk, WALK_DEFER } from '../spatial/bvhWalk.wgsl.js';
import { BVH_STACK } from '../../src/spatial/bvhShape.js';
import { flatWorkgroup } from '../common.wgsl.js';
import { triangleMath, faceNormal, CLOSEST, EDGE_AB, EDGE_BC, EDGE_CA } from '../mesh/triangle.wgsl.js';
import { boxMath } from '../boxes.wgsl.js';
import { colliderGeometry } from './colliderGeometry.wgsl.js';
import { REDUCE_COS, REDUCE_TIE } from '../../src/particles/step.js';
import { bindings, uniform, readOnly, readWrite, entry, WG } from '../../src/gpu/kernel.js';

/**
 * A found triangle's words in `found`: three vec4, the vertices with mesh, triangle and flags in
 * their w (meshFind), then its geometry when listed (normal, gap: colliderList).
 */
export const TRIANGLE_WORDS = 16;

/** The flag of a found triangle whose plane the particle's centre started the step behind. */
export const SIDE_BACK = 8;

/** Each CLOSEST feature's edges (EDGE_* bits), a nibble a feature: a vertex has two, an edge one, the face none. */
const FEATURE_EDGES = [
  [CLOSEST.face, 0],
  [CLOSEST.vertexA, EDGE_AB | EDGE_CA],
  [CLOSEST.vertexB, EDGE_AB | EDGE_BC],
  [CLOSEST.vertexC, EDGE_BC | EDGE_CA],
  [CLOSEST.edgeAB, EDGE_AB],
  [CLOSEST.edgeBC, EDGE_BC],
  [CLOSEST.edgeCA, EDGE_CA],
].reduce((bits, [feature, edges]) => bits | (edges << (4 * feature)), 0);

export const meshFindBindings = bindings({
  params: uniform('ParticleParams'),
  mesh: uniform('MeshFindParams'),
  current: readOnly('array<vec4f>'),
  bodies: readOnly('array<ParticleBody>'),
  children: readOnly('array<BvhChildBoxes>'),
  sorted: readOnly('array<vec4f>'),
  ids: readOnly('array<u32>'),
  edgeFlags: readOnly('array<u32>'),
  found: readWrite('array<u32>'),
  stats: readWrite('ParticleStats'),
});

/**
 * The geometry of sphere s against the triangle of a slot (v0, v1, v2: its vertices in the mesh's
 * frame, the flags in v2's w) of the mesh at (centre, q): as boxGeometry's (the normal from the
 * sphere toward the triangle, the gap, the contact point relative to the mesh's centre, world
 * axes). Needs `rotate`, BoxGeometry (./colliders.wgsl.ts' colliderGeometry), triangleMath and
 * faceNormal.
 */
export const triangleGeometry = /* wgsl */ `
fn triangleGeometry(s: vec4f, v0: vec4f, v1: vec4f, v2: vec4f, centre: vec3f, q: vec4f) -> BoxGeometry {
  // A mesh that is not turned (the common static one) skips the rotations.
  let turned = any(q.xyz != vec3f(0.0));
  var local = s.xyz - centre;
  if (turned) {
    local = rotate(vec4f(-q.xyz, q.w), local);
  }
  let p0 = v0.xyz;
  let tri = Tri(p0 - local, v1.xyz - p0, v2.xyz - p0, v2.xyz - v1.xyz, faceNormal(p0, v1.xyz, v2.xyz));
  let flags = bitcast<u32>(v2.w);
  let e = closestOnTriangle(tri, vec3f(0.0));
  let dist = length(e.point);
  let edges = (${FEATURE_EDGES}u >> (4u * e.feature)) & 15u;
  var n = e.point / dist;
  var gap = dist - s.w;
  if ((edges & flags) == 0u || dist == 0.0) {
    // The face, or an inactive edge or vertex: along the face's normal, on the side the centre
    // started the step on, at the true distance (negative once the centre is past the plane).
    let out = tri.normal * select(1.0, -1.0, (flags & ${SIDE_BACK}u) != 0u);
    gap = select(dist, -dist, dot(tri.a, out) > 0.0) - s.w;
    n = -out;
  }
  var point = local + e.point;
  if (turned) {
    n = rotate(q, n);
    point = rotate(q, point);
  }
  return BoxGeometry(n, gap, point);
}
`;

export const meshFindEntry = entry({ name: 'meshFind', index: 't', bound: 'params.count' });

/**
 * One mesh's triangles near each moving particle's path over the step, appended to its found
 * colliders (the overview above); `stack`, the walk's (the mesh's walkStack).
 */
export const meshFindShader = ({ stack = BVH_STACK }: { stack?: number } = {}) => wgsl`
${ParticleParams.wgsl}
${ParticleBody.wgsl}
${WideBox.wgsl}
${ParticleStats.wgsl}
${MeshFindParams.wgsl}
${BvhChildBoxes.wgsl}
${meshFindBindings.wgsl}
${flatWorkgroup}
${triangleMath}
${WG.wgsl}

fn rotateBy(q: vec4f, v: vec3f) -> vec3f {
  let t = 2.0 * cross(q.xyz, v);
  return v + q.w * t + cross(q.xyz, t);
}

// The squared distance between segments p1 + s·d1 and p2 + t·d2, s and t in [0, 1] (Ericson,
// Real-Time Collision Detection 5.1.9).
fn segmentsDistance2(p1: vec3f, d1: vec3f, p2: vec3f, d2: vec3f) -> f32 {
  let r = p1 - p2;
  let a = dot(d1, d1);
  let e = dot(d2, d2);
  let f = dot(d2, r);
  var s = 0.0;
  var t = 0.0;
  if (a == 0.0) {
    t = select(0.0, clamp(f / e, 0.0, 1.0), e > 0.0);
  } else {
    let c = dot(d1, r);
    if (e == 0.0) {
      s = clamp(-c / a, 0.0, 1.0);
    } else {
      let b = dot(d1, d2);
      let denom = a * e - b * b;
      s = select(0.0, clamp((b * f - c * e) / denom, 0.0, 1.0), denom != 0.0);
      t = (b * s + f) / e;
      if (t < 0.0) {
        t = 0.0;
        s = clamp(-c / a, 0.0, 1.0);
      } else if (t > 1.0) {
        t = 1.0;
        s = clamp((b - c) / a, 0.0, 1.0);
      }
    }
  }
  let gap = r + d1 * s - d2 * t;
  return dot(gap, gap);
}

// Whether the segment from the origin along \`path\` comes within \`radius\` of the triangle: its
// end, an edge, or a crossing of the face (its start was tested by the caller).
fn pathNear(tri: Tri, path: vec3f, radius: f32) -> bool {
  let r2 = radius * radius;
  let end = closestOnTriangle(tri, path).point;
  if (dot(end, end) <= r2) {
    return true;
  }
  let b = tri.a + tri.e1;
  if (segmentsDistance2(vec3f(0.0), path, tri.a, tri.e1) <= r2 ||
      segmentsDistance2(vec3f(0.0), path, tri.a, tri.e2) <= r2 ||
      segmentsDistance2(vec3f(0.0), path, b, tri.e3) <= r2) {
    return true;
  }
  let len = length(path);
  return rayTriangle(path / len, len, tri).x >= 0.0;
}

${meshFindEntry.wgsl}
  let body = bodies[t].v;
  if (body.w <= 0.0) {
    return;
  }
  let s = current[t];
  let inverse = vec4f(-mesh.rotation.xyz, mesh.rotation.w);
  let o = rotateBy(inverse, s.xyz - mesh.centre.xyz);
  let travel = (length(mesh.linear.xyz) + length(mesh.angular.xyz) * length(mesh.extent.xyz)) * params.frameDt;
  let path = rotateBy(inverse, body.xyz) * params.frameDt;
  let pathLength = length(path);
  // Struck within the step by a faster particle, it may leave at up to (1 + e) times the fastest
  // particle's speed: its reach counts that too, up to its radius.
  let fastest = bitcast<f32>(atomicLoad(&stats.fastestBits));
  let struck = min((1.0 + params.restitution) * fastest * params.frameDt, s.w);
  let reach = s.w + params.margin + travel + struck;
  // A path shorter than the radius: a sphere grown by it (one closest point a triangle).
  let swept = pathLength > s.w;
  let radius = select(reach + pathLength, reach, swept);
  let end = select(o, o + path, swept);
  let qLo = min(o, end) - vec3f(radius);
  let qHi = max(o, end) + vec3f(radius);
  if (mesh.triangleCount > 0u) {
    ${bvhWalk(
      {
        test: 'let key = select(-1.0, 0.0, all(lo <= qHi) && all(hi >= qLo));',
        leaf: '',
        visit: `let v0 = sorted[3u * u];
          let v1 = sorted[3u * u + 1u];
          let v2 = sorted[3u * u + 2u];
          let tri = triangleAt(v0, v1, v2, o);
          if (any(tri.normal != vec3f(0.0))) {
            let near = closestOnTriangle(tri, vec3f(0.0)).point;
            if (dot(near, near) <= radius * radius || (swept && pathNear(tri, path, radius))) {
              let slot = found[t];
              found[t] = slot + 1u;
              if (slot < params.foundSlots) {
                found[params.count + t * params.foundSlots + slot] = mesh.idBase + u;
                let w = params.count * (1u + params.foundSlots) + (t * params.foundSlots + slot) * ${TRIANGLE_WORDS}u;
                let id = ids[u];
                let back = select(0u, ${SIDE_BACK}u, dot(tri.a, tri.normal) > 0.0);
                found[w] = bitcast<u32>(v0.x);
                found[w + 1u] = bitcast<u32>(v0.y);
                found[w + 2u] = bitcast<u32>(v0.z);
                found[w + 3u] = mesh.mesh;
                found[w + 4u] = bitcast<u32>(v1.x);
                found[w + 5u] = bitcast<u32>(v1.y);
                found[w + 6u] = bitcast<u32>(v1.z);
                found[w + 7u] = id;
                found[w + 8u] = bitcast<u32>(v2.x);
                found[w + 9u] = bitcast<u32>(v2.y);
                found[w + 10u] = bitcast<u32>(v2.z);
                found[w + 11u] = edgeFlags[id] | back;
              } else {
                atomicMax(&stats.boxSlotsNeeded, slot + 1u);
              }
            }
          }`,
        defer: WALK_DEFER.list,
        children: true,
        stack,
      },
      'mesh.triangleCount',
    )}
  }
}
`;

export const meshReduceBindings = bindings({
  params: uniform('ParticleParams'),
  sorted: readOnly('array<vec4f>'),
  colliderPoses: readOnly('array<vec4f>'),
  found: readWrite('array<u32>'),
  stats: readWrite('ParticleStats'),
});

/** A found triangle's words (meshFind), and the mark of one meshReduce dropped, in its mesh word (for kernels that bind `found`). */
export const foundTriangles = /* wgsl */ `
const DROPPED: u32 = 0x80000000u;

// The vertex (and its w) at word w of a found triangle.
fn foundVertex(w: u32) -> vec4f {
  return bitcast<vec4f>(vec4u(found[w], found[w + 1u], found[w + 2u], found[w + 3u]));
}
`;

export const meshReduceEntry = entry({ name: 'meshReduce', index: 't', bound: 'params.count' });

/**
 * With meshes, per particle (bucket position t), before colliderList (./colliders.wgsl.ts): each found triangle's
 * geometry now, kept beside its words (n, gap: the last four), and a triangle nearer along the
 * same direction (normals within REDUCE_COS) holds the particle first: the farther one is
 * dropped. Nearer is by the gap in steps of REDUCE_TIE of the radius, then by id: a strict order
 * (the nearest is always kept, and rounding seldom flips it). Past the particle's `boxSlots`, the
 * boxes and triangles left go to ParticleStats.keptSlotsNeeded (the host grows and runs again).
 */
export const meshReduceShader = () => wgsl`
${ParticleParams.wgsl}
${WideBox.wgsl}
${ParticleStats.wgsl}
${flatWorkgroup}
${boxMath}
${WG.wgsl}
${colliderGeometry}
${triangleMath}
${faceNormal}
${triangleGeometry}
${meshReduceBindings.wgsl}
${foundTriangles}
const REDUCE_COS: f32 = ${REDUCE_COS};
const REDUCE_TIE: f32 = ${REDUCE_TIE};

${meshReduceEntry.wgsl}
  let count = min(found[t], params.foundSlots);
  if (count == 0u) {
    return;
  }
  let s = sorted[t];
  let ids = params.count + t * params.foundSlots;
  let words = params.count * (1u + params.foundSlots) + t * params.foundSlots * ${TRIANGLE_WORDS}u;
  for (var j = 0u; j < count; j++) {
    if (found[ids + j] >= params.boxCount) {
      let w = words + j * ${TRIANGLE_WORDS}u;
      let k = params.boxCount + found[w + 3u];
      let g = triangleGeometry(s, foundVertex(w), foundVertex(w + 4u), foundVertex(w + 8u), colliderPoses[3u * k].xyz, colliderPoses[3u * k + 2u]);
      found[w + 12u] = bitcast<u32>(g.n.x);
      found[w + 13u] = bitcast<u32>(g.n.y);
      found[w + 14u] = bitcast<u32>(g.n.z);
      found[w + 15u] = bitcast<u32>(g.gap);
    }
  }
  var keep = 0u;
  let step = REDUCE_TIE * s.w;
  for (var j = 0u; j < count; j++) {
    let box = found[ids + j];
    var dropped = false;
    if (box >= params.boxCount) {
      let w = words + j * ${TRIANGLE_WORDS}u;
      let n = bitcast<vec3f>(vec3u(found[w + 12u], found[w + 13u], found[w + 14u]));
      let gap = floor(bitcast<f32>(found[w + 15u]) / step);
      for (var i = 0u; i < count && !dropped; i++) {
        let other = found[ids + i];
        if (i != j && other >= params.boxCount) {
          let v = words + i * ${TRIANGLE_WORDS}u;
          let m = bitcast<vec3f>(vec3u(found[v + 12u], found[v + 13u], found[v + 14u]));
          let near = floor(bitcast<f32>(found[v + 15u]) / step);
          dropped = dot(n, m) >= REDUCE_COS && (near < gap || (near == gap && other < box));
        }
      }
    }
    // A dropped triangle is marked in its mesh word (the dominance above read the ids and geometry only).
    if (dropped) {
      found[words + j * ${TRIANGLE_WORDS}u + 3u] |= DROPPED;
    } else {
      keep += 1u;
    }
  }
  if (keep > params.boxSlots) {
    atomicMax(&stats.keptSlotsNeeded, keep);
  }
}
`;
