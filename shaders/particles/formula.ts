/**
 * The particle solver's small formulas (WGSL expressions), shared by its kernels
 * (shaders/particles/solver.wgsl.ts, colliders.wgsl.ts); the CPU twin writes them out in
 * TypeScript (src/reference/particles.ts).
 */
import { STRUCK_REACH, KEEP_OPENING } from '../../src/particles/step.js';

/**
 * The solver's small formulas, as WGSL expressions of their arguments, inlined wherever they are
 * used (on SwiftShader a function call per contact or candidate costs more than its work). `h`
 * is the substep (params.dt). Each is written once, here.
 */
export const formula = {
  /**
   * How far a particle (sphere, body velocity and inverse mass) may travel toward a partner within
   * one step, for the search margin and the step's active contacts: its speed times the step, at
   * most its radius (a faster particle is caught by the next search); and a moving one at least
   * as far as the fastest a kinematic box can send it (params.boxSpeed) carries it in the step, at
   * most STRUCK_REACH of its radius (a resting ball a paddle's chain strikes meets the neighbours
   * its list already holds).
   */
  reach: (sphere: string, body: string): string =>
    `max(min(length(${body}.xyz) * params.frameDt, ${sphere}.w), ${formula.struck(sphere, body)})`,
  /**
   * How far a kinematic box may send a moving particle within the step, at most STRUCK_REACH of
   * its radius (its reach's floor: formula.reach); 0 for a static one.
   */
  struck: (sphere: string, body: string): string =>
    `select(0.0, min(params.boxSpeed * params.frameDt, ${STRUCK_REACH} * ${sphere}.w), ${body}.w > 0.0)`,
  /**
   * How near a listed pair (spheres, bodies at the step's start, strike bounds) must be to take
   * part in the step's solve, beyond the margin: the most it may close in the step at its
   * relative speed, plus gravity's where only one of them moves, plus both strike bounds (the
   * most a contact of the step may change either's speed: particleSplit), plus how far a
   * kinematic box may send each; at most both reaches (what the lists were found for). Symmetric
   * bit for bit: both particles of a pair compute the same.
   */
  pairReach: (s: string, bs: string, strikeS: string, q: string, bq: string, strikeQ: string): string =>
    `min((length(${bq}.xyz - ${bs}.xyz) + select(0.0, length(params.gravity) * params.frameDt, (${bs}.w > 0.0) != (${bq}.w > 0.0)) + (${strikeS} + ${strikeQ})) * params.frameDt + (${formula.struck(s, bs)} + ${formula.struck(q, bq)}), ${formula.reach(s, bs)} + ${formula.reach(q, bq)})`,
  /**
   * The normal velocity a contact's solve aims at, from the gap and the approach speed vn0
   * before the solve (vn0 < 0: approaching). A contact that closes within this substep faster
   * than the restitution threshold bounces: −e·vn0. Otherwise a gap may close (a speculative
   * contact: −gap/h) and an overlap may not deepen (0); the position correction removes overlap.
   */
  aim: (gap: string, vn0: string): string =>
    `select(select(0.0, -(${gap}) / params.dt, (${gap}) > 0.0), -params.restitution * (${vn0}), (${vn0}) < -params.restitutionThreshold && (${gap}) + (${vn0}) * params.dt <= 0.0)`,
  /**
   * Whether a contact starts from its accumulated impulse (the warm start): only if it stays
   * closed through this substep (to within KEEP_OPENING of its size r, so that a contact at rest
   * does not flip on rounding); one that opens (a bounce leaving, a gap) starts from 0.
   */
  keepsImpulse: (gap: string, vn0: string, r: string): string =>
    `((${gap}) + (${vn0}) * params.dt <= ${KEEP_OPENING} * (abs(${gap}) + abs((${vn0}) * params.dt) + (${r})))`,
  /**
   * The band of a pair (a gap, the sum of its moving particles' speed bounds), as an f32: the first
   * substep in which the pair may close at those speeds (gap − margin ≤ speed·h·(band + 1)), at
   * most `last`. A pair within the margin is of band 0, and one whose particles do not move of
   * the last. The twin computes it in f32 in the same order (src/reference/particles/colouring.ts).
   */
  band: (gap: string, speed: string, last: string): string =>
    `select(select(min(ceil(((${gap}) - params.margin) / ((${speed}) * params.dt)) - 1.0, ${last}), ${last}, (${speed}) * params.dt <= 0.0), 0.0, (${gap}) - params.margin <= (${speed}) * params.dt)`,
  /**
   * The pseudo-velocity a contact's position correction aims at: percent of the overlap beyond
   * slop per substep, at most maxPushSpeed; negative (a gap that may close) when shallower.
   */
  push: (gap: string): string => `min(params.percent * (-(${gap}) - params.slop) / params.dt, params.maxPushSpeed)`,
};
