/**
 * The CPU twin of the particle world's step (shaders/particles/solver.wgsl.ts): the same grid
 * (stable by index within a bucket), the same contact search and list order, the same warm
 * start, the same Jacobi sweeps with mass splitting, the same walls and integration. Arithmetic
 * is double precision; what the GPU stores (positions, velocities, impulses, targets) is rounded
 * to f32 where the GPU stores it, so short runs on small scenes agree particle by particle.
 *
 * For a contact between A and B with unit normal n from A to B, gap s = |AB| − rA − rB, inverse
 * masses wA, wB and contact counts mA, mB (mass splitting: each particle's mass is shared among
 * its contacts), per substep of h:
 *   vn0 = (vB − vA)·n before the solve (after gravity)
 *   target b = −e·vn0           if vn0 < −threshold and s + vn0·h ≤ 0 (it closes: a bounce)
 *            = −s/h              if s > 0 (speculative: the gap may close, no more)
 *            = 0                 otherwise
 *   each sweep, from the previous sweep's velocities (Jacobi), with k = wA·mA + wB·mB:
 *     λ' = max(λ + (b − (vB − vA)·n)/k, 0)                     normal impulse, accumulated
 *     λt' = clamp to |λt'| ≤ μλ' of λt − vt/k                  friction, vt the tangential part
 *     μ' = max(μ + (min(percent·(−s − slop)/h, maxPush) − (pB − pA)·n)/k, 0)   pseudo-velocity p
 *     ΔvA = −wA·(Δλ·n + Δλt), ΔvB = +wB·(Δλ·n + Δλt), ΔpA = −wA·Δμ·n, ΔpB = +wB·Δμ·n
 *   x += (v + p)·h, the sphere clamped inside the bounds.
 * Walls are the same contacts with a partner of inverse mass 0 at rest.
 *
 * Sleep: a particle that ends a step slower than sleepSpeed, having moved no farther than
 * sleepSpeed × dt, gains the step's dt of time at rest (else its time is 0, as it is when the
 * state was moved, set moving, given a new radius or made static or dynamic between steps). One
 * that moves, whose time at rest and every listed partner's is positive and at least sleepTime,
 * whose list lost no entry since the last step, and none of whose contacts overlaps by more than
 * slop + SLEEP_OVERLAP × the smaller radius (with such a contact it is not at rest either: its
 * time starts again, so its partners stay awake), is asleep for the step: it does not move,
 * ends at velocity 0, and is a static partner (inverse mass 0, at rest) to the others. One that
 * slept in the last step and is awake takes its partners' impulses (mirrored) for its entries,
 * so both entries of each pair are equal again. New settings wake every particle and start
 * every pair from 0.
 *
 * Over 500 lines: the twin mirrors the whole GPU step in one method, in the GPU's order of
 * operations, so that a reader can hold it beside the kernels stage by stage.
 */
import { EXT_SCALE } from '../spatial/level.js';
import type { GridPlan } from '../spatial/plan.js';
import { walkableGrid, walkRows, cellRange, hashRow } from './grid.js';
import { MOVE_ROUNDING, SLEEP_OVERLAP, wakeKey, type StepParams } from '../particles/step.js';

const f32 = Math.fround;
/** The largest f32: a larger sleepTime (Infinity) is sleep off. */
const MAX_SLEEP_TIME = 3.4028234663852886e38;

export type { StepParams } from '../particles/step.js';

type Vec3 = [number, number, number];

/** The WGSL `coincidentNormal` twin: a unit vector hashed from the pair, from the lower index to the higher. */
export function coincidentNormal(i: number, j: number): Vec3 {
  const lo = Math.min(i, j);
  const hi = Math.max(i, j);
  const raw = [1, 2, 3].map((k) => f32(f32(hashRow(lo, hi, k) >>> 16) / 32767.5) - 1);
  const len2 = raw[0] ** 2 + raw[1] ** 2 + raw[2] ** 2;
  const u = len2 > 1e-6 ? raw.map((v) => v / Math.sqrt(len2)) : [1, 0, 0];
  return (i < j ? u : u.map((v) => -v)) as Vec3;
}

/** A pair's geometry ({@link pairGeometry}). */
export interface Geometry {
  /** The unit normal from A to B (a fixed one when the centres coincide). */
  n: Vec3;
  /** |AB| − rA − rB: negative when they overlap. */
  gap: number;
}

/**
 * The WGSL entry geometry's twin: the normal from A to B and the gap |AB| − rA − rB. Coincident
 * centres take `fallback` (the solver: the entry's last normal), else the pair's hashed normal.
 */
export function pairGeometry(pa: ArrayLike<number>, ia: number, pb: ArrayLike<number>, ib: number, fallback?: Vec3): Geometry {
  const d = [pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]];
  const dist = Math.sqrt(d[0] ** 2 + d[1] ** 2 + d[2] ** 2);
  const n = (dist > 0 ? d.map((v) => v / dist) : (fallback ?? coincidentNormal(ia, ib))) as Vec3;
  return { n, gap: dist - (pa[3] + pb[3]) };
}

const dot = (a: ArrayLike<number>, b: ArrayLike<number>): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const length = (a: ArrayLike<number>): number => Math.sqrt(dot(a, a));

/** One entry of a particle's contact list (ParticleContact). */
interface Entry {
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
interface Wall {
  normal: number;
  side: number;
  tangent: [number, number];
  target: number;
  pseudo: number;
}

const noWall = (): Wall => ({ normal: 0, side: 0, tangent: [0, 0], target: 0, pseudo: 0 });

/**
 * Box colliders as the GPU holds them (world.colliderBuffers): poses, 12 floats a box (centre, 0,
 * half extents, 0, unit quaternion x, y, z, w), and velocities, 8 floats a box (linear, 0,
 * angular, 0). The twin's step moves the poses, as colliderMove does.
 */
export interface ColliderState {
  /** 12 floats a box: centre, 0, half extents, 0, unit quaternion. */
  poses: Float32Array;
  /** 8 floats a box: linear velocity, 0, angular velocity, 0. */
  velocities: Float32Array;
}

/** A sphere's contact geometry with a box ({@link boxGeometry}). */
export interface BoxGeometry {
  /** The unit normal from the sphere toward the box. */
  n: Vec3;
  /** The distance from the sphere to the box less its radius (negative inside). */
  gap: number;
  /** The contact point on the box's surface, relative to its centre (world axes). */
  point: Vec3;
}

/** A particle's contact with a box (ParticleColliderContact). */
interface BoxSlot {
  box: number;
  impulse: [number, number, number, number];
  n: Vec3;
  push: number;
  surface: Vec3;
  target: number;
  pseudo: number;
}

const cross = (a: ArrayLike<number>, b: ArrayLike<number>): Vec3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];

/** v rotated by unit quaternion q (x, y, z, w), or by its inverse. */
function rotate(q: ArrayLike<number>, v: ArrayLike<number>, inverse = false): Vec3 {
  const u = inverse ? [-q[0], -q[1], -q[2]] : [q[0], q[1], q[2]];
  const t = cross(u, v).map((x) => 2 * x);
  const ut = cross(u, t);
  return [v[0] + q[3] * t[0] + ut[0], v[1] + q[3] * t[1] + ut[1], v[2] + q[3] * t[2] + ut[2]];
}

/**
 * The WGSL `boxGeometry` twin: sphere s against box k: the unit normal from the sphere toward
 * the box, the gap (negative inside), and the contact point on the box relative to its centre.
 * From inside, out through the nearest face (x before y before z on a tie).
 */
export function boxGeometry(s: ArrayLike<number>, poses: Float32Array, k: number): BoxGeometry {
  const c = poses.subarray(12 * k, 12 * k + 3);
  const half = poses.subarray(12 * k + 4, 12 * k + 7);
  const q = poses.subarray(12 * k + 8, 12 * k + 12);
  const local = rotate(q, [s[0] - c[0], s[1] - c[1], s[2] - c[2]], true);
  const clamped = local.map((x, a) => Math.min(Math.max(x, -half[a]), half[a]));
  const d = local.map((x, a) => x - clamped[a]);
  const dist = length(d);
  if (dist > 0) return { n: rotate(q, d.map((x) => -x / dist)), gap: dist - s[3], point: rotate(q, clamped) };
  const depth = local.map((x, a) => half[a] - Math.abs(x));
  let axis = 0;
  if (depth[1] < depth[axis]) axis = 1;
  if (depth[2] < depth[axis]) axis = 2;
  const side = local[axis] < 0 ? -1 : 1;
  const n: Vec3 = [0, 0, 0];
  n[axis] = -side;
  const onFace = [...local];
  onFace[axis] = side * half[axis];
  return { n: rotate(q, n), gap: -depth[axis] - s[3], point: rotate(q, onFace) };
}

/**
 * The solver's memory between steps (the GPU's previous contact lists and wall contacts), so
 * that consecutive steps warm-start as on the GPU. One per simulated world.
 */
export class ParticleSolverTwin {
  /** The last step's order (particle indices by position, from the last search) and lists (by position). */
  private order: Uint32Array | null = null;
  private lists: Entry[][] = [];
  /** Where each position's particle was at the last search, and its reach then (x, y, z, reach). */
  private anchors = new Float32Array(0);
  /** Each position's radius and whether it was static, at the last step. */
  private last = { radius: new Float32Array(0), static: new Uint8Array(0) };
  /** The settings the lists were made for (a change searches, as the world's setStep forces). */
  private listing = '';
  private walls = new Map<number, [Wall, Wall, Wall]>();
  /** Each particle's collider contacts of the last step, by particle index, in the order of their box index. */
  private boxes = new Map<number, BoxSlot[]>();
  /** Touching pairs found by the last step. */
  touching = 0;
  /** Entries the last step's lists held. */
  entries = 0;
  /** Steps taken. */
  steps = 0;
  /** Steps that searched for contacts (the others kept the lists). */
  searches = 0;
  /** Particles asleep in the last step. */
  asleep = 0;
  /** By particle index (ParticleRest): where it ended the last step, its time at rest, whether it slept, its list's length. */
  private rest = { position: new Float32Array(0), time: new Float32Array(0), slept: new Uint8Array(0), entries: new Uint32Array(0), isStatic: new Uint8Array(0) };
  /** The settings that, changed, wake every particle. */
  private waking = '';

  /**
   * particleGather's test: whether the last search's lists may miss a pair this step must solve
   * (some particle moved, or gained reach, by more than half the skin less the rounding
   * allowance; a radius changed; a particle became static or dynamic).
   */
  private mustSearch(spheres: Float32Array, velocities: Float32Array, margin: number, skin: number, frameDt: number): boolean {
    const order = this.order!;
    const half = f32(0.5 * skin);
    for (let t = 0; t < order.length; t++) {
      const id = order[t];
      const r = spheres[4 * id + 3];
      const w = velocities[4 * id + 3];
      if (r !== this.last.radius[t] || (w === 0 ? 1 : 0) !== this.last.static[t]) return true;
      const v = w === 0 ? [0, 0, 0] : [velocities[4 * id], velocities[4 * id + 1], velocities[4 * id + 2]];
      const reach = Math.min(f32(f32(length(v)) * frameDt), r);
      const a = this.anchors.subarray(4 * t, 4 * t + 4);
      const d = [0, 1, 2].map((k) => f32(spheres[4 * id + k] - a[k]));
      const moved = f32(f32(Math.sqrt(f32(f32(f32(d[0] * d[0]) + f32(d[1] * d[1])) + f32(d[2] * d[2])))) + Math.max(f32(reach - a[3]), 0));
      // Summed left to right in f32, as the GPU does.
      const allowance = f32(MOVE_ROUNDING * [margin, skin, reach, a[3], moved].reduce((sum, x) => f32(sum + x), r));
      if (!(f32(moved + allowance) <= half)) return true;
    }
    return false;
  }

  /**
   * One step. `spheres` is x, y, z, r and `velocities` vx, vy, vz, inverse mass per particle (as
   * the world's GPU buffers hold them); returns the new state, f32.
   */
  step(spheres: Float32Array, velocities: Float32Array, p: StepParams, plan: GridPlan, colliders?: ColliderState): { spheres: Float32Array; velocities: Float32Array } {
    const n = spheres.length / 4;
    // The parameters as the GPU reads them: f32.
    const h = f32(p.dt / p.substeps);
    const frameDt = f32(p.dt);
    const margin = f32(p.margin);
    const skin = f32(p.skin);
    const threshold = f32(p.restitutionThreshold);
    const restitution = f32(p.restitution);
    const percent = f32(p.percent);
    const slop = f32(p.slop);
    const maxPush = f32(p.maxPushSpeed);
    const friction = f32(p.friction);
    const listing = [n, p.margin, p.skin, p.dt].join(' ');
    // particleGather's wake: a particle moved or set moving since the last step ended is not at
    // rest; new settings wake every particle.
    const sleepSpeed = f32(p.sleepSpeed);
    const sleepTime = f32(p.sleepTime);
    const waking = wakeKey(p);
    // New settings wake every particle, cold (the world's solver.wake: the sleep records and the
    // warm-start ranges cleared, a search forced).
    const wakeAll = this.waking !== '' && waking !== this.waking;
    if (this.rest.time.length !== n || wakeAll) this.rest = { position: new Float32Array(3 * n), time: new Float32Array(n), slept: new Uint8Array(n), entries: new Uint32Array(n), isStatic: new Uint8Array(n) };
    this.waking = waking;
    const rest = this.rest;
    // A new radius, or a particle made static or dynamic, since the last step (as the search test).
    const changedOf = new Uint8Array(n);
    if (this.order) {
      this.order.forEach((id, t) => {
        if (id < n) changedOf[id] = spheres[4 * id + 3] !== this.last.radius[t] || (velocities[4 * id + 3] === 0 ? 1 : 0) !== this.last.static[t] ? 1 : 0;
      });
    }
    for (let id = 0; id < n; id++) {
      const v = velocities[4 * id + 3] === 0 ? [0, 0, 0] : velocities.subarray(4 * id, 4 * id + 3);
      const moved = [0, 1, 2].some((a) => spheres[4 * id + a] !== rest.position[3 * id + a]);
      // A sleeper ended its last step at exactly 0: any other velocity was written since, and wakes it.
      const written = rest.slept[id] !== 0 && [0, 1, 2].some((a) => velocities[4 * id + a] !== 0);
      if (changedOf[id] || moved || f32(length(v)) > sleepSpeed || written) rest.time[id] = 0;
    }
    const search = this.order === null || wakeAll || this.listing !== listing || this.mustSearch(spheres, velocities, margin, skin, frameDt);
    this.listing = listing;
    this.steps++;
    if (search) this.searches++;
    // particleStable (a search: bucket order) or particleGather (the last search's order):
    // positions and bodies by position; a static particle's velocity is 0.
    const grid = search ? walkableGrid(spheres, plan) : null;
    const order = grid ? grid.order : this.order!;
    const pos = new Float32Array(4 * n);
    let body = new Float32Array(8 * n); // v.xyz, w, p.xyz, splits
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
    const posOf = (t: number) => pos.subarray(4 * t, 4 * t + 4);
    const reachOf = (t: number): number => Math.min(f32(f32(length(body.subarray(8 * t, 8 * t + 3))) * frameDt), pos[4 * t + 3]);
    const gapOf = (s: ArrayLike<number>, q: ArrayLike<number>): number => {
      const d = [f32(q[0] - s[0]), f32(q[1] - s[1]), f32(q[2] - s[2])];
      return f32(f32(Math.sqrt(f32(f32(f32(d[0] * d[0]) + f32(d[1] * d[1])) + f32(d[2] * d[2])))) - f32(s[3] + q[3]));
    };
    // Solved this step: what a search without the skin would list.
    const active = (gap: number, pairReach: number): boolean => gap <= f32(margin + pairReach);

    let lists: Entry[][];
    let touching = 0;
    let entries = 0;
    if (grid) {
      // particleCount + particleFill: each particle's partners within the margin and the skin,
      // in walk order, warm-started from the last step's lists.
      const positionOf = new Uint32Array(n);
      for (let t = 0; t < n; t++) positionOf[order[t]] = t;
      const previousOf = new Map<number, Entry[]>();
      if (this.order && !wakeAll) this.order.forEach((id, t) => previousOf.set(id, this.lists[t]));
      const vmaxReach = f32(maxSpeed * frameDt);
      const listed = f32(margin + skin);
      lists = [];
      this.anchors = new Float32Array(4 * n);
      for (let t = 0; t < n; t++) {
        const s = posOf(t);
        const wt = body[8 * t + 3];
        const reach = reachOf(t);
        this.anchors.set([s[0], s[1], s[2], reach], 4 * t);
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
            const gap = gapOf(s, posOf(u));
            const pairReach = f32(reach + reachOf(u));
            if (!(gap <= f32(listed + pairReach))) return;
            const warm = previous.find((e) => e.id === other);
            list.push({ nbr: u, dormant: !active(gap, pairReach), id: other, impulse: warm ? [...warm.impulse] : [0, 0, 0, 0], n: coincidentNormal(id, other), push: 0, target: 0, pseudo: 0 });
            if (gap <= 0 && t < u) touching++;
          });
        });
        lists.push(list);
        entries += list.length;
      }
    } else {
      // particleCarry: the last lists, impulses and all, each entry active or dormant by where
      // the pair is now.
      lists = this.lists;
      for (let t = 0; t < n; t++) {
        const reach = reachOf(t);
        for (const c of lists[t]) {
          const gap = gapOf(posOf(t), posOf(c.nbr));
          c.dormant = !active(gap, f32(reach + reachOf(c.nbr)));
          if (gap <= 0 && t < c.nbr) touching++;
        }
        entries += lists[t].length;
      }
    }

    // colliderFind + colliderList: each moving particle's boxes within margin + its travel + the
    // box's travel, by box index, warm-started from the last step's contact with the same box; a
    // particle touching a moving box, gaining or losing a box, or deeper in one than slop +
    // SLEEP_OVERLAP·r, is not at rest.
    const boxCount = colliders ? colliders.poses.length / 12 : 0;
    const slotsOf: BoxSlot[][] = [];
    for (let t = 0; t < n; t++) {
      const id = order[t];
      const before = this.boxes.get(id) ?? [];
      const mine: BoxSlot[] = [];
      if (boxCount > 0 && body[8 * t + 3] > 0) {
        const s = posOf(t);
        const travelOf = f32(length(body.subarray(8 * t, 8 * t + 3)) * frameDt);
        for (let k = 0; k < boxCount; k++) {
          const bv = colliders!.velocities;
          const travel = (length(bv.subarray(8 * k, 8 * k + 3)) + length(bv.subarray(8 * k + 4, 8 * k + 7)) * length(colliders!.poses.subarray(12 * k + 4, 12 * k + 7))) * frameDt;
          const g = boxGeometry(s, colliders!.poses, k);
          if (!(g.gap <= margin + travelOf + travel)) continue;
          const old = before.find((c) => c.box === k);
          const moving = [0, 1, 2, 4, 5, 6].some((a) => bv[8 * k + a] !== 0);
          if (!old || moving || -g.gap - slop > SLEEP_OVERLAP * s[3]) rest.time[id] = 0;
          mine.push({ box: k, impulse: old ? [...old.impulse] : [0, 0, 0, 0], n: [0, 0, 0], push: 0, surface: [0, 0, 0], target: 0, pseudo: 0 });
        }
      }
      if (before.some((c) => !mine.some((m) => m.box === c.box))) rest.time[id] = 0;
      slotsOf.push(mine);
    }

    // particleSleep: a moving particle at rest long enough (at least a step), its listed partners
    // too, its list no shorter than in the last step, no contact of its deeper than slop +
    // SLEEP_OVERLAP × the smaller radius, is asleep: static and at rest for the step.
    // One that slept in the last step and is awake, or was static then and moves now, takes its
    // partners' impulses. (With sleep off, sleepTime Infinity, none sleeps; the rest still holds.)
    const asleep = new Uint8Array(n);
    // By index: a contact deeper than slop + SLEEP_OVERLAP × the smaller radius (the GPU's note in ParticleRest.deep).
    const deep = new Uint8Array(n);
    let sleeping = 0;
    {
      const rested = (id: number): boolean => rest.time[id] > 0 && rest.time[id] >= sleepTime;
      // Overlapping deeper than slop + SLEEP_OVERLAP × the smaller radius: kept awake, to be corrected.
      const overlapLimit = f32(SLEEP_OVERLAP);
      const shallow = (t: number, u: number): boolean =>
        !(f32(-gapOf(posOf(t), posOf(u)) - slop) > f32(overlapLimit * Math.min(pos[4 * t + 3], pos[4 * u + 3])));
      const woken: number[] = [];
      for (let t = 0; t < n; t++) {
        const id = order[t];
        // A particle at rest so far with a deep contact is not at rest (its time starts again at
        // the write-back) nor asleep.
        if (body[8 * t + 3] > 0 && rest.time[id] > 0 && sleepTime <= MAX_SLEEP_TIME) deep[id] = lists[t].every((c) => shallow(t, c.nbr)) ? 0 : 1;
        if (body[8 * t + 3] > 0 && rested(id) && lists[t].length >= rest.entries[id] && !deep[id] && lists[t].every((c) => rested(c.id))) asleep[t] = 1;
        else if (rest.slept[id] || (rest.isStatic[id] && body[8 * t + 3] > 0)) woken.push(t); // or made dynamic
        rest.entries[id] = lists[t].length;
      }
      for (let t = 0; t < n; t++) {
        if (!asleep[t]) continue;
        sleeping++;
        body.fill(0, 8 * t, 8 * t + 8);
      }
      // Each entry of a woken particle takes its partner's, mirrored (if the partner slept too,
      // the lower index's entry takes the higher's): no entry written here is read here.
      for (const t of woken) {
        const id = order[t];
        for (const c of lists[t]) {
          if ((rest.slept[id] && rest.slept[c.id] && id > c.id) || rest.isStatic[c.id]) continue;
          const back = lists[c.nbr].find((e) => e.id === id);
          if (back) c.impulse = [back.impulse[0], -back.impulse[1], -back.impulse[2], -back.impulse[3]];
        }
      }
      // The first prepare of a busy particle judges its entries active or dormant with the
      // reaches of the bodies it reads: a sleeper's is 0.
      if (sleeping > 0) {
        for (let t = 0; t < n; t++) {
          if (asleep[t]) continue;
          const reach = reachOf(t);
          for (const c of lists[t]) c.dormant = !active(gapOf(posOf(t), posOf(c.nbr)), f32(reach + reachOf(c.nbr)));
        }
      }
    }

    const walls: [Wall, Wall, Wall][] = [];
    for (let t = 0; t < n; t++) walls.push(this.walls.get(order[t]) ?? [noWall(), noWall(), noWall()]);
    const bounds = p.bounds ? p.bounds.map(f32) : null;
    const wallGap = (s: ArrayLike<number>, axis: number, side: number): number =>
      side < 0 ? f32(s[axis] - s[3]) - bounds![axis] : bounds![axis + 3] - f32(s[axis] + s[3]);
    const target = (gap: number, vn0: number): number => {
      if (vn0 < -threshold && gap + vn0 * h <= 0) return -restitution * vn0;
      if (gap > 0) return -gap / h;
      return 0;
    };
    // Warm start only a contact that stays closed through the substep and is not separating
    // (a bounce's impulse, applied again, would throw the particles apart).
    const keepsImpulse = (gap: number, vn0: number): boolean => gap + vn0 * h <= 0;
    const push = (gap: number): number => Math.min((percent * (-gap - slop)) / h, maxPush);
    const gravityStep = p.gravity.map((g) => f32(f32(g) * h));
    const gravityLength = f32(length(p.gravity.map(f32)));

    for (let sub = 0; sub < p.substeps; sub++) {
      // particlePrepare
      const next = new Float32Array(8 * n);
      for (let t = 0; t < n; t++) {
        // A sleeper's bodies stay 0 and its entries and walls as they were.
        if (asleep[t]) continue;
        const s = posOf(t);
        const id = order[t];
        const w = body[8 * t + 3];
        const v = [0, 1, 2].map((a) => body[8 * t + a] + (w > 0 ? gravityStep[a] : 0));
        const dv = [0, 0, 0];
        let splits = 0;
        // colliderPrepare (its warm start and count come first, as the GPU's prepare starts from them)
        for (const c of slotsOf[t]) {
          const g = boxGeometry(s, colliders!.poses, c.box);
          const bv = colliders!.velocities;
          const spin = cross(bv.subarray(8 * c.box + 4, 8 * c.box + 7), g.point);
          const surface: Vec3 = [0, 1, 2].map((a) => f32(bv[8 * c.box + a] + spin[a])) as Vec3;
          const vn0 = dot([surface[0] - v[0], surface[1] - v[1], surface[2] - v[2]], g.n);
          c.target = f32(target(g.gap, vn0));
          c.n = g.n;
          c.push = f32(push(g.gap));
          c.surface = surface;
          if (!keepsImpulse(g.gap, vn0)) {
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
        for (const c of lists[t]) {
          if (c.dormant) {
            c.impulse = [0, 0, 0, 0];
            continue;
          }
          const u = c.nbr;
          const qw = body[8 * u + 3];
          const qv = [0, 1, 2].map((a) => body[8 * u + a] + (qw > 0 ? gravityStep[a] : 0));
          const g = pairGeometry(s, id, posOf(u), c.id, c.n);
          const vn0 = dot([qv[0] - v[0], qv[1] - v[1], qv[2] - v[2]], g.n);
          c.target = f32(target(g.gap, vn0));
          // The sweeps of this substep reuse the geometry: positions move only after them.
          c.n = g.n;
          c.push = f32(push(g.gap));
          if (!keepsImpulse(g.gap, vn0)) {
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
        const mine = walls[t];
        for (let axis = 0; axis < 3; axis++) {
          let c = noWall();
          if (bounds && w > 0) {
            const low = wallGap(s, axis, -1);
            const high = wallGap(s, axis, 1);
            const side = low <= high ? -1 : 1;
            const gap = Math.min(low, high);
            const vn0 = -v[axis] * side;
            if (gap + Math.min(vn0, 0) * h <= margin) {
              c = { ...mine[axis], tangent: [...mine[axis].tangent] };
              if (c.side !== side || !keepsImpulse(gap, vn0)) c = { ...noWall(), side };
              c.target = f32(target(gap, vn0));
              dv[axis] -= w * c.normal * side;
              dv[(axis + 1) % 3] -= w * c.tangent[0];
              dv[(axis + 2) % 3] -= w * c.tangent[1];
              splits++;
            }
          }
          c.pseudo = 0;
          mine[axis] = c;
        }
        for (let a = 0; a < 3; a++) next[8 * t + a] = v[a] + dv[a];
        next[8 * t + 3] = w;
        next[8 * t + 7] = splits;
      }
      body = next;

      // particleIterate, `iterations` Jacobi sweeps
      for (let k = 0; k < p.iterations; k++) {
        const out = body.slice();
        for (let t = 0; t < n; t++) {
          const w = body[8 * t + 3];
          if (w === 0) continue;
          const s = posOf(t);
          const v = body.subarray(8 * t, 8 * t + 3);
          const vp = body.subarray(8 * t + 4, 8 * t + 7);
          const wm = f32(w * body[8 * t + 7]);
          const dv = [0, 0, 0];
          const dvp = [0, 0, 0];
          for (const c of lists[t]) {
            if (c.dormant) continue;
            const u = c.nbr;
            const g = c;
            const k = f32(wm + f32(body[8 * u + 3] * body[8 * u + 7]));
            const rel = [0, 1, 2].map((a) => body[8 * u + a] - v[a]);
            const vn = dot(rel, g.n);
            const normal = f32(Math.max(c.impulse[0] + (c.target - vn) / k, 0));
            let lt = [c.impulse[1], c.impulse[2], c.impulse[3]];
            let dlt = [0, 0, 0];
            if (friction > 0) {
              const next = coulomb(lt, rel.map((r, a) => r - vn * g.n[a]), k, friction * normal);
              dlt = next.map((x, a) => x - lt[a]);
              lt = next;
            }
            for (let a = 0; a < 3; a++) dv[a] -= w * ((normal - c.impulse[0]) * g.n[a] + dlt[a]);
            c.impulse = [normal, f32(lt[0]), f32(lt[1]), f32(lt[2])];
            const vpn = dot([0, 1, 2].map((a) => body[8 * u + 4 + a] - vp[a]), g.n);
            const pushed = f32(Math.max(c.pseudo + (c.push - vpn) / k, 0));
            for (let a = 0; a < 3; a++) dvp[a] -= w * (pushed - c.pseudo) * g.n[a];
            c.pseudo = pushed;
          }
          if (bounds) {
            for (let axis = 0; axis < 3; axis++) {
              const c = walls[t][axis];
              if (c.side === 0) continue;
              const nv: Vec3 = [0, 0, 0];
              nv[axis] = c.side;
              const vn = -dot(v, nv);
              const normal = f32(Math.max(c.normal + (c.target - vn) / wm, 0));
              let lt: number[] = [0, 0, 0];
              lt[(axis + 1) % 3] = c.tangent[0];
              lt[(axis + 2) % 3] = c.tangent[1];
              let dlt = [0, 0, 0];
              if (friction > 0) {
                const next = coulomb(lt, [0, 1, 2].map((a) => -v[a] - vn * nv[a]), wm, friction * normal);
                dlt = next.map((x, a) => x - lt[a]);
                lt = next;
              }
              for (let a = 0; a < 3; a++) dv[a] -= w * ((normal - c.normal) * nv[a] + dlt[a]);
              c.normal = normal;
              c.tangent = [f32(lt[(axis + 1) % 3]), f32(lt[(axis + 2) % 3])];
              const pushed = f32(Math.max(c.pseudo + (push(wallGap(s, axis, c.side)) + dot(vp, nv)) / wm, 0));
              dvp[axis] -= w * (pushed - c.pseudo) * c.side;
              c.pseudo = pushed;
            }
          }
          // The collider slots: contacts with an infinitely heavy body moving at the slot's surface velocity.
          for (const c of slotsOf[t]) {
            const rel = [0, 1, 2].map((a) => c.surface[a] - v[a]);
            const vn = dot(rel, c.n);
            const normal = f32(Math.max(c.impulse[0] + (c.target - vn) / wm, 0));
            let lt = [c.impulse[1], c.impulse[2], c.impulse[3]];
            let dlt = [0, 0, 0];
            if (friction > 0) {
              const next = coulomb(lt, rel.map((r, a) => r - vn * c.n[a]), wm, friction * normal);
              dlt = next.map((x, a) => x - lt[a]);
              lt = next;
            }
            for (let a = 0; a < 3; a++) dv[a] -= w * ((normal - c.impulse[0]) * c.n[a] + dlt[a]);
            c.impulse = [normal, f32(lt[0]), f32(lt[1]), f32(lt[2])];
            const pushed = f32(Math.max(c.pseudo + (c.push + dot(vp, c.n)) / wm, 0));
            for (let a = 0; a < 3; a++) dvp[a] -= w * (pushed - c.pseudo) * c.n[a];
            c.pseudo = pushed;
          }
          for (let a = 0; a < 3; a++) {
            out[8 * t + a] = v[a] + dv[a];
            out[8 * t + 4 + a] = vp[a] + dvp[a];
          }
        }
        body = out;
      }

      // particleIntegrate
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
      // colliderMove: each kinematic box's pose advances over the substep.
      for (let k = 0; k < boxCount; k++) {
        const bv = colliders!.velocities;
        const pose = colliders!.poses;
        if ([0, 1, 2].some((a) => bv[8 * k + a] !== 0)) for (let a = 0; a < 3; a++) pose[12 * k + a] = f32(pose[12 * k + a] + bv[8 * k + a] * h);
        const w = bv.subarray(8 * k + 4, 8 * k + 7);
        if ([0, 1, 2].some((a) => w[a] !== 0)) {
          const q = pose.subarray(12 * k + 8, 12 * k + 12);
          const c = cross(w, q);
          const next = [q[0] + 0.5 * h * (w[0] * q[3] + c[0]), q[1] + 0.5 * h * (w[1] * q[3] + c[1]), q[2] + 0.5 * h * (w[2] * q[3] + c[2]), q[3] - 0.5 * h * dot(w, q)];
          const len = Math.hypot(...next);
          for (let a = 0; a < 4; a++) q[a] = f32(next[a] / len);
        }
      }
    }

    const outSpheres = new Float32Array(4 * n);
    const outVelocities = new Float32Array(4 * n);
    this.walls.clear();
    this.boxes.clear();
    this.last = { radius: new Float32Array(n), static: new Uint8Array(n) };
    for (let t = 0; t < n; t++) {
      const id = order[t];
      outSpheres.set(pos.subarray(4 * t, 4 * t + 4), 4 * id);
      // The inverse mass stays (a sleeper's body holds 0).
      outVelocities.set(body.subarray(8 * t, 8 * t + 3), 4 * id);
      outVelocities[4 * id + 3] = velocities[4 * id + 3];
      this.walls.set(id, walls[t]);
      if (slotsOf[t].length > 0) this.boxes.set(id, slotsOf[t]);
      else this.boxes.delete(id);
      this.last.radius[t] = pos[4 * t + 3];
      this.last.static[t] = velocities[4 * id + 3] === 0 ? 1 : 0;
      // particleWriteBack: where it ended, its time at rest, whether it slept.
      const d = [0, 1, 2].map((a) => f32(pos[4 * t + a] - rest.position[3 * id + a]));
      // Held up: the velocity changed by less than half of gravity's g·dt (no such test without gravity).
      const dv = [0, 1, 2].map((a) => f32(body[8 * t + a] - velocities[4 * id + a]));
      const held = gravityLength === 0 || f32(length(dv)) <= f32(f32(0.5 * gravityLength) * frameDt);
      const still = f32(length(body.subarray(8 * t, 8 * t + 3))) <= sleepSpeed && f32(length(d)) <= f32(sleepSpeed * frameDt) && held && !deep[id];
      rest.position.set(pos.subarray(4 * t, 4 * t + 3), 3 * id);
      rest.time[id] = still ? f32(rest.time[id] + frameDt) : 0;
      rest.slept[id] = asleep[t];
      rest.isStatic[id] = velocities[4 * id + 3] === 0 ? 1 : 0;
    }
    this.asleep = sleeping;
    this.order = order;
    this.lists = lists;
    this.touching = touching;
    this.entries = entries;
    return { spheres: outSpheres, velocities: outVelocities };
  }
}

/** Coulomb's cone: lt − vt/k, shortened to at most `limit`. */
function coulomb(lt: number[], vt: number[], k: number, limit: number): number[] {
  const next = lt.map((x, a) => x - vt[a] / k);
  const len2 = dot(next, next);
  return len2 > limit * limit ? next.map((x) => x * (limit / Math.sqrt(len2))) : next;
}

/** One step of a world with no memory of earlier steps (no warm start from before it). */
export function particleStep(spheres: Float32Array, velocities: Float32Array, params: StepParams, plan: GridPlan): { spheres: Float32Array; velocities: Float32Array } {
  return new ParticleSolverTwin().step(spheres, velocities, params, plan);
}
