/**
 * webgpu-collide: collision detection in WGSL compute shaders, for the browser and Node.
 *
 * - {@link createCollider} answers queries over flat `Float32Array`s of records: sphere pairs,
 *   sphere–box pairs, raycasts and sphere casts ({@link Collider}); and against triangle meshes
 *   whose BVH it builds on the GPU ({@link ColliderMesh}): rays, sphere casts, sphere–triangle
 *   contacts.
 * - {@link createParticleWorld} steps colliding particles on the GPU ({@link ParticleWorld}).
 * - Every failure is a {@link CollideError}; {@link reference} holds the CPU twins of every kernel.
 * - The record layouts ({@link STRIDE}, {@link GPU_STRIDE}, {@link CastHitRecord}, ...) are
 *   exported for shaders that read the library's buffers.
 *
 * In Node, get a device from `requestNodeDevice()` in `webgpu-collide/node` (which re-exports
 * all of this); in a browser or Deno, from {@link requestBrowserDevice} or `navigator.gpu`.
 *
 * @packageDocumentation
 * @module webgpu-collide
 */
// No reference to @webgpu/types here: TypeScript 6 and later declare WebGPU in their own lib.dom,
// and both at once are duplicate identifiers. TypeScript 5 resolves this entry through
// src/typings/ts5/index.ts instead (package.json's `types@<6` condition), which references them.
export { createCollider, Collider, AUTO_GRID_MIN_SPHERES, AUTO_GRID_MIN_BOXES, BROADPHASES } from './collider.js';
export type {
  Broadphase,
  PairOptions,
  CastOptions,
  CastOut,
  ColliderOptions,
  ColliderLimits,
  RaycastResult,
  SphereCastResult,
  AllHits,
  RaycastAllHits,
  SphereCastAllHits,
} from './collider.js';
export {
  CollideError,
  InvalidInputError,
  CapacityError,
  NoAdapterError,
  WebGPUError,
  DeviceLostError,
  DestroyedError,
} from './errors.js';
export {
  createParticleWorld,
  ParticleWorld,
  defaultInverseMass,
  SKIN_OF_RADIUS,
  SLEEP_SPEED_OF_RADIUS,
  ColliderContacts,
  MeshContacts,
  ContactRecords,
  type ColliderContactList,
  type MeshContactList,
  type MeshCollider,
} from './particles/index.js';
export type {
  ParticleWorldOptions,
  ParticleSet,
  ParticleParameters,
  ParticleParametersNow,
  ParticleBuffers,
  ContactSearches,
  ColliderSet,
  ColliderBuffers,
} from './particles/index.js';
export {
  describeDevice,
  requestBrowserDevice,
  BROWSER_HELP,
  type AdapterSummary,
  type DeviceOptions,
  type WebGPUEngine,
  type WebGPUHost,
} from './device.js';
export { STRIDE, GPU_STRIDE, PAIR_BYTES, PairCounter } from './layout.js';
export { CastHitRecord } from '../shaders/passes/layout.js';
export { MeshHitRecord, MeshContactRecord } from '../shaders/mesh/layout.js';
export { ColliderMesh, type MeshInput, type GpuPositions } from './mesh/mesh.js';
export { ColliderMeshCalls } from './mesh/colliderCalls.js';
export { EncodedMeshHits, EncodedMeshContacts } from './mesh/queries.js';
export type { MeshQueryOptions, EncodeMeshOptions } from './mesh/calls.js';
export type { MeshRaycastResult, MeshSphereCastResult, MeshContactsResult } from './mesh/results.js';
export { ResidentStatus } from '../shaders/resident/layout.js';
export {
  EncodedPairs,
  EncodedHits,
  type HitsResult,
  type GpuRecords,
  type SceneBounds,
  type EncodeOptions,
  type EncodeCastOptions,
} from './resident.js';
export type { StructLayout, FieldLayout, FieldType, ArrayField, PrimitiveType } from './layout.js';
export type { SphereStats } from './validate.js';
export { RULES } from './checks.js';
export { GpuTimer, type Profile, type StageTime } from './gpu/timer.js';
export { workDone } from './gpu/wait.js';
export type { GridPlan, GridLevelPlan, PlanOptions } from './spatial/plan.js';
export * as reference from './reference/index.js';
