/**
 * The triangle math of the mesh queries and its build (the CPU reference: src/reference/mesh.ts).
 */

/**
 * The unit face normal of a triangle, or 0 when its edges' cross product is zero (scaled first,
 * so that tiny and huge triangles neither underflow nor overflow): a degenerate triangle, which
 * no query touches. The build stores each leaf's normal in its vertices' w (meshLeaves), so
 * that a walk reads it and skips a degenerate leaf (normal 0) before any other arithmetic.
 */
export const faceNormal = /* wgsl */ `
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
`;

/** The bit of triangle edge v0→v1, v1→v2 and v2→v0 in a triangle's active-edge flags (src/mesh/edges.ts). */
export const EDGE_AB = 1;
export const EDGE_BC = 2;
export const EDGE_CA = 4;

/** Where on a triangle its closest point lies (`Closest.feature`). */
export const CLOSEST = { face: 0, vertexA: 1, vertexB: 2, vertexC: 3, edgeAB: 4, edgeBC: 5, edgeCA: 6 } as const;

/** The most |n·N| a ray may have and still be taken as parallel to a face (the band's is 1e-4). */
export const MESH_PARALLEL = 1e-5;

/**
 * The triangle math, in the frame of the query's origin: `Tri` holds the first vertex's offset
 * from the origin (a) and the edges and face normal taken from the vertices themselves (e1 =
 * P1 − P0, e2 = P2 − P0, e3 = P2 − P1): each edge one rounding of a difference of f32 vertices,
 * so a small triangle far from the query keeps its own shape and normal exactly enough, and the
 * offset's rounding is one ulp of the query's own distance.
 */
export const triangleMath = /* wgsl */ `
struct Tri {
  a: vec3f,
  e1: vec3f,
  e2: vec3f,
  e3: vec3f,
  normal: vec3f,
}

// feature: where the point lies (CLOSEST_*: the face, a vertex, an edge).
struct Closest {
  point: vec3f,
  u: f32,
  v: f32,
  feature: u32,
}

// Sorted leaf u (three vec4f at \`leaf\`: the vertices, their w the face normal) from \`origin\`.
fn triangleAt(v0: vec4f, v1: vec4f, v2: vec4f, origin: vec3f) -> Tri {
  let p0 = v0.xyz;
  return Tri(p0 - origin, v1.xyz - p0, v2.xyz - p0, v2.xyz - v1.xyz, vec3f(v0.w, v1.w, v2.w));
}

// The ray from the origin along unit n, up to len, against the triangle (Möller–Trumbore): (t, u,
// v), t < 0 a miss. Parallel to the face (|n·N| ≤ MESH_PARALLEL, in the band) is a miss.
fn rayTriangle(n: vec3f, len: f32, tri: Tri) -> vec3f {
  let miss = vec3f(-1.0, 0.0, 0.0);
  if (abs(dot(n, tri.normal)) <= ${MESH_PARALLEL}) {
    return miss;
  }
  let pv = cross(n, tri.e2);
  let det = dot(tri.e1, pv);
  if (det == 0.0) {
    return miss;
  }
  let inv = 1.0 / det;
  let tv = -tri.a;
  let u = dot(tv, pv) * inv;
  if (u < 0.0 || u > 1.0) {
    return miss;
  }
  let qv = cross(tv, tri.e1);
  let v = dot(n, qv) * inv;
  if (v < 0.0 || u + v > 1.0) {
    return miss;
  }
  let t = dot(tri.e2, qv) * inv;
  if (t < 0.0 || t > len) {
    return miss;
  }
  return vec3f(t, u, v);
}

// The point of the triangle closest to the origin moved to \`at\`, with its barycentrics
// (Ericson 5.1.5), from the origin.
fn closestOnTriangle(tri: Tri, at: vec3f) -> Closest {
  let a = tri.a - at;
  let b = a + tri.e1;
  let c = a + tri.e2;
  let ab = tri.e1;
  let ac = tri.e2;
  let d1 = -dot(ab, a);
  let d2 = -dot(ac, a);
  if (d1 <= 0.0 && d2 <= 0.0) {
    return Closest(a, 0.0, 0.0, ${CLOSEST.vertexA}u);
  }
  let d3 = -dot(ab, b);
  let d4 = -dot(ac, b);
  if (d3 >= 0.0 && d4 <= d3) {
    return Closest(b, 1.0, 0.0, ${CLOSEST.vertexB}u);
  }
  let vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
    let v = d1 / (d1 - d3);
    return Closest(a + v * ab, v, 0.0, ${CLOSEST.edgeAB}u);
  }
  let d5 = -dot(ab, c);
  let d6 = -dot(ac, c);
  if (d6 >= 0.0 && d5 <= d6) {
    return Closest(c, 0.0, 1.0, ${CLOSEST.vertexC}u);
  }
  let vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
    let w = d2 / (d2 - d6);
    return Closest(a + w * ac, 0.0, w, ${CLOSEST.edgeCA}u);
  }
  let va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) {
    let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    return Closest(b + w * tri.e3, 1.0 - w, w, ${CLOSEST.edgeBC}u);
  }
  // Inside the face: the projection onto the plane, from the normal (va + vb + vc is |ab × ac|²,
  // a cancellation of products that is ill-conditioned as 1/sin² of a sliver's angle), and the
  // barycentrics as signed areas over |ab × ac| (conditioned as 1/sin).
  let point = tri.normal * dot(a, tri.normal);
  let area = dot(cross(ab, ac), tri.normal);
  let ap = point - a;
  return Closest(point, dot(cross(ap, ac), tri.normal) / area, dot(cross(ab, ap), tri.normal) / area, ${CLOSEST.face}u);
}

// The first t in [0, len] at which a sphere of radius r moved from the origin along unit n is
// within r of the triangle, or −1; r > 0. A cast that starts within r (strictly) ignores it.
fn castTriangle(n: vec3f, len: f32, r: f32, tri: Tri) -> f32 {
  let start = closestOnTriangle(tri, vec3f(0.0)).point;
  if (dot(start, start) < r * r) {
    return -1.0;
  }
  var best = 3.0e38;
  // The face: the plane moved by r towards the origin's side, met moving towards it.
  let normal = tri.normal;
  let h0 = -dot(tri.a, normal); // the origin's signed distance from the plane
  let dn = dot(n, normal);
  let side = select(-1.0, 1.0, h0 >= 0.0);
  if (abs(h0) >= r && dn * side < 0.0) {
    let t = (side * r - h0) / dn;
    let p = n * t - (side * r) * normal - tri.a; // the touch point, from the first vertex
    let d00 = dot(tri.e1, tri.e1);
    let d01 = dot(tri.e1, tri.e2);
    let d11 = dot(tri.e2, tri.e2);
    let d20 = dot(p, tri.e1);
    let d21 = dot(p, tri.e2);
    let den = d00 * d11 - d01 * d01;
    let u = (d11 * d20 - d01 * d21) / den;
    let v = (d00 * d21 - d01 * d20) / den;
    if (u >= 0.0 && v >= 0.0 && u + v <= 1.0) {
      best = t;
    }
  }
  // The edges: |t·(n × e) − (p × e)|² = r²|e|², the smaller root, from outside the cylinder.
  let b = tri.a + tri.e1;
  let c = tri.a + tri.e2;
  for (var i = 0u; i < 3u; i++) {
    let p = select(select(c, b, i == 1u), tri.a, i == 0u);
    let e = select(select(-tri.e2, tri.e3, i == 1u), tri.e1, i == 0u);
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
    let p = select(select(c, b, i == 1u), tri.a, i == 0u);
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
