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
import { packStruct } from '../layout.js';
import { MeshFindParams } from '../../shaders/particles/layout.js';
import type { ColliderMesh } from '../mesh/mesh.js';

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
  /**
   * Mesh colliders set (`setMeshes`): their poses and velocities follow the boxes' (mesh m at
   * collider `count` + m; the pose's second vec4 holds the mesh's reach from its centre, and the
   * linear velocity's w is set for a step after the mesh was refitted).
   */
  meshes: number;
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

/** A mesh collider as a step finds it: the mesh, its find's parameters (uniform), its index. */
export interface MeshBinding {
  mesh: ColliderMesh;
  /** MeshFindParams (the pose and velocities copied in at each step's find). */
  params: GPUBuffer;
  /** Its place among the meshes (collider boxCount + index). */
  index: number;
}

/** Meshes validated and packed for the GPU: poses (12 floats a mesh: centre, reach extents, quaternion) and velocities (8). */
export interface PackedMeshes {
  meshes: ColliderMesh[];
  poses: Float32Array;
  velocities: Float32Array;
}

/**
 * The world's colliders on the GPU: the boxes (`setColliders`), then the meshes (`setMeshes`):
 * collider boxCount + m is mesh m, so the boxes' motion passes move a kinematic mesh too.
 */
export class WorldColliders {
  /** The buffers and the number of boxes set, or null before the first colliders. */
  buffers: ColliderBuffers | null = null;
  /** The poses as a step found them, for a step that runs again (and a scratch for moves). */
  private backup: GPUBuffer | null = null;
  /** The meshes set, with their find parameters. */
  meshes: MeshBinding[] = [];
  /** Each mesh's refit count when a step last flagged it (the flag wakes the particles on it). */
  private seen: number[] = [];
  /** Whether each mesh's deformation flag is set now in the velocities (the linear velocity's w). */
  private flagged: boolean[] = [];
  /** 1.0 and 0.0 (f32), copied into a mesh's flag. */
  private readonly flags: GPUBuffer;

  constructor(private readonly device: GPUDevice) {
    this.flags = createBuffer(device, 'mesh deformation flags', 8, BufferUsage.COPY_SRC | BufferUsage.COPY_DST);
    upload(device, this.flags, new Float32Array([1, 0]));
  }

  /** The most boxes one binding holds. */
  static maxBoxes(device: GPUDevice): number {
    return Math.floor(bindingLimit(device) / POSE_BYTES);
  }

  /** Boxes set now. */
  get count(): number {
    return this.buffers?.count ?? 0;
  }

  /** Boxes and meshes. */
  get total(): number {
    return this.count + this.meshes.length;
  }

  /**
   * Room for `total` colliders, with the colliders in [from, from + count) moved to `to` (poses
   * and velocities, on the GPU: kinematic ones have moved there).
   */
  private reserve(total: number, moves: { from: number; to: number; count: number }[]): void {
    const held = this.buffers ? this.buffers.poses.size / POSE_BYTES : 0;
    const encoder = this.device.createCommandEncoder({ label: 'colliders moved' });
    const moved = moves.filter((m) => m.count > 0);
    if (total > held || !this.buffers) {
      const room = Math.max(total, 1, Math.min(WorldColliders.maxBoxes(this.device), Math.ceil(held * 1.5)));
      const usage = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
      const old = this.buffers;
      const oldBackup = this.backup;
      this.buffers = {
        poses: createBuffer(this.device, 'collider poses', POSE_BYTES * room, usage | BufferUsage.VERTEX),
        velocities: createBuffer(this.device, 'collider velocities', VELOCITY_BYTES * room, usage),
        count: old?.count ?? 0,
        meshes: old?.meshes ?? 0,
      };
      this.backup = createBuffer(this.device, 'collider poses backup', POSE_BYTES * room, usage);
      if (old) {
        for (const m of moved) {
          encoder.copyBufferToBuffer(
            old.poses,
            POSE_BYTES * m.from,
            this.buffers.poses,
            POSE_BYTES * m.to,
            POSE_BYTES * m.count,
          );
          encoder.copyBufferToBuffer(
            old.velocities,
            VELOCITY_BYTES * m.from,
            this.buffers.velocities,
            VELOCITY_BYTES * m.to,
            VELOCITY_BYTES * m.count,
          );
        }
        this.device.queue.submit([encoder.finish()]);
        old.poses.destroy();
        old.velocities.destroy();
        oldBackup?.destroy();
      }
      return;
    }
    const b = this.buffers;
    for (const m of moved.filter((x) => x.from !== x.to)) {
      encoder.copyBufferToBuffer(b.poses, POSE_BYTES * m.from, this.backup!, 0, POSE_BYTES * m.count);
      encoder.copyBufferToBuffer(this.backup!, 0, b.poses, POSE_BYTES * m.to, POSE_BYTES * m.count);
      encoder.copyBufferToBuffer(b.velocities, VELOCITY_BYTES * m.from, this.backup!, 0, VELOCITY_BYTES * m.count);
      encoder.copyBufferToBuffer(this.backup!, 0, b.velocities, VELOCITY_BYTES * m.to, VELOCITY_BYTES * m.count);
    }
    this.device.queue.submit([encoder.finish()]);
  }

  /** Uploads the boxes `packed` (through the queue), the meshes' poses kept after them. */
  set(packed: PackedColliders): void {
    const meshes = this.meshes.length;
    if (!this.buffers && packed.count === 0) return;
    this.reserve(packed.count + meshes, [{ from: this.count, to: packed.count, count: meshes }]);
    const b = this.buffers!;
    b.count = packed.count;
    if (packed.count > 0) {
      upload(this.device, b.poses, packed.poses);
      upload(this.device, b.velocities, packed.velocities);
    }
    this.writeMeshParams();
  }

  /** Uploads the meshes `packed` after the boxes (their poses and velocities as given). */
  setMeshes(packed: PackedMeshes): void {
    const boxes = this.count;
    this.reserve(boxes + packed.meshes.length, [{ from: 0, to: 0, count: boxes }]);
    const b = this.buffers!;
    b.meshes = packed.meshes.length;
    const previous = this.meshes;
    for (const old of this.meshes.slice(packed.meshes.length)) old.params.destroy();
    this.meshes = packed.meshes.map(
      (mesh, index) =>
        ({
          mesh,
          index,
          params:
            this.meshes[index]?.params ??
            createBuffer(
              this.device,
              'mesh find params',
              MeshFindParams.size,
              BufferUsage.UNIFORM | BufferUsage.COPY_DST,
            ),
        }) satisfies MeshBinding,
    );
    // A mesh set again in its place keeps the refit count its last step saw (a refit since then
    // still wakes its particles); the flags start clear, as the velocities uploaded below.
    this.seen = packed.meshes.map((mesh, i) => (previous[i]?.mesh === mesh ? this.seen[i] : mesh.version));
    this.flagged = packed.meshes.map(() => false);
    if (packed.meshes.length > 0) {
      this.device.queue.writeBuffer(b.poses, POSE_BYTES * boxes, packed.poses);
      this.device.queue.writeBuffer(b.velocities, VELOCITY_BYTES * boxes, packed.velocities);
    }
    this.writeMeshParams();
  }

  /** Each mesh's find parameters that do not change in a step: its index, triangles and first id. */
  private writeMeshParams(): void {
    let idBase = this.count;
    for (const m of this.meshes) {
      this.device.queue.writeBuffer(
        m.params,
        0,
        packStruct(MeshFindParams, { mesh: m.index, triangleCount: m.mesh.triangleCount, idBase }),
      );
      idBase += m.mesh.triangleCount;
    }
  }

  /**
   * Records, before a step, each mesh's deformation flag: set for the step after a refit (its
   * particles then wake), clear after.
   */
  markDeformed(encoder: GPUCommandEncoder): void {
    const b = this.buffers;
    if (!b) return;
    this.meshes.forEach((m, i) => {
      const deformed = m.mesh.version !== this.seen[i];
      this.seen[i] = m.mesh.version;
      if (deformed === this.flagged[i]) return;
      this.flagged[i] = deformed;
      encoder.copyBufferToBuffer(this.flags, deformed ? 0 : 4, b.velocities, VELOCITY_BYTES * (b.count + i) + 12, 4);
    });
  }

  /** Records a copy of the poses (a step moves the kinematic colliders), for `restore`. */
  save(encoder: GPUCommandEncoder): void {
    if (this.buffers && this.total > 0)
      encoder.copyBufferToBuffer(this.buffers.poses, 0, this.backup!, 0, POSE_BYTES * this.total);
  }

  /** Records putting back what `save` copied. */
  restore(encoder: GPUCommandEncoder): void {
    if (this.buffers && this.total > 0)
      encoder.copyBufferToBuffer(this.backup!, 0, this.buffers.poses, 0, POSE_BYTES * this.total);
  }

  destroy(): void {
    this.buffers?.poses.destroy();
    this.buffers?.velocities.destroy();
    this.backup?.destroy();
    for (const m of this.meshes) m.params.destroy();
    this.flags.destroy();
    this.meshes = [];
    this.buffers = null;
    this.backup = null;
  }
}
