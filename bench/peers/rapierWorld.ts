/**
 * A Rapier world of falling and bouncing balls, built the way a Rapier user would: every
 * particle a dynamic rigid body with a ball collider (density 1, the restitution and friction
 * given, Rapier's default combine rule: the average), the bounds as six fixed cuboid walls
 * (half-thickness 1, outside the box, overlapping at the edges), gravity as given, the
 * integration step 1/60 s, and everything else Rapier's defaults (solver iterations, sleeping,
 * no CCD). `boxes` (optional) adds static oriented boxes as fixed cuboid colliders with their
 * rotations and the same restitution and friction (the collider suite's field); with `moving`,
 * each is a cuboid on a kinematic position-based body instead, which `poseBoxes` moves to the
 * pose it should reach by the end of the next step (Rapier gives it the velocity that does so:
 * the drum). `trimesh` (optional) adds a static triangle mesh as one fixed
 * `ColliderDesc.trimesh` collider with the same restitution and friction, built with
 * `TriMeshFlags.FIX_INTERNAL_EDGES` (Rapier's remedy for balls that catch on the edges between a
 * mesh's triangles; the mesh must face outward: the terrain's triangles face up). `step` times
 * `world.step()` alone; `read` copies positions and velocities out.
 * Rapier must be initialised first (`initRapier` in ./rapier.js).
 */
import RAPIER from '@dimforge/rapier3d-compat';
import type { ParticleScene } from '../../test/support/pile.js';

export interface RapierPileOptions {
  /** Rapier's default is 0. */
  restitution: number;
  /** Rapier's default is 0.5. */
  friction: number;
  gravity: ArrayLike<number>;
  /** Integration step, seconds. Default 1/60 (also Rapier's). */
  dt?: number;
  /** Static oriented boxes, 10 floats each: cx, cy, cz, hx, hy, hz, qx, qy, qz, qw (the particle world's `setColliders` layout). */
  boxes?: Float32Array;
  /** The boxes move: kinematic position-based bodies, posed by `poseBoxes`. */
  moving?: boolean;
  /** A static triangle mesh: x, y, z a vertex and three vertex indices a triangle (its normals outward). */
  trimesh?: { vertices: Float32Array; indices: Uint32Array };
}

export interface RapierPile {
  /** Advances one step; returns the milliseconds `world.step()` took. */
  step(): number;
  /** The state now: spheres (x, y, z, radius as given) and velocities (vx, vy, vz). */
  read(): { spheres: Float32Array; velocities: Float32Array };
  /** Sets where each moving box is to be at the end of the next step (10 floats a box, as `boxes`). */
  poseBoxes(boxes: Float32Array): void;
  /** Rapier's settings in effect, for the notes. */
  readonly settings: { numSolverIterations: number; dt: number };
  /** Milliseconds building the world took. */
  readonly setupMs: number;
  free(): void;
}

const WALL_HALF_THICKNESS = 1;

export function createRapierPile(
  scene: ParticleScene,
  { restitution, friction, gravity, dt = 1 / 60, boxes, moving = false, trimesh }: RapierPileOptions,
): RapierPile {
  const t0 = performance.now();
  const n = scene.spheres.length / 4;
  const world = new RAPIER.World({ x: gravity[0], y: gravity[1], z: gravity[2] });
  world.timestep = dt;
  const [x0, y0, z0, x1, y1, z1] = scene.bounds;
  const centre = [(x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2];
  const half = [(x1 - x0) / 2, (y1 - y0) / 2, (z1 - z0) / 2];
  const t = WALL_HALF_THICKNESS;
  for (let axis = 0; axis < 3; axis++) {
    for (const side of [-1, 1]) {
      const position = [...centre];
      position[axis] += side * (half[axis] + t);
      // Thin along its axis, the box's size plus the walls' thickness along the others.
      const extents = half.map((h, a) => (a === axis ? t : h + 2 * t));
      world.createCollider(
        RAPIER.ColliderDesc.cuboid(extents[0], extents[1], extents[2])
          .setTranslation(position[0], position[1], position[2])
          .setRestitution(restitution)
          .setFriction(friction),
      );
    }
  }
  if (boxes && boxes.length % 10 !== 0)
    throw new Error(`createRapierPile: boxes take 10 floats each, got ${boxes.length}`);
  const kinematic: RAPIER.RigidBody[] = [];
  for (let k = 0; boxes && k < boxes.length / 10; k++) {
    const b = boxes.subarray(10 * k, 10 * k + 10);
    const l = Math.hypot(b[6], b[7], b[8], b[9]);
    const rotation = { x: b[6] / l, y: b[7] / l, z: b[8] / l, w: b[9] / l };
    const cuboid = RAPIER.ColliderDesc.cuboid(b[3], b[4], b[5]).setRestitution(restitution).setFriction(friction);
    if (moving) {
      const body = world.createRigidBody(
        RAPIER.RigidBodyDesc.kinematicPositionBased().setTranslation(b[0], b[1], b[2]).setRotation(rotation),
      );
      world.createCollider(cuboid, body);
      kinematic.push(body);
    } else {
      world.createCollider(cuboid.setTranslation(b[0], b[1], b[2]).setRotation(rotation));
    }
  }
  if (trimesh)
    world.createCollider(
      RAPIER.ColliderDesc.trimesh(trimesh.vertices, trimesh.indices, RAPIER.TriMeshFlags.FIX_INTERNAL_EDGES)
        .setRestitution(restitution)
        .setFriction(friction),
    );
  const bodies: RAPIER.RigidBody[] = [];
  for (let i = 0; i < n; i++) {
    const s = scene.spheres;
    const v = scene.velocities;
    const body = world.createRigidBody(
      RAPIER.RigidBodyDesc.dynamic()
        .setTranslation(s[4 * i], s[4 * i + 1], s[4 * i + 2])
        .setLinvel(v[3 * i], v[3 * i + 1], v[3 * i + 2]),
    );
    world.createCollider(
      RAPIER.ColliderDesc.ball(s[4 * i + 3])
        .setDensity(1)
        .setRestitution(restitution)
        .setFriction(friction),
      body,
    );
    bodies.push(body);
  }
  const setupMs = performance.now() - t0;
  return {
    setupMs,
    settings: { numSolverIterations: world.numSolverIterations, dt: world.timestep },
    poseBoxes(next: Float32Array): void {
      for (let k = 0; k < kinematic.length; k++) {
        const b = next.subarray(10 * k, 10 * k + 10);
        const l = Math.hypot(b[6], b[7], b[8], b[9]);
        kinematic[k].setNextKinematicTranslation({ x: b[0], y: b[1], z: b[2] });
        kinematic[k].setNextKinematicRotation({ x: b[6] / l, y: b[7] / l, z: b[8] / l, w: b[9] / l });
      }
    },
    step(): number {
      const start = performance.now();
      world.step();
      return performance.now() - start;
    },
    read() {
      const spheres = new Float32Array(4 * n);
      const velocities = new Float32Array(3 * n);
      for (let i = 0; i < n; i++) {
        const p = bodies[i].translation();
        const v = bodies[i].linvel();
        spheres[4 * i] = p.x;
        spheres[4 * i + 1] = p.y;
        spheres[4 * i + 2] = p.z;
        spheres[4 * i + 3] = scene.spheres[4 * i + 3];
        velocities[3 * i] = v.x;
        velocities[3 * i + 1] = v.y;
        velocities[3 * i + 2] = v.z;
      }
      return { spheres, velocities };
    },
    free(): void {
      world.free();
    },
  };
}
