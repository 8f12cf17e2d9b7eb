/**
 * The particle world: spheres that fall, collide, pile up and bounce, stepped entirely on the GPU
 * by a contact solver (src/particles/solver.ts; docs/ARCHITECTURE.md has the math). State lives
 * in GPU buffers that a renderer can bind directly: `buffers.spheres` (x, y, z, radius per
 * particle) and `buffers.velocities` (vx, vy, vz, inverse mass). `step` records its substeps into
 * one submission and reads back only the 16 bytes of the step's counters.
 *
 * Over 500 lines: one class, the world's public calls, each documented where it is declared
 * (about half the file is their documentation); what they compose lives beside it (solver.ts,
 * colliders.ts, colliderContacts.ts, queries.ts, step.ts).
 */
import { InvalidInputError, CapacityError } from '../errors.js';
import { createChecked } from '../gpu/submit.js';
import { CallQueue } from '../gpu/calls.js';
import {
  validateSpheres, validateCasts, checkFloat32Array, checkNumber, checkVector, checkPositiveInteger, checkBoolean, checkValue,
  RULES, MAX_MAGNITUDE, checkGridOptions, checkDevice, checkOptions, checkEncoder, type SphereStats, type CastBatch,
} from '../validate.js';
import { requestBrowserDevice, describeDevice } from '../device.js';
import { BufferUsage } from '../gpu/flags.js';
import { createBuffer, readBuffer, upload, bindingLimit } from '../gpu/buffers.js';
import { GpuTimer, type Profile } from '../gpu/timer.js';
import { planGrid, type GridPlan, type PlanOptions } from '../spatial/plan.js';
import { STRIDE } from '../layout.js';
import { ParticleStats, ParticleWalls, ParticleReuse } from '../../shaders/particles/layout.js';
import { ParticleSolver } from './solver.js';
import { ColliderContacts, type ColliderContactList } from './colliderContacts.js';
import { WorldColliders, packColliders, type ColliderSet, type ColliderBuffers } from './colliders.js';

export type { ColliderSet, ColliderBuffers } from './colliders.js';
import type { StepParams } from './step.js';
import { ParticleQueries } from './queries.js';
import { checkServes } from '../broadphase/index.js';
import { HIT_BYTES, toRaycastResult, toSphereCastResult, checkCastOut, castCall, noHits, type HitRecords, type RaycastResult, type SphereCastResult, type RaycastAllHits, type SphereCastAllHits } from '../castQueries.js';
import type { CastOptions } from '../options.js';

/** The solver's settings; each may be changed later with `setParameters`. */
export interface ParticleParameters {
  /** Acceleration [gx, gy, gz] on every moving particle. Default [0, 0, 0]. */
  gravity?: ArrayLike<number>;
  /** Coefficient of restitution e in [0, 1]; 1 is elastic. Default 1. */
  restitution?: number;
  /**
   * Contacts approaching slower than this (length units per second) do not bounce, so that a
   * resting pile does not jitter. Default: 2·|gravity|·dt of each step (0 without gravity).
   */
  restitutionThreshold?: number;
  /** Coulomb friction coefficient μ ≥ 0 between particles and against the walls. Default 0. */
  friction?: number;
  /** Share of the overlap beyond `slop` removed per substep, in [0, 1]. Default 0.8. */
  percent?: number;
  /** Overlap the position correction leaves alone (length units). Default 0.01. */
  slop?: number;
  /** The fastest the position correction pushes overlapping particles apart. Default 3. */
  maxPushSpeed?: number;
  /**
   * Substeps per step (1–64); each is a full solve with its own integration. Default 8: with 4,
   * balls pressed into boxes by a load (a turning drum, a pour onto pegs) sank half a radius and
   * more, and a landing pile held overlaps of 20–50% of a radius for seconds (docs/PERFORMANCE.md,
   * "Substeps").
   */
  substeps?: number;
  /** Jacobi sweeps of the contact solve per substep (1–64). Default 2 (more sweeps did less than more substeps: docs/PERFORMANCE.md, "Substeps"). */
  iterations?: number;
  /**
   * How much farther than needed a contact search lists pairs (length units), so that the next
   * steps may keep its lists: a step searches again only once some particle has moved (or gained
   * reach, its speed × dt) more than `skin / 2` since the last search. 0 searches at every step.
   * Larger skins search less often but solve longer lists (the extra pairs are skipped, not
   * solved). Default: {@link SKIN_OF_RADIUS} × the largest radius.
   */
  skin?: number;
  /**
   * A particle that ends a step slower than this (length units per second), having moved no
   * farther than this speed allows in the step, is at rest; one at
   * rest for `sleepTime` whose listed partners (those within the contact margin and the skin)
   * are all at rest that long too falls asleep: its velocity becomes 0, it does not move, and
   * its partners solve against it as against a static particle, until a partner moves again or
   * the particle is moved or set moving (it then wakes at the next step). Default:
   * {@link SLEEP_SPEED_OF_RADIUS} × the largest radius per second.
   */
  sleepSpeed?: number;
  /** Seconds at rest before a particle may sleep; `Infinity` never sleeps. Default 0.5. */
  sleepTime?: number;
}

/** The default skin as a share of the largest radius (chosen by measuring the pile and the gas, docs/PERFORMANCE.md). */
export const SKIN_OF_RADIUS = 0.1;

/**
 * The default `sleepSpeed` as a share of the largest radius, per second (0.05 for radius 0.5:
 * Box2D's default for bodies a metre across).
 */
export const SLEEP_SPEED_OF_RADIUS = 0.1;

/** What {@link ParticleWorld.contactSearches} counts. */
export interface ContactSearches {
  /** Steps taken since the particles were set. */
  steps: number;
  /** Those of them that searched for contacts (the others kept the last search's lists). */
  searches: number;
}

/** Options of {@link createParticleWorld}: the world's size and walls, and the solver's settings. */
export interface ParticleWorldOptions extends ParticleParameters {
  /** The device; in a browser it may be omitted (navigator.gpu). */
  device?: GPUDevice;
  /** Most particles the world holds. */
  capacity: number;
  /** Hard walls: [minX, minY, minZ, maxX, maxY, maxZ]; every sphere stays inside. Omitted: unbounded. */
  bounds?: ArrayLike<number>;
  /** Fold dispatches past this many workgroups per dimension (default: the device's limit; lower it in tests). */
  maxWorkgroupsPerDimension?: number;
  /** Tuning of the grid plan; defaults are measured. */
  grid?: Pick<PlanOptions, 'denseFactor' | 'levelStep'>;
  /**
   * How the step dispatches the passes that work on some particles only (the search or the
   * carry of the lists, whichever the step takes; the solve, over the particles in contact):
   * - 'direct': a thread per particle, those with nothing to do returning at once. Best on a
   *   GPU, where idle threads cost next to nothing and an indirect dispatch does not: Dawn
   *   validates each one with a pass of its own (1.4 ms a dispatch measured on an NVIDIA H100
   *   under dawn.node, against 0.02 ms for a direct one).
   * - 'indirect': sized on the GPU to the work. Best on a software adapter (SwiftShader), where
   *   every idle thread costs about a microsecond and an indirect dispatch no more than a direct one.
   * - 'auto' (default): 'indirect' on a software adapter ({@link describeDevice}), else 'direct'.
   * Both give the same state bit for bit.
   */
  dispatch?: 'auto' | 'direct' | 'indirect';
}

/** The particles given to {@link ParticleWorld.setParticles}, by particle index. */
export interface ParticleSet {
  /** x, y, z, radius per particle. */
  spheres: Float32Array;
  /** vx, vy, vz per particle. */
  velocities: Float32Array;
  /**
   * Per particle; 0 is static: the particle never moves, whatever velocity it is given, and
   * gravity does not act on it. Default: 1 / (density 1 × volume).
   */
  inverseMasses?: Float32Array;
}

/** The world's buffers a renderer may bind (vertex or storage), by particle index. */
export interface ParticleBuffers {
  /** x, y, z, radius per particle. */
  spheres: GPUBuffer;
  /** vx, vy, vz, inverse mass per particle. */
  velocities: GPUBuffer;
}

/** Options that only `createParticleWorld` takes: `setParameters` refuses them. */
const CREATION_ONLY = ['device', 'capacity', 'bounds', 'dispatch', 'grid', 'maxWorkgroupsPerDimension'] as const;

/**
 * The parameters a world steps with (`world.parametersNow`): every one set, but
 * `restitutionThreshold`, `skin` and `sleepSpeed`, which are undefined while they follow their
 * defaults (2·|g|·dt, and shares of the largest radius: {@link SKIN_OF_RADIUS},
 * {@link SLEEP_SPEED_OF_RADIUS}).
 */
export interface ParticleParametersNow extends Required<Omit<ParticleParameters, 'gravity' | 'restitutionThreshold' | 'skin' | 'sleepSpeed'>> {
  /** Gravity (x, y, z). */
  gravity: number[];
  /** Undefined: 2·|gravity|·dt of each step. */
  restitutionThreshold: number | undefined;
  /** Undefined: {@link SKIN_OF_RADIUS} × the largest radius. */
  skin: number | undefined;
  /** Undefined: {@link SLEEP_SPEED_OF_RADIUS} × the largest radius per second. */
  sleepSpeed: number | undefined;
}

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
 */
export async function createParticleWorld(options: ParticleWorldOptions): Promise<ParticleWorld> {
  if (typeof options !== 'object' || options === null) throw new InvalidInputError('options', -1, RULES.option, 'expected an object');
  const device = checkDevice('options.device', options.device) ?? (await requestBrowserDevice());
  return createChecked(device, () => new ParticleWorld(device, options, options.device === undefined));
}

/** The default inverse mass: density 1, so 1 / volume. A radius 0 particle is static. */
export function defaultInverseMass(radius: number): number {
  const volume = (4 / 3) * Math.PI * radius ** 3;
  return volume > 0 ? 1 / volume : 0;
}

/** The smallest substep: its inverse (used for speculative contacts) stays within f32's range. */
const MIN_SUBSTEP = 2 ** -60;

/**
 * Spheres colliding and bouncing, stepped entirely on the GPU: contacts found with a grid, solved
 * with accumulated impulses (restitution, friction, walls), bitwise deterministic. The state stays
 * on the GPU ({@link ParticleWorld.buffers}); {@link ParticleWorld.read} reads it back.
 */
export class ParticleWorld {
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
  private readonly maxWorkgroupsPerDimension: number;
  /** Most casts one query takes (one hit record each must fit in a binding). */
  private readonly maxCasts: number;
  /** Raycasts against the particles, made on first use. */
  private queries: ParticleQueries | null = null;
  /** The particles' statistics with the bounds the grid covers (see planStatsFor), set with the particles. */
  private planStats: SphereStats | null = null;
  /** The state at the start of a `step` call, restored when the step must run again. */
  private readonly backup: ParticleBuffers;
  /** Calls run one at a time (they share buffers); every failure gets a typed error. */
  private readonly calls: CallQueue;
  /** The box colliders (setColliders), their buffers and their copy for a step that runs again. */
  private readonly colliders: WorldColliders;
  /** The buffers `colliderContacts` reads through, kept between calls. */
  private contactsOut: ColliderContacts | null = null;
  /**
   * Calls that change the world through the queue (setParticles, setParticle, setParameters,
   * step, encode) or read it there (read, the counts, raycast, sphereCast: their copies are
   * queued behind a step in flight): a step whose lists overflowed runs again from its start
   * only if none came after it, so that no call saw, or changed, a state the rerun replaces.
   */
  private edits = 0;

  constructor(device: GPUDevice, options: ParticleWorldOptions, ownsDevice = false) {
    // The largest per-particle record the solver binds is its wall contacts.
    const maxParticles = Math.floor(bindingLimit(device) / ParticleWalls.size);
    const capacity = options.capacity as unknown;
    if (typeof capacity !== 'number' || !Number.isInteger(capacity) || capacity < 1) throw new InvalidInputError('options.capacity', -1, RULES.option, `expected a number of particles: an integer of at least 1, got ${String(capacity)}`);
    if (capacity > maxParticles) throw new CapacityError('options.capacity', capacity, maxParticles, 'the device cannot bind more particles');
    const bounds = checkVector('options.bounds', options.bounds, 6, RULES.bounds);
    if (bounds && !(bounds.every((b) => Math.abs(b) <= MAX_MAGNITUDE) && bounds[0] < bounds[3] && bounds[1] < bounds[4] && bounds[2] < bounds[5])) {
      throw new InvalidInputError('options.bounds', -1, RULES.bounds, `got ${bounds.join(', ')}`);
    }
    this.device = device;
    this.ownsDevice = ownsDevice;
    this.capacity = capacity;
    this.bounds = bounds ? (bounds as ParticleWorld['bounds']) : null;
    this.settings = { gravity: [0, 0, 0], restitution: 1, restitutionThreshold: undefined, friction: 0, percent: 0.8, slop: 0.01, maxPushSpeed: 3, substeps: 8, iterations: 2, skin: undefined, sleepSpeed: undefined, sleepTime: 0.5 };
    this.setParameters(options);
    this.maxWorkgroupsPerDimension = Math.min(checkPositiveInteger('options.maxWorkgroupsPerDimension', options.maxWorkgroupsPerDimension, Number.MAX_SAFE_INTEGER, 1) ?? Infinity, device.limits.maxComputeWorkgroupsPerDimension);
    this.maxCasts = Math.floor(bindingLimit(device) / HIT_BYTES);
    this.planOptions = { ...checkGridOptions('options.grid', options.grid), maxBuckets: 2 ** Math.floor(Math.log2(bindingLimit(device) / 4 - 1)) };
    const storage = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
    // The state buffers may also be bound as vertex buffers by a renderer.
    const state = storage | BufferUsage.VERTEX;
    this.buffers = {
      spheres: createBuffer(device, 'particle spheres', 16 * capacity, state),
      velocities: createBuffer(device, 'particle velocities', 16 * capacity, state),
    };
    this.backup = {
      spheres: createBuffer(device, 'particle spheres backup', 16 * capacity, storage),
      velocities: createBuffer(device, 'particle velocities backup', 16 * capacity, storage),
    };
    const dispatch = options.dispatch ?? 'auto';
    if (!['auto', 'direct', 'indirect'].includes(dispatch)) {
      throw new InvalidInputError('options.dispatch', -1, RULES.option, `expected 'auto', 'direct' or 'indirect', got ${String(dispatch)}`);
    }
    this.dispatch = dispatch === 'auto' ? (describeDevice(device)?.software ? 'indirect' : 'direct') : dispatch;
    this.solver = new ParticleSolver(device, capacity, this.maxWorkgroupsPerDimension, this.dispatch);
    this.calls = new CallQueue(device, 'particle world');
    this.colliders = new WorldColliders(device);
  }

  /** Changes any of the solver's settings (validated as at creation); the others stay. */
  setParameters(parameters: ParticleParameters): void {
    this.calls?.checkUsable(); // (the constructor sets the first parameters before it has calls)
    if (typeof parameters !== 'object' || parameters === null) throw new InvalidInputError('parameters', -1, RULES.option, 'expected an object');
    if (this.calls) {
      // Not silently ignored (a settings object passed back whole would seem to change them).
      for (const key of CREATION_ONLY) {
        if ((parameters as Record<string, unknown>)[key] !== undefined) throw new InvalidInputError(`options.${key}`, -1, RULES.option, `${key} is fixed when the world is made: make a new world to change it`);
      }
    }
    const gravity = checkVector('options.gravity', parameters.gravity, 3);
    gravity?.forEach((g, a) => checkValue('options.gravity', -1, g, `g${'xyz'[a]}`));
    const s = this.settings;
    this.settings = {
      gravity: gravity ?? s.gravity,
      restitution: checkNumber('options.restitution', parameters.restitution, 0, 1) ?? s.restitution,
      restitutionThreshold: parameters.restitutionThreshold === undefined ? s.restitutionThreshold : checkNumber('options.restitutionThreshold', parameters.restitutionThreshold, 0, MAX_MAGNITUDE),
      friction: checkNumber('options.friction', parameters.friction, 0, MAX_MAGNITUDE) ?? s.friction,
      percent: checkNumber('options.percent', parameters.percent, 0, 1) ?? s.percent,
      slop: checkNumber('options.slop', parameters.slop, 0, MAX_MAGNITUDE) ?? s.slop,
      maxPushSpeed: checkNumber('options.maxPushSpeed', parameters.maxPushSpeed, 0, MAX_MAGNITUDE) ?? s.maxPushSpeed,
      substeps: checkCount('options.substeps', parameters.substeps) ?? s.substeps,
      iterations: checkCount('options.iterations', parameters.iterations) ?? s.iterations,
      skin: checkNumber('options.skin', parameters.skin, 0, MAX_MAGNITUDE) ?? s.skin,
      sleepSpeed: checkNumber('options.sleepSpeed', parameters.sleepSpeed, 0, MAX_MAGNITUDE) ?? s.sleepSpeed,
      sleepTime: parameters.sleepTime === Infinity ? Infinity : (checkNumber('options.sleepTime', parameters.sleepTime, 0, MAX_MAGNITUDE) ?? s.sleepTime),
    };
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
    if (typeof set !== 'object' || set === null) throw new InvalidInputError('particles', -1, RULES.option, 'expected { spheres, velocities }');
    const stats = validateSpheres('spheres', set.spheres, this.capacity, 'more particles than the world holds: make a world of a larger capacity');
    const n = stats.count;
    const velocities = checkFloat32Array('velocities', set.velocities, STRIDE.velocity);
    if (velocities.length / 3 !== n) throw new InvalidInputError('velocities', -1, RULES.count, `${velocities.length / 3} velocities for ${n} spheres`);
    const masses = set.inverseMasses === undefined ? undefined : checkFloat32Array('inverseMasses', set.inverseMasses, 1);
    if (masses && masses.length !== n) throw new InvalidInputError('inverseMasses', -1, RULES.count, `${masses.length} inverse masses for ${n} spheres`);
    const packed = new Float32Array(4 * n);
    for (let i = 0; i < n; i++) {
      for (let a = 0; a < 3; a++) {
        const v = velocities[3 * i + a];
        checkValue('velocities', i, v, `v${'xyz'[a]}`);
        packed[4 * i + a] = v;
      }
      const w = masses ? masses[i] : defaultInverseMass(set.spheres[4 * i + 3]);
      if (w - w !== 0) throw new InvalidInputError('inverseMasses', i, RULES.finite, `got ${w}`);
      if (w < 0) throw new InvalidInputError('inverseMasses', i, RULES.inverseMass, `got ${w}`);
      if (masses && w > MAX_MAGNITUDE) throw new InvalidInputError('inverseMasses', i, RULES.magnitude, `got ${w}`);
      if (!masses) {
        // 1 / volume must be a normal f32 (GPUs may flush subnormals to 0): radii below ~9e-14
        // or above ~2.6e12 leave that range.
        const f = Math.fround(w);
        if (!Number.isFinite(f) || (w > 0 && f < 2 ** -126)) {
          throw new InvalidInputError('spheres', i, RULES.defaultMass, `radius ${set.spheres[4 * i + 3]} gives ${w}`);
        }
      }
      packed[4 * i + 3] = w;
      if (this.bounds) {
        for (let a = 0; a < 3; a++) {
          const x = set.spheres[4 * i + a];
          if (x < this.bounds[a] || x > this.bounds[a + 3]) throw new InvalidInputError('spheres', i, RULES.outside, `axis ${'xyz'[a]}: ${x}`);
        }
      }
    }
    this.planStats = this.planStatsFor(stats);
    this.solver.binning.prepareWith(planGrid(this.planStats, this.planOptions));
    this.solver.forget(n);
    this.edits++;
    upload(this.device, this.buffers.spheres, set.spheres);
    upload(this.device, this.buffers.velocities, packed); // skips 0 bytes: Deno's writeBuffer panics on them
    this.count = n;
  }

  /**
   * The grid covers the bounds (a dense grid when they are compact enough); an unbounded world
   * hashes cells over a range of 2^23 cells each way around the particles' centroid (cells
   * beyond it clamp to its edge: still correct, only slower).
   */
  private planStatsFor(stats: SphereStats): SphereStats {
    let min = stats.min;
    let max = stats.max;
    if (this.bounds) {
      min = [this.bounds[0], this.bounds[1], this.bounds[2]];
      max = [this.bounds[3], this.bounds[4], this.bounds[5]];
    } else if (stats.count > 0) {
      const half = 2 ** 22 * Math.max(2 * stats.maxRadius, 1e-3);
      const centre = [0, 1, 2].map((a) => (stats.min[a] + stats.max[a]) / 2);
      min = centre.map((c) => c - half) as [number, number, number];
      max = centre.map((c) => c + half) as [number, number, number];
    }
    // The particles move: the plan covers the bounds, not where each octave's particles are now.
    return { ...stats, min, max, binBounds: undefined };
  }

  /** The settings of a step of `dt` (the CPU twin, src/reference/particles.ts, takes the same). */
  stepParams(dt: number): StepParams {
    const s = this.settings;
    const g = Math.hypot(s.gravity[0], s.gravity[1], s.gravity[2]);
    return {
      dt,
      substeps: s.substeps,
      iterations: s.iterations,
      gravity: s.gravity,
      restitution: s.restitution,
      restitutionThreshold: s.restitutionThreshold ?? 2 * g * dt,
      friction: s.friction,
      percent: s.percent,
      slop: s.slop,
      maxPushSpeed: s.maxPushSpeed,
      // Listed contacts reach this far beyond touching (plus each particle's travel in the
      // step): the slop twice over, and what gravity adds to a particle's travel in one step.
      margin: 2 * s.slop + g * dt * dt,
      skin: s.skin ?? SKIN_OF_RADIUS * (this.planStats?.maxRadius ?? 0),
      sleepSpeed: s.sleepSpeed ?? SLEEP_SPEED_OF_RADIUS * (this.planStats?.maxRadius ?? 0),
      sleepTime: s.sleepTime,
      bounds: this.bounds,
    };
  }

  private checkStep(dt: number, steps: number): void {
    this.calls.checkUsable();
    if (typeof dt !== 'number') throw new InvalidInputError('dt', -1, RULES.option, `dt is required (seconds), got ${String(dt)}`);
    checkNumber('dt', dt, 0, MAX_MAGNITUDE, true);
    if (dt / this.settings.substeps < MIN_SUBSTEP) {
      throw new InvalidInputError('dt', -1, RULES.option, `dt / substeps must be at least 2^-60, got ${dt} / ${this.settings.substeps}`);
    }
    checkPositiveInteger('steps', steps, Number.MAX_SAFE_INTEGER, 1);
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
    if (timer !== undefined && !(timer instanceof GpuTimer)) throw new InvalidInputError('timer', -1, RULES.option, `a GpuTimer, got ${String(timer)}`);
    this.edits++;
    this.record(encoder, dt, steps, timer);
  }

  private record(encoder: GPUCommandEncoder, dt: number, steps: number, timer?: GpuTimer): void {
    if (this.count === 0) return;
    const settings = { ...this.stepParams(dt), count: this.count };
    const boxes = this.colliders.count;
    this.solver.setStep(settings, boxes);
    const state = boxes > 0 ? { ...this.buffers, colliders: this.colliders.buffers! } : this.buffers;
    for (let k = 0; k < steps; k++) this.solver.encode(encoder, state, settings, timer);
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
    const bytes = 16 * this.count;
    const edits = ++this.edits; // a later step is a change too
    for (;;) {
      // What this attempt's lists hold: an earlier step read back after it was submitted may grow them.
      const capacity = this.solver.entryCapacity;
      // Passes a step: about 14 outside the substeps (the search's scans take a few each), 1 + iterations a substep.
      const timer = new GpuTimer(this.device, profile, Math.min(Math.max(64, (24 + 2 * this.settings.substeps * (1 + this.settings.iterations)) * steps), 4096));
      const submitted = this.calls.submit((encoder) => {
        encoder.copyBufferToBuffer(this.buffers.spheres, 0, this.backup.spheres, 0, bytes);
        encoder.copyBufferToBuffer(this.buffers.velocities, 0, this.backup.velocities, 0, bytes);
        this.colliders.save(encoder);
        this.solver.save(encoder, this.count);
        encoder.clearBuffer(this.solver.stats);
        this.record(encoder, dt, steps, timer);
        timer.resolve(encoder);
      });
      try {
        await this.calls.typed(submitted);
        const [needed, slotsNeeded] = await this.entriesNeeded();
        if (slotsNeeded > this.solver.boxSlots) {
          // A particle was near more boxes than it has slots for: back to the start, more slots
          // (or CapacityError with the true count), run again.
          if (this.edits === edits) this.restore(bytes);
          this.solver.ensureBoxSlots(slotsNeeded);
          if (this.edits === edits) continue;
        }
        if (needed > capacity && this.edits !== edits) {
          // The world was changed while the step ran (a call not awaited): running it again from
          // its start would undo those changes. As with encode(), its extra contacts went
          // unsolved in this step; the lists grow for the next. (More than the device holds:
          // the next step that needs as many throws CapacityError, with its world restored.)
          if (needed > this.solver.entryCapacity && needed <= this.solver.maxEntries()) this.solver.growEntries(needed);
        } else if (needed > capacity) {
          // Back to the state the call started with, then grow (or throw CapacityError with
          // the true count, the world as it was before the call).
          this.restore(bytes);
          this.solver.growEntries(needed);
          continue;
        }
        if (timer.enabled) this.lastProfile = await this.calls.typed(timer.read());
        return;
      } finally {
        timer.destroy();
      }
    }
  }

  /** Back to the state a `step` call started with (`bytes` of spheres and of velocities), the colliders' poses too. */
  private restore(bytes: number): void {
    const restore = this.device.createCommandEncoder({ label: 'particle step restore' });
    restore.copyBufferToBuffer(this.backup.spheres, 0, this.buffers.spheres, 0, bytes);
    restore.copyBufferToBuffer(this.backup.velocities, 0, this.buffers.velocities, 0, bytes);
    this.colliders.restore(restore);
    this.solver.restore(restore, this.count);
    this.device.queue.submit([restore.finish()]);
  }

  /**
   * The longest contact list, and the most collider slots a particle, that any step since the
   * last `step` call asked for (8 bytes read back).
   */
  private async entriesNeeded(): Promise<[number, number]> {
    const bytes = await this.calls.typed(readBuffer(this.device, this.solver.stats, ParticleStats.offsets.entriesNeeded, 8));
    const words = new Uint32Array(bytes);
    return [words[0], words[1]];
  }

  /**
   * For `encode` users: reads whether a recorded step found more contacts than the lists hold
   * and, if so, grows them for the next steps. Returns the number of list entries the largest
   * step needed.
   */
  async checkContactCapacity(): Promise<number> {
    this.calls.checkUsable();
    const [needed, slotsNeeded] = await this.entriesNeeded();
    if (slotsNeeded > this.solver.boxSlots) this.solver.ensureBoxSlots(slotsNeeded);
    if (needed > this.solver.entryCapacity) this.solver.growEntries(needed);
    return needed;
  }

  /**
   * Sets the world's box colliders: static and kinematic oriented boxes that the particles
   * collide with, solved in the same iterations as the particles' own contacts (a box is an
   * infinitely heavy body: restitution, friction, the position correction as for particle pairs).
   * `boxes` holds 10 floats a box (centre, half extents, quaternion x, y, z, w), as
   * `sphereOrientedBoxPairs` takes them. `velocities` (6 floats a box: linear, then angular in
   * rad/s about the centre) makes a box kinematic: each step moves it (its pose integrated with
   * the substeps) and what touches it gets its surface velocity; boxes with six zeros, or all
   * of them without `velocities`, are static. Particles touching a moving box do not sleep.
   * Called again, it sets new poses and velocities (a box keeps its contacts' warm start while
   * the number of boxes stays); `{ boxes: new Float32Array(0) }` removes them. Invalid input
   * throws InvalidInputError naming the argument and the box, and the world keeps its last
   * colliders; more boxes than a binding holds throws CapacityError.
   *
   * @example
   * ```ts
   * // A floor tilted 20° about z, and a paddle moving along x at 2 m/s.
   * const tilt = Math.sin(Math.PI / 18), c = Math.cos(Math.PI / 18);
   * world.setColliders({
   *   boxes: new Float32Array([0, 0, 0, 10, 0.1, 10, 0, 0, tilt, c,   -5, 1, 0, 0.2, 1, 3, 0, 0, 0, 1]),
   *   velocities: new Float32Array([0, 0, 0, 0, 0, 0,   2, 0, 0, 0, 0, 0]),
   * });
   * ```
   */
  setColliders(set: ColliderSet): void {
    this.calls.checkUsable();
    const packed = packColliders(set, WorldColliders.maxBoxes(this.device));
    // Collider slots for every particle (4 at first, fewer where one binding holds no more).
    if (packed.count > 0) this.solver.ensureBoxSlots(Math.max(1, Math.min(this.solver.boxSlots, this.solver.maxBoxSlots())));
    // Boxes added or removed: every particle wakes, cold (a sleeper on a box that went would
    // hang in the air; other boxes under the same indices would warm-start wrong contacts).
    if (packed.count !== this.colliders.count) this.solver.wake();
    this.colliders.set(packed);
    this.edits++;
  }

  /**
   * Records, into `encoder`, the collider contacts of the last step recorded before it: which
   * particle touches which box, with the normal impulse of the step's last substep, left on the
   * GPU ({@link ColliderContacts}: records, the true count even past capacity, indirect
   * arguments for a kernel of yours); its `read()` answers after the submission. Pass the last
   * result as `into` to reuse its buffers (it grows to the count its last `read()` saw).
   */
  encodeColliderContacts(encoder: GPUCommandEncoder, into?: ColliderContacts): ColliderContacts {
    this.calls.checkUsable();
    checkEncoder(encoder);
    if (into !== undefined && !(into instanceof ColliderContacts)) throw new InvalidInputError('into', -1, RULES.option, 'the ColliderContacts of an earlier call, or undefined');
    const contacts = into ?? new ColliderContacts(this.device, Math.max(1024, this.count));
    contacts.reserve(contacts.lastCount);
    this.solver.encodeColliderContacts(encoder, this.count, contacts);
    return contacts;
  }

  /**
   * The collider contacts of the last step (particles, boxes and normal impulses, one entry a
   * contact, in no particular order), read back; none is dropped (the list grows and the call
   * runs again).
   */
  async colliderContacts(): Promise<ColliderContactList> {
    this.calls.checkUsable();
    this.edits++;
    const contacts = this.contactsOut ?? new ColliderContacts(this.device, Math.max(1024, this.count));
    this.contactsOut = contacts;
    for (;;) {
      contacts.reserve(contacts.lastCount);
      const encoder = this.device.createCommandEncoder({ label: 'collider contacts' });
      this.solver.encodeColliderContacts(encoder, this.count, contacts);
      this.device.queue.submit([encoder.finish()]);
      try {
        return await this.calls.typed(contacts.read());
      } catch (error) {
        if (!(error instanceof CapacityError) || contacts.lastCount > ColliderContacts.maxCapacity(this.device)) throw error;
      }
    }
  }

  /**
   * The box colliders' GPU buffers (poses and velocities by box index, the layouts in
   * {@link ColliderBuffers}), or null before the first `setColliders`. A kernel of yours may
   * write them between steps (a step reads them as they are); `setColliders` with more boxes
   * than they hold replaces them.
   */
  get colliderBuffers(): Readonly<ColliderBuffers> | null {
    return this.colliders.buffers;
  }

  /**
   * Overwrites one particle's position and/or velocity (for dragging and pushing): a queue write
   * of 12 bytes each, seen by the next step. Its radius and inverse mass stay.
   */
  setParticle(index: number, change: { position?: ArrayLike<number>; velocity?: ArrayLike<number> }): void {
    this.calls.checkUsable();
    if (!Number.isInteger(index) || index < 0 || index >= this.count) throw new InvalidInputError('index', -1, RULES.option, `expected an integer in [0, ${this.count - 1}], got ${index}`);
    if (typeof change !== 'object' || change === null) throw new InvalidInputError('change', -1, RULES.option, 'expected { position?, velocity? }');
    const p = checkVector('position', change.position, 3);
    const v = checkVector('velocity', change.velocity, 3);
    p?.forEach((x, a) => checkValue('position', index, x, 'xyz'[a]));
    v?.forEach((x, a) => checkValue('velocity', index, x, `v${'xyz'[a]}`));
    this.edits++;
    if (p) {
      const at = this.bounds ? p.map((x, a) => Math.min(Math.max(x, this.bounds![a]), this.bounds![a + 3])) : p;
      this.device.queue.writeBuffer(this.buffers.spheres, 16 * index, new Float32Array(at));
    }
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
    options = checkOptions('options', options);
    const batch = validateCasts('rays', rays, 6, this.maxCasts);
    const out = checkCastOut('raycast', options.out);
    return toRaycastResult(await this.castAll('raycast', batch, options), out);
  }

  /** Sphere casts against the particles as they are now (the contract's sphereCast). */
  sphereCast(casts: Float32Array, options: Omit<CastOptions, 'profile'> & { allHits: true }): Promise<SphereCastAllHits>;
  sphereCast(casts: Float32Array, options?: Omit<CastOptions, 'profile'> & { allHits?: false }): Promise<SphereCastResult>;
  sphereCast(casts: Float32Array, options?: Omit<CastOptions, 'profile'>): Promise<SphereCastResult | SphereCastAllHits>;
  async sphereCast(casts: Float32Array, options?: Omit<CastOptions, 'profile'>): Promise<SphereCastResult | SphereCastAllHits> {
    this.calls.checkUsable();
    options = checkOptions('options', options);
    const batch = validateCasts('casts', casts, 7, this.maxCasts);
    const out = checkCastOut('sphereCast', options.out);
    return toSphereCastResult(await this.castAll('sphereCast', batch, options), out);
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
  encodeRaycast(encoder: GPUCommandEncoder, rays: GPUBuffer, count: number, hits: GPUBuffer, maxRayLength: number): void {
    this.calls.checkUsable();
    checkEncoder(encoder);
    if (checkPositiveInteger('count', count, this.maxCasts) === undefined) throw new InvalidInputError('count', -1, RULES.option, 'required');
    // A ray is two vec4 (A, 0) and (B, 0); a hit one CastHitRecord.
    for (const [argument, buffer, bytes] of [['rays', rays, 32], ['hits', hits, HIT_BYTES]] as const) {
      const b = buffer as GPUBuffer | undefined;
      if (!b || typeof b.size !== 'number' || typeof b.usage !== 'number' || b.size < bytes * count || (b.usage & BufferUsage.STORAGE) === 0) {
        throw new InvalidInputError(argument, -1, RULES.gpuRecords, `a GPUBuffer with STORAGE usage holding ${count} records of ${bytes} bytes`);
      }
    }
    if (rays === hits) throw new InvalidInputError('hits', -1, RULES.gpuRecords, 'a buffer other than rays (the pass reads one and writes the other)');
    // The longest ray widens the walk's rounding slack: it must be a true bound, and finite.
    if (checkNumber('maxRayLength', maxRayLength, 0, 4 * MAX_MAGNITUDE) === undefined) throw new InvalidInputError('maxRayLength', -1, RULES.option, 'required');
    if (count === 0) return;
    // With no particles every ray misses: the hits are still written (index −1), not left as they were.
    const stats = this.count > 0 && this.planStats ? this.planStats : undefined;
    this.queriesNow().encodeRaycast(encoder, this.buffers.spheres, stats, rays, count, hits, { extentAbs: stats ? this.extentAbs() : 0, maxRayLength });
  }

  /** Casts against the particles now; with no particles yet, every cast misses. */
  private castAll(kind: 'raycast' | 'sphereCast', batch: CastBatch, options: Omit<CastOptions, 'profile'>): Promise<HitRecords> {
    this.edits++; // it answers for this state (see `edits`)
    if (!this.planStats || this.count === 0) {
      const { broadphase, allHits } = castCall({ ...options, profile: undefined }); // validates the options
      checkServes(broadphase, 'casts');
      return Promise.resolve(noHits(batch.count, allHits));
    }
    return this.queriesNow().run(batch, options, this.buffers.spheres, this.planStats, this.extentAbs(), kind);
  }

  private queriesNow(): ParticleQueries {
    this.queries ??= new ParticleQueries(this.device, this.calls, this.maxWorkgroupsPerDimension, this.maxCasts, this.planOptions, this.bounds !== null);
    return this.queries;
  }

  /** The largest |coordinate| a particle can have: the bounds, or the grid's range. */
  private extentAbs(): number {
    if (this.bounds) return Math.max(...this.bounds.map(Math.abs));
    const plan = this.plan!;
    const finest = plan.levels[0];
    return Math.max(...finest.origin.map((o, a) => Math.abs(o) + finest.dims[a] * finest.cellSize));
  }

  /**
   * Reads the state back: spheres (x, y, z, r), velocities (vx, vy, vz), inverse masses. The
   * state is the one at this call: the copies are submitted now, ahead of any later step.
   */
  async read(): Promise<{ spheres: Float32Array; velocities: Float32Array; inverseMasses: Float32Array }> {
    this.calls.checkUsable();
    this.edits++; // it sees this state: a step in flight keeps it (see `edits`)
    const n = this.count;
    const reads = Promise.all([
      readBuffer(this.device, this.buffers.spheres, 0, 16 * n),
      readBuffer(this.device, this.buffers.velocities, 0, 16 * n),
    ]);
    const [spheres, packed] = (await this.calls.typed(reads, true)).map((bytes) => new Float32Array(bytes));
    const velocities = new Float32Array(3 * n);
    const inverseMasses = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      velocities.set(packed.subarray(4 * i, 4 * i + 3), 3 * i);
      inverseMasses[i] = packed[4 * i + 3];
    }
    return { spheres, velocities, inverseMasses };
  }

  /** Touching pairs found by the last step submitted before this call (reads 4 bytes back). */
  async contactCount(): Promise<number> {
    this.calls.checkUsable();
    this.edits++;
    if (this.count === 0) return 0;
    const bytes = await this.calls.typed(readBuffer(this.device, this.solver.stats, ParticleStats.offsets.touching, 4), true);
    return new Uint32Array(bytes)[0];
  }

  /** Particles asleep in the last step submitted before this call (reads 4 bytes back; see `sleepSpeed`). */
  async sleepingCount(): Promise<number> {
    this.calls.checkUsable();
    this.edits++;
    if (this.count === 0) return 0;
    const bytes = await this.calls.typed(readBuffer(this.device, this.solver.stats, ParticleStats.offsets.asleep, 4), true);
    return new Uint32Array(bytes)[0];
  }

  /**
   * How many steps were taken since the particles were set, and how many of them searched for
   * contacts; the others kept the last search's lists (see the `skin` option). Reads 8 bytes back.
   */
  async contactSearches(): Promise<ContactSearches> {
    this.calls.checkUsable();
    this.edits++;
    const words = new Uint32Array(await this.calls.typed(readBuffer(this.device, this.solver.reuse, ParticleReuse.offsets.steps, 8), true));
    return { steps: words[0], searches: words[1] };
  }

  /** Frees every GPU resource (and the device, if the world requested it); later calls throw DestroyedError. */
  destroy(): void {
    if (this.calls.isClosed) return;
    this.calls.close();
    for (const buffer of [...Object.values(this.buffers), ...Object.values(this.backup)]) buffer.destroy();
    this.colliders.destroy();
    this.contactsOut?.destroy();
    this.solver.destroy();
    this.queries?.destroy();
    if (this.ownsDevice) this.device.destroy();
  }
}

/** An integer option in [1, 64] (substeps, iterations), or undefined. */
function checkCount(argument: string, value: unknown): number | undefined {
  const n = checkPositiveInteger(argument, value, 64);
  if (n === 0) throw new InvalidInputError(argument, -1, RULES.option, 'expected an integer in [1, 64], got 0');
  return n;
}
