/**
 * What the particle solver's kernels share (shaders/particles/solver.wgsl.ts has the overview):
 * the header every kernel opens with (structs, constants), the contact geometry, the test of
 * which listed pairs a step solves, and a particle's list range.
 */
import {
  ParticleParams,
  ParticleBody,
  ParticleContact,
  ParticleWalls,
  ParticleStats,
  ParticleReuse,
  ParticleRest,
  ParticleColliderContact,
  WideBox,
} from './layout.js';
import { flatWorkgroup } from '../common.wgsl.js';
import { WG, uniform, readOnly, readWrite } from '../../src/gpu/kernel.js';
import { EXT_SCALE } from '../../src/spatial/level.js';
import { MOVE_ROUNDING, SLEEP_OVERLAP } from '../../src/particles/step.js';
import { EMPTY_SLOT } from './colliders.wgsl.js';

/**
 * The top bit of a contact entry's `nbr`: set while the pair lies beyond what a search without
 * the skin would list (the solve skips such an entry). Positions are below 2^31.
 */
export const DORMANT_BIT = 0x80000000;

/** Partners the contact count keeps per particle for the fill (more: the fill walks again). */
export const PARTNERS_KEPT = 32;

/**
 * The normal of a pair whose centres coincide (the prepare's entryGeometry,
 * shaders/particles/substep.wgsl.ts): a unit vector hashed from the pair's indices, pointing from
 * the lower index to the higher, so that swapping A and B negates it exactly. Needs hashRow
 * (gridHelpers, or hashRowFunction alone: shaders/spatial/grid.wgsl.ts).
 */
export const contactGeometry = /* wgsl */ `
fn coincidentNormal(i: u32, j: u32) -> vec3f {
  let lo = min(i, j);
  let hi = max(i, j);
  // The grid's row hash mixes any three u32s: here the pair and an axis.
  let raw = vec3f(f32(hashRow(lo, hi, 1u) >> 16u), f32(hashRow(lo, hi, 2u) >> 16u), f32(hashRow(lo, hi, 3u) >> 16u)) / 32767.5 - 1.0;
  var u = vec3f(1.0, 0.0, 0.0);
  if (dot(raw, raw) > 1e-6) {
    u = raw / sqrt(dot(raw, raw));
  }
  return select(-u, u, i < j);
}
`;

export const header = () => /* wgsl */ `
${ParticleParams.wgsl}
${ParticleBody.wgsl}
${ParticleContact.wgsl}
${ParticleWalls.wgsl}
${WideBox.wgsl}
${ParticleStats.wgsl}
${ParticleReuse.wgsl}
${ParticleRest.wgsl}
${ParticleColliderContact.wgsl}
${flatWorkgroup}
${WG.wgsl}
const EMPTY_SLOT: u32 = ${EMPTY_SLOT}u;
const EXT_SCALE: f32 = ${EXT_SCALE};
const PARTNERS_KEPT: u32 = ${PARTNERS_KEPT}u;
const DORMANT_BIT: u32 = ${DORMANT_BIT}u;
const MOVE_ROUNDING: f32 = ${MOVE_ROUNDING};
const SLEEP_OVERLAP: f32 = ${SLEEP_OVERLAP};
// The largest finite sleepTime (Infinity: sleep off).
const MAX_SLEEP_TIME: f32 = 3.4028234663852886e38;
`;

/**
 * Whether a listed pair (gap, formula.pairReach) takes part in this step's solve. Both particles
 * of a pair compute the same gap and reach, bit for bit.
 */
export const active = (gap: string, pairReach: string): string => `(${gap} <= params.margin + ${pairReach})`;

/** The list of particle t: entries [first, last) of the contact buffer. */
export const entriesOf = /* wgsl */ `
  let first = params.entryBase + min(start[t], params.entryCapacity);
  let last = params.entryBase + min(start[t + 1u], params.entryCapacity);
`;

/**
 * The busy list (particleSplit) lives in the contact starts' scratch, which the search's count
 * and fill use before it: its length at start[count + 1], its particles from start[count + 2].
 * The solve's kernels (dispatched over every particle, or from particleBusyArgs) take their
 * particle t from it: thread k takes busy particle k (`busyThread`), then `busyParticle`.
 */
export const busyThread = { index: 'k', bound: 'start[params.count + 1u]' } as const;
export const busyParticle = /* wgsl */ `  let t = start[params.count + 2u + k];`;

/**
 * The settle list: the busy particles with a wall or collider contact in this substep, which its
 * prepare appends (its length at start[2·count + 2], its particles after it) and the sweeps
 * that do not integrate walk (particleSettle returns at once for any other busy particle).
 */
/**
 * The bindings a substep's prepares share (particlePrepare, particlePrepareWalls): the particles
 * in bucket order, the lists in the contact starts' scratch, the bodies they read (`bodiesIn`)
 * and write (`bodiesOut`).
 */
export const substepPrepare = {
  params: uniform('ParticleParams'),
  sorted: readOnly('array<vec4f>'),
  sortedId: readOnly('array<u32>'),
  start: readWrite('array<atomic<u32>>'),
  bodiesIn: readOnly('array<ParticleBody>'),
  bodiesOut: readWrite('array<ParticleBody>'),
} as const;

export const settleThread = { index: 'k', bound: 'start[2u * params.count + 2u]' } as const;
export const settleParticle = /* wgsl */ `  let t = start[2u * params.count + 3u + k];`;

/**
 * Each particle's strike bound (particleSplit writes it, the first prepare reads it: f32 bits),
 * after the settle list in the contact starts' scratch: at start[3·count + 3 + t].
 */
export const strikeOf = (t: string): string => `start[3u * params.count + 3u + ${t}]`;

/**
 * Writes indirect dispatch arguments (x, y, 1) covering `threads` threads at word `at` of `args`,
 * folded as dispatchFolded does (src/gpu/dispatch.ts). Needs `args` (array<u32>) and `params`.
 */
export const writeArgs = /* wgsl */ `
fn writeArgs(at: u32, threads: u32) {
  let groups = (threads + WG - 1u) / WG;
  var x = groups;
  var y = 1u;
  if (groups > params.maxGroups) {
    y = (groups + params.maxGroups - 1u) / params.maxGroups;
    x = (groups + y - 1u) / y;
  }
  args[at] = x;
  args[at + 1u] = y;
  args[at + 2u] = 1u;
}`;

/** Coulomb's cone: the factor that shortens a friction impulse of squared length len2 to at most limit (1 within it: exactly the impulse). */
export const coneScale = /* wgsl */ `
fn coneScale(len2: f32, limit: f32) -> f32 {
  return select(1.0, limit / sqrt(len2), len2 > limit * limit);
}`;
