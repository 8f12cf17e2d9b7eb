/**
 * The particle world's contact solver (src/particles/solver.ts drives it; docs/ARCHITECTURE.md
 * explains the math). The CPU twin, with the same names and the same order of operations, is
 * src/reference/particles.ts.
 *
 * Once per step:
 *   particleGather      the state in the order of the last search, and whether any particle has
 *                       moved more than half the skin since it (then its lists may miss a pair)
 *   particleDecide      search again if so (or if the host asks), else keep the lists: its choice
 *                       is copied on the GPU into the uniforms of the passes that run on one
 *                       outcome only (ParticleParams.searching; the grid's and the scans' skip),
 *                       which return at once on the other; with indirect dispatch (the world's
 *                       `dispatch` option) it also writes their indirect arguments, zero for the
 *                       passes of the other outcome (src/gpu/gate.ts)
 * Then, when searching (after the grid's count and scan):
 *   particleScatterIds  every particle's index into its bucket, in arrival order (racy), and the
 *                       largest speed (for the search margin)
 *   particleStable      each particle's rank in its bucket by index, so that the order is the
 *                       same every run; the sorted copies the solver works on (bucket order)
 *   particleReach       per particle, where its lists are made (its anchor, for particleGather)
 *                       and its reach, which the count and the fill read for each candidate
 *   particleCount       per particle, the partners within the search margin
 *   (scan)              the counts become each particle's first entry in the contact list
 *   particleFill        the contact list, each entry warm-started with the pair's impulse of the
 *                       previous step when the pair was listed then
 * or, when not:
 *   particleCarry       the previous step's lists, impulses and all, into this step's half
 * Searches list pairs within margin + skin + both reaches; the step's first prepare marks an
 * entry dormant (DORMANT_BIT) unless the pair may close within the step at its relative speed and
 * both particles' strike bounds (particleSplit; formula.pairReach): the solve skips it for the
 * step, and the later passes skip each run of dormant entries at once.
 * Then:
 *   particleSleep       (unless sleep is off) a particle at rest for sleepTime whose listed
 *                       partners are all at rest that long, whose list lost no entry, and none
 *                       of whose contacts overlaps deeper than slop + SLEEP_OVERLAP·r, is
 *                       asleep: it stays where it is and is static (inverse mass 0, at rest) to
 *                       its partners for the step; one that slept in the last step and wakes
 *                       takes its partners' impulses for both entries of each of its pairs
 *   particleSplit       a particle with a list entry, a collider contact, or a wall within reach
 *                       during the step, is busy: appended to the busy list (and, with a
 *                       collider contact, to the boxed list colliderPrepare walks), with its
 *                       strike bound, the most a contact of the step may change its speed; any
 *                       other (a sleeper aside) runs its whole step here (the substeps'
 *                       arithmetic with nothing to solve, so the result is the same)
 *   particleBusyArgs    (indirect dispatch only) the solve's dispatch arguments, from the busy count
 * Then per substep of h = dt / substeps, over the busy particles only (a thread past the busy
 * count returns at once: a direct dispatch covers every particle):
 *   particlePrepare     gravity; each contact's target normal velocity from the velocities before
 *                       the solve (restitution, or the speculative gap); the warm start
 *                       and lists the particles near a wall (the walled list)
 *   particlePrepareWalls over the walled list (walls.wgsl.ts): the walls' contacts of the
 *                       substep, their warm start added to what the prepare wrote
 *   (first substep)     the colouring of the step's pairs (colouring.wgsl.ts): colourStart
 *                       (which lists them), colourWorkArgs, COLOUR_ROUNDS × (colourTentative,
 *                       colourResolve, colourRoundArgs: a round after the first over the pairs
 *                       whose picks lost), colourCount, colourPlan, colourScatter (a thread a
 *                       pair); no moving particle is in two pairs of a colour
 *   × iterations, in place on one bodies buffer (pairs.wgsl.ts):
 *     pairSolve         per colour, one dispatch: each pair's accumulated, clamped impulses
 *                       (normal + Coulomb friction on the velocity and, separately, the position
 *                       correction on the pseudo-velocity) with both whole masses, applied to
 *                       both particles (Gauss–Seidel from colour to colour)
 *     overflowSolve     the pairs left uncoloured: a Jacobi sweep with mass splitting among them
 *     overflowApply
 *     particleSettleWalls  over the wall settle list (the busy particles particlePrepareWalls
 *                       found with a wall contact), each particle's walls (walls.wgsl.ts)
 *     particleSettle    over the settle list (those the prepare found with a collider contact),
 *                       each particle's collider contacts, after its walls
 *   particleIntegrate   after the last sweep, each busy particle: x += (v + pseudo-velocity)·h,
 *                       the sphere kept inside the bounds
 * Then:
 *   particleWriteBack   positions and velocities back to the world's state, by index; and each
 *                       particle's time at rest (slower than sleepSpeed at the end of a step)
 *
 * No float atomics: a pair is solved by one thread, from its owner's entry, and a body written
 * by one thread a dispatch; the partner's entry of a pair (its mirror) gets the same impulses, so
 * both particles warm-start alike. Two runs are bitwise identical: the colouring's choices
 * depend on ids and integer states only, and a colour's pairs share no moving particle.
 *
 * The kernels live by stage: common.wgsl.ts (the header, the contact geometry, list ranges),
 * search.wgsl.ts (gather, decide, the stable order, count, fill, carry), split.wgsl.ts (split,
 * busy args), substep.wgsl.ts (prepare, settle, integration), walls.wgsl.ts (the walls), colouring.wgsl.ts and
 * colourPlan.wgsl.ts (the colouring), pairs.wgsl.ts (the pair sweeps), sleep.wgsl.ts (sleep,
 * write-back) and colliders.wgsl.ts (box colliders); this file re-exports them. Each kernel
 * declares its bindings once, by name, beside its WGSL (src/gpu/kernel.ts: `xBindings.wgsl` in
 * the shader, `.layout()` in src/particles/solverPipelines.ts and `.bind({ name: buffer })` in
 * src/particles/recordStep.ts).
 */

export { DORMANT_BIT, PARTNERS_KEPT, contactGeometry } from './common.wgsl.js';
export {
  particleGatherShader,
  particleDecideShader,
  particleCarryShader,
  particleScatterIdsShader,
  particleStableShader,
  particleReachShader,
  particleCountShader,
  particleFillShader,
} from './search.wgsl.js';
export { particlePrepareShader, particleSettleShader, particleIntegrateShader } from './substep.wgsl.js';
export { particlePrepareWallsShader, particleSettleWallsShader } from './walls.wgsl.js';
export { colourStartShader, colourTentativeShader, colourResolveShader } from './colouring.wgsl.js';
export {
  colourRoundArgsShader,
  colourWorkArgsShader,
  colourCountShader,
  colourPlanShader,
  colourScatterShader,
} from './colourPlan.wgsl.js';
export { pairSolveShader, pairSolveTailShader, overflowSolveShader, overflowApplyShader } from './pairs.wgsl.js';
export { particleSplitShader, particleBusyArgsShader } from './split.wgsl.js';
export { particleSleepShader, particleWriteBackShader } from './sleep.wgsl.js';
