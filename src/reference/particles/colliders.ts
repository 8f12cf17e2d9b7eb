/**
 * The twin of the particle solver's box colliders (shaders/particles/colliders.wgsl.ts): the
 * contacts each particle lists (colliderFind + colliderList), their prepare (colliderPrepare),
 * their part of a sweep, and the boxes' motion over a substep (colliderMove). A box is an
 * infinitely heavy body moving at its surface velocity v + ω × (point − centre).
 */
import { SLEEP_OVERLAP, REDUCE_COS, REDUCE_TIE } from '../../particles/step.js';
import { f32, dot, length, cross, boxGeometry, coulomb, type Vec3, type BoxGeometry } from './geometry.js';
import { posOf, target, keepsImpulse, push, type BoxSlot, type StepState, type ColliderState } from './state.js';
import { meshFind, triangleGeometry, type SlotTriangle } from './meshes.js';

/**
 * colliderSpeed: the fastest a box can send a particle within the step, the largest over the
 * boxes of (1 + restitution) × the speed of its fastest point (0 without boxes or motion).
 */
export function boxSpeedOf(colliders: ColliderState | undefined, restitution: number): number {
  if (!colliders) return 0;
  const { poses, velocities } = colliders;
  let fastest = 0;
  for (let k = 0; k < poses.length / 12; k++) {
    const surface = f32(
      f32(length(velocities.subarray(8 * k, 8 * k + 3))) +
        f32(
          f32(length(velocities.subarray(8 * k + 4, 8 * k + 7))) * f32(length(poses.subarray(12 * k + 4, 12 * k + 7))),
        ),
    );
    fastest = Math.max(fastest, f32(f32(1 + restitution) * surface));
  }
  return fastest;
}

/**
 * colliderFind + colliderList: each moving particle's boxes within margin + its travel + the
 * box's travel, by box index, warm-started from the last step's contact with the same box
 * (`before`, by particle index). A particle touching a moving box, gaining or losing a box, or
 * deeper in one than slop + SLEEP_OVERLAP·r, is not at rest.
 */
export function colliderList(state: StepState, before: Map<number, BoxSlot[]>): BoxSlot[][] {
  const { n, order, body, rest, boxCount, settings } = state;
  const { frameDt, margin, slop } = settings;
  const meshes = state.colliders?.meshes ?? [];
  const slotsOf: BoxSlot[][] = [];
  for (let t = 0; t < n; t++) {
    const id = order[t];
    const mineBefore = before.get(id) ?? [];
    const mine: BoxSlot[] = [];
    const s = posOf(state, t);
    const keep = (box: number, g: BoxGeometry, moving: boolean, triangle?: SlotTriangle) => {
      const old = mineBefore.find((c) => c.box === box);
      if (!old || moving || -g.gap - slop > SLEEP_OVERLAP * s[3]) rest.time[id] = 0;
      mine.push({
        box,
        triangle,
        impulse: old ? [...old.impulse] : [0, 0, 0, 0],
        n: [0, 0, 0],
        push: 0,
        surface: [0, 0, 0],
        target: 0,
        pseudo: 0,
        listed: triangle ? undefined : { n: g.n, surface: surfaceOf(state.colliders!, box, g) },
      });
    };
    if (body[8 * t + 3] > 0 && state.colliders) {
      const colliders = state.colliders;
      const bv = colliders.velocities;
      const travelOf = f32(length(body.subarray(8 * t, 8 * t + 3)) * frameDt);
      // Struck within the step by a faster particle, it may leave at up to (1 + e) times the
      // fastest particle's speed: boxes and triangles within that reach too, up to its radius.
      const struck = Math.min(f32(f32(1 + settings.restitution) * state.maxSpeed * frameDt), s[3]);
      for (let k = 0; k < boxCount; k++) {
        const travel =
          (length(bv.subarray(8 * k, 8 * k + 3)) +
            length(bv.subarray(8 * k + 4, 8 * k + 7)) * length(colliders.poses.subarray(12 * k + 4, 12 * k + 7))) *
          frameDt;
        const g = boxGeometry(s, colliders.poses, k);
        if (!(g.gap <= margin + travelOf + travel + struck)) continue;
        keep(k, g, movingCollider(bv, k));
      }
      let idBase = boxCount;
      const triangles: { box: number; g: BoxGeometry; moving: boolean; triangle: SlotTriangle }[] = [];
      meshes.forEach((mesh, m) => {
        const k = boxCount + m;
        const pose = colliders.poses.subarray(12 * k, 12 * k + 12);
        const path = body.subarray(8 * t, 8 * t + 3);
        for (const found of meshFind(s, path, mesh, m, pose, bv.subarray(8 * k, 8 * k + 8), margin, frameDt, struck)) {
          const g = triangleGeometry(s, found.triangle, pose.subarray(0, 3), pose.subarray(8, 12));
          triangles.push({ box: idBase + found.u, g, moving: movingCollider(bv, k), triangle: found.triangle });
        }
        idBase += mesh.ids.length;
      });
      // A triangle nearer along the same direction holds the particle first: the farther is dropped.
      // Nearer: by the gap in steps of REDUCE_TIE of the radius, then by id (a strict order).
      const step = f32(REDUCE_TIE * s[3]);
      const near = (c: { g: BoxGeometry }) => Math.floor(f32(c.g.gap) / step);
      for (const c of triangles) {
        const dropped = triangles.some(
          (o) =>
            o !== c && dot(o.g.n, c.g.n) >= REDUCE_COS && (near(o) < near(c) || (near(o) === near(c) && o.box < c.box)),
        );
        if (!dropped) keep(c.box, c.g, c.moving, c.triangle);
      }
    }
    if (mineBefore.some((c) => !mine.some((m) => m.box === c.box))) rest.time[id] = 0;
    slotsOf.push(mine);
  }
  return slotsOf;
}

/** The velocity of collider k's surface at the contact point of g: v + ω × (point − centre). */
function surfaceOf(colliders: ColliderState, k: number, g: BoxGeometry): Vec3 {
  const bv = colliders.velocities;
  const spin = cross(bv.subarray(8 * k + 4, 8 * k + 7), g.point);
  return [0, 1, 2].map((a) => f32(bv[8 * k + a] + spin[a])) as Vec3;
}

/** Whether collider k moves (a nonzero velocity) or was refitted since the last step (the flag in the linear velocity's w). */
function movingCollider(bv: Float32Array, k: number): boolean {
  return [0, 1, 2, 3, 4, 5, 6].some((a) => bv[8 * k + a] !== 0);
}

/**
 * colliderPrepare for the particle at sphere `s`, velocity `v` (gravity applied) and inverse
 * mass `w`: each slot's normal, surface velocity, targets and warm start (its friction impulse
 * kept in the new tangent plane); the warm start's change of velocity goes into `dv`. Returns
 * the slots (each one share of the particle's mass).
 */
export function colliderPrepare(
  state: StepState,
  slots: BoxSlot[],
  s: ArrayLike<number>,
  v: number[],
  w: number,
  dv: number[],
): number {
  const colliders = state.colliders!;
  const settings = state.settings;
  let splits = 0;
  for (const c of slots) {
    // A box, or mesh m's triangle (collider boxCount + m).
    const k = c.triangle ? state.boxCount + c.triangle.mesh : c.box;
    const p = colliders.poses;
    const g = c.triangle
      ? triangleGeometry(s, c.triangle, p.subarray(12 * k, 12 * k + 3), p.subarray(12 * k + 8, 12 * k + 12))
      : boxGeometry(s, p, k);
    const surface = surfaceOf(colliders, k, g);
    const vn0 = dot([surface[0] - v[0], surface[1] - v[1], surface[2] - v[2]], g.n);
    c.target = f32(target(settings, g.gap, vn0));
    c.n = g.n;
    c.push = f32(push(settings, g.gap));
    c.surface = surface;
    if (!keepsImpulse(settings, g.gap, vn0, s[3])) {
      c.impulse = [0, 0, 0, 0];
    } else {
      const lt = [c.impulse[1], c.impulse[2], c.impulse[3]];
      const along = dot(lt, g.n);
      c.impulse = [c.impulse[0], f32(lt[0] - along * g.n[0]), f32(lt[1] - along * g.n[1]), f32(lt[2] - along * g.n[2])];
    }
    for (let a = 0; a < 3; a++) dv[a] -= w * (c.impulse[0] * g.n[a] + c.impulse[1 + a]);
    c.pseudo = 0;
    splits++;
  }
  return splits;
}

/**
 * particleSettle's collider slots for a particle of velocity `v`, pseudo-velocity `vp` and
 * inverse mass `w`, slot by slot (each from what the one before left: `v` and `vp` updated):
 * normal, friction and position-correction impulses against a box moving at the slot's surface
 * velocity.
 */
export function colliderSolve(slots: BoxSlot[], friction: number, v: number[], vp: number[], w: number): void {
  for (const c of slots) {
    const rel = [0, 1, 2].map((a) => c.surface[a] - v[a]);
    const vn = dot(rel, c.n);
    const normal = f32(Math.max(c.impulse[0] + (c.target - vn) / w, 0));
    let lt = [c.impulse[1], c.impulse[2], c.impulse[3]];
    let dlt = [0, 0, 0];
    if (friction > 0) {
      const next = coulomb(
        lt,
        rel.map((r, a) => r - vn * c.n[a]),
        w,
        friction * normal,
      );
      dlt = next.map((x, a) => x - lt[a]);
      lt = next;
    }
    for (let a = 0; a < 3; a++) v[a] -= w * ((normal - c.impulse[0]) * c.n[a] + dlt[a]);
    c.impulse = [normal, f32(lt[0]), f32(lt[1]), f32(lt[2])];
    const pushed = f32(Math.max(c.pseudo + (c.push + dot(vp, c.n)) / w, 0));
    for (let a = 0; a < 3; a++) vp[a] -= w * (pushed - c.pseudo) * c.n[a];
    c.pseudo = pushed;
  }
}

/**
 * colliderMove: each kinematic box's pose advances over the substep h: its centre by v·h, its
 * orientation by q += ½·h·(ω, 0)·q, renormalized.
 */
export function colliderMove(state: StepState): void {
  const h = state.settings.h;
  for (let k = 0; k < state.boxCount + (state.colliders?.meshes?.length ?? 0); k++) {
    const bv = state.colliders!.velocities;
    const pose = state.colliders!.poses;
    if ([0, 1, 2].some((a) => bv[8 * k + a] !== 0))
      for (let a = 0; a < 3; a++) pose[12 * k + a] = f32(pose[12 * k + a] + bv[8 * k + a] * h);
    const w = bv.subarray(8 * k + 4, 8 * k + 7);
    if ([0, 1, 2].some((a) => w[a] !== 0)) {
      const q = pose.subarray(12 * k + 8, 12 * k + 12);
      const c = cross(w, q);
      const next = [
        q[0] + 0.5 * h * (w[0] * q[3] + c[0]),
        q[1] + 0.5 * h * (w[1] * q[3] + c[1]),
        q[2] + 0.5 * h * (w[2] * q[3] + c[2]),
        q[3] - 0.5 * h * dot(w, q),
      ];
      const len = Math.hypot(...next);
      for (let a = 0; a < 4; a++) q[a] = f32(next[a] / len);
    }
  }
}
