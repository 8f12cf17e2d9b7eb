/** The particle world: state and API (world.ts), the contact solver (solver.ts), queries (queries.ts). */
export { createParticleWorld, ParticleWorld, defaultInverseMass, SKIN_OF_RADIUS, SLEEP_SPEED_OF_RADIUS } from './world.js';
export type { ParticleWorldOptions, ParticleSet, ParticleParameters, ParticleParametersNow, ParticleBuffers, ContactSearches, ColliderSet, ColliderBuffers } from './world.js';
export { ColliderContacts, type ColliderContactList } from './colliderContacts.js';
