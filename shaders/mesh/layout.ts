/**
 * The mesh's structs: the queries' parameters, their hit and contact records. The mesh's BVH
 * itself is the LBVH's (shaders/spatial/bvhLayout.ts: BvhParams with the triangles as its
 * leaves, BvhNode). Each is interpolated into the shaders that use it as `${Struct.wgsl}`
 * (src/layout.ts).
 */
import { defineStruct } from '../../src/layout.js';

/**
 * A mesh query's parameters (uniform): the query count, the pose (world = centre + q·local;
 * the identity when the call has none) and the walks' slack.
 */
export const MeshQueryParams = defineStruct('MeshQueryParams', {
  centre: 'vec3f',
  queryCount: 'u32',
  /** The pose's unit quaternion (x, y, z, w). */
  rotation: 'vec4f',
  triangleCount: 'u32',
  /** 1 when the call has a pose (the queries are moved into the mesh's frame), else 0. */
  posed: 'u32',
});

/**
 * One hit of a ray or sphere cast against a mesh, in world space: `point` is D for a ray and the
 * centre at contact C for a sphere cast; `contact` is D for a ray and E (the touched point of the
 * triangle) for a cast; `u`, `v` are the barycentrics of `contact` (P0 + u·e1 + v·e2); `normal`
 * the triangle's face normal by its winding. `triangle` is −1 for a miss.
 *
 * @category Record layouts
 */
export const MeshHitRecord = defineStruct('MeshHitRecord', {
  point: 'vec3f',
  distance: 'f32',
  contact: 'vec3f',
  triangle: 'i32',
  normal: 'vec3f',
  u: 'f32',
  v: 'f32',
});

/**
 * One sphere–triangle contact, in world space: `point` E (the triangle's point closest to the
 * centre), `depth` r − |S − E|, `normal` the unit direction from E to the centre.
 *
 * @category Record layouts
 */
export const MeshContactRecord = defineStruct('MeshContactRecord', {
  point: 'vec3f',
  depth: 'f32',
  normal: 'vec3f',
  sphere: 'u32',
  triangle: 'u32',
});

/** Which prefix bucket a meshBoxes dispatch takes (uniform, one a bucket at its own offset: shaders/mesh/build.wgsl.ts). */
export const MeshBucket = defineStruct('MeshBucket', { index: 'u32' });
