/**
 * The particle world's mesh colliders on the host side: validation and packing of `setMeshes`'
 * input (the poses and velocities the GPU moves, after the boxes' in the colliders' buffers:
 * src/particles/colliders.ts). The solve is in shaders/particles/meshes.wgsl.ts.
 */
import { InvalidInputError, CapacityError } from '../errors.js';
import { RULES, MAX_MAGNITUDE } from '../checks.js';
import { ColliderMesh } from '../mesh/mesh.js';
import { validatePose } from '../mesh/validate.js';
import type { PackedMeshes } from './colliders.js';

/**
 * A mesh collider of `world.setMeshes`.
 *
 * @category Particle world
 */
export interface MeshCollider {
  /** A mesh made by `collider.createMesh` on the world's device. */
  mesh: ColliderMesh;
  /** Centre x, y, z and rotation quaternion x, y, z, w of the mesh's frame (its vertices are in it); default the identity. */
  pose?: ArrayLike<number>;
  /** Linear velocity x, y, z and angular velocity x, y, z (rad/s, about the pose's centre): a kinematic mesh, moved each substep. Default at rest. */
  velocity?: ArrayLike<number>;
}

/** The most triangle ids the slots can name (boxes and every mesh's triangles share a u32 with an empty slot). */
const MAX_IDS = 2 ** 32 - 2;

/**
 * Validates `setMeshes`' argument (an InvalidInputError names the argument, the mesh and the
 * rule) and packs it for the GPU: each mesh's pose (centre, its reach from the centre on each
 * axis, quaternion) and velocities.
 */
export function packMeshes(list: unknown, device: GPUDevice, boxes: number): PackedMeshes {
  if (!Array.isArray(list))
    throw new InvalidInputError('meshes', -1, RULES.option, 'expected an array of { mesh, pose?, velocity? }');
  const meshes: ColliderMesh[] = [];
  const poses = new Float32Array(12 * list.length);
  const velocities = new Float32Array(8 * list.length);
  let ids = boxes;
  list.forEach((entry: unknown, i) => {
    const at = `meshes[${i}]`;
    if (typeof entry !== 'object' || entry === null)
      throw new InvalidInputError(at, i, RULES.option, 'expected { mesh, pose?, velocity? }');
    const { mesh, pose, velocity } = entry as { mesh?: unknown; pose?: unknown; velocity?: unknown };
    if (!(mesh instanceof ColliderMesh) || !mesh.usableOn(device))
      throw new InvalidInputError(
        `${at}.mesh`,
        i,
        RULES.worldMesh,
        mesh instanceof ColliderMesh ? 'destroyed, or of another device' : 'not a ColliderMesh',
      );
    const p = validatePose(`${at}.pose`, pose) ?? { centre: [0, 0, 0], rotation: [0, 0, 0, 1] };
    let v = [0, 0, 0, 0, 0, 0];
    if (velocity !== undefined) {
      const ok =
        (Array.isArray(velocity) || ArrayBuffer.isView(velocity)) && (velocity as ArrayLike<unknown>).length === 6;
      if (!ok)
        throw new InvalidInputError(`${at}.velocity`, i, RULES.vector, 'expected 6 numbers: vx, vy, vz, wx, wy, wz');
      v = Array.from(velocity as ArrayLike<number>);
      v.forEach((x, a) => {
        if (typeof x !== 'number' || !(Math.abs(x) <= MAX_MAGNITUDE))
          throw new InvalidInputError(`${at}.velocity`, i, RULES.vector, `value ${a} is ${String(x)}`);
      });
    }
    // The reach of its vertices from the pose's centre, per axis (the fastest point of a turning mesh).
    const extent = [0, 1, 2].map((a) => Math.max(Math.abs(mesh.bounds.min[a]), Math.abs(mesh.bounds.max[a])));
    poses.set([...p.centre, 0, ...extent, 0, ...p.rotation], 12 * i);
    velocities.set([v[0], v[1], v[2], 0, v[3], v[4], v[5], 0], 8 * i);
    ids += mesh.triangleCount;
    if (ids > MAX_IDS) throw new CapacityError('meshes', ids, MAX_IDS, 'boxes and mesh triangles, together');
    meshes.push(mesh);
  });
  return { meshes, poses, velocities };
}
