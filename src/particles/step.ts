/**
 * The particle step's settings and limits: domain values that the world, the GPU solver
 * (shaders/particles/) and the CPU twin (src/reference/particles.ts) all take from here. No GPU
 * code, no reference code.
 */

/** The settings of one particle step (`world.stepParams(dt)`), as the GPU solver and its CPU twin take them. */
export interface StepParams {
  /** The step; substeps of dt / substeps each. */
  dt: number;
  /** Substeps per step. */
  substeps: number;
  /** Jacobi sweeps of the contact solve per substep. */
  iterations: number;
  /** Acceleration [gx, gy, gz] of every moving particle. */
  gravity: readonly number[];
  /** Coefficient of restitution e in [0, 1]. */
  restitution: number;
  /** Contacts approaching slower than this do not bounce. */
  restitutionThreshold: number;
  /** Coulomb friction coefficient μ. */
  friction: number;
  /** Share of the overlap beyond `slop` removed per substep. */
  percent: number;
  /** Overlap the position correction leaves alone. */
  slop: number;
  /** The fastest the position correction pushes overlapping particles apart. */
  maxPushSpeed: number;
  /** How far beyond touching a pair is solved (plus the particles' travel in the step). */
  margin: number;
  /**
   * How much farther a search lists pairs, so that later steps may keep its lists: a step
   * searches again only once some particle has moved, or gained reach, by more than skin / 2.
   */
  skin: number;
  /** [minX, minY, minZ, maxX, maxY, maxZ], or null for no walls. */
  bounds: readonly number[] | null;
  /** A particle ending a step slower than this is at rest. */
  sleepSpeed: number;
  /** Seconds at rest (its own and every listed partner's) before a particle sleeps; Infinity: never. */
  sleepTime: number;
}

/** The settings whose change wakes every particle (the world's setStep and the twin compare them). */
export function wakeKey(p: StepParams): string {
  return JSON.stringify([
    p.gravity,
    p.restitution,
    p.friction,
    p.percent,
    p.slop,
    p.maxPushSpeed,
    p.substeps,
    p.iterations,
    p.bounds,
    p.sleepSpeed,
    p.sleepTime,
  ]);
}

/**
 * The allowance for rounding in the test whether a particle has moved too far to keep the lists
 * (particleGather): 2^-18 of its radius, the margin, the skin, its reaches and its move, far more
 * than the f32 error of the gaps and reaches the lists were made from and are compared with now.
 */
export const MOVE_ROUNDING = 2 ** -18;

/**
 * How deep a contact may overlap, beyond `slop`, as a share of the smaller radius, for its
 * particles to be at rest (particleSleep): a particle with a deeper contact is neither asleep nor
 * at rest (its time starts again, so its partners stay awake, or wake), so that the position
 * correction, which a pair of sleepers never gets, removes the overlap among moving particles.
 * Without it a particle slow enough would sleep however deep its contacts: balls jammed into too
 * small a box, or the pairs of a pile still deep after its landing, would be held deep by
 * sleepers, static to them. The limit lies above the deepest contact of a settled pile (the
 * position correction leaves well under 1% of the radius beyond `slop`), so that such a pile
 * still sleeps.
 */
export const SLEEP_OVERLAP = 0.02;

/**
 * The reach a moving particle gets for speed it does not have yet, as a share of its radius: a
 * kinematic box, or a chain of contacts it pushes, can strike a resting particle within a step
 * and send it at up to (1 + e) × the box's speed, into neighbours its list must already hold
 * (formula.reach). A quarter of the radius: issue 47's paddle at 10 m/s through a resting layer
 * made pairs 147% r deep without it, 36% with it; a whole radius (every contact within one
 * active for every moving particle, the mass split among them all) doubled the turning drum's
 * step and left its pile deeper (docs/PERFORMANCE.md).
 */
export const STRUCK_REACH = 0.25;

/**
 * Of a particle's triangle contacts whose normals lie within this (cos 5°, as the inactive edges'
 * ACTIVE_EDGE_COS) of a nearer one's, only the nearer is kept (colliderList): it holds the
 * particle along that direction first, and the farther would only take shares of its mass (a
 * sphere has no turn for them to stop).
 */
export const REDUCE_COS = Math.cos((5 * Math.PI) / 180);

/**
 * The step, as a share of the radius, in which colliderList compares the gaps of two triangle
 * contacts (equal steps: the lower id is nearer): a strict order, so the nearest is always kept,
 * and a gap's rounding flips the choice only where it crosses a step.
 */
export const REDUCE_TIE = 1e-3;

/**
 * Colours a step's pairs may take (shaders/particles/colouring.wgsl.ts: one bit each of a
 * particle's mask, so at most 32; the sweeps dispatch once per colour). Fewer cost less in a
 * small scene, where a dispatch costs more than a colour's work on a software adapter, but send
 * more pairs to the overflow where they crowd: with 16 (and 4 rounds) the 2,000-ball pour stepped
 * 1.3× faster at the same depth, but the 30,000-ball pour sank 52.8% r into a peg against 9.95%
 * (docs/PERFORMANCE.md, "Gauss–Seidel on the GPU").
 */
export const PALETTE = 32;

/** The speculative colouring's rounds a step: the pairs left uncoloured after them go to the overflow (Jacobi, mass split). */
export const COLOUR_ROUNDS = 8;

/**
 * The bands of a colour's pairs (shaders/particles/colourPlan.wgsl.ts): a pair of band b may
 * close no sooner than in substep b (at its particles' speed bounds: formula.band), so the sweeps
 * of substep j solve each colour's bands 0 to j only, and the last band's from then on. Eight
 * cover up to 8 substeps (the default is 4); more substeps share the last band.
 */
export const BANDS = 8;

/**
 * How far a contact may open within a substep, relative to its size, and still start from its
 * accumulated impulse (formula.keepsImpulse): 2^-10 of |gap| + |vn0·h| + r. A contact at rest sits
 * where the sweeps left it, a gap of 0 give or take rounding and an approach speed of a few ulps
 * either way, so it keeps its warm start on the GPU and in the twin alike, whatever the rounding;
 * a contact that really opens (a bounce leaving faster than about r/1000 a substep) starts from 0.
 */
export const KEEP_OPENING = 2 ** -10;
