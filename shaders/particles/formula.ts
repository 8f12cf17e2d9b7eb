/**
 * The particle solver's small formulas and limits, shared by its kernels
 * (shaders/particles/solver.wgsl.ts, colliders.wgsl.ts) and the CPU twin.
 */

/**
 * How deep a contact may overlap, beyond `slop`, as a share of the smaller radius, for its
 * particles to be at rest (particleSleep): a particle with a deeper contact is neither asleep nor
 * at rest (its time starts again, so its partners stay awake, or wake), so that the position
 * correction, which a pair of sleepers never gets, removes the overlap among moving particles.
 * Without it a particle slow enough slept however deep its contacts (issue 37): 1,200 balls jammed
 * into too small a box slept holding pairs 186% of a radius deep, and in a pile the pairs still
 * deep after the landing (45% at frame 180 of 64,000 balls) were corrected among sleepers, static
 * to them. With sleep off a settled pile's deepest contact is 0.4–0.7% of the radius beyond
 * `slop` (2.4–2.7% of it in all); with this limit no two sleepers hold more than 4%.
 */
export const SLEEP_OVERLAP = 0.02;

/**
 * The solver's small formulas, as WGSL expressions of their arguments, inlined wherever they are
 * used (on SwiftShader a function call per contact or candidate costs more than its work). `h`
 * is the substep (params.dt). Each is written once, here.
 */
export const formula = {
  /**
   * How far a particle (sphere, body velocity) may travel toward a partner within one step, for
   * the search margin: its speed times the step, at most its radius (a faster particle is caught
   * by the next search).
   */
  reach: (sphere: string, body: string): string => `min(length(${body}.xyz) * params.frameDt, ${sphere}.w)`,
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
   * closed through this substep; one that opens (a bounce leaving, a gap) starts from 0.
   */
  keepsImpulse: (gap: string, vn0: string): string => `((${gap}) + (${vn0}) * params.dt <= 0.0)`,
  /**
   * The pseudo-velocity a contact's position correction aims at: percent of the overlap beyond
   * slop per substep, at most maxPushSpeed; negative (a gap that may close) when shallower.
   */
  push: (gap: string): string => `min(params.percent * (-(${gap}) - params.slop) / params.dt, params.maxPushSpeed)`,
};

