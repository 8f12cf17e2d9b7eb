/**
 * The twin of the particle solver's search (shaders/particles/search.wgsl.ts): particleGather's
 * wake and its test whether the lists still hold, particleDecide, the gather of positions and
 * bodies in the search's order (particleStable) or the last one's (particleGather), and either
 * the contact lists (particleCount + particleFill) or the carry of the last ones (particleCarry).
 */
import { EXT_SCALE } from '../../spatial/level.js';
import type { GridPlan } from '../../spatial/plan.js';
import { walkRows, cellRange, type WalkableGrid } from '../grid.js';
import { MOVE_ROUNDING } from '../../particles/step.js';
import { f32, length } from './geometry.js';
import {
  posOf,
  reachOf,
  reachFor,
  gapOf,
  type Entry,
  type Rest,
  type Settings,
  type StepState,
  type ColliderState,
} from './state.js';

/** What the last step left for this one's search: its order, and each position's radius and whether it was static. */
export interface LastSearch {
  order: Uint32Array | null;
  radius: Float32Array;
  static: Uint8Array;
}

/**
 * particleGather's wake: a particle moved, set moving, given a new radius, or made static or
 * dynamic since the last step ended is not at rest (its time at rest starts again).
 */
export function wakeMoved(
  rest: Rest,
  spheres: Float32Array,
  velocities: Float32Array,
  last: LastSearch,
  sleepSpeed: number,
): void {
  const n = spheres.length / 4;
  // A new radius, or a particle made static or dynamic, since the last step (as the search test).
  const changedOf = new Uint8Array(n);
  if (last.order) {
    last.order.forEach((id, t) => {
      if (id < n)
        changedOf[id] =
          spheres[4 * id + 3] !== last.radius[t] || (velocities[4 * id + 3] === 0 ? 1 : 0) !== last.static[t] ? 1 : 0;
    });
  }
  for (let id = 0; id < n; id++) {
    const v = velocities[4 * id + 3] === 0 ? [0, 0, 0] : velocities.subarray(4 * id, 4 * id + 3);
    const moved = [0, 1, 2].some((a) => spheres[4 * id + a] !== rest.position[3 * id + a]);
    // A sleeper ended its last step at exactly 0: any other velocity was written since, and wakes it.
    const written = rest.slept[id] !== 0 && [0, 1, 2].some((a) => velocities[4 * id + a] !== 0);
    if (changedOf[id] || moved || f32(length(v)) > sleepSpeed || written) rest.time[id] = 0;
  }
}

/**
 * particleGather's test: whether the last search's lists may miss a pair this step must solve
 * (some particle moved, or gained reach, by more than half the skin less the rounding
 * allowance; a radius changed; a particle became static or dynamic). `anchors` holds where each
 * position's particle was at the last search, and its reach then (x, y, z, reach).
 */
export function movedTooFar(
  last: LastSearch,
  anchors: Float32Array,
  spheres: Float32Array,
  velocities: Float32Array,
  s: Settings,
): boolean {
  const order = last.order!;
  const half = f32(0.5 * s.skin);
  for (let t = 0; t < order.length; t++) {
    const id = order[t];
    const r = spheres[4 * id + 3];
    const w = velocities[4 * id + 3];
    if (r !== last.radius[t] || (w === 0 ? 1 : 0) !== last.static[t]) return true;
    const v = w === 0 ? [0, 0, 0] : [velocities[4 * id], velocities[4 * id + 1], velocities[4 * id + 2]];
    const reach = reachFor(s, v, w, r);
    const a = anchors.subarray(4 * t, 4 * t + 4);
    const d = [0, 1, 2].map((k) => f32(spheres[4 * id + k] - a[k]));
    const moved = f32(
      f32(Math.sqrt(f32(f32(f32(d[0] * d[0]) + f32(d[1] * d[1])) + f32(d[2] * d[2])))) + Math.max(f32(reach - a[3]), 0),
    );
    // Summed left to right in f32, as the GPU does.
    const allowance = f32(MOVE_ROUNDING * [s.margin, s.skin, reach, a[3], moved].reduce((sum, x) => f32(sum + x), r));
    if (!(f32(moved + allowance) <= half)) return true;
  }
  return false;
}

/**
 * particleDecide: search when there are no lists, when new settings woke every particle, when
 * the lists were made for other settings, or when some particle moved too far for them.
 */
export function particleDecide(
  searchedBefore: boolean,
  wakeAll: boolean,
  sameListing: boolean,
  tooFar: () => boolean,
): boolean {
  return !searchedBefore || wakeAll || !sameListing || tooFar();
}

/**
 * particleStable (a search: bucket order) or particleGather (the last search's order):
 * positions and bodies by position; a static particle's velocity is 0.
 */
export function particleGather(
  spheres: Float32Array,
  velocities: Float32Array,
  order: Uint32Array,
  settings: Settings,
  rest: Rest,
  colliders: ColliderState | undefined,
): StepState {
  const n = spheres.length / 4;
  const pos = new Float32Array(4 * n);
  const body = new Float32Array(8 * n); // v.xyz, w, p.xyz, splits
  let maxSpeed = 0;
  for (let t = 0; t < n; t++) {
    const id = order[t];
    pos.set(spheres.subarray(4 * id, 4 * id + 4), 4 * t);
    const w = velocities[4 * id + 3];
    if (w > 0) {
      body.set(velocities.subarray(4 * id, 4 * id + 3), 8 * t);
      maxSpeed = Math.max(maxSpeed, f32(length(velocities.subarray(4 * id, 4 * id + 3))));
    }
    body[8 * t + 3] = w;
  }
  const boxCount = colliders ? colliders.poses.length / 12 - (colliders.meshes?.length ?? 0) : 0;
  return { settings, n, order, pos, body, maxSpeed, rest, colliders, boxCount };
}

/** The lists a step solves, and their counts. */
export interface Found {
  lists: Entry[][];
  /** Touching pairs (gap ≤ 0), each once. */
  touching: number;
  /** Entries in all the lists. */
  entries: number;
}

/**
 * particleCount + particleFill: each particle's partners within the margin and the skin, in
 * walk order, warm-started from the last step's lists (`previousOf`, by particle index). Also
 * returns the anchors the next steps' test compares with: where each particle is, and its reach.
 */
export function particleFill(
  state: StepState,
  grid: WalkableGrid,
  plan: GridPlan,
  previousOf: Map<number, Entry[]>,
): Found & { anchors: Float32Array } {
  const { n, order, body, settings } = state;
  const positionOf = new Uint32Array(n);
  for (let t = 0; t < n; t++) positionOf[order[t]] = t;
  const vmaxReach = f32(Math.max(state.maxSpeed, settings.boxSpeed) * settings.frameDt);
  const listed = f32(settings.margin + settings.skin);
  const lists: Entry[][] = [];
  const anchors = new Float32Array(4 * n);
  let touching = 0;
  let entries = 0;
  for (let t = 0; t < n; t++) {
    const s = posOf(state, t);
    const wt = body[8 * t + 3];
    const reach = reachOf(state, t);
    anchors.set([s[0], s[1], s[2], reach], 4 * t);
    const id = order[t];
    const previous = previousOf.get(id) ?? [];
    const list: Entry[] = [];
    plan.levels.forEach((level, b) => {
      if (level.count === 0) return;
      const maxR = level.maxRadius;
      const ext = f32(f32(s[3] + maxR + listed + reach + Math.min(vmaxReach, maxR)) * f32(EXT_SCALE)) * (1 + 2 ** -20);
      const { lo, hi } = cellRange(plan, b, [s[0], s[1], s[2]], [s[0], s[1], s[2]], ext);
      walkRows(grid, b, lo, hi, 0, (_, other) => {
        const u = positionOf[other];
        if (u === t) return;
        if (!(wt + body[8 * u + 3] > 0)) return;
        const gap = gapOf(s, posOf(state, u));
        const pairReach = f32(reach + reachOf(state, u));
        if (!(gap <= f32(listed + pairReach))) return;
        const warm = previous.find((e) => e.id === other);
        list.push({
          nbr: u,
          dormant: false, // particleActivate decides
          id: other,
          impulse: warm ? [...warm.impulse] : [0, 0, 0, 0],
          n: [0, 0, 0], // none yet: the first prepare hashes one where the centres coincide
          push: 0,
          target: 0,
          pseudo: 0,
        });
        if (gap <= 0 && t < u) touching++;
      });
    });
    lists.push(list);
    entries += list.length;
  }
  return { lists, touching, entries, anchors };
}

/** particleCarry: the last lists, impulses and all (particleActivate then decides which take part in the step). */
export function particleCarry(state: StepState, lists: Entry[][]): Found {
  let touching = 0;
  let entries = 0;
  for (let t = 0; t < state.n; t++) {
    for (const c of lists[t]) {
      const gap = gapOf(posOf(state, t), posOf(state, c.nbr));
      if (gap <= 0 && t < c.nbr) touching++;
    }
    entries += lists[t].length;
  }
  return { lists, touching, entries };
}
