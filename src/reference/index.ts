/**
 * The CPU reference: one concept per file, written from the seed math, with the WGSL functions'
 * names. Tests compare every GPU result with these.
 */
export { spheresOverlap, pairMargin, bruteForceSpherePairs, sortPairs } from './spherePairs.js';
export { sphereLevel, cellOf, hashRow, rowKey, bucketOf, buildGrid, gridSpherePairs, type CpuGrid } from './grid.js';
export { ceilLog2 } from '../spatial/level.js';
export {
  sphereAabbOverlap,
  sphereAabbDistance2,
  bruteForceSphereAabbPairs,
  rotateInverse,
  sphereInBoxSpace,
  sphereObbDistance2,
  sphereObbOverlap,
  bruteForceSphereObbPairs,
} from './sphereBox.js';
export {
  castHit,
  bruteForceNearestCasts,
  bruteForceAllCasts,
  pointAlong,
  contactPoint,
  type CastHit,
  type NearestHits,
} from './casts.js';
export { walkRows, walkableGrid, cellRange, type WalkStats, type WalkableGrid } from './grid.js';
export { gridSphereAabbPairs, gridSphereObbPairs, gridCasts, type WalkedCasts } from './gridQueries.js';
export {
  particleStep,
  ParticleSolverTwin,
  pairGeometry,
  coincidentNormal,
  boxGeometry,
  type StepParams,
  type Geometry,
  type ColliderState,
  type MeshTwin,
  type BoxGeometry,
} from './particles.js';
export {
  meshTriangleCount,
  triangleVertices,
  isDegenerateTriangle,
  rayTriangle,
  closestPointOnTriangle,
  sphereCastTriangle,
  rayDirection,
  poseTransform,
  bruteForceRaycastMesh,
  bruteForceSphereCastMesh,
  bruteForceSphereTriangleContacts,
  type MeshGeometry,
  type MeshReferenceOptions,
  type PoseTransform,
  type MeshRayHits,
  type MeshCastHits,
  type MeshContacts,
  type Vec3,
  type TriangleHit,
  type TriangleCastHit,
  type ClosestPoint,
  type RayDirection,
} from './mesh.js';
