/**
 * The twin of the particle solver's substep (shaders/particles/substep.wgsl.ts): the prepare of
 * every contact (particlePrepare, with colliderPrepare; then the walls', particlePrepareWalls of
 * shaders/particles/walls.wgsl.ts), the walls of particleSettle (the sweeps
 * over the pairs are ./colouring.ts) and the integration the last sweep does. See
 * src/reference/particles.ts for the math.
 */
import { f32, dot, pairGeometry, coulomb, type Vec3 } from './geometry.js';
import { colliderPrepare } from './colliders.js';
import {
  posOf,
  target,
  keepsImpulse,
  push,
  wallGap,
  noWall,
  type Contacts,
  type Entry,
  type StepState,
  type Wall,
} from './state.js';

/**
 * particlePrepare's pair entries of the particle at t (sphere `s`, velocity `v` with gravity,
 * inverse mass `w`): each active entry's normal, targets and warm start (friction kept in the
 * new tangent plane), the warm start's change of velocity into `dv`; a dormant entry starts
 * from 0. Returns the active entries.
 */
function preparePairs(
  state: StepState,
  list: Entry[],
  s: ArrayLike<number>,
  id: number,
  v: number[],
  w: number,
  dv: number[],
): number {
  const { body, settings } = state;
  let splits = 0;
  for (const c of list) {
    if (c.dormant) {
      c.impulse = [0, 0, 0, 0];
      continue;
    }
    const u = c.nbr;
    const qw = body[8 * u + 3];
    const qv = [0, 1, 2].map((a) => body[8 * u + a] + (qw > 0 ? settings.gravityStep[a] : 0));
    const g = pairGeometry(s, id, posOf(state, u), c.id, c.n);
    const vn0 = dot([qv[0] - v[0], qv[1] - v[1], qv[2] - v[2]], g.n);
    c.target = f32(target(settings, g.gap, vn0));
    // The sweeps of this substep reuse the geometry: positions move only after them.
    c.n = g.n;
    c.push = f32(push(settings, g.gap));
    if (!keepsImpulse(settings, g.gap, vn0, Math.min(s[3], posOf(state, u)[3]))) {
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
 * particlePrepareWalls (shaders/particles/walls.wgsl.ts): on each axis the nearer wall, a contact when the sphere may reach it
 * within the substep plus the margin; kept warm from the last substep on the same side while it
 * stays closed. The warm start's change of velocity goes into `dv`; returns the contacts.
 */
function prepareWalls(
  state: StepState,
  mine: [Wall, Wall, Wall],
  s: ArrayLike<number>,
  v: number[],
  w: number,
  dv: number[],
): number {
  const settings = state.settings;
  const { h, margin } = settings;
  let splits = 0;
  for (let axis = 0; axis < 3; axis++) {
    let c = noWall();
    if (settings.bounds && w > 0) {
      const low = wallGap(settings, s, axis, -1);
      const high = wallGap(settings, s, axis, 1);
      const side = low <= high ? -1 : 1;
      const gap = Math.min(low, high);
      const vn0 = -v[axis] * side;
      if (gap + Math.min(vn0, 0) * h <= margin) {
        c = { ...mine[axis], tangent: [...mine[axis].tangent] };
        if (c.side !== side || !keepsImpulse(settings, gap, vn0, s[3])) c = { ...noWall(), side };
        c.target = f32(target(settings, gap, vn0));
        dv[axis] -= w * c.normal * side;
        dv[(axis + 1) % 3] -= w * c.tangent[0];
        dv[(axis + 2) % 3] -= w * c.tangent[1];
        splits++;
      }
    }
    c.pseudo = 0;
    mine[axis] = c;
  }
  return splits;
}

/**
 * particlePrepare: gravity, then every contact's geometry and targets for the substep and its
 * warm start; the new bodies hold v + the warm start's change and the particle's contact count
 * (the mass splitting's share). A sleeper's bodies stay 0 and its entries and walls as they were.
 */
export function particlePrepare(state: StepState, contacts: Contacts): void {
  const { n, order, body, settings } = state;
  const next = new Float32Array(8 * n);
  for (let t = 0; t < n; t++) {
    if (contacts.asleep[t]) continue;
    const s = posOf(state, t);
    const w = body[8 * t + 3];
    const v = [0, 1, 2].map((a) => body[8 * t + a] + (w > 0 ? settings.gravityStep[a] : 0));
    const dv = [0, 0, 0];
    // colliderPrepare's warm start and count come first, as the GPU's prepare starts from them.
    let splits = colliderPrepare(state, contacts.slotsOf[t], s, v, w, dv);
    splits += preparePairs(state, contacts.lists[t], s, order[t], v, w, dv);
    for (let a = 0; a < 3; a++) next[8 * t + a] = v[a] + dv[a];
    // particlePrepareWalls, after the prepare: the walls' warm start added to the body it wrote.
    const wallDv = [0, 0, 0];
    splits += prepareWalls(state, contacts.walls[t], s, v, w, wallDv);
    for (let a = 0; a < 3; a++) next[8 * t + a] += wallDv[a];
    next[8 * t + 3] = w;
    next[8 * t + 7] = splits;
  }
  state.body = next;
}

/**
 * particleSettle's wall contacts of the particle at sphere `s`, axis by axis, each as a pair with a
 * partner of inverse mass 0 at rest, solved with the particle's whole inverse mass `w` from the
 * velocity `v` and pseudo-velocity `vp` the axis before left (both updated).
 */
export function solveWalls(
  state: StepState,
  walls: [Wall, Wall, Wall],
  s: ArrayLike<number>,
  v: number[],
  vp: number[],
  w: number,
): void {
  const settings = state.settings;
  const friction = settings.friction;
  for (let axis = 0; axis < 3; axis++) {
    const c = walls[axis];
    if (c.side === 0) continue;
    const nv: Vec3 = [0, 0, 0];
    nv[axis] = c.side;
    const vn = -dot(v, nv);
    const normal = f32(Math.max(c.normal + (c.target - vn) / w, 0));
    let lt: number[] = [0, 0, 0];
    lt[(axis + 1) % 3] = c.tangent[0];
    lt[(axis + 2) % 3] = c.tangent[1];
    let dlt = [0, 0, 0];
    if (friction > 0) {
      const next = coulomb(
        lt,
        [0, 1, 2].map((a) => -v[a] - vn * nv[a]),
        w,
        friction * normal,
      );
      dlt = next.map((x, a) => x - lt[a]);
      lt = next;
    }
    for (let a = 0; a < 3; a++) v[a] -= w * ((normal - c.normal) * nv[a] + dlt[a]);
    c.normal = normal;
    c.tangent = [f32(lt[(axis + 1) % 3]), f32(lt[(axis + 2) % 3])];
    const pushed = f32(Math.max(c.pseudo + (push(settings, wallGap(settings, s, axis, c.side)) + dot(vp, nv)) / w, 0));
    vp[axis] -= w * (pushed - c.pseudo) * c.side;
    c.pseudo = pushed;
  }
}

/**
 * The last sweep's integration: x += (v + p)·h for each moving particle, the sphere clamped
 * inside the bounds (centred where the box is narrower than it), a velocity into a wall it was
 * clamped at dropped.
 */
export function particleIntegrate(state: StepState): void {
  const { n, pos, body, settings } = state;
  const { bounds, h } = settings;
  for (let t = 0; t < n; t++) {
    const w = body[8 * t + 3];
    if (!(w > 0)) continue;
    const r = pos[4 * t + 3];
    for (let a = 0; a < 3; a++) {
      let v = body[8 * t + a];
      let x = f32(pos[4 * t + a] + (v + body[8 * t + 4 + a]) * h);
      if (bounds) {
        let lo = f32(bounds[a] + r);
        let hi = f32(bounds[a + 3] - r);
        if (lo > hi) lo = hi = f32(f32(bounds[a] + bounds[a + 3]) * 0.5);
        if (x < lo) v = Math.max(v, 0);
        if (x > hi) v = Math.min(v, 0);
        x = Math.min(Math.max(x, lo), hi);
      }
      pos[4 * t + a] = x;
      body[8 * t + a] = v;
    }
  }
}
