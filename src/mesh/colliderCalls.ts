/**
 * The Collider's mesh calls (docs/CONTRACT.md, "Meshes"): the Collider extends this class, and
 * these methods hand each call to its MeshCalls (./calls.ts), which validates, records and reads.
 */
import type { MeshCalls, MeshQueryOptions, EncodeMeshOptions } from './calls.js';
import type { ColliderMesh, MeshInput } from './mesh.js';
import type { EncodedMeshHits, EncodedMeshContacts } from './queries.js';
import type { MeshRaycastResult, MeshSphereCastResult, MeshContactsResult } from './results.js';
import type { GpuRecords } from '../resident/inputs.js';
import type { GpuTimer } from '../gpu/timer.js';

/**
 * Triangle meshes and their queries: {@link Collider} has these methods.
 *
 * @category Collider
 */
export abstract class ColliderMeshCalls {
  /** @internal */
  protected abstract get meshes(): MeshCalls;

  /**
   * A triangle mesh, its BVH built on the GPU, for the mesh queries (docs/CONTRACT.md, "Meshes").
   * `options.timer` times the build's passes (resolve it into a later encoder to read them).
   */
  createMesh(input: MeshInput, options?: { timer?: GpuTimer }): ColliderMesh {
    return this.meshes.createMesh(input, options);
  }

  /** The nearest triangle each ray (A → B: 6 floats) hits, ties to the lowest index; with `allHits`, every hit. */
  async raycastMesh(rays: Float32Array, mesh: ColliderMesh, options?: MeshQueryOptions): Promise<MeshRaycastResult> {
    return this.meshes.castQuery('ray', rays, mesh, options) as Promise<MeshRaycastResult>;
  }

  /** The first triangle each sphere cast (A → B, radius: 7 floats) touches, on a face, edge or vertex. */
  async sphereCastMesh(
    casts: Float32Array,
    mesh: ColliderMesh,
    options?: MeshQueryOptions,
  ): Promise<MeshSphereCastResult> {
    return this.meshes.castQuery('cast', casts, mesh, options) as Promise<MeshSphereCastResult>;
  }

  /** Every (sphere, triangle) within the sphere's radius, with the closest point, the normal and the depth. */
  async sphereTriangleContacts(
    spheres: Float32Array,
    mesh: ColliderMesh,
    options?: MeshQueryOptions,
  ): Promise<MeshContactsResult> {
    return this.meshes.contacts(spheres, mesh, options);
  }

  /** `raycastMesh` on rays already on the GPU (two vec4f each, (A, 0), (B, 0)), recorded into `encoder`. */
  encodeRaycastMesh(
    encoder: GPUCommandEncoder,
    rays: GpuRecords,
    mesh: ColliderMesh,
    options?: EncodeMeshOptions,
  ): EncodedMeshHits {
    return this.meshes.encodeCasts('ray', encoder, rays, mesh, options);
  }

  /** `sphereCastMesh` on casts already on the GPU (two vec4f each, (A, radius), (B, 0)). */
  encodeSphereCastMesh(
    encoder: GPUCommandEncoder,
    casts: GpuRecords,
    mesh: ColliderMesh,
    options?: EncodeMeshOptions,
  ): EncodedMeshHits {
    return this.meshes.encodeCasts('cast', encoder, casts, mesh, options);
  }

  /** `sphereTriangleContacts` on spheres already on the GPU (vec4f each). */
  encodeSphereTriangleContacts(
    encoder: GPUCommandEncoder,
    spheres: GpuRecords,
    mesh: ColliderMesh,
    options?: EncodeMeshOptions,
  ): EncodedMeshContacts {
    return this.meshes.encodeContacts(encoder, spheres, mesh, options);
  }
}
