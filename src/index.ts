/**
 * webgpu-collide: collision detection in WGSL compute shaders, for the browser and Node.
 * In Node, get a device from `requestNodeDevice()` in `webgpu-collide/node`.
 */
export { createCollider, Collider, AUTO_GRID_MIN_SPHERES, AUTO_GRID_MIN_BOXES, BROADPHASES } from './collider.js';
export type {
  Broadphase, PairOptions, CastOptions, ColliderOptions, ColliderLimits,
  RaycastResult, SphereCastResult, AllHits, RaycastAllHits, SphereCastAllHits,
} from './collider.js';
export { CollideError, InvalidInputError, CapacityError, NoAdapterError, WebGPUError, DeviceLostError, DestroyedError } from './errors.js';
export { createParticleWorld, ParticleWorld, defaultInverseMass } from './particles.js';
export type { ParticleWorldOptions, ParticleSet, ParticleParameters } from './particles.js';
export { describeDevice, requestBrowserDevice, BROWSER_HELP, type AdapterSummary, type DeviceOptions } from './device.js';
export { STRIDE } from './layout.js';
export { RULES } from './validate.js';
export type { Profile, StageTime } from './gpu/timer.js';
export type { GridPlan, GridLevelPlan } from './grid/plan.js';
export * as reference from './reference/index.js';
