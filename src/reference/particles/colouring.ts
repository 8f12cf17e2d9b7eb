/**
 * The twin of the colouring of a step's contact graph (shaders/particles/colouring.wgsl.ts) and of
 * the sweeps over it (shaders/particles/pairs.wgsl.ts, particleSettle): the same owners, the same
 * speculative rounds with the same hashes, so the same colour for every pair and the same
 * overflow; then per sweep the colours in order (each pair with both whole masses, applied at
 * once), the overflow's Jacobi sweep with its mass split among its pairs, and each particle's
 * walls and collider contacts, one after another.
 */
import { f32, dot, coulomb, length } from './geometry.js';
import { PALETTE, COLOUR_ROUNDS, BANDS } from '../../particles/step.js';
import { colliderSolve } from './colliders.js';
import { posOf, gapOf, type Contacts, type Entry, type StepState } from './state.js';
import { solveWalls } from './solve.js';

/** A 32-bit integer hash (mix32 of the kernels). */
export function mix32(x: number): number {
  let h = x >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** The priority of the pair of particles a and b (indices), the same from either side. */
export const pairPriority = (a: number, b: number): number => mix32(mix32(Math.min(a, b)) ^ Math.max(a, b));

/** A pair the step solves, from its owner's entry. */
export interface Pair {
  /** The owner's and the partner's positions. */
  t: number;
  u: number;
  entry: Entry;
  /** The partner's entry of the pair (null where its list lacks it). */
  mirror: Entry | null;
  /** The pair's particle indices, lower first, and its priority. */
  lo: number;
  hi: number;
  priority: number;
  /** Its colour, or −1 (the overflow). */
  colour: number;
  /** The first substep whose sweeps solve it, if coloured (pairBand). */
  band: number;
}

/** A step's colouring: the pairs of each colour, the overflow's entries and each position's overflow pairs. */
export interface Colouring {
  byColour: Pair[][];
  overflow: Set<Entry>;
  overflowCount: Uint32Array;
  /** The pairs in the overflow. */
  overflowPairs: number;
}

/** Whether pair p beats pair q: by priority, ties by the lower and then the higher index. */
const beats = (p: Pair, q: Pair): boolean =>
  p.priority !== q.priority ? p.priority > q.priority : p.lo !== q.lo ? p.lo > q.lo : p.hi > q.hi;

/** The (pick+1)-th set bit of a 32-bit mask (pick < its popcount). */
function nthBit(bits: number, pick: number): number {
  let b = bits >>> 0;
  for (let k = 0; k < pick; k++) b = (b & (b - 1)) >>> 0;
  return 31 - Math.clz32(b & -b);
}

const popcount = (x: number): number => {
  let n = 0;
  for (let b = x >>> 0; b !== 0; b = (b & (b - 1)) >>> 0) n++;
  return n;
};

/**
 * How fast a strike may send the particle at t (colourStart's MASK.struck): (1 + e) × the fastest
 * approach of a partner it lists, along the first prepare's normal, times its share of the pair's
 * inverse mass, or its strike bound
 * (particleSplit's: a box's too), whichever is larger.
 */
export function struckSpeed(state: StepState, contacts: Contacts, t: number): number {
  const { body, settings } = state;
  let approach = 0;
  for (const c of contacts.lists[t]) {
    if (c.dormant) continue;
    const rel = [0, 1, 2].map((a) => f32(body[8 * c.nbr + a] - body[8 * t + a]));
    const share = f32(body[8 * t + 3] / f32(body[8 * t + 3] + body[8 * c.nbr + 3]));
    approach = Math.max(approach, f32(f32(-dot(rel, c.n)) * share));
  }
  return Math.max(f32(f32(1 + settings.restitution) * approach), contacts.strike?.[t] ?? 0);
}

/**
 * The band of the pair of positions t and u (colourCount, formula.band): the first substep in
 * which it may close at its relative speed (the first prepare's velocities; a static partner's is
 * 0), raised by how fast a strike may send each moving particle (`struck`, by position), and by
 * gravity's change over the step and the fastest a box can send a particle, for each; 0 for a
 * pair that keeps its warm start.
 */
export function pairBand(state: StepState, t: number, u: number, entry: Entry, struck: Float32Array): number {
  const { settings: s, body } = state;
  if (entry.impulse.some((x) => x !== 0)) return 0;
  const gap = gapOf(posOf(state, t), posOf(state, u));
  const moves = body[8 * u + 3] > 0;
  const rel = [0, 1, 2].map((a) => f32(body[8 * t + a] - (moves ? body[8 * u + a] : 0)));
  const lift = f32(2 * f32(s.boxSpeed + f32(s.gravityLength * s.frameDt)));
  const speed = f32(f32(f32(f32(length(rel)) + struck[t]) + (moves ? struck[u] : 0)) + lift);
  const last = Math.min(BANDS, s.substeps) - 1;
  const over = f32(gap - s.margin);
  const reach = f32(speed * s.h);
  if (over <= reach) return 0;
  if (reach <= 0) return last;
  return Math.min(Math.ceil(f32(over / reach)) - 1, last);
}

/**
 * The colouring of the step's pairs, on the bodies of its first prepare (inverse masses: a
 * sleeper's is 0), in `rounds` speculative rounds (the kernels': COLOUR_ROUNDS).
 */
export function colourPairs(state: StepState, contacts: Contacts, rounds = COLOUR_ROUNDS): Colouring {
  const { n, body, order } = state;
  const moving = (k: number): boolean => body[8 * k + 3] > 0;
  const pairs: Pair[] = [];
  // By position, the pairs in which it moves (colourResolve's lists: its own and its partner's).
  const at: Pair[][] = Array.from({ length: n }, () => []);
  for (let t = 0; t < n; t++) {
    if (!moving(t)) continue;
    for (const entry of contacts.lists[t]) {
      const u = entry.nbr;
      if (entry.dormant || (moving(u) && u < t)) continue;
      const [a, b] = [order[t], entry.id];
      const pair: Pair = {
        t,
        u,
        entry,
        mirror: contacts.lists[u].find((m) => m.nbr === t) ?? null,
        lo: Math.min(a, b),
        hi: Math.max(a, b),
        priority: pairPriority(a, b),
        colour: -1,
        band: 0,
      };
      pairs.push(pair);
      at[t].push(pair);
      if (moving(u)) at[u].push(pair);
    }
  }
  const masks = new Uint32Array(n);
  const full = PALETTE === 32 ? 0xffffffff : 2 ** PALETTE - 1;
  for (let round = 0; round < rounds; round++) {
    const picks = new Map<Pair, number>();
    for (const p of pairs) {
      if (p.colour >= 0) continue;
      const used = masks[p.t] | (moving(p.u) ? masks[p.u] : 0);
      const free = (~used & full) >>> 0;
      if (free !== 0) picks.set(p, nthBit(free, mix32((p.priority + round) >>> 0) % popcount(free)));
    }
    const kept: Pair[] = [];
    for (const [p, c] of picks) {
      const rivals = moving(p.u) ? [...at[p.t], ...at[p.u]] : at[p.t];
      if (!rivals.some((q) => q !== p && picks.get(q) === c && beats(q, p))) kept.push(p);
    }
    for (const p of kept) {
      p.colour = picks.get(p)!;
      masks[p.t] |= 1 << p.colour;
      if (moving(p.u)) masks[p.u] |= 1 << p.colour;
    }
  }
  const struck = new Float32Array(n);
  for (let t = 0; t < n; t++) if (moving(t)) struck[t] = struckSpeed(state, contacts, t);
  const byColour: Pair[][] = Array.from({ length: PALETTE }, () => []);
  const overflow = new Set<Entry>();
  const overflowCount = new Uint32Array(n);
  let overflowPairs = 0;
  for (const p of pairs) {
    if (p.colour >= 0) {
      p.band = pairBand(state, p.t, p.u, p.entry, struck);
      byColour[p.colour].push(p);
      continue;
    }
    overflowPairs++;
    overflow.add(p.entry);
    if (p.mirror) overflow.add(p.mirror);
    overflowCount[p.t]++;
    if (moving(p.u)) overflowCount[p.u]++;
  }
  return { byColour, overflow, overflowCount, overflowPairs };
}

/**
 * One pair's impulses (pairStatements): with k the sum of the (split) inverse masses, `rel` and
 * `vpRel` the partner's velocity and pseudo-velocity less the owner's. Updates the entry; returns
 * the change of impulse and of the correction's impulse on the partner.
 */
function solvePair(
  c: Entry,
  k: number,
  rel: number[],
  vpRel: number[],
  friction: number,
): { change: number[]; pushChange: number[] } {
  const vn = dot(rel, c.n);
  const normal = f32(Math.max(c.impulse[0] + (c.target - vn) / k, 0));
  let lt = [c.impulse[1], c.impulse[2], c.impulse[3]];
  if (friction > 0)
    lt = coulomb(
      lt,
      rel.map((r, a) => r - vn * c.n[a]),
      k,
      friction * normal,
    );
  const change = [0, 1, 2].map((a) => (normal - c.impulse[0]) * c.n[a] + (lt[a] - c.impulse[1 + a]));
  c.impulse = [normal, f32(lt[0]), f32(lt[1]), f32(lt[2])];
  const pushed = f32(Math.max(c.pseudo + (c.push - dot(vpRel, c.n)) / k, 0));
  const pushChange = c.n.map((x) => (pushed - c.pseudo) * x);
  c.pseudo = pushed;
  return { change, pushChange };
}

/** The changes of a velocity (0..2) and pseudo-velocity (4..6) of a body in `body`, rounded as the GPU stores them. */
function add(body: Float32Array, k: number, sign: number, w: number, change: number[], pushChange: number[]): void {
  for (let a = 0; a < 3; a++) {
    body[8 * k + a] = f32(body[8 * k + a] + sign * w * change[a]);
    body[8 * k + 4 + a] = f32(body[8 * k + 4 + a] + sign * w * pushChange[a]);
  }
}

/**
 * The sweeps of substep `substep` (pairSolve per colour, of the pairs whose band it has reached;
 * overflowSolve and overflowApply; particleSettle), the last of which the caller follows with the
 * integration.
 */
export function colouredSweeps(state: StepState, contacts: Contacts, colouring: Colouring, substep: number): void {
  const { n, settings, body } = state;
  const friction = settings.friction;
  const sub = (k: number, base: number) => [0, 1, 2].map((a) => body[8 * k + base + a]);
  const overflowing: number[] = [];
  for (let t = 0; t < n; t++) if (colouring.overflowCount[t] > 0) overflowing.push(t);
  for (let sweep = 0; sweep < settings.iterations; sweep++) {
    for (const group of colouring.byColour) {
      for (const { t, u, entry, mirror, band } of group) {
        if (band > Math.min(substep, BANDS - 1)) continue;
        const [wt, wu] = [body[8 * t + 3], body[8 * u + 3]];
        const rel = [0, 1, 2].map((a) => body[8 * u + a] - body[8 * t + a]);
        const vpRel = [0, 1, 2].map((a) => body[8 * u + 4 + a] - body[8 * t + 4 + a]);
        const { change, pushChange } = solvePair(entry, f32(wt + wu), rel, vpRel, friction);
        add(body, t, -1, wt, change, pushChange);
        if (wu > 0) add(body, u, 1, wu, change, pushChange);
        if (mirror) {
          mirror.impulse = [entry.impulse[0], -entry.impulse[1], -entry.impulse[2], -entry.impulse[3]];
          mirror.pseudo = entry.pseudo;
        }
      }
    }
    // The overflow: Jacobi from the bodies the colours left, each particle from its own entries.
    const before = body.slice();
    const changes = overflowing.map((t) => {
      const w = before[8 * t + 3];
      const wm = f32(w * colouring.overflowCount[t]);
      const dv = [0, 0, 0];
      const dvp = [0, 0, 0];
      for (const c of contacts.lists[t]) {
        if (!colouring.overflow.has(c)) continue;
        const u = c.nbr;
        const k = f32(wm + f32(before[8 * u + 3] * colouring.overflowCount[u]));
        const rel = [0, 1, 2].map((a) => before[8 * u + a] - before[8 * t + a]);
        const vpRel = [0, 1, 2].map((a) => before[8 * u + 4 + a] - before[8 * t + 4 + a]);
        const { change, pushChange } = solvePair(c, k, rel, vpRel, friction);
        for (let a = 0; a < 3; a++) {
          dv[a] -= w * change[a];
          dvp[a] -= w * pushChange[a];
        }
      }
      return { t, dv, dvp };
    });
    for (const { t, dv, dvp } of changes) add(body, t, 1, 1, dv, dvp);
    // particleSettle: walls, then collider contacts, each with the whole mass, one after another.
    for (let t = 0; t < n; t++) {
      const w = body[8 * t + 3];
      if (w === 0) continue;
      const v = sub(t, 0);
      const vp = sub(t, 4);
      if (settings.bounds) solveWalls(state, contacts.walls[t], posOf(state, t), v, vp, w);
      colliderSolve(contacts.slotsOf[t], friction, v, vp, w);
      for (let a = 0; a < 3; a++) {
        body[8 * t + a] = f32(v[a]);
        body[8 * t + 4 + a] = f32(vp[a]);
      }
    }
  }
}
