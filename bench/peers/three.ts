/**
 * three.js as a peer for raycasts: `Ray.intersectSphere` against every sphere, per ray, the way
 * a three.js page would test a few thousand rays (three-mesh-bvh accelerates triangle meshes,
 * not sphere sets, so brute force is what three offers here).
 */
import { Ray, Sphere, Vector3, REVISION } from 'three';

export const threeVersion = (): string => REVISION;

export function threeRaycast(rays: Float32Array, spheres: Float32Array): { index: Int32Array; distance: Float32Array } {
  const n = spheres.length / 4;
  const list = Array.from(
    { length: n },
    (_, i) => new Sphere(new Vector3(spheres[4 * i], spheres[4 * i + 1], spheres[4 * i + 2]), spheres[4 * i + 3]),
  );
  const count = rays.length / 6;
  const index = new Int32Array(count).fill(-1);
  const distance = new Float32Array(count).fill(NaN);
  const ray = new Ray();
  const end = new Vector3();
  const point = new Vector3();
  for (let k = 0; k < count; k++) {
    const o = 6 * k;
    ray.origin.set(rays[o], rays[o + 1], rays[o + 2]);
    end.set(rays[o + 3], rays[o + 4], rays[o + 5]);
    const length = end.distanceTo(ray.origin);
    if (length === 0) continue;
    ray.direction.subVectors(end, ray.origin).normalize();
    let best = Infinity;
    for (let i = 0; i < n; i++) {
      if (ray.intersectSphere(list[i], point) === null) continue;
      const t = point.distanceTo(ray.origin);
      if (t <= length && t < best) {
        best = t;
        index[k] = i;
      }
    }
    if (index[k] >= 0) distance[k] = best;
  }
  return { index, distance };
}
