/**
 * The triangle math of the mesh queries and its build (the CPU reference: src/reference/mesh.ts).
 */

/**
 * The unit face normal of a triangle, or 0 when its edges' cross product is zero (scaled first,
 * so that tiny and huge triangles neither underflow nor overflow): a degenerate triangle, which
 * no query touches. The build marks such leaves (meshLeaves: w of a leaf's first vertex 1), so
 * that a walk skips them before any other arithmetic.
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

/**
 * The triangle math on offsets from the query's origin (a, b, c: the vertices minus the origin).
 * A triangle whose edges' cross product is zero (scaled first, so that tiny and huge triangles
 * neither underflow nor overflow) is degenerate and never touched.
 */
export const triangleMath = /* wgsl */ `
${faceNormal}
struct Closest {
  point: vec3f,
  u: f32,
  v: f32,
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
