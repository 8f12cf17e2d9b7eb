/** The particle world: its API (world.ts) over its settings, state, step, contact solver, colliders and queries (the other files here). */
export {
  createParticleWorld,
  ParticleWorld,
  defaultInverseMass,
  SKIN_OF_RADIUS,
  SLEEP_SPEED_OF_RADIUS,
} from './world.js';
export type {
  ParticleWorldOptions,
  ParticleSet,
  ParticleParameters,
  ParticleParametersNow,
  ParticleBuffers,
  ContactSearches,
  ColliderSet,
  ColliderBuffers,
  MeshCollider,
} from './world.js';
export {
  ColliderContacts,
  MeshContacts,
  ContactRecords,
  type ColliderContactList,
  type MeshContactList,
} from './colliderContacts.js';
