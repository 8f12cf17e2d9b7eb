/**
 * The twin of the step's choice of pairs: each particle's strike bound (particleSplit,
 * shaders/particles/split.wgsl.ts) and the first prepare's test of each listed pair
 * (formula.pairReach, shaders/particles/substep.wgsl.ts), in f32 as the GPU computes them.
 */
import { f32 } from './geometry.js';
import { posOf, reachOf, gapOf, active, type Contacts, type StepState } from './state.js';
import { STRUCK_REACH } from '../../particles/step.js';

const sub3 = (a: ArrayLike<number>, b: ArrayLike<number>): number[] => [
  f32(a[0] - b[0]),
  f32(a[1] - b[1]),
  f32(a[2] - b[2]),
];
const dot32 = (a: ArrayLike<number>, b: ArrayLike<number>): number =>
  f32(f32(f32(a[0] * b[0]) + f32(a[1] * b[1])) + f32(a[2] * b[2]));
const length32 = (a: ArrayLike<number>): number => f32(Math.sqrt(dot32(a, a)));

/** The split's test whether a wall is within reach of the moving particle at t in the step (or it has a wall contact). */
function walled(state: StepState, contacts: Contacts, t: number): boolean {
  const { settings, body } = state;
  const bounds = settings.bounds;
  if (!bounds) return false;
  if (contacts.walls[t].some((wall) => wall.side !== 0)) return true;
  const s = posOf(state, t);
  const v = body.subarray(8 * t, 8 * t + 3);
  const travel = f32(f32(length32(v) + f32(settings.gravityLength * settings.frameDt)) * settings.frameDt);
  for (let a = 0; a < 3; a++) {
    const low = f32(f32(s[a] - s[3]) - bounds[a]);
    const high = f32(bounds[a + 3] - f32(s[a] + s[3]));
    const gap = Math.min(low, high);
    const rounding = f32(
      f32(1e-4 * f32(Math.abs(gap) + f32(s[3] + travel))) +
        f32(1e-5 * f32(f32(Math.abs(s[a]) + Math.abs(bounds[a])) + Math.abs(bounds[a + 3]))),
    );
    if (gap <= f32(f32(f32(2 * settings.margin) + f32(2 * travel)) + rounding)) return true;
  }
  return false;
}

/**
 * particleSplit's strike bounds, by position: for a moving particle awake this step, (1 + e)
 * times the fastest of its approach to a listed partner it may touch within the step at that
 * speed (and within both reaches) times its share of the pair's inverse mass, its approach to a box it lists along the box's normal (plus
 * gravity's over the step; its speed plus the fastest box's for a mesh's triangle), its speed
 * with a wall within reach; 0 for any other.
 */
export function particleStrikes(state: StepState, contacts: Contacts): Float32Array {
  const { n, body, settings } = state;
  const strike = new Float32Array(n);
  for (let t = 0; t < n; t++) {
    if (contacts.asleep[t] || !(body[8 * t + 3] > 0)) continue;
    const s = posOf(state, t);
    const vt = body.subarray(8 * t, 8 * t + 3);
    let fastest = walled(state, contacts, t) ? length32(vt) : 0;
    for (const c of contacts.slotsOf[t]) {
      // A box: its approach along the normal where colliderList found it, and gravity's over the
      // step; a triangle: the particle's speed and the fastest box's.
      const approach = c.listed
        ? f32(
            Math.max(dot32(sub3(vt, c.listed.surface), c.listed.n), 0) + f32(settings.gravityLength * settings.frameDt),
          )
        : f32(length32(vt) + settings.boxSpeed);
      fastest = Math.max(fastest, approach);
    }
    for (const c of contacts.lists[t]) {
      const q = posOf(state, c.nbr);
      const rel = sub3(body.subarray(8 * c.nbr, 8 * c.nbr + 3), vt);
      const d = sub3(q, s);
      const dist = f32(Math.sqrt(dot32(d, d)));
      const approach = dist > 0 ? f32(-dot32(rel, d) / dist) : length32(rel);
      const touchable = Math.min(f32(approach * settings.frameDt), f32(reachOf(state, t) + reachOf(state, c.nbr)));
      // Its share of the pair's inverse mass: what one strike at that approach changes its speed by.
      const share = f32(body[8 * t + 3] / f32(body[8 * t + 3] + body[8 * c.nbr + 3]));
      if (f32(dist - f32(s[3] + q[3])) <= f32(settings.margin + touchable))
        fastest = Math.max(fastest, f32(approach * share));
    }
    strike[t] = f32((1 + settings.restitution) * fastest);
  }
  return strike;
}

/** formula.struck: how far a kinematic box may send the moving particle at t in the step. */
function struckOf(state: StepState, t: number): number {
  const { settings, body, pos } = state;
  return body[8 * t + 3] > 0
    ? Math.min(f32(settings.boxSpeed * settings.frameDt), f32(STRUCK_REACH * pos[4 * t + 3]))
    : 0;
}

/**
 * The first prepare's choice: each entry of an awake particle takes part in the step's solve
 * (else it is dormant) when the pair's gap is within the margin plus formula.pairReach.
 */
export function particleActivate(state: StepState, contacts: Contacts): void {
  const { n, body, settings } = state;
  const strike = particleStrikes(state, contacts);
  contacts.strike = strike;
  const lift = f32(settings.gravityLength * settings.frameDt);
  for (let t = 0; t < n; t++) {
    if (contacts.asleep[t]) continue;
    const moving = body[8 * t + 3] > 0;
    for (const c of contacts.lists[t]) {
      const u = c.nbr;
      const rel = length32(sub3(body.subarray(8 * u, 8 * u + 3), body.subarray(8 * t, 8 * t + 3)));
      const speed = f32(f32(rel + (moving !== body[8 * u + 3] > 0 ? lift : 0)) + f32(strike[t] + strike[u]));
      const relative = f32(f32(speed * settings.frameDt) + f32(struckOf(state, t) + struckOf(state, u)));
      const pairReach = Math.min(relative, f32(reachOf(state, t) + reachOf(state, u)));
      c.dormant = !active(settings, gapOf(posOf(state, t), posOf(state, u)), pairReach);
    }
  }
}
