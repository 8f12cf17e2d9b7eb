/**
 * The CPU twin of the particle world's step (shaders/particles.wgsl.ts): the same grid (stable
 * by index within a bucket), the same neighbour walk and order, the same contact math, in
 * double precision with the state stored as f32, so a few steps on small scenes can be
 * compared particle by particle.
 *
 * Per step, with v' = v + g·dt for moving particles:
 *   each touching pair, normal n from A to B (hashed from the indices when the centres
 *   coincide), v = (vB − vA)·n, wA, wB inverse masses:
 *     v < 0:          j = −(1 + e) v / (wA + wB), ΔvA = −j wA n / max(nA, nB)
 *     depth > slop:   c = (depth − slop)·percent,  ΔxA = −c wA/(wA + wB) n / max(mA, mB)
 *   where n· counts a particle's approaching contacts and m· its contacts deeper than slop
 *   (walls included, as static contacts); then v'' = v' + ΣΔv, x'' = x + v''·dt + ΣΔx, and the
 *   centre is clamped into the bounds.
 */
import { EXT_SCALE } from '../grid/level.js';
import type { GridPlan } from '../grid/plan.js';
import { walkableGrid, walkRows, cellRange, hashRow } from './grid.js';

export interface StepParams {
  dt: number;
  gravity: readonly number[];
  restitution: number;
  percent: number;
  slop: number;
  /** [minX, minY, minZ, maxX, maxY, maxZ], or null for no walls. */
  bounds: readonly number[] | null;
}

export interface Contact {
  n: [number, number, number];
  depth: number;
  vrel: number;
  touching: boolean;
}

/** The WGSL `coincidentNormal` twin: a unit vector hashed from the pair, from the lower index to the higher. */
export function coincidentNormal(i: number, j: number): [number, number, number] {
  const lo = Math.min(i, j);
  const hi = Math.max(i, j);
  const raw = [1, 2, 3].map((k) => Math.fround(Math.fround(hashRow(lo, hi, k) >>> 16) / 32767.5) - 1);
  const len2 = raw[0] ** 2 + raw[1] ** 2 + raw[2] ** 2;
  const u = len2 > 1e-6 ? raw.map((v) => v / Math.sqrt(len2)) : [1, 0, 0];
  return (i < j ? u : u.map((v) => -v)) as [number, number, number];
}

/** The WGSL `pairContact` twin: A at pa (x, y, z, r) with velocity va, B likewise. */
export function pairContact(pa: ArrayLike<number>, va: ArrayLike<number>, ia: number, pb: ArrayLike<number>, vb: ArrayLike<number>, ib: number): Contact {
  const d = [pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]];
  const dist2 = d[0] ** 2 + d[1] ** 2 + d[2] ** 2;
  const reach = pa[3] + pb[3];
  const dist = Math.sqrt(dist2);
  const n = (dist2 > 0 ? d.map((v) => v / dist) : coincidentNormal(ia, ib)) as [number, number, number];
  return {
    n,
    depth: reach - dist,
    vrel: (vb[0] - va[0]) * n[0] + (vb[1] - va[1]) * n[1] + (vb[2] - va[2]) * n[2],
    touching: dist2 <= reach * reach,
  };
}

/** The wall contacts of a particle: per axis the lower wall (normal −e_a), then the upper (+e_a). */
export function wallContacts(p: ArrayLike<number>, v: ArrayLike<number>, bounds: readonly number[] | null): Contact[] {
  if (!bounds) return [];
  const out: Contact[] = [];
  for (let axis = 0; axis < 3; axis++) {
    for (const side of [0, 1]) {
      const n: [number, number, number] = [0, 0, 0];
      n[axis] = side === 0 ? -1 : 1;
      const depth = side === 0 ? bounds[axis] + p[3] - p[axis] : p[axis] + p[3] - bounds[axis + 3];
      out.push({ n, depth, vrel: side === 0 ? v[axis] : -v[axis], touching: depth >= 0 });
    }
  }
  return out;
}

/**
 * One step. `spheres` is x, y, z, r and `velocities` vx, vy, vz, inverse mass per particle (as
 * the world's GPU buffers hold them); returns the new state, f32.
 */
export function particleStep(spheres: Float32Array, velocities: Float32Array, params: StepParams, plan: GridPlan): { spheres: Float32Array; velocities: Float32Array } {
  const n = spheres.length / 4;
  const grid = walkableGrid(spheres, plan);
  const { order } = grid;
  // Velocity after gravity, in bucket order (particleStable).
  const vel = new Float64Array(4 * n);
  for (let t = 0; t < n; t++) {
    const id = order[t];
    const w = velocities[4 * id + 3];
    for (let a = 0; a < 3; a++) vel[4 * t + a] = Math.fround(velocities[4 * id + a] + (w > 0 ? params.gravity[a] * params.dt : 0));
    vel[4 * t + 3] = w;
  }
  const position = (t: number): Float32Array => spheres.subarray(4 * order[t], 4 * order[t] + 4);
  const velocity = (t: number): Float64Array => vel.subarray(4 * t, 4 * t + 4);
  const positionOf = new Uint32Array(n); // bucket position of each particle
  for (let t = 0; t < n; t++) positionOf[order[t]] = t;

  const eachNeighbour = (t: number, visit: (u: number) => void): void => {
    const p = position(t);
    plan.levels.forEach((level, b) => {
      if (level.count === 0) return;
      const ext = Math.fround(Math.fround(p[3] + level.maxRadius) * Math.fround(EXT_SCALE));
      const { lo, hi } = cellRange(plan, b, [p[0], p[1], p[2]], [p[0], p[1], p[2]], ext);
      walkRows(grid, b, lo, hi, 0, (_, id) => {
        const u = positionOf[id];
        if (u !== t) visit(u);
      });
    });
  };

  // particleCount
  const approaching = new Uint32Array(n);
  const deep = new Uint32Array(n);
  for (let t = 0; t < n; t++) {
    const p = position(t), v = velocity(t);
    eachNeighbour(t, (u) => {
      const c = pairContact(p, v, order[t], position(u), velocity(u), order[u]);
      if (c.touching && v[3] + velocity(u)[3] > 0) {
        if (c.vrel < 0) approaching[t]++;
        if (c.depth > params.slop) deep[t]++;
      }
    });
    if (v[3] > 0) {
      for (const wall of wallContacts(p, v, params.bounds)) {
        if (!wall.touching) continue;
        if (wall.vrel < 0) approaching[t]++;
        if (wall.depth > params.slop) deep[t]++;
      }
    }
  }

  // particleRespond
  const outSpheres = new Float32Array(4 * n);
  const outVelocities = new Float32Array(4 * n);
  for (let t = 0; t < n; t++) {
    const p = position(t), v = velocity(t);
    const dv = [0, 0, 0];
    const dx = [0, 0, 0];
    if (v[3] > 0) {
      eachNeighbour(t, (u) => {
        const q = velocity(u);
        const c = pairContact(p, v, order[t], position(u), q, order[u]);
        const wsum = v[3] + q[3];
        if (!c.touching || !(wsum > 0)) return;
        if (c.vrel < 0) {
          const j = (-(1 + params.restitution) * c.vrel) / wsum;
          for (let a = 0; a < 3; a++) dv[a] -= ((j * v[3]) / Math.max(approaching[t], approaching[u])) * c.n[a];
        }
        if (c.depth > params.slop) {
          const correction = (c.depth - params.slop) * params.percent;
          for (let a = 0; a < 3; a++) dx[a] -= ((correction * v[3]) / wsum / Math.max(deep[t], deep[u])) * c.n[a];
        }
      });
      for (const wall of wallContacts(p, v, params.bounds)) {
        if (!wall.touching) continue;
        if (wall.vrel < 0) {
          const j = (-(1 + params.restitution) * wall.vrel) / v[3];
          for (let a = 0; a < 3; a++) dv[a] -= ((j * v[3]) / approaching[t]) * wall.n[a];
        }
        if (wall.depth > params.slop) {
          for (let a = 0; a < 3; a++) dx[a] -= (((wall.depth - params.slop) * params.percent) / deep[t]) * wall.n[a];
        }
      }
    }
    const id = order[t];
    for (let a = 0; a < 3; a++) {
      const nv = v[a] + dv[a];
      let x = p[a] + nv * params.dt + dx[a];
      if (params.bounds) x = Math.min(Math.max(x, params.bounds[a]), params.bounds[a + 3]);
      outVelocities[4 * id + a] = nv;
      outSpheres[4 * id + a] = x;
    }
    outSpheres[4 * id + 3] = p[3];
    outVelocities[4 * id + 3] = v[3];
  }
  return { spheres: outSpheres, velocities: outVelocities };
}
