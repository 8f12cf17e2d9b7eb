/**
 * The particle world: spheres that move, collide and bounce, stepped entirely on the GPU
 * (shaders/particles.wgsl.ts). State lives in GPU buffers that a renderer can bind directly:
 * `buffers.spheres` (x, y, z, radius per particle) and `buffers.velocities` (vx, vy, vz,
 * inverse mass). `step` records every substep into one submission and reads nothing back.
 */
import { InvalidInputError, CapacityError } from './errors.js';
import { createChecked } from './gpu/submit.js';
import { CallQueue } from './gpu/calls.js';
import {
  validateSpheres, validateCasts, checkFloat32Array, checkNumber, checkVector, checkPositiveInteger, checkBoolean, checkValue, RULES,
  type SphereStats, type CastBatch,
} from './validate.js';
import { requestBrowserDevice } from './device.js';
import { BufferUsage } from './gpu/flags.js';
import { createBuffer, readBuffer, upload, bindingLimit } from './gpu/buffers.js';
import { GpuTimer, type Profile } from './gpu/timer.js';
import { ParticleStepPass, type ParticleBuffers } from './passes/particleStep.js';
import { planGrid, type GridPlan, type PlanOptions } from './grid/plan.js';
import { ParticleParams, packStruct, STRIDE } from './layout.js';
import { GridBuildPass, GpuGrid } from './passes/gridBuild.js';
import { CastPass, type CastSource } from './passes/casts.js';
import {
  CastQueries, HIT_BYTES, toRaycastResult, toSphereCastResult, castCall, noHits, castSlack,
  type HitRecords, type RaycastResult, type SphereCastResult, type RaycastAllHits, type SphereCastAllHits,
} from './castQueries.js';
import type { CastOptions } from './options.js';

export interface ParticleWorldOptions {
  /** The device; in a browser it may be omitted (navigator.gpu). */
  device?: GPUDevice;
  /** Most particles the world holds. */
  capacity: number;
  /** Static walls: [minX, minY, minZ, maxX, maxY, maxZ]. Omitted: unbounded. */
  bounds?: ArrayLike<number>;
  gravity?: ArrayLike<number>;
  /** Coefficient of restitution e in [0, 1]; 1 is elastic. Default 1. */
  restitution?: number;
  /** Share of the penetration beyond `slop` corrected per step, in [0, 1]. Default 0.8. */
  percent?: number;
  /** Penetration left alone. Default 0.01. */
  slop?: number;
  maxWorkgroupsPerDimension?: number;
  /** Tuning of the grid plan; defaults are measured. */
  grid?: Pick<PlanOptions, 'denseFactor' | 'levelStep'>;
}

export interface ParticleSet {
  /** x, y, z, radius per particle. */
  spheres: Float32Array;
  /** vx, vy, vz per particle. */
  velocities: Float32Array;
  /** Per particle; 0 is static (does not move under contacts or gravity). Default: 1 / (density 1 × volume). */
  inverseMasses?: Float32Array;
}

export interface ParticleParameters {
  gravity?: ArrayLike<number>;
  restitution?: number;
  percent?: number;
  slop?: number;
}

export async function createParticleWorld(options: ParticleWorldOptions): Promise<ParticleWorld> {
  if (typeof options !== 'object' || options === null) throw new InvalidInputError('options', -1, RULES.option, 'expected an object');
  const device = options.device ?? (await requestBrowserDevice());
  return createChecked(device, () => new ParticleWorld(device, options, options.device === undefined));
}

/** The default inverse mass: density 1, so 1 / volume. A radius 0 particle is static. */
export function defaultInverseMass(radius: number): number {
  const volume = (4 / 3) * Math.PI * radius ** 3;
  return volume > 0 ? 1 / volume : 0;
}

export class ParticleWorld {
  readonly device: GPUDevice;
  readonly capacity: number;
  /** Particles set by the last setParticles. */
  count = 0;
  readonly bounds: [number, number, number, number, number, number] | null;
  readonly buffers: Readonly<ParticleBuffers>;
  /** Stage times of the last `step` made with `profile: true`. */
  lastProfile: Profile | null = null;

  private readonly ownsDevice: boolean;
  private readonly pass: ParticleStepPass;
  private readonly grid: GpuGrid;
  private readonly planOptions: PlanOptions;
  private parameters: Required<Omit<ParticleParameters, 'gravity'>> & { gravity: number[] };
  private readonly maxWorkgroupsPerDimension: number;
  /** Most casts one query takes (one hit record each must fit in a binding). */
  private readonly maxCasts: number;
  /** Raycasts against the particles, made on first use. */
  private queries: { casts: CastQueries; gridBuild: GridBuildPass; grid: GpuGrid; encodedPass: CastPass } | null = null;
  /** Queries run one at a time (they share buffers); every failure gets a typed error. */
  private readonly calls: CallQueue;

  constructor(device: GPUDevice, options: ParticleWorldOptions, ownsDevice = false) {
    const maxParticles = Math.floor(bindingLimit(device) / 16);
    const capacity = checkPositiveInteger('options.capacity', options.capacity);
    if (capacity === undefined || capacity === 0) throw new InvalidInputError('options.capacity', -1, RULES.option, 'a capacity of at least 1 particle is required');
    if (capacity > maxParticles) throw new CapacityError('options.capacity: particles', capacity, maxParticles, 'the device cannot bind more');
    const bounds = checkVector('options.bounds', options.bounds, 6, RULES.bounds);
    if (bounds && !(bounds[0] < bounds[3] && bounds[1] < bounds[4] && bounds[2] < bounds[5])) {
      throw new InvalidInputError('options.bounds', -1, RULES.bounds, `got ${bounds.join(', ')}`);
    }
    this.device = device;
    this.ownsDevice = ownsDevice;
    this.capacity = capacity;
    this.bounds = bounds ? (bounds as ParticleWorld['bounds']) : null;
    this.parameters = { gravity: [0, 0, 0], restitution: 1, percent: 0.8, slop: 0.01 };
    this.setParameters(options);
    const maxWorkgroupsPerDimension = Math.min(options.maxWorkgroupsPerDimension ?? Infinity, device.limits.maxComputeWorkgroupsPerDimension);
    this.maxWorkgroupsPerDimension = maxWorkgroupsPerDimension;
    this.maxCasts = Math.floor(bindingLimit(device) / HIT_BYTES);
    this.planOptions = { ...options.grid, maxBuckets: 2 ** Math.floor(Math.log2(bindingLimit(device) / 4 - 1)) };
    const storage = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
    // The state buffers may also be bound as vertex buffers by a renderer.
    const state = storage | BufferUsage.VERTEX;
    this.buffers = {
      params: createBuffer(device, 'particle params', ParticleParams.size, BufferUsage.UNIFORM | BufferUsage.COPY_DST),
      spheres: createBuffer(device, 'particle spheres', 16 * capacity, state),
      velocities: createBuffer(device, 'particle velocities', 16 * capacity, state),
      scratchId: createBuffer(device, 'particle scratch ids', 4 * capacity, storage),
      sortedVel: createBuffer(device, 'particle sorted velocities', 16 * capacity, storage),
      contactCounts: createBuffer(device, 'particle contact counts', 8 * capacity, storage),
      touchingPairs: createBuffer(device, 'particle touching pairs', 16, storage),
    };
    this.grid = new GpuGrid(device, 'particle grid');
    this.pass = new ParticleStepPass(device, maxWorkgroupsPerDimension);
    this.calls = new CallQueue(device, 'particle world');
  }

  /** Changes gravity, restitution, percent or slop (validated as at creation). */
  setParameters(parameters: ParticleParameters): void {
    const gravity = checkVector('options.gravity', parameters.gravity, 3);
    const restitution = checkNumber('options.restitution', parameters.restitution, 0, 1);
    const percent = checkNumber('options.percent', parameters.percent, 0, 1);
    const slop = checkNumber('options.slop', parameters.slop, 0, Number.MAX_VALUE);
    this.parameters = {
      gravity: gravity ?? this.parameters.gravity,
      restitution: restitution ?? this.parameters.restitution,
      percent: percent ?? this.parameters.percent,
      slop: slop ?? this.parameters.slop,
    };
  }

  /** The current parameters. */
  get parametersNow(): Readonly<ParticleWorld['parameters']> {
    return this.parameters;
  }

  /** The grid plan of the current particles (for tests and tools). */
  get plan(): GridPlan | null {
    return this.grid.plan;
  }

  /** Replaces every particle: uploads the state and plans the grid for these radii. */
  setParticles(set: ParticleSet): void {
    this.calls.checkUsable();
    if (typeof set !== 'object' || set === null) throw new InvalidInputError('particles', -1, RULES.option, 'expected { spheres, velocities }');
    const stats = validateSpheres('spheres', set.spheres, this.capacity);
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
    this.grid.prepare(this.planFor(stats));
    this.pass.invalidate();
    upload(this.device, this.buffers.spheres, set.spheres);
    this.device.queue.writeBuffer(this.buffers.velocities, 0, packed);
    this.count = n;
  }

  /**
   * The grid covers the bounds (a dense grid when they are compact enough); an unbounded world
   * hashes cells over a range of 2^23 cells each way around the particles' centroid (cells
   * beyond it clamp to its edge: still correct, only slower).
   */
  private planFor(stats: SphereStats): GridPlan {
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
    return planGrid({ ...stats, min, max }, this.planOptions);
  }

  private writeParams(dt: number): void {
    const b = this.bounds ?? [0, 0, 0, 0, 0, 0];
    const p = this.parameters;
    this.device.queue.writeBuffer(this.buffers.params, 0, packStruct(ParticleParams, {
      count: this.count,
      dt,
      restitution: p.restitution,
      percent: p.percent,
      gravity: p.gravity,
      slop: p.slop,
      boundsMin: [b[0], b[1], b[2]],
      bounded: this.bounds ? 1 : 0,
      boundsMax: [b[3], b[4], b[5]],
    }));
  }

  private checkStep(dt: number, steps: number): void {
    this.calls.checkUsable();
    checkNumber('dt', dt, 0, Number.MAX_VALUE, true);
    if (typeof dt !== 'number') throw new InvalidInputError('dt', -1, RULES.option, 'dt is required');
    if (checkPositiveInteger('steps', steps) === 0) throw new InvalidInputError('steps', -1, RULES.option, 'at least one step');
  }

  /**
   * Records `steps` steps of `dt` into `encoder` (the caller submits). The step parameters go
   * through the queue and hold for the next submission: record one `encode` per submission.
   */
  encode(encoder: GPUCommandEncoder, dt: number, steps = 1, timer?: GpuTimer): void {
    this.checkStep(dt, steps);
    if (this.count === 0) return;
    this.writeParams(dt);
    for (let k = 0; k < steps; k++) this.pass.encode(encoder, this.buffers, this.grid, timer);
  }

  /** Advances the world `steps` steps of `dt` seconds, on the GPU, in one submission. */
  async step(dt: number, steps = 1, options: { profile?: boolean } = {}): Promise<void> {
    this.checkStep(dt, steps);
    const profile = checkBoolean('options.profile', options.profile) ?? false;
    if (this.count === 0) return;
    const timer = new GpuTimer(this.device, profile, Math.min(Math.max(64, 8 * steps), 2048));
    const submitted = this.calls.submit((encoder) => {
      this.encode(encoder, dt, steps, timer);
      timer.resolve(encoder);
    });
    try {
      await this.calls.typed(submitted);
      if (timer.enabled) this.lastProfile = await this.calls.typed(timer.read());
    } finally {
      timer.destroy();
    }
  }

  /**
   * Overwrites one particle's position and/or velocity (for dragging and pushing): a queue write
   * of 12 bytes each, seen by the next step. Its radius and inverse mass stay.
   */
  setParticle(index: number, { position, velocity }: { position?: ArrayLike<number>; velocity?: ArrayLike<number> }): void {
    this.calls.checkUsable();
    if (!Number.isInteger(index) || index < 0 || index >= this.count) throw new InvalidInputError('index', -1, RULES.option, `expected an integer in [0, ${this.count - 1}], got ${index}`);
    const p = checkVector('position', position, 3);
    const v = checkVector('velocity', velocity, 3);
    if (p) {
      const at = this.bounds ? p.map((x, a) => Math.min(Math.max(x, this.bounds![a]), this.bounds![a + 3])) : p;
      this.device.queue.writeBuffer(this.buffers.spheres, 16 * index, new Float32Array(at));
    }
    if (v) this.device.queue.writeBuffer(this.buffers.velocities, 16 * index, new Float32Array(v));
  }

  /**
   * Raycasts against the particles as they are now, on the GPU (the contract's raycast: nearest
   * hit per ray, or every hit). Only the hits are read back.
   */
  raycast(rays: Float32Array, options: Omit<CastOptions, 'profile'> & { allHits: true }): Promise<RaycastAllHits>;
  raycast(rays: Float32Array, options?: Omit<CastOptions, 'profile'>): Promise<RaycastResult>;
  async raycast(rays: Float32Array, options: Omit<CastOptions, 'profile'> = {}): Promise<RaycastResult | RaycastAllHits> {
    this.calls.checkUsable();
    return toRaycastResult(await this.castAgainstParticles(validateCasts('rays', rays, 6, this.maxCasts), options));
  }

  /** Sphere casts against the particles as they are now (the contract's sphereCast). */
  sphereCast(casts: Float32Array, options: Omit<CastOptions, 'profile'> & { allHits: true }): Promise<SphereCastAllHits>;
  sphereCast(casts: Float32Array, options?: Omit<CastOptions, 'profile'>): Promise<SphereCastResult>;
  async sphereCast(casts: Float32Array, options: Omit<CastOptions, 'profile'> = {}): Promise<SphereCastResult | SphereCastAllHits> {
    this.calls.checkUsable();
    return toSphereCastResult(await this.castAgainstParticles(validateCasts('casts', casts, 7, this.maxCasts), options));
  }

  /**
   * The casts against the particles as they are at this call: the particles are copied now (one
   * GPU copy, 16 bytes each), so a step submitted while the query waits its turn does not move
   * them under it. The copy is binned into the queries' own grid with the world's plan.
   */
  private castAgainstParticles(batch: CastBatch, options: Omit<CastOptions, 'profile'>): Promise<HitRecords> {
    const { allHits, maxHits, plan } = castCall({ ...options, profile: undefined }, batch, this.count, () => this.grid.plan!);
    const n = this.count;
    const r = batch.count;
    if (r === 0 || n === 0) return Promise.resolve(noHits(r, allHits));
    const worldPlan = this.grid.plan!;
    const slack = castSlack(batch, this.extentAbs(), worldPlan.levels[worldPlan.levels.length - 1].maxRadius);
    const snapshot = this.device.createBuffer({ label: 'particle query snapshot', size: 16 * n, usage: BufferUsage.STORAGE | BufferUsage.COPY_DST });
    const copied = this.calls.submit((encoder) => encoder.copyBufferToBuffer(this.buffers.spheres, 0, snapshot, 0, 16 * n));
    copied.catch(() => undefined); // awaited in turn below
    const query = this.calls.serialize(async () => {
      await copied;
      const queries = this.queriesNow();
      queries.casts.uploadCasts(batch, n, slack);
      let source: CastSource = { spheres: snapshot, sphereCount: n };
      if (plan) {
        queries.grid.prepare(plan);
        await this.calls.submit((encoder) => queries.gridBuild.encode(encoder, snapshot, queries.grid));
        source = { grid: queries.grid };
      }
      return queries.casts.run((record) => this.calls.submit(record), source, r, allHits, maxHits);
    });
    return query.finally(() => snapshot.destroy());
  }

  /**
   * Records nearest-hit raycasts against the particles into `encoder`, all on the GPU: `rays`
   * holds `count` rays packed for the GPU as two vec4 each, (A, 0) and (B, 0); `hits` receives
   * one CastHitRecord (32 bytes: point, distance, contact, index; index −1 for a miss) per ray.
   * For renderers that draw hit points straight from `hits` (the demo's ray rain).
   */
  encodeRaycast(encoder: GPUCommandEncoder, rays: GPUBuffer, count: number, hits: GPUBuffer, maxRayLength: number): void {
    this.calls.checkUsable();
    if (count === 0 || this.count === 0) return;
    const queries = this.queriesNow();
    const plan = this.grid.plan!;
    const slack = (this.extentAbs() + maxRayLength + plan.levels[plan.levels.length - 1].maxRadius) * 2 ** -20;
    // Its own pass (its own parameters): a query waiting its turn has written the shared one's.
    queries.encodedPass.setParams(count, this.count, slack);
    queries.gridBuild.encode(encoder, this.buffers.spheres, this.grid);
    queries.encodedPass.encode(encoder, 'nearest', { grid: this.grid }, rays, count, { hits, counts: this.buffers.contactCounts });
  }

  private queriesNow(): NonNullable<ParticleWorld['queries']> {
    this.queries ??= {
      casts: new CastQueries(this.device, this.maxWorkgroupsPerDimension, this.maxCasts),
      gridBuild: new GridBuildPass(this.device, this.maxWorkgroupsPerDimension),
      grid: new GpuGrid(this.device, 'particle query grid'),
      encodedPass: new CastPass(this.device, this.maxWorkgroupsPerDimension),
    };
    return this.queries;
  }

  /** The largest |coordinate| a particle can have: the bounds, or the grid's range. */
  private extentAbs(): number {
    if (this.bounds) return Math.max(...this.bounds.map(Math.abs));
    const plan = this.grid.plan!;
    const finest = plan.levels[0];
    return Math.max(...plan.origin.map((o, a) => Math.abs(o) + finest.dims[a] * finest.cellSize));
  }

  /**
   * Reads the state back: spheres (x, y, z, r), velocities (vx, vy, vz), inverse masses. The
   * state is the one at this call: the copies are submitted now, ahead of any later step.
   */
  async read(): Promise<{ spheres: Float32Array; velocities: Float32Array; inverseMasses: Float32Array }> {
    this.calls.checkUsable();
    const n = this.count;
    const reads = Promise.all([
      readBuffer(this.device, this.buffers.spheres, 0, 16 * n),
      readBuffer(this.device, this.buffers.velocities, 0, 16 * n),
    ]);
    const [spheres, packed] = (await this.calls.typed(reads)).map((bytes) => new Float32Array(bytes));
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
    if (this.count === 0) return 0;
    const bytes = await this.calls.typed(readBuffer(this.device, this.buffers.touchingPairs, 0, 4));
    return new Uint32Array(bytes)[0] / 2;
  }


  destroy(): void {
    if (this.calls.isClosed) return;
    this.calls.close();
    for (const buffer of Object.values(this.buffers)) buffer.destroy();
    this.grid.destroy();
    this.pass.destroy();
    this.queries?.casts.destroy();
    this.queries?.gridBuild.destroy();
    this.queries?.grid.destroy();
    this.queries?.encodedPass.destroy();
    if (this.ownsDevice) this.device.destroy();
  }
}
