/**
 * The particle world's box colliders on the host side: validation and packing of
 * `setColliders`' input, and the GPU buffers the solver reads (poses, velocities), grown as
 * needed, with the copy of the poses a step that runs again starts from. The solve is in
 * src/particles/recordStep.ts and shaders/particles/colliders.wgsl.ts.
 */
import { InvalidInputError } from '../errors.js';
import { validateOrientedBoxes } from '../validate.js';
import { checkFloat32Array, checkValue, RULES } from '../checks.js';
import { BufferUsage } from '../gpu/flags.js';
import { createBuffer, upload, bindingLimit } from '../gpu/buffers.js';

/**
 * The world's box colliders on the GPU (`world.colliderBuffers`), by box index, for a renderer or
 * a kernel of yours that moves them: each step reads them as they are then.
 *
 * @category Particle world
 */
export interface ColliderBuffers {
  /** Three vec4f a box: (centre, 0), (half extents, 0), unit quaternion (x, y, z, w). Each step moves a kinematic box. */
  poses: GPUBuffer;
  /** Two vec4f a box: (linear velocity, 0), (angular velocity in rad/s about the centre, 0). All zero: a static box. */
  velocities: GPUBuffer;
  /** Boxes set (`setColliders`). */
  count: number;
}

/**
 * `world.setColliders`' argument.
 *
 * @category Particle world
 */
export interface ColliderSet {
  /** 10 floats a box: centre (x, y, z), half extents (x, y, z), rotation quaternion (x, y, z, w; an AABB: 0, 0, 0, 1). */
  boxes: Float32Array;
  /** 6 floats a box: linear velocity (x, y, z), angular velocity (x, y, z, rad/s about the centre). Default: every box static. */
  velocities?: Float32Array;
}

/** Colliders validated and packed for the GPU: poses (12 floats a box) and velocities (8). */
export interface PackedColliders {
  count: number;
  poses: Float32Array;
  velocities: Float32Array;
}

/** Bytes of a box's pose (three vec4f) and velocities (two vec4f) on the GPU. */
const POSE_BYTES = 48;
const VELOCITY_BYTES = 32;

/**
 * Validates `setColliders`' argument (an InvalidInputError names the argument, the box and the
 * rule; more than `maxBoxes` boxes is a CapacityError) and packs it for the GPU.
 */
export function packColliders(set: ColliderSet, maxBoxes: number): PackedColliders {
  if (typeof set !== 'object' || set === null)
    throw new InvalidInputError('colliders', -1, RULES.option, 'expected { boxes, velocities? }');
  const poses = validateOrientedBoxes('colliders.boxes', set.boxes, maxBoxes);
  const count = poses.length / 12;
  const velocities = new Float32Array(8 * count);
  if (set.velocities !== undefined) {
    const given = checkFloat32Array('colliders.velocities', set.velocities, 6);
    if (given.length !== 6 * count)
      throw new InvalidInputError(
        'colliders.velocities',
        -1,
        RULES.count,
        `${given.length / 6} velocities for ${count} boxes (6 floats a box)`,
      );
    for (let k = 0; k < count; k++) {
      for (let a = 0; a < 6; a++) {
        checkValue('colliders.velocities', k, given[6 * k + a], `${a < 3 ? 'v' : 'w'}${'xyz'[a % 3]}`);
        velocities[8 * k + (a < 3 ? a : a + 1)] = given[6 * k + a];
      }
    }
  }
  return { count, poses, velocities };
}

/** A world's box colliders on the GPU. */
export class WorldColliders {
  /** The buffers and the number of boxes set, or null before the first boxes. */
  buffers: ColliderBuffers | null = null;
  /** The poses as a step found them, for a step that runs again. */
  private backup: GPUBuffer | null = null;

  constructor(private readonly device: GPUDevice) {}

  /** The most boxes one binding holds. */
  static maxBoxes(device: GPUDevice): number {
    return Math.floor(bindingLimit(device) / POSE_BYTES);
  }

  /** Boxes set now. */
  get count(): number {
    return this.buffers?.count ?? 0;
  }

  /** Uploads `packed` (through the queue), growing the buffers when they hold fewer boxes. */
  set(packed: PackedColliders): void {
    const held = this.buffers ? this.buffers.poses.size / POSE_BYTES : 0;
    if (packed.count > held) {
      this.destroy();
      const room = Math.max(packed.count, Math.min(WorldColliders.maxBoxes(this.device), Math.ceil(held * 1.5)));
      const usage = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
      this.buffers = {
        poses: createBuffer(this.device, 'collider poses', POSE_BYTES * room, usage | BufferUsage.VERTEX),
        velocities: createBuffer(this.device, 'collider velocities', VELOCITY_BYTES * room, usage),
        count: packed.count,
      };
      this.backup = createBuffer(this.device, 'collider poses backup', POSE_BYTES * room, usage);
    }
    if (!this.buffers) return;
    this.buffers.count = packed.count;
    upload(this.device, this.buffers.poses, packed.poses);
    upload(this.device, this.buffers.velocities, packed.velocities);
  }

  /** Records a copy of the poses (a step moves the kinematic boxes), for `restore`. */
  save(encoder: GPUCommandEncoder): void {
    if (this.buffers && this.buffers.count > 0)
      encoder.copyBufferToBuffer(this.buffers.poses, 0, this.backup!, 0, POSE_BYTES * this.buffers.count);
  }

  /** Records putting back what `save` copied. */
  restore(encoder: GPUCommandEncoder): void {
    if (this.buffers && this.buffers.count > 0)
      encoder.copyBufferToBuffer(this.backup!, 0, this.buffers.poses, 0, POSE_BYTES * this.buffers.count);
  }

  destroy(): void {
    this.buffers?.poses.destroy();
    this.buffers?.velocities.destroy();
    this.backup?.destroy();
    this.buffers = null;
    this.backup = null;
  }
}
