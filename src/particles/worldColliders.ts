/**
 * The particle world's colliders (docs/CONTRACT.md, "Box colliders" and "Mesh colliders"): the
 * world extends this class, and these methods hand each call to its stepper (which validates and
 * sets them) and its contacts out.
 */
import { checkEncoder } from '../checks.js';
import {
  ColliderContacts,
  MeshContacts,
  type WorldContacts,
  type ColliderContactList,
  type MeshContactList,
} from './colliderContacts.js';
import type { WorldColliders, ColliderSet, ColliderBuffers } from './colliders.js';
import type { MeshCollider } from './meshColliders.js';
import type { WorldStepper } from './stepping.js';

/** @internal What the collider calls use of their world. */
export interface WorldColliderParts {
  /** Throws when the world was destroyed or its device lost. */
  checkUsable(): void;
  /** Counts a change of the world (a step running meanwhile does not run again). */
  edited(): void;
  /** The particles set now. */
  readonly count: number;
  readonly stepper: WorldStepper;
  readonly contacts: WorldContacts;
  readonly colliders: WorldColliders;
}

/**
 * Box and mesh colliders and their contacts: {@link ParticleWorld} has these methods.
 *
 * @category Particle world
 */
export abstract class ParticleWorldColliders {
  /** @internal */
  protected abstract get colliderParts(): WorldColliderParts;

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
    const world = this.colliderParts;
    world.checkUsable();
    world.stepper.setColliders(set);
    world.edited();
  }

  /**
   * Records, into `encoder`, the collider contacts of the last step recorded before it: which
   * particle touches which box, with the normal impulse of the step's last substep, left on the
   * GPU ({@link ColliderContacts}: records, the true count even past capacity, indirect
   * arguments for a kernel of yours); its `read()` answers after the submission. Pass the last
   * result as `into` to reuse its buffers (it grows to the count its last `read()` saw).
   */
  encodeColliderContacts(encoder: GPUCommandEncoder, into?: ColliderContacts): ColliderContacts {
    const world = this.colliderParts;
    world.checkUsable();
    checkEncoder(encoder);
    return world.contacts.encode(ColliderContacts, encoder, world.count, into);
  }

  /**
   * The collider contacts of the last step (particles, boxes and normal impulses, one entry a
   * contact, in no particular order), read back; none is dropped (the list grows and the call
   * runs again).
   */
  async colliderContacts(): Promise<ColliderContactList> {
    const world = this.colliderParts;
    world.checkUsable();
    world.edited();
    return world.contacts.read(ColliderContacts, world.count);
  }

  /**
   * Sets the world's mesh colliders: meshes made by `collider.createMesh` on this world's device,
   * solved with the particles' own contacts and the boxes (each triangle an infinitely heavy
   * body), from either side of a triangle, with no seam between triangles in one plane (CONTRACT,
   * "Mesh colliders"). `pose` (centre, quaternion x, y, z, w) places a mesh; `velocity` (linear,
   * then angular in rad/s about the pose's centre) makes it kinematic, moved by each step;
   * `mesh.refit` (or `encodeRefit` recorded before a step) deforms it and wakes what touches it.
   * The same meshes again set new poses and keep the warm start; others wake every particle,
   * cold; `[]` removes them. Invalid input throws InvalidInputError naming the argument, the mesh
   * and the rule, and the world keeps its last meshes.
   *
   * @example
   * ```ts
   * const collider = await createCollider({ device: world.device });
   * const terrain = collider.createMesh({ positions, indices });
   * // The terrain where it is, and a paddle mesh turning at 2 rad/s about y.
   * world.setMeshes([{ mesh: terrain }, { mesh: paddle, pose: [0, 1, 0, 0, 0, 0, 1], velocity: [0, 0, 0, 0, 2, 0] }]);
   * ```
   */
  setMeshes(meshes: readonly MeshCollider[]): void {
    const world = this.colliderParts;
    world.checkUsable();
    world.stepper.setMeshes(meshes);
    world.edited();
  }

  /**
   * Records, into `encoder`, the mesh contacts of the last step recorded before it: which
   * particle touches which triangle of which mesh, with the normal impulse of the step's last
   * substep, left on the GPU ({@link MeshContacts}: records, the true count even past capacity,
   * indirect arguments); its `read()` answers after the submission. Pass the last result as
   * `into` to reuse its buffers.
   */
  encodeMeshContacts(encoder: GPUCommandEncoder, into?: MeshContacts): MeshContacts {
    const world = this.colliderParts;
    world.checkUsable();
    checkEncoder(encoder);
    return world.contacts.encode(MeshContacts, encoder, world.count, into);
  }

  /**
   * The mesh contacts of the last step (particles, meshes, triangles and normal impulses, one
   * entry a contact, in no particular order), read back; none is dropped.
   */
  async meshContacts(): Promise<MeshContactList> {
    const world = this.colliderParts;
    world.checkUsable();
    world.edited();
    return world.contacts.read(MeshContacts, world.count);
  }

  /**
   * The box colliders' GPU buffers (poses and velocities by box index, the layouts in
   * {@link ColliderBuffers}), or null before the first `setColliders`. A kernel of yours may
   * write them between steps (a step reads them as they are); `setColliders` with more boxes
   * than they hold replaces them.
   */
  get colliderBuffers(): Readonly<ColliderBuffers> | null {
    return this.colliderParts.colliders.buffers;
  }
}
