/**
 * What the particle twin's stages share within a step: the records the GPU keeps (contact list
 * entries, wall and collider contacts, sleep records), the step's settings as the GPU reads them
 * (f32), and the positions and bodies in the order of the last search.
 */
import type { MeshTwin, SlotTriangle } from './meshes.js';
import { STRUCK_REACH, KEEP_OPENING, type StepParams } from '../../particles/step.js';
import { f32, length, type Vec3 } from './geometry.js';

/** The largest f32: a larger sleepTime (Infinity) is sleep off. */
export const MAX_SLEEP_TIME = 3.4028234663852886e38;

/** One entry of a particle's contact list (ParticleContact). */
export interface Entry {
  nbr: number;
  /** Listed thanks to the skin alone: out of this step's solve (the GPU's DORMANT_BIT on nbr). */
  dormant: boolean;
  id: number;
  impulse: [number, number, number, number];
  /** The unit normal toward the partner, fixed for a substep (set by the prepare; the fill sets the pair's hashed one, for coincident centres). */
  n: Vec3;
  /** The pseudo-velocity the position correction aims at, fixed for a substep. */
  push: number;
  target: number;
  pseudo: number;
}

/** A particle's wall contact on one axis (ParticleWalls): side −1 lower, +1 upper, 0 none. */
export interface Wall {
  normal: number;
  side: number;
  tangent: [number, number];
  target: number;
  pseudo: number;
}

export const noWall = (): Wall => ({ normal: 0, side: 0, tangent: [0, 0], target: 0, pseudo: 0 });

/**
 * Box colliders as the GPU holds them (world.colliderBuffers): poses, 12 floats a box (centre, 0,
 * half extents, 0, unit quaternion x, y, z, w), and velocities, 8 floats a box (linear, 0,
 * angular, 0). The twin's step moves the poses, as colliderMove does.
 */
export interface ColliderState {
  /** 12 floats a box: centre, 0, half extents, 0, unit quaternion; then the meshes' (centre, 0, reach, 0, quaternion). */
  poses: Float32Array;
  /** 8 floats a box, then a mesh: linear velocity, the mesh's refit flag, angular velocity, 0. */
  velocities: Float32Array;
  /** The mesh colliders, whose poses and velocities follow the boxes'. */
  meshes?: MeshTwin[];
}

/** A particle's contact with a box or a mesh's triangle (ParticleColliderContact). */
export interface BoxSlot {
  /** The box's index, or boxCount + the mesh's first id + the triangle's tree position. */
  box: number;
  /** A mesh's triangle (slotTriangles), or undefined for a box. */
  triangle?: SlotTriangle;
  impulse: [number, number, number, number];
  n: Vec3;
  push: number;
  surface: Vec3;
  target: number;
  pseudo: number;
  /** A box's normal and surface velocity where colliderList found it (the split's strike bound); undefined for a triangle. */
  listed?: { n: Vec3; surface: Vec3 };
}

/** By particle index (ParticleRest): where it ended the last step, its time at rest, whether it slept, its list's length, whether it was static. */
export interface Rest {
  position: Float32Array;
  time: Float32Array;
  slept: Uint8Array;
  entries: Uint32Array;
  isStatic: Uint8Array;
}

export const emptyRest = (n: number): Rest => ({
  position: new Float32Array(3 * n),
  time: new Float32Array(n),
  slept: new Uint8Array(n),
  entries: new Uint32Array(n),
  isStatic: new Uint8Array(n),
});

/** The step's settings as the GPU reads them (ParticleParams): f32. */
export interface Settings {
  /** The substep. */
  h: number;
  frameDt: number;
  margin: number;
  skin: number;
  threshold: number;
  restitution: number;
  percent: number;
  slop: number;
  maxPush: number;
  friction: number;
  sleepSpeed: number;
  sleepTime: number;
  /** The walls, or null. */
  bounds: number[] | null;
  /** Gravity's change of velocity over a substep. */
  gravityStep: number[];
  /** |g|. */
  gravityLength: number;
  substeps: number;
  iterations: number;
  /** The fastest a moving box can send a particle this step (colliderSpeed): 0 without moving boxes. */
  boxSpeed: number;
}

export function settingsOf(p: StepParams): Settings {
  const h = f32(p.dt / p.substeps);
  return {
    h,
    frameDt: f32(p.dt),
    margin: f32(p.margin),
    skin: f32(p.skin),
    threshold: f32(p.restitutionThreshold),
    restitution: f32(p.restitution),
    percent: f32(p.percent),
    slop: f32(p.slop),
    maxPush: f32(p.maxPushSpeed),
    friction: f32(p.friction),
    sleepSpeed: f32(p.sleepSpeed),
    sleepTime: f32(p.sleepTime),
    bounds: p.bounds ? p.bounds.map(f32) : null,
    gravityStep: p.gravity.map((g) => f32(f32(g) * h)),
    gravityLength: f32(length(p.gravity.map(f32))),
    substeps: p.substeps,
    iterations: p.iterations,
    boxSpeed: 0,
  };
}

/** The particles as the kernels see them within a step: by position in the search's order. */
export interface StepState {
  settings: Settings;
  n: number;
  /** Particle index by position. */
  order: Uint32Array;
  /** x, y, z, r by position. */
  pos: Float32Array;
  /** v.xyz, inverse mass, p.xyz (pseudo-velocity), splits by position (ParticleBody); a static particle's v is 0. */
  body: Float32Array;
  /** The fastest moving particle's speed. */
  maxSpeed: number;
  rest: Rest;
  colliders: ColliderState | undefined;
  boxCount: number;
}

/** The contacts a step solves, by position. */
export interface Contacts {
  lists: Entry[][];
  slotsOf: BoxSlot[][];
  walls: [Wall, Wall, Wall][];
  /** Asleep for this step. */
  asleep: Uint8Array;
  /** Each particle's strike bound (particleSplit's, by position: particleActivate writes it). */
  strike?: Float32Array;
}

export const posOf = (state: StepState, t: number): Float32Array => state.pos.subarray(4 * t, 4 * t + 4);

/**
 * How far a particle (velocity v, inverse mass w, radius r) travels in the step, at most its
 * radius; a moving one at least as far as a box can send it, at most STRUCK_REACH · r (formula.reach).
 */
export const reachFor = (s: Settings, v: ArrayLike<number>, w: number, r: number): number =>
  Math.max(
    Math.min(f32(f32(length(v)) * s.frameDt), r),
    w > 0 ? Math.min(f32(s.boxSpeed * s.frameDt), f32(STRUCK_REACH * r)) : 0,
  );

/** How far the particle at t travels in the step, at most its radius. */
export const reachOf = (state: StepState, t: number): number =>
  reachFor(state.settings, state.body.subarray(8 * t, 8 * t + 3), state.body[8 * t + 3], state.pos[4 * t + 3]);

/** |AB| − rA − rB in f32, summed as the GPU sums it. */
export function gapOf(s: ArrayLike<number>, q: ArrayLike<number>): number {
  const d = [f32(q[0] - s[0]), f32(q[1] - s[1]), f32(q[2] - s[2])];
  return f32(f32(Math.sqrt(f32(f32(f32(d[0] * d[0]) + f32(d[1] * d[1])) + f32(d[2] * d[2])))) - f32(s[3] + q[3]));
}

/** Solved this step: what a search without the skin would list. */
export const active = (s: Settings, gap: number, pairReach: number): boolean => gap <= f32(s.margin + pairReach);

/** The target normal velocity: a bounce (it closes within the substep), speculative (a gap the substep may close, no more), or 0. */
export function target(s: Settings, gap: number, vn0: number): number {
  if (vn0 < -s.threshold && gap + vn0 * s.h <= 0) return -s.restitution * vn0;
  if (gap > 0) return -gap / s.h;
  return 0;
}

/**
 * Warm start only a contact that stays closed through the substep, to within KEEP_OPENING of its
 * size r, and is not separating (a bounce's impulse, applied again, would throw the particles apart).
 */
export const keepsImpulse = (s: Settings, gap: number, vn0: number, r: number): boolean =>
  gap + vn0 * s.h <= KEEP_OPENING * (Math.abs(gap) + Math.abs(vn0 * s.h) + r);

/** The pseudo-velocity the position correction aims at: the overlap beyond slop, a share a substep, capped. */
export const push = (s: Settings, gap: number): number => Math.min((s.percent * (-gap - s.slop)) / s.h, s.maxPush);

/** The sphere's gap to the lower (side −1) or upper wall on an axis. */
export function wallGap(settings: Settings, s: ArrayLike<number>, axis: number, side: number): number {
  const bounds = settings.bounds!;
  return side < 0 ? f32(s[axis] - s[3]) - bounds[axis] : bounds[axis + 3] - f32(s[axis] + s[3]);
}
