/**
 * The particle world: spheres that fall, collide, pile up and bounce, stepped entirely on the GPU
 * by a contact solver (src/particles/solver.ts; docs/ARCHITECTURE.md has the math). State lives
 * in GPU buffers that a renderer can bind directly: `buffers.spheres` (x, y, z, radius per
 * particle) and `buffers.velocities` (vx, vy, vz, inverse mass). `step` records its substeps into
 * one submission and reads back only the 16 bytes of the list and slot sizes its steps needed.
 *
 * This file is the world's face: each public call validates its arguments, then hands the work to
 * what composes the world: its settings (settings.ts), its state and its upload and read-back
 * (state.ts), the step's submission (stepping.ts), the solver (solver.ts), the colliders
 * (colliders.ts, colliderContacts.ts) and the casts (casts.ts, queries.ts).
 */
import { InvalidInputError } from '../errors.js';
import { createChecked } from '../gpu/submit.js';
import { CallQueue } from '../gpu/calls.js';
import type { SphereStats } from '../validate.js';
import { checkBoolean, RULES, checkDevice, checkEncoder } from '../checks.js';
import { requestBrowserDevice } from '../device.js';
import type { GpuTimer, Profile } from '../gpu/timer.js';
import { planGrid, type GridPlan, type PlanOptions } from '../spatial/plan.js';
import { ParticleSolver } from './solver.js';
import { WorldContacts } from './colliderContacts.js';
import { ParticleWorldColliders, type WorldColliderParts } from './worldColliders.js';
import { WorldColliders } from './colliders.js';
import { PALETTE, type StepParams } from './step.js';
import { WorldCasts, type CastTarget } from './casts.js';
import type { RaycastResult, SphereCastResult, RaycastAllHits, SphereCastAllHits } from '../castQueries.js';
import type { CastOptions } from '../options.js';
import {
  defaultParameters,
  checkWorldShape,
  checkWorldLimits,
  checkDispatch,
  mergeParameters,
  checkStepArguments,
  stepParamsOf,
  type ParticleParameters,
  type ParticleParametersNow,
  type ParticleWorldOptions,
} from './settings.js';
import {
  WorldState,
  packParticles,
  checkParticleChange,
  planStatsFor,
  extentAbs,
  type ParticleSet,
  type ParticleBuffers,
} from './state.js';
import { WorldStepper, checkTimer, type ContactSearches } from './stepping.js';

export type { ColliderSet, ColliderBuffers } from './colliders.js';
export type { MeshCollider } from './meshColliders.js';
export { SKIN_OF_RADIUS, SLEEP_SPEED_OF_RADIUS } from './settings.js';
export type { ParticleParameters, ParticleParametersNow, ParticleWorldOptions } from './settings.js';
export { defaultInverseMass } from './state.js';
export type { ParticleSet, ParticleBuffers } from './state.js';
export type { ContactSearches } from './stepping.js';

/**
 * Makes a {@link ParticleWorld} holding up to `options.capacity` particles on `options.device` (in
 * a browser it may be omitted: one is requested from navigator.gpu, and destroyed with the
 * world). Fill it with {@link ParticleWorld.setParticles}, then {@link ParticleWorld.step}.
 *
 * @example
 * ```ts
 * import { createParticleWorld } from 'webgpu-collide';
 *
 * const world = await createParticleWorld({ device, capacity: 1000,
 *   bounds: [0, 0, 0, 10, 20, 10], gravity: [0, -9.8, 0], restitution: 0.2, friction: 0.5 });
 * const spheres = new Float32Array(4 * 100);   // x, y, z, radius: a wall of 10 × 10 balls
 * for (let i = 0; i < 100; i++) spheres.set([1 + (i % 10) * 0.9, 1 + Math.floor(i / 10) * 0.9, 5, 0.4], 4 * i);
 * world.setParticles({ spheres, velocities: new Float32Array(3 * 100) });   // vx, vy, vz: at rest
 * for (let frame = 0; frame < 60; frame++) await world.step(1 / 60);   // nothing read back
 * const { spheres: now } = await world.read();   // one second later
 * world.destroy();
 * ```
 *
 * @category Particle world
 */
export async function createParticleWorld(options: ParticleWorldOptions): Promise<ParticleWorld> {
  if (typeof options !== 'object' || options === null)
    throw new InvalidInputError('options', -1, RULES.option, 'expected an object');
  const device = checkDevice('options.device', options.device) ?? (await requestBrowserDevice());
  return createChecked(device, () => new ParticleWorld(device, options, options.device === undefined));
}

/**
 * Spheres colliding and bouncing, stepped entirely on the GPU: contacts found with a grid, solved
 * with accumulated impulses (restitution, friction, walls), bitwise deterministic. The state stays
 * on the GPU ({@link ParticleWorld.buffers}); {@link ParticleWorld.read} reads it back.
 *
 * @category Particle world
 */
export class ParticleWorld extends ParticleWorldColliders {
  /** The device the world runs on. */
  readonly device: GPUDevice;
  /** Most particles the world holds. */
  readonly capacity: number;
  /** Particles set by the last setParticles. */
  count = 0;
  /** The walls, [minX, minY, minZ, maxX, maxY, maxZ], or null for none. */
  readonly bounds: [number, number, number, number, number, number] | null;
  /** How the step dispatches its partial passes (options.dispatch, 'auto' resolved). */
  readonly dispatch: 'direct' | 'indirect';
  /** The state on the GPU, for a renderer to bind (`count` particles are live). */
  readonly buffers: Readonly<ParticleBuffers>;
  /** Stage times of the last `step` made with `profile: true`. */
  lastProfile: Profile | null = null;

  private readonly ownsDevice: boolean;
  private readonly solver: ParticleSolver;
  private readonly planOptions: PlanOptions;
  private settings: ParticleParametersNow;
  /** Raycasts and sphere casts against the particles. */
  private readonly casts: WorldCasts;
  /** The particles' statistics with the bounds the grid covers (planStatsFor), set with the particles. */
  private planStats: SphereStats | null = null;
  /** The state buffers and their copy for a step that runs again. */
  private readonly state: WorldState;
  /** Calls run one at a time (they share buffers); every failure gets a typed error. */
  private readonly calls: CallQueue;
  /** The box colliders (setColliders), their buffers and their copy for a step that runs again. */
  private readonly colliders: WorldColliders;
  /** The step calls' submissions, run again when the lists overflowed. */
  private readonly stepper: WorldStepper;
  /** The contacts out: the results the reading calls keep between calls. */
  private readonly contacts: WorldContacts;
  /** What the collider calls (ParticleWorldColliders) use. */
  private readonly parts: WorldColliderParts;
  /**
   * Calls that change the world through the queue (setParticles, setParticle, setParameters,
   * step, encode) or read it there (read, the counts, raycast, sphereCast: their copies are
   * queued behind a step in flight): a step whose lists overflowed runs again from its start
   * only if none came after it, so that no call saw, or changed, a state the rerun replaces.
   */
  private edits = 0;

  /**
   * A particle world on `device`, its options checked. Most code calls
   * {@link createParticleWorld} instead, which also makes a device when none is given (browser
   * and Deno); `ownsDevice` makes `destroy()` destroy the device too.
   */
  constructor(device: GPUDevice, options: ParticleWorldOptions, ownsDevice = false) {
    super();
    const { capacity, bounds } = checkWorldShape(device, options);
    this.device = device;
    this.ownsDevice = ownsDevice;
    this.capacity = capacity;
    this.bounds = bounds;
    this.settings = defaultParameters();
    this.setParameters(options);
    const limits = checkWorldLimits(device, options);
    this.planOptions = limits.planOptions;
    this.state = new WorldState(device, capacity);
    this.buffers = this.state.buffers;
    this.dispatch = checkDispatch(device, options);
    this.solver = new ParticleSolver(device, capacity, limits.maxWorkgroupsPerDimension, this.dispatch);
    this.calls = new CallQueue(device, 'particle world');
    this.colliders = new WorldColliders(device);
    this.stepper = new WorldStepper(device, this.calls, this.solver, this.colliders, this.state);
    this.contacts = new WorldContacts(device, this.calls, (kind, encoder, count, out) =>
      this.solver.encodeColliderContacts(kind, encoder, count, out),
    );
    const world = this;
    this.parts = {
      checkUsable: () => this.calls.checkUsable(),
      edited: () => void this.edits++,
      get count() {
        return world.count;
      },
      stepper: this.stepper,
      contacts: this.contacts,
      colliders: this.colliders,
    };
    this.casts = new WorldCasts(device, this.calls, limits, bounds !== null, (answers) => this.castTarget(answers));
  }

  /** Changes any of the solver's settings (validated as at creation); the others stay. */
  setParameters(parameters: ParticleParameters): void {
    this.calls?.checkUsable(); // (the constructor sets the first parameters before it has calls)
    this.settings = mergeParameters(this.settings, parameters, this.calls !== undefined);
    this.edits++; // a step run again would take the new settings
  }

  /** The current settings. */
  get parametersNow(): Readonly<ParticleParametersNow> {
    return this.settings;
  }

  /** The grid plan of the current particles (for tests and tools). */
  get plan(): GridPlan | null {
    return this.solver.grid.plan;
  }

  /** Contact-list entries the solver has room for (it grows when a step needs more). */
  get contactCapacity(): number {
    return this.solver.entryCapacity;
  }

  /** Replaces every particle: uploads the state, plans the grid for these radii, forgets every contact. */
  setParticles(set: ParticleSet): void {
    this.calls.checkUsable();
    const { stats, packed } = packParticles(set, this.capacity, this.bounds);
    this.planStats = planStatsFor(stats, this.bounds);
    this.solver.binning.prepareWith(planGrid(this.planStats, this.planOptions));
    this.solver.forget(stats.count);
    this.edits++;
    this.state.upload(set.spheres, packed);
    this.count = stats.count;
  }

  /** The settings of a step of `dt` (the CPU twin, src/reference/particles.ts, takes the same). */
  stepParams(dt: number): StepParams {
    return stepParamsOf(this.settings, dt, this.planStats?.maxRadius ?? 0, this.bounds);
  }

  private checkStep(dt: number, steps: number): void {
    this.calls.checkUsable();
    checkStepArguments(dt, steps, this.settings.substeps);
  }

  /**
   * Records `steps` steps of `dt` into `encoder` (the caller submits). Each call keeps its own
   * parameters (a slot of a log of 256, copied in command order), so several `encode` calls,
   * raycasts and kernels of yours may share one submission: at most 256 between two.
   * Unlike `step`, this cannot run a step again: when a step finds more contacts than the lists
   * hold, the extra contacts of that step go unsolved, and the next `step` or
   * `checkContactCapacity` grows the lists.
   *
   * @example
   * ```ts
   * const encoder = device.createCommandEncoder();
   * world.encode(encoder, 1 / 60, 2);   // two steps of 1/60 s
   * // then a render pass of yours that draws world.buffers.spheres, in the same submission
   * device.queue.submit([encoder.finish()]);
   * ```
   */
  encode(encoder: GPUCommandEncoder, dt: number, steps = 1, timer?: GpuTimer): void {
    this.calls.checkUsable();
    checkEncoder(encoder);
    this.checkStep(dt, steps);
    checkTimer(timer);
    this.edits++;
    this.record(encoder, dt, steps, timer);
  }

  private record(encoder: GPUCommandEncoder, dt: number, steps: number, timer?: GpuTimer): void {
    if (this.count === 0) return;
    this.stepper.record(encoder, { ...this.stepParams(dt), count: this.count }, steps, timer);
  }

  /**
   * Advances the world `steps` steps of `dt` seconds, on the GPU, in one submission. If a step
   * found more contacts than the lists hold, the lists grow and the call runs again from the
   * state it started with (the true count is always known: nothing is solved with contacts lost).
   */
  async step(dt: number, steps = 1, options: { profile?: boolean } = {}): Promise<void> {
    this.checkStep(dt, steps);
    const profile = checkBoolean('options.profile', options.profile) ?? false;
    if (this.count === 0) return;
    const edits = ++this.edits; // a later step is a change too
    const record = (encoder: GPUCommandEncoder, timer: GpuTimer): void => this.record(encoder, dt, steps, timer);
    const times = await this.stepper.run({
      count: this.count,
      steps,
      profile,
      record,
      unchanged: () => this.edits === edits,
    });
    if (times) this.lastProfile = times;
  }

  /**
   * For `encode` users: reads whether a recorded step found more contacts than the lists hold
   * and, if so, grows them for the next steps. Returns the number of list entries the largest
   * step needed.
   */
  async checkContactCapacity(): Promise<number> {
    this.calls.checkUsable();
    return this.stepper.checkContactCapacity();
  }

  /**
   * @internal Fixes the colours each sweep dispatches one by one, the rest solved in one
   * workgroup (an integer 0–32), or lets them follow the scene again (null, the default). Every
   * value gives the same states, to the bit; the tests check it.
   */
  pinColourSlots(slots: number | null): void {
    if (slots !== null && !(Number.isInteger(slots) && slots >= 0 && slots <= PALETTE))
      throw new InvalidInputError('slots', -1, RULES.option, `an integer from 0 to ${PALETTE}, or null`);
    this.solver.pinColourSlots(slots);
  }

  /** @internal */
  protected get colliderParts(): WorldColliderParts {
    return this.parts;
  }

  /**
   * Overwrites one particle's position and/or velocity (for dragging and pushing): a queue write
   * of 12 bytes each, seen by the next step. Its radius and inverse mass stay.
   */
  setParticle(index: number, change: { position?: ArrayLike<number>; velocity?: ArrayLike<number> }): void {
    this.calls.checkUsable();
    const { position, velocity: v } = checkParticleChange(index, this.count, change, this.bounds);
    this.edits++;
    if (position) this.device.queue.writeBuffer(this.buffers.spheres, 16 * index, new Float32Array(position));
    if (v) {
      this.device.queue.writeBuffer(this.buffers.velocities, 16 * index, new Float32Array(v));
      // Set moving: awake for the next step, however slow (the gather sees only speeds above sleepSpeed).
      this.solver.unrest(index);
    }
  }

  /**
   * Raycasts against the particles as they are now, on the GPU (the contract's raycast: nearest
   * hit per ray, or every hit). Only the hits are read back.
   */
  raycast(rays: Float32Array, options: Omit<CastOptions, 'profile'> & { allHits: true }): Promise<RaycastAllHits>;
  raycast(rays: Float32Array, options?: Omit<CastOptions, 'profile'> & { allHits?: false }): Promise<RaycastResult>;
  raycast(rays: Float32Array, options?: Omit<CastOptions, 'profile'>): Promise<RaycastResult | RaycastAllHits>;
  async raycast(rays: Float32Array, options?: Omit<CastOptions, 'profile'>): Promise<RaycastResult | RaycastAllHits> {
    this.calls.checkUsable();
    return this.casts.raycast(rays, options);
  }

  /** Sphere casts against the particles as they are now (the contract's sphereCast). */
  sphereCast(
    casts: Float32Array,
    options: Omit<CastOptions, 'profile'> & { allHits: true },
  ): Promise<SphereCastAllHits>;
  sphereCast(
    casts: Float32Array,
    options?: Omit<CastOptions, 'profile'> & { allHits?: false },
  ): Promise<SphereCastResult>;
  sphereCast(
    casts: Float32Array,
    options?: Omit<CastOptions, 'profile'>,
  ): Promise<SphereCastResult | SphereCastAllHits>;
  async sphereCast(
    casts: Float32Array,
    options?: Omit<CastOptions, 'profile'>,
  ): Promise<SphereCastResult | SphereCastAllHits> {
    this.calls.checkUsable();
    return this.casts.sphereCast(casts, options);
  }

  /**
   * Records nearest-hit raycasts against the particles into `encoder`, all on the GPU: `rays`
   * holds `count` rays packed for the GPU as two vec4 each, (A, 0) and (B, 0); `hits` receives
   * one CastHitRecord (32 bytes: point, distance, contact, index; index −1 for a miss) per ray.
   * For renderers that draw hit points straight from `hits` (the demo's ray rain). The rays meet
   * the particles as the encoder leaves them at this point; each call keeps its own parameters,
   * so several may share a submission with `encode` steps (at most 256 between two submissions).
   *
   * @example
   * ```ts
   * const n = 1;   // rays
   * const rays = device.createBuffer({ size: 32 * n, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
   * device.queue.writeBuffer(rays, 0, new Float32Array([1, 20, 5, 0,  1, 0, 5, 0]));   // (A, 0), (B, 0): straight down
   * const hits = device.createBuffer({ size: CastHitRecord.size * n, usage: GPUBufferUsage.STORAGE });
   * const encoder = device.createCommandEncoder();
   * world.encodeRaycast(encoder, rays, n, hits, 20);   // 20: no ray is longer
   * // a pass of yours reads hits (CastHitRecord.wgsl: point, distance, contact, index)
   * device.queue.submit([encoder.finish()]);
   * ```
   */
  encodeRaycast(
    encoder: GPUCommandEncoder,
    rays: GPUBuffer,
    count: number,
    hits: GPUBuffer,
    maxRayLength: number,
  ): void {
    this.calls.checkUsable();
    checkEncoder(encoder);
    this.casts.encodeRaycast(encoder, rays, count, hits, maxRayLength);
  }

  /** What a cast meets now; one that `answers` (read back) answers for this state (see `edits`). */
  private castTarget(answers: boolean): CastTarget {
    if (answers) this.edits++;
    const stats = this.count > 0 && this.planStats ? this.planStats : null;
    return { spheres: this.buffers.spheres, stats, extentAbs: stats ? extentAbs(this.bounds, this.plan!) : 0 };
  }

  /**
   * Reads the state back: spheres (x, y, z, r), velocities (vx, vy, vz), inverse masses. The
   * state is the one at this call: the copies are submitted now, ahead of any later step.
   */
  async read(): Promise<{ spheres: Float32Array; velocities: Float32Array; inverseMasses: Float32Array }> {
    this.calls.checkUsable();
    this.edits++; // it sees this state: a step in flight keeps it (see `edits`)
    return this.state.read(this.calls, this.count);
  }

  /** Touching pairs found by the last step submitted before this call (reads 4 bytes back). */
  async contactCount(): Promise<number> {
    this.calls.checkUsable();
    this.edits++;
    return this.count === 0 ? 0 : this.stepper.readStat('touching');
  }

  /** Particles asleep in the last step submitted before this call (reads 4 bytes back; see `sleepSpeed`). */
  async sleepingCount(): Promise<number> {
    this.calls.checkUsable();
    this.edits++;
    return this.count === 0 ? 0 : this.stepper.readStat('asleep');
  }

  /**
   * How many steps were taken since the particles were set, and how many of them searched for
   * contacts; the others kept the last search's lists (see the `skin` option). Reads 8 bytes back.
   */
  async contactSearches(): Promise<ContactSearches> {
    this.calls.checkUsable();
    this.edits++;
    return this.stepper.contactSearches();
  }

  /** Frees every GPU resource (and the device, if the world requested it); later calls throw DestroyedError. */
  destroy(): void {
    if (this.calls.isClosed) return;
    this.calls.close();
    this.state.destroy();
    this.colliders.destroy();
    this.contacts.destroy();
    this.solver.destroy();
    this.casts.destroy();
    if (this.ownsDevice) this.device.destroy();
  }
}
