/** The particle world: state and API (world.ts), the contact solver (solver.ts), queries (queries.ts). */
export { createParticleWorld, ParticleWorld, defaultInverseMass } from './world.js';
export type { ParticleWorldOptions, ParticleSet, ParticleParameters, ParticleBuffers } from './world.js';
