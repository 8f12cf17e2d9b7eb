/**
 * The CPU twin of the particle world's step (shaders/particles/solver.wgsl.ts): the same grid
 * (stable by index within a bucket), the same contact search and list order, the same warm
 * start, the same colouring of the pairs and the same sweeps over it, the same walls and
 * integration. Arithmetic is double precision; what the GPU stores (positions, velocities,
 * impulses, targets) is rounded to f32 where the GPU stores it, so short runs on small scenes
 * agree particle by particle.
 * The stages, each named as the kernel it twins, are in src/reference/particles/: search.ts
 * (gather, decide, count and fill, carry), colliders.ts, sleep.ts, solve.ts (prepare, walls,
 * integration) and colouring.ts (the colouring and the sweeps); this file runs them in the GPU's
 * order and keeps what a step leaves the next.
 *
 * For a contact between A and B with unit normal n from A to B, gap s = |AB| − rA − rB and
 * inverse masses wA, wB, per substep of h:
 *   vn0 = (vB − vA)·n before the solve (after gravity)
 *   target b = −e·vn0           if vn0 < −threshold and s + vn0·h ≤ 0 (it closes: a bounce)
 *            = −s/h              if s > 0 (speculative: the gap may close, no more)
 *            = 0                 otherwise
 *   each sweep, colour after colour, each pair from the velocities the pairs before it left
 *   (Gauss–Seidel), with k = wA + wB (a pair the colouring left over: Jacobi among those, from
 *   the velocities the colours left, with k = wA·mA + wB·mB, m a particle's such pairs):
 *     λ' = max(λ + (b − (vB − vA)·n)/k, 0)                     normal impulse, accumulated
 *     λt' = clamp to |λt'| ≤ μλ' of λt − vt/k                  friction, vt the tangential part
 *     μ' = max(μ + (min(percent·(−s − slop)/h, maxPush) − (pB − pA)·n)/k, 0)   pseudo-velocity p
 *     ΔvA = −wA·(Δλ·n + Δλt), ΔvB = +wB·(Δλ·n + Δλt), ΔpA = −wA·Δμ·n, ΔpB = +wB·Δμ·n
 *   x += (v + p)·h, the sphere clamped inside the bounds.
 * Walls and collider contacts are the same contacts with a partner of inverse mass 0 (at rest, or
 * moving with the box), solved after the pairs, one after another.
 *
 * Sleep: a particle that ends a step slower than sleepSpeed, having moved no farther than
 * sleepSpeed × dt, gains the step's dt of time at rest (else its time is 0, as it is when the
 * state was moved, set moving, given a new radius or made static or dynamic between steps). One
 * that moves, whose time at rest and every listed partner's is positive and at least sleepTime,
 * whose list lost no entry since the last step, and none of whose contacts overlaps by more than
 * slop + SLEEP_OVERLAP × the smaller radius (with such a contact it is not at rest either: its
 * time starts again, so its partners stay awake), is asleep for the step: it does not move,
 * ends at velocity 0, and is a static partner (inverse mass 0, at rest) to the others. One that
 * slept in the last step and is awake takes its partners' impulses (mirrored) for its entries,
 * so both entries of each pair are equal again. New settings wake every particle and start
 * every pair from 0.
 */
import type { GridPlan } from '../spatial/plan.js';
import { walkableGrid } from './grid.js';
import { wakeKey, type StepParams } from '../particles/step.js';
import {
  emptyRest,
  noWall,
  settingsOf,
  type BoxSlot,
  type ColliderState,
  type Contacts,
  type Entry,
  type StepState,
  type Wall,
} from './particles/state.js';
import {
  wakeMoved,
  movedTooFar,
  particleDecide,
  particleGather,
  particleFill,
  particleCarry,
  type Found,
} from './particles/search.js';
import { boxSpeedOf, colliderList, colliderMove } from './particles/colliders.js';
import { particlePrepare, particleIntegrate } from './particles/solve.js';
import { colourPairs, colouredSweeps, type Colouring } from './particles/colouring.js';
import { COLOUR_ROUNDS } from '../particles/step.js';
import { particleSleep, particleWriteBack } from './particles/sleep.js';
import { particleActivate } from './particles/activate.js';

export type { StepParams } from '../particles/step.js';
export { coincidentNormal, pairGeometry, boxGeometry, type Geometry, type BoxGeometry } from './particles/geometry.js';
export type { ColliderState } from './particles/state.js';
export { triangleGeometry, type MeshTwin } from './particles/meshes.js';

/**
 * The solver's memory between steps (the GPU's previous contact lists and wall contacts), so
 * that consecutive steps warm-start as on the GPU. One per simulated world.
 */
export class ParticleSolverTwin {
  /** The colouring's rounds a step (the constructor's). */
  private readonly colourRounds: number;

  /**
   * @internal `colourRounds`: the colouring's rounds a step, the GPU's COLOUR_ROUNDS unless
   * another is given (0: every pair in the overflow, Jacobi sweeps with mass splitting, as
   * bench/probes/solverDesigns.ts measures them).
   */
  constructor({ colourRounds = COLOUR_ROUNDS }: { colourRounds?: number } = {}) {
    this.colourRounds = colourRounds;
  }

  /** The last step's order (particle indices by position, from the last search) and lists (by position). */
  private order: Uint32Array | null = null;
  private lists: Entry[][] = [];
  /** Where each position's particle was at the last search, and its reach then (x, y, z, reach). */
  private anchors: Float32Array = new Float32Array(0);
  /** Each position's radius and whether it was static, at the last step. */
  private last = { radius: new Float32Array(0), static: new Uint8Array(0) };
  /** The settings the lists were made for (a change searches, as the world's setStep forces). */
  private listing = '';
  private walls = new Map<number, [Wall, Wall, Wall]>();
  /** Each particle's collider contacts of the last step, by particle index, in the order of their box index. */
  private boxes = new Map<number, BoxSlot[]>();
  /** Touching pairs found by the last step. */
  touching = 0;
  /** Pairs the last step's colouring left over (solved in the overflow, by Jacobi). */
  overflow = 0;
  /** Entries the last step's lists held. */
  entries = 0;
  /** Steps taken. */
  steps = 0;
  /** Steps that searched for contacts (the others kept the lists). */
  searches = 0;
  /** Particles asleep in the last step. */
  asleep = 0;
  /** By particle index (ParticleRest): where it ended the last step, its time at rest, whether it slept, its list's length. */
  private rest = emptyRest(0);
  /** The settings that, changed, wake every particle. */
  private waking = '';

  /**
   * One step. `spheres` is x, y, z, r and `velocities` vx, vy, vz, inverse mass per particle (as
   * the world's GPU buffers hold them); returns the new state, f32. The stages run in the GPU's
   * order: gather and decide, search or carry, collider lists, sleep, then per substep prepare,
   * sweeps, integration and the boxes' motion, and last the write-back.
   */
  step(
    spheres: Float32Array,
    velocities: Float32Array,
    p: StepParams,
    plan: GridPlan,
    colliders?: ColliderState,
  ): { spheres: Float32Array; velocities: Float32Array } {
    const n = spheres.length / 4;
    const base = settingsOf(p);
    const settings = { ...base, boxSpeed: boxSpeedOf(colliders, base.restitution) };
    const listing = [n, p.margin, p.skin, p.dt].join(' ');
    const waking = wakeKey(p);
    // New settings wake every particle, cold (the world's solver.wake: the sleep records and the
    // warm-start ranges cleared, a search forced).
    const wakeAll = this.waking !== '' && waking !== this.waking;
    if (this.rest.time.length !== n || wakeAll) this.rest = emptyRest(n);
    this.waking = waking;
    const last = { order: this.order, ...this.last };
    wakeMoved(this.rest, spheres, velocities, last, settings.sleepSpeed);
    const search = particleDecide(this.order !== null, wakeAll, this.listing === listing, () =>
      movedTooFar(last, this.anchors, spheres, velocities, settings),
    );
    this.listing = listing;
    this.steps++;
    if (search) this.searches++;
    const grid = search ? walkableGrid(spheres, plan) : null;
    const state = particleGather(spheres, velocities, grid ? grid.order : this.order!, settings, this.rest, colliders);
    let found: Found;
    if (grid) {
      const previousOf = new Map<number, Entry[]>();
      if (this.order && !wakeAll)
        this.order.forEach((id, t) => {
          previousOf.set(id, this.lists[t]);
        });
      const filled = particleFill(state, grid, plan, previousOf);
      this.anchors = filled.anchors;
      found = filled;
    } else {
      found = particleCarry(state, this.lists);
    }
    const slotsOf = colliderList(state, this.boxes);
    const sleep = particleSleep(state, found.lists);
    const walls: [Wall, Wall, Wall][] = [];
    for (let t = 0; t < n; t++) walls.push(this.walls.get(state.order[t]) ?? [noWall(), noWall(), noWall()]);
    const contacts: Contacts = { lists: found.lists, slotsOf, walls, asleep: sleep.asleep };
    particleActivate(state, contacts);
    let colouring: Colouring | null = null;
    for (let sub = 0; sub < p.substeps; sub++) {
      particlePrepare(state, contacts);
      // The first prepare decides the step's pairs; the colouring holds for its substeps.
      colouring ??= colourPairs(state, contacts, this.colourRounds);
      colouredSweeps(state, contacts, colouring, sub);
      particleIntegrate(state);
      colliderMove(state);
    }
    const out = this.remember(state, contacts, velocities);
    particleWriteBack(state, velocities, sleep);
    this.asleep = sleep.sleeping;
    this.order = state.order;
    this.lists = found.lists;
    this.touching = found.touching;
    this.overflow = colouring ? colouring.overflowPairs : 0;
    this.entries = found.entries;
    return out;
  }

  /**
   * particleWriteBack's state: positions and velocities back by index (the inverse mass stays:
   * a sleeper's body holds 0), and the contacts and radii the next step starts from.
   */
  private remember(
    state: StepState,
    contacts: Contacts,
    velocities: Float32Array,
  ): { spheres: Float32Array; velocities: Float32Array } {
    const { n, order, pos, body } = state;
    const outSpheres = new Float32Array(4 * n);
    const outVelocities = new Float32Array(4 * n);
    this.walls.clear();
    this.boxes.clear();
    this.last = { radius: new Float32Array(n), static: new Uint8Array(n) };
    for (let t = 0; t < n; t++) {
      const id = order[t];
      outSpheres.set(pos.subarray(4 * t, 4 * t + 4), 4 * id);
      outVelocities.set(body.subarray(8 * t, 8 * t + 3), 4 * id);
      outVelocities[4 * id + 3] = velocities[4 * id + 3];
      this.walls.set(id, contacts.walls[t]);
      if (contacts.slotsOf[t].length > 0) this.boxes.set(id, contacts.slotsOf[t]);
      else this.boxes.delete(id);
      this.last.radius[t] = pos[4 * t + 3];
      this.last.static[t] = velocities[4 * id + 3] === 0 ? 1 : 0;
    }
    return { spheres: outSpheres, velocities: outVelocities };
  }
}

/** One step of a world with no memory of earlier steps (no warm start from before it). */
export function particleStep(
  spheres: Float32Array,
  velocities: Float32Array,
  params: StepParams,
  plan: GridPlan,
): { spheres: Float32Array; velocities: Float32Array } {
  return new ParticleSolverTwin().step(spheres, velocities, params, plan);
}
