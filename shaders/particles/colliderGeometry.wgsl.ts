/**
 * Sphere s against box k (poses: centre, half extents, unit quaternion, three vec4 a box):
 * `n` the unit normal from the sphere toward the box, `gap` the distance from the sphere to the
 * box less its radius (negative inside: the depth to the nearest face, plus the radius), and
 * `point` the contact point on the box's surface, relative to its centre (world axes). Shared by
 * the particle world's collider kernels (./colliders.wgsl.ts; ./meshes.wgsl.ts, whose triangles
 * answer the same struct); needs boxMath's rotateInverse (../boxes.wgsl.ts).
 */
export const colliderGeometry = /* wgsl */ `
struct BoxGeometry {
  n: vec3f,
  gap: f32,
  point: vec3f,
}

// v rotated by unit quaternion q: v' = v + 2w (u × v) + 2 u × (u × v), u = q.xyz.
fn rotate(q: vec4f, v: vec3f) -> vec3f {
  let t = 2.0 * cross(q.xyz, v);
  return v + q.w * t + cross(q.xyz, t);
}

fn boxGeometry(s: vec4f, center: vec3f, half: vec3f, q: vec4f) -> BoxGeometry {
  let local = rotateInverse(q, s.xyz - center);
  let clamped = clamp(local, -half, half);
  let d = local - clamped;
  let dist2 = dot(d, d);
  if (dist2 > 0.0) {
    let dist = sqrt(dist2);
    return BoxGeometry(rotate(q, -d / dist), dist - s.w, rotate(q, clamped));
  }
  // Inside (or on the surface): out through the nearest face, x before y before z on a tie.
  let depth = half - abs(local);
  var axis = vec3f(1.0, 0.0, 0.0);
  var least = depth.x;
  if (depth.y < least) {
    axis = vec3f(0.0, 1.0, 0.0);
    least = depth.y;
  }
  if (depth.z < least) {
    axis = vec3f(0.0, 0.0, 1.0);
    least = depth.z;
  }
  let side = select(vec3f(1.0), vec3f(-1.0), local < vec3f(0.0)) * axis;
  let onFace = select(local, side * half, axis != vec3f(0.0));
  return BoxGeometry(rotate(q, -side), -least - s.w, rotate(q, onFace));
}
`;
