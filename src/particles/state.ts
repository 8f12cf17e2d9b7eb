/**
 * The particle world's state on the GPU (spheres, velocities) and what crosses to and from it:
 * validation and packing of `setParticles`' input (and validation of `setParticle`'s), the
 * upload, the read-back, the copy a step that runs again starts from, and the statistics the
 * grid is planned from.
 */
import { InvalidInputError } from '../errors.js';
import { validateSpheres, type SphereStats } from '../validate.js';
import { checkFloat32Array, checkValue, checkVector, RULES, MAX_MAGNITUDE } from '../checks.js';
import { BufferUsage } from '../gpu/flags.js';
import { createBuffer, readBuffer, upload } from '../gpu/buffers.js';
import type { CallQueue } from '../gpu/calls.js';
import type { GridPlan } from '../spatial/plan.js';
import { STRIDE } from '../layout.js';

/**
 * The particles given to {@link ParticleWorld.setParticles}, by particle index.
 *
 * @category Particle world
 */
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

/**
 * The world's buffers a renderer may bind (vertex or storage), by particle index.
 *
 * @category Particle world
 */
export interface ParticleBuffers {
  /** x, y, z, radius per particle. */
  spheres: GPUBuffer;
  /** vx, vy, vz, inverse mass per particle. */
  velocities: GPUBuffer;
}

/**
 * The default inverse mass: density 1, so 1 / volume. A radius 0 particle is static.
 *
 * @category Particle world
 */
export function defaultInverseMass(radius: number): number {
  const volume = (4 / 3) * Math.PI * radius ** 3;
  return volume > 0 ? 1 / volume : 0;
}

/**
 * Validates `setParticles`' argument for a world of `capacity` particles inside `bounds`, and
 * packs the velocities with the inverse masses (vx, vy, vz, w per particle) as the GPU holds them.
 */
export function packParticles(
  set: ParticleSet,
  capacity: number,
  bounds: readonly number[] | null,
): { stats: SphereStats; packed: Float32Array } {
  if (typeof set !== 'object' || set === null)
    throw new InvalidInputError('particles', -1, RULES.option, 'expected { spheres, velocities }');
  const stats = validateSpheres(
    'spheres',
    set.spheres,
    capacity,
    'more particles than the world holds: make a world of a larger capacity',
  );
  const n = stats.count;
  const velocities = checkFloat32Array('velocities', set.velocities, STRIDE.velocity);
  if (velocities.length / 3 !== n)
    throw new InvalidInputError('velocities', -1, RULES.count, `${velocities.length / 3} velocities for ${n} spheres`);
  const masses = set.inverseMasses === undefined ? undefined : checkFloat32Array('inverseMasses', set.inverseMasses, 1);
  if (masses && masses.length !== n)
    throw new InvalidInputError('inverseMasses', -1, RULES.count, `${masses.length} inverse masses for ${n} spheres`);
  const packed = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < 3; a++) {
      const v = velocities[3 * i + a];
      if (!(Math.abs(v) <= MAX_MAGNITUDE)) checkValue('velocities', i, v, `v${'xyz'[a]}`);
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
    if (bounds) {
      for (let a = 0; a < 3; a++) {
        const x = set.spheres[4 * i + a];
        if (x < bounds[a] || x > bounds[a + 3])
          throw new InvalidInputError('spheres', i, RULES.outside, `axis ${'xyz'[a]}: ${x}`);
      }
    }
  }
  return { stats, packed };
}

/**
 * Validates `setParticle`'s arguments for particle `index` of a world of `count` particles;
 * answers the position to write (kept inside `bounds`) and the velocity, each only when given.
 */
export function checkParticleChange(
  index: number,
  count: number,
  change: { position?: ArrayLike<number>; velocity?: ArrayLike<number> },
  bounds: readonly number[] | null,
): { position?: number[]; velocity?: number[] } {
  if (!Number.isInteger(index) || index < 0 || index >= count)
    throw new InvalidInputError('index', -1, RULES.option, `expected an integer in [0, ${count - 1}], got ${index}`);
  if (typeof change !== 'object' || change === null)
    throw new InvalidInputError('change', -1, RULES.option, 'expected { position?, velocity? }');
  const p = checkVector('position', change.position, 3);
  const v = checkVector('velocity', change.velocity, 3);
  p?.forEach((x, a) => {
    checkValue('position', index, x, 'xyz'[a]);
  });
  v?.forEach((x, a) => {
    checkValue('velocity', index, x, `v${'xyz'[a]}`);
  });
  const position = p && bounds ? p.map((x, a) => Math.min(Math.max(x, bounds[a]), bounds[a + 3])) : p;
  return { position, velocity: v };
}

/**
 * The statistics the grid is planned from: the grid covers the bounds (a dense grid when they
 * are compact enough); an unbounded world hashes cells over a range of 2^23 cells each way around
 * the particles' centroid (cells beyond it clamp to its edge: still correct, only slower).
 */
export function planStatsFor(stats: SphereStats, bounds: readonly number[] | null): SphereStats {
  let min = stats.min;
  let max = stats.max;
  if (bounds) {
    min = [bounds[0], bounds[1], bounds[2]];
    max = [bounds[3], bounds[4], bounds[5]];
  } else if (stats.count > 0) {
    const half = 2 ** 22 * Math.max(2 * stats.maxRadius, 1e-3);
    const centre = [0, 1, 2].map((a) => (stats.min[a] + stats.max[a]) / 2);
    min = centre.map((c) => c - half) as [number, number, number];
    max = centre.map((c) => c + half) as [number, number, number];
  }
  // The particles move: the plan covers the bounds, not where each octave's particles are now.
  return { ...stats, min, max, binBounds: undefined };
}

/** The largest |coordinate| a particle can have: the bounds, or the range of the grid `plan`. */
export function extentAbs(bounds: readonly number[] | null, plan: GridPlan): number {
  if (bounds) return Math.max(...bounds.map(Math.abs));
  const finest = plan.levels[0];
  return Math.max(...finest.origin.map((o, a) => Math.abs(o) + finest.dims[a] * finest.cellSize));
}

/** The state buffers of `capacity` particles, and their copy for a step that runs again. */
export class WorldState {
  /** The state a renderer may bind. */
  readonly buffers: Readonly<ParticleBuffers>;
  /** The state at the start of a `step` call, restored when the step must run again. */
  private readonly backup: ParticleBuffers;

  constructor(
    private readonly device: GPUDevice,
    capacity: number,
  ) {
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
  }

  /** Uploads `spheres` and the packed velocities (packParticles) through the queue. */
  upload(spheres: Float32Array, packed: Float32Array): void {
    upload(this.device, this.buffers.spheres, spheres);
    upload(this.device, this.buffers.velocities, packed); // skips 0 bytes: Deno's writeBuffer panics on them
  }

  /** Records a copy of the first `count` particles' state, for `restore`. */
  save(encoder: GPUCommandEncoder, count: number): void {
    encoder.copyBufferToBuffer(this.buffers.spheres, 0, this.backup.spheres, 0, 16 * count);
    encoder.copyBufferToBuffer(this.buffers.velocities, 0, this.backup.velocities, 0, 16 * count);
  }

  /** Records putting back what `save` copied. */
  restore(encoder: GPUCommandEncoder, count: number): void {
    encoder.copyBufferToBuffer(this.backup.spheres, 0, this.buffers.spheres, 0, 16 * count);
    encoder.copyBufferToBuffer(this.backup.velocities, 0, this.buffers.velocities, 0, 16 * count);
  }

  /** Reads back the first `n` particles: spheres, velocities (vx, vy, vz) and inverse masses. */
  async read(
    calls: CallQueue,
    n: number,
  ): Promise<{ spheres: Float32Array; velocities: Float32Array; inverseMasses: Float32Array }> {
    const reads = Promise.all([
      readBuffer(this.device, this.buffers.spheres, 0, 16 * n),
      readBuffer(this.device, this.buffers.velocities, 0, 16 * n),
    ]);
    const [spheres, packed] = (await calls.typed(reads, true)).map((bytes) => new Float32Array(bytes));
    const velocities = new Float32Array(3 * n);
    const inverseMasses = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      velocities.set(packed.subarray(4 * i, 4 * i + 3), 3 * i);
      inverseMasses[i] = packed[4 * i + 3];
    }
    return { spheres, velocities, inverseMasses };
  }

  destroy(): void {
    for (const buffer of [...Object.values(this.buffers), ...Object.values(this.backup)]) buffer.destroy();
  }
}
