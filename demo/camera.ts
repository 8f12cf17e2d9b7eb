/**
 * An orbit camera: yaw and pitch around a target at a distance; drag to orbit, wheel to zoom.
 * Matrices from wgpu-matrix (WebGPU's clip space: depth in [0, 1]).
 */
import { mat4, vec3, type Mat4, type Vec3 } from 'wgpu-matrix';

export class OrbitCamera {
  yaw = 0.7;
  pitch = 0.35;
  distance: number;
  target: Vec3;
  fov = (50 * Math.PI) / 180;

  constructor(target: ArrayLike<number>, distance: number) {
    this.target = vec3.fromValues(target[0], target[1], target[2]);
    this.distance = distance;
  }

  get eye(): Vec3 {
    const c = Math.cos(this.pitch);
    return vec3.add(
      this.target,
      vec3.fromValues(
        Math.sin(this.yaw) * c * this.distance,
        Math.sin(this.pitch) * this.distance,
        Math.cos(this.yaw) * c * this.distance,
      ),
    );
  }

  viewProjection(aspect: number): Mat4 {
    const projection = mat4.perspective(this.fov, aspect, this.distance * 0.01, this.distance * 10);
    const view = mat4.lookAt(this.eye, this.target, [0, 1, 0]);
    return mat4.multiply(projection, view);
  }

  orbit(dx: number, dy: number): void {
    this.yaw -= dx * 0.005;
    this.pitch = Math.min(1.5, Math.max(-1.5, this.pitch + dy * 0.005));
  }

  zoom(factor: number): void {
    this.distance *= factor;
  }

  /** The ray (origin, unit direction) through a pixel of a canvas of size (w, h). */
  rayThrough(x: number, y: number, w: number, h: number): { origin: Vec3; direction: Vec3 } {
    const inverse = mat4.inverse(this.viewProjection(w / h));
    const ndc = [(2 * x) / w - 1, 1 - (2 * y) / h];
    const near = vec3.transformMat4([ndc[0], ndc[1], 0], inverse);
    const far = vec3.transformMat4([ndc[0], ndc[1], 1], inverse);
    return { origin: near, direction: vec3.normalize(vec3.subtract(far, near)) };
  }

  /** Where a world point lands on a canvas of size (w, h), in pixels. */
  project(point: ArrayLike<number>, w: number, h: number): [number, number] {
    const clip = vec3.transformMat4([point[0], point[1], point[2]], this.viewProjection(w / h));
    return [((clip[0] + 1) / 2) * w, ((1 - clip[1]) / 2) * h];
  }
}
