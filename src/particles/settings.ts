/**
 * The particle world's settings: the options of `createParticleWorld` and the solver's
 * parameters (`setParameters`), their defaults and their validation, and the step parameters
 * (`StepParams`) a step of dt takes from them.
 */
import { InvalidInputError, CapacityError } from '../errors.js';
import {
  checkNumber,
  checkVector,
  checkPositiveInteger,
  checkValue,
  RULES,
  MAX_MAGNITUDE,
  checkGridOptions,
} from '../checks.js';
import { describeDevice } from '../device.js';
import { bindingLimit } from '../gpu/buffers.js';
import type { PlanOptions } from '../spatial/plan.js';
import { ParticleWalls } from '../../shaders/particles/layout.js';
import type { StepParams } from './step.js';

/**
 * The solver's settings; each may be changed later with `setParameters`.
 *
 * @category Particle world
 */
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
   * Substeps per step (1–64); each is a full solve with its own integration. Default 4: a load
   * carried through a chain of contacts (balls pressed into a turning drum's plank, a pour onto
   * pegs) needs passes to arrive, and fewer substeps let such balls sink into boxes; with 4 the
   * deepest of the 30,000 balls poured through pegs is 10.6% of its radius into a peg (10.0% with
   * 6, Rapier's 20.2%), and every bench scene stays within Rapier's depth. More cost a step in
   * proportion (docs/PERFORMANCE.md, "Four substeps").
   */
  substeps?: number;
  /**
   * Gauss–Seidel sweeps of the contact solve per substep (1–64). Default 2: more substeps do more
   * than more sweeps at the same cost, and one sweep lets a cluster that starts overlapping with
   * restitution 1 gain 11% kinetic energy in its first step (docs/PERFORMANCE.md, "Substeps",
   * "The colours' tail").
   */
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

/**
 * The default skin as a share of the largest radius (docs/PERFORMANCE.md weighs it on the pile and the gas).
 *
 * @category Particle world
 */
export const SKIN_OF_RADIUS = 0.1;

/**
 * The default `sleepSpeed` as a share of the largest radius, per second (0.05 for radius 0.5:
 * Box2D's default for bodies a metre across).
 *
 * @category Particle world
 */
export const SLEEP_SPEED_OF_RADIUS = 0.1;

/**
 * Options of {@link createParticleWorld}: the world's size and walls, and the solver's settings.
 *
 * @category Particle world
 */
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
   *   validates each one with a pass of its own (docs/ARCHITECTURE.md, "Devices and calls").
   * - 'indirect': sized on the GPU to the work. Best on a software adapter (SwiftShader), where
   *   every idle thread costs time and an indirect dispatch no more than a direct one.
   * - 'auto' (default): 'indirect' on a software adapter ({@link describeDevice}), else 'direct'.
   * Both give the same state bit for bit.
   */
  dispatch?: 'auto' | 'direct' | 'indirect';
}

/**
 * The parameters a world steps with (`world.parametersNow`): every one set, but
 * `restitutionThreshold`, `skin` and `sleepSpeed`, which are undefined while they follow their
 * defaults (2·|g|·dt, and shares of the largest radius: {@link SKIN_OF_RADIUS},
 * {@link SLEEP_SPEED_OF_RADIUS}).
 *
 * @category Particle world
 */
export interface ParticleParametersNow
  extends Required<Omit<ParticleParameters, 'gravity' | 'restitutionThreshold' | 'skin' | 'sleepSpeed'>> {
  /** Gravity (x, y, z). */
  gravity: number[];
  /** Undefined: 2·|gravity|·dt of each step. */
  restitutionThreshold: number | undefined;
  /** Undefined: {@link SKIN_OF_RADIUS} × the largest radius. */
  skin: number | undefined;
  /** Undefined: {@link SLEEP_SPEED_OF_RADIUS} × the largest radius per second. */
  sleepSpeed: number | undefined;
}

/** The parameters of a new world, before its options are applied. */
export function defaultParameters(): ParticleParametersNow {
  return {
    gravity: [0, 0, 0],
    restitution: 1,
    restitutionThreshold: undefined,
    friction: 0,
    percent: 0.8,
    slop: 0.01,
    maxPushSpeed: 3,
    substeps: 4,
    iterations: 2,
    skin: undefined,
    sleepSpeed: undefined,
    sleepTime: 0.5,
  };
}

/** Options that only `createParticleWorld` takes: `setParameters` refuses them. */
const CREATION_ONLY = ['device', 'capacity', 'bounds', 'dispatch', 'grid', 'maxWorkgroupsPerDimension'] as const;

/** The smallest substep: its inverse (used for speculative contacts) stays within f32's range. */
const MIN_SUBSTEP = 2 ** -60;

/** The world's size and walls, validated: `options.capacity` and `options.bounds`. */
export function checkWorldShape(
  device: GPUDevice,
  options: ParticleWorldOptions,
): { capacity: number; bounds: [number, number, number, number, number, number] | null } {
  // The largest per-particle record the solver binds is its wall contacts.
  const maxParticles = Math.floor(bindingLimit(device) / ParticleWalls.size);
  const capacity = options.capacity as unknown;
  if (typeof capacity !== 'number' || !Number.isInteger(capacity) || capacity < 1)
    throw new InvalidInputError(
      'options.capacity',
      -1,
      RULES.option,
      `expected a number of particles: an integer of at least 1, got ${String(capacity)}`,
    );
  if (capacity > maxParticles)
    throw new CapacityError('options.capacity', capacity, maxParticles, 'the device cannot bind more particles');
  const bounds = checkVector('options.bounds', options.bounds, 6, RULES.bounds);
  if (
    bounds &&
    !(
      bounds.every((b) => Math.abs(b) <= MAX_MAGNITUDE) &&
      bounds[0] < bounds[3] &&
      bounds[1] < bounds[4] &&
      bounds[2] < bounds[5]
    )
  ) {
    throw new InvalidInputError('options.bounds', -1, RULES.bounds, `got ${bounds.join(', ')}`);
  }
  return { capacity, bounds: bounds ? (bounds as [number, number, number, number, number, number]) : null };
}

/** The fold limit of dispatches and the grid plan's options, validated: `options.maxWorkgroupsPerDimension` and `options.grid`. */
export function checkWorldLimits(
  device: GPUDevice,
  options: ParticleWorldOptions,
): { maxWorkgroupsPerDimension: number; planOptions: PlanOptions } {
  const maxWorkgroupsPerDimension = Math.min(
    checkPositiveInteger(
      'options.maxWorkgroupsPerDimension',
      options.maxWorkgroupsPerDimension,
      Number.MAX_SAFE_INTEGER,
      1,
    ) ?? Infinity,
    device.limits.maxComputeWorkgroupsPerDimension,
  );
  const planOptions = {
    ...checkGridOptions('options.grid', options.grid),
    maxBuckets: 2 ** Math.floor(Math.log2(bindingLimit(device) / 4 - 1)),
  };
  return { maxWorkgroupsPerDimension, planOptions };
}

/** `options.dispatch`, validated, with 'auto' resolved for `device`. */
export function checkDispatch(device: GPUDevice, options: ParticleWorldOptions): 'direct' | 'indirect' {
  const dispatch = options.dispatch ?? 'auto';
  if (!['auto', 'direct', 'indirect'].includes(dispatch)) {
    throw new InvalidInputError(
      'options.dispatch',
      -1,
      RULES.option,
      `expected 'auto', 'direct' or 'indirect', got ${String(dispatch)}`,
    );
  }
  return dispatch === 'auto' ? (describeDevice(device)?.software ? 'indirect' : 'direct') : dispatch;
}

/**
 * `current` with the parameters `parameters` sets, each validated. `created`: the world exists,
 * so the options fixed at creation are refused, not silently ignored (a settings object passed
 * back whole would seem to change them).
 */
export function mergeParameters(
  current: Readonly<ParticleParametersNow>,
  parameters: ParticleParameters,
  created: boolean,
): ParticleParametersNow {
  if (typeof parameters !== 'object' || parameters === null)
    throw new InvalidInputError('parameters', -1, RULES.option, 'expected an object');
  if (created) {
    for (const key of CREATION_ONLY) {
      if ((parameters as Record<string, unknown>)[key] !== undefined)
        throw new InvalidInputError(
          `options.${key}`,
          -1,
          RULES.option,
          `${key} is fixed when the world is made: make a new world to change it`,
        );
    }
  }
  const gravity = checkVector('options.gravity', parameters.gravity, 3);
  gravity?.forEach((g, a) => {
    checkValue('options.gravity', -1, g, `g${'xyz'[a]}`);
  });
  const s = current;
  return {
    gravity: gravity ?? s.gravity,
    restitution: checkNumber('options.restitution', parameters.restitution, 0, 1) ?? s.restitution,
    restitutionThreshold:
      parameters.restitutionThreshold === undefined
        ? s.restitutionThreshold
        : checkNumber('options.restitutionThreshold', parameters.restitutionThreshold, 0, MAX_MAGNITUDE),
    friction: checkNumber('options.friction', parameters.friction, 0, MAX_MAGNITUDE) ?? s.friction,
    percent: checkNumber('options.percent', parameters.percent, 0, 1) ?? s.percent,
    slop: checkNumber('options.slop', parameters.slop, 0, MAX_MAGNITUDE) ?? s.slop,
    maxPushSpeed: checkNumber('options.maxPushSpeed', parameters.maxPushSpeed, 0, MAX_MAGNITUDE) ?? s.maxPushSpeed,
    substeps: checkCount('options.substeps', parameters.substeps) ?? s.substeps,
    iterations: checkCount('options.iterations', parameters.iterations) ?? s.iterations,
    skin: checkNumber('options.skin', parameters.skin, 0, MAX_MAGNITUDE) ?? s.skin,
    sleepSpeed: checkNumber('options.sleepSpeed', parameters.sleepSpeed, 0, MAX_MAGNITUDE) ?? s.sleepSpeed,
    sleepTime:
      parameters.sleepTime === Infinity
        ? Infinity
        : (checkNumber('options.sleepTime', parameters.sleepTime, 0, MAX_MAGNITUDE) ?? s.sleepTime),
  };
}

/** An integer option in [1, 64] (substeps, iterations), or undefined. */
function checkCount(argument: string, value: unknown): number | undefined {
  const n = checkPositiveInteger(argument, value, 64);
  if (n === 0) throw new InvalidInputError(argument, -1, RULES.option, 'expected an integer in [1, 64], got 0');
  return n;
}

/** Validates a step call's `dt` and `steps` (the substep dt / substeps must stay above MIN_SUBSTEP). */
export function checkStepArguments(dt: number, steps: number, substeps: number): void {
  if (typeof dt !== 'number')
    throw new InvalidInputError('dt', -1, RULES.option, `dt is required (seconds), got ${String(dt)}`);
  checkNumber('dt', dt, 0, MAX_MAGNITUDE, true);
  if (dt / substeps < MIN_SUBSTEP) {
    throw new InvalidInputError(
      'dt',
      -1,
      RULES.option,
      `dt / substeps must be at least 2^-60, got ${dt} / ${substeps}`,
    );
  }
  checkPositiveInteger('steps', steps, Number.MAX_SAFE_INTEGER, 1);
}

/**
 * The settings of a step of `dt` with the parameters `s`, for particles whose largest radius is
 * `maxRadius` (0 with none), inside `bounds`.
 */
export function stepParamsOf(
  s: Readonly<ParticleParametersNow>,
  dt: number,
  maxRadius: number,
  bounds: readonly number[] | null,
): StepParams {
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
    skin: s.skin ?? SKIN_OF_RADIUS * maxRadius,
    sleepSpeed: s.sleepSpeed ?? SLEEP_SPEED_OF_RADIUS * maxRadius,
    sleepTime: s.sleepTime,
    bounds,
  };
}
