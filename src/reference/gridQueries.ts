/**
 * CPU twins of the grid query kernels: sphere–box pairs (shaders/broadphase/grid/boxes.wgsl.ts, `boxGridPairs`)
 * and the slab walk of casts (shaders/broadphase/grid/casts.wgsl.ts, the grid's walk in `castMain`), over the same
 * CPU-built grid as reference/grid.ts, with the same row walk. They use the oracle's
 * double-precision tests, so they must give exactly the brute-force answers; they also count
 * the rows and candidates they visit, which is the work the GPU kernels do.
 */
import { EXT_SCALE, SLAB_X } from '../spatial/level.js';
import type { GridPlan } from '../spatial/plan.js';
import {
  checkedGrid,
  walkRows,
  visitLevel,
  cellRange,
  levelTouches,
  type WalkStats,
  type WalkableGrid,
} from './grid.js';
import { validateAabbs, validateOrientedBoxes, validateCasts } from '../validate.js';
import { sphereAabbOverlap, sphereObbOverlap } from './sphereBox.js';
import { castHit } from './casts.js';
import { gridWalkSlack, GRID_WALK_SLACK } from '../spatial/reach.js';

/** (sphere, box) pairs of AABBs (6 floats each), each box walking the sphere grid. */
export function gridSphereAabbPairs(
  spheres: Float32Array,
  aabbs: Float32Array,
  plan: GridPlan,
  stats?: WalkStats,
): Uint32Array {
  const grid = checkedGrid(spheres, plan);
  validateAabbs('aabbs', aabbs);
  const out: number[] = [];
  for (let k = 0; k < aabbs.length / 6; k++) {
    const min = [aabbs[6 * k], aabbs[6 * k + 1], aabbs[6 * k + 2]];
    const max = [aabbs[6 * k + 3], aabbs[6 * k + 4], aabbs[6 * k + 5]];
    queryBox(grid, min, max, stats, (id) => {
      if (sphereAabbOverlap(spheres, id, aabbs, k)) out.push(id, k);
    });
  }
  return Uint32Array.from(out);
}

/** (sphere, box) pairs of oriented boxes (10 floats each), each box walking the grid over its world bounds. */
export function gridSphereObbPairs(
  spheres: Float32Array,
  boxes: Float32Array,
  plan: GridPlan,
  stats?: WalkStats,
): Uint32Array {
  const grid = checkedGrid(spheres, plan);
  validateOrientedBoxes('boxes', boxes);
  const out: number[] = [];
  for (let k = 0; k < boxes.length / 10; k++) {
    const b = 10 * k;
    const len = Math.hypot(boxes[b + 6], boxes[b + 7], boxes[b + 8], boxes[b + 9]);
    const [x, y, z, w] = [6, 7, 8, 9].map((o) => boxes[b + o] / len);
    const rows = [
      [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
      [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
      [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ];
    // The world half extents, each grown by 2^-16 of their sum, as the kernel grows them (shaders/boxes.wgsl.ts, boxBounds).
    const e0 = rows.map((row) => row.reduce((sum, v, j) => sum + Math.abs(v) * boxes[b + 3 + j], 0));
    const span = e0[0] + e0[1] + e0[2];
    const e = e0.map((v) => v + span * 2 ** -16);
    queryBox(
      grid,
      [0, 1, 2].map((a) => boxes[b + a] - e[a]),
      [0, 1, 2].map((a) => boxes[b + a] + e[a]),
      stats,
      (id) => {
        if (sphereObbOverlap(spheres, id, boxes, k)) out.push(id, k);
      },
    );
  }
  return Uint32Array.from(out);
}

function queryBox(
  grid: WalkableGrid,
  min: number[],
  max: number[],
  stats: WalkStats | undefined,
  visit: (id: number) => void,
): void {
  const { plan } = grid;
  plan.levels.forEach((level, b) => {
    if (level.count === 0) return;
    const ext = Math.fround(level.maxRadius * EXT_SCALE);
    if (
      !levelTouches(
        level,
        min.map((v) => Math.fround(v - ext)),
        max.map((v) => Math.fround(v + ext)),
      )
    )
      return;
    const { lo, hi } = cellRange(plan, b, min, max, ext);
    walkRows(grid, b, lo, hi, 0, (_, id) => visit(id), stats, lo, true);
  });
}

/** The casts' hits found by walking the CPU grid (in doubles), nearest or all. */
export interface WalkedCasts {
  /** Nearest: one entry per cast (−1 = miss). All hits: every hit, by cast then distance then index. */
  index: Int32Array;
  /** The distance travelled to each hit (NaN for a miss). */
  distance: Float64Array;
  /** All hits only: hits of cast k are [offsets[k], offsets[k + 1]). */
  offsets?: Uint32Array;
}

/**
 * Rays (stride 6) or sphere casts (stride 7) walking the sphere grid in slabs along each ray's
 * dominant axis, as the GPU does: nearest hit (stopping at the first slab past the best hit),
 * or every hit.
 */
export function gridCasts(
  rays: Float32Array,
  stride: 6 | 7,
  spheres: Float32Array,
  plan: GridPlan,
  allHits = false,
  stats?: WalkStats & { slabs?: number },
): WalkedCasts {
  const grid = checkedGrid(spheres, plan);
  validateCasts(stride === 6 ? 'rays' : 'casts', rays, stride);
  const count = rays.length / stride;
  const index: number[] = [];
  const distance: number[] = [];
  const offsets = new Uint32Array(count + 1);
  for (let k = 0; k < count; k++) {
    const o = stride * k;
    const a = [rays[o], rays[o + 1], rays[o + 2]];
    const ab = [rays[o + 3] - a[0], rays[o + 4] - a[1], rays[o + 5] - a[2]];
    const r1 = stride === 7 ? rays[o + 6] : 0;
    const len = Math.hypot(ab[0], ab[1], ab[2]);
    let best = Infinity;
    let bestIndex = -1;
    const hits: [number, number][] = [];
    if (len > 0) {
      const n = ab.map((v) => v / len);
      const an = n.map(Math.abs);
      const axis = an[0] >= an[1] && an[0] >= an[2] ? 0 : an[1] >= an[2] ? 1 : 2;
      const dir = n[axis] > 0 ? 1 : -1;
      // Coarsest level first, as the kernel walks them: a large sphere's hit bounds the finer walks.
      for (let b = plan.levels.length - 1; b >= 0; b--) {
        const level = plan.levels[b];
        if (level.count === 0) continue;
        const lastSlab = level.dims[axis] - 1;
        // In the level's frame, as the kernel walks (al: A's offset from the level's origin),
        // with its slack for this cast and level (gridWalkSlack): a hit the double-precision
        // test accepts next to a level's bounds or a cell's edge is then never walked past.
        const al = a.map((v, c) => v - level.origin[c]);
        const h =
          (level.maxRadius + r1) * EXT_SCALE +
          gridWalkSlack(Math.max(...al.map(Math.abs)), len, r1, level.maxRadius, level.cellSize);
        const stop = (): number => (allHits ? len : Math.min(len, best));
        const thickness = axis === 0 ? SLAB_X : 1;
        // The stretch [tLo, tHi] within reach of the level's bounds, grown as the kernel grows
        // them (twice the reach, ulps of the bounds and of A's offset); axes the cast barely
        // moves along clip nothing.
        const farthest = Math.max(...al.map(Math.abs));
        let tLo = 0;
        let tHi = stop();
        for (let c = 0; c < 3; c++) {
          if (!(Math.abs(n[c]) >= 2 ** -20)) continue;
          const lowB = level.lower[c] - level.origin[c];
          const highB = level.upper[c] - level.origin[c];
          const grow = 2 * h + (Math.max(Math.abs(lowB), Math.abs(highB)) + farthest) * GRID_WALK_SLACK;
          const ta = (Math.max(lowB - grow, -1e30) - al[c]) / n[c];
          const tb = (Math.min(highB + grow, 1e30) - al[c]) / n[c];
          tLo = Math.max(tLo, Math.min(ta, tb));
          tHi = Math.min(tHi, Math.max(ta, tb));
        }
        if (tLo > tHi) continue;
        const start = a.map((v, c) => v + n[c] * tLo);
        const end = a.map((v, c) => v + n[c] * tHi);
        if (
          !levelTouches(
            level,
            start.map((v, c) => Math.min(v, end[c]) - h),
            start.map((v, c) => Math.max(v, end[c]) + h),
          )
        )
          continue;
        const cellAt = (c: number, d: number): number =>
          Math.min(Math.max(Math.floor(d * level.invCellSize), 0), level.dims[c] - 1);
        const slabFirst = cellAt(axis, al[axis] + n[axis] * tLo - dir * h);
        const slabLast = cellAt(axis, al[axis] + n[axis] * tHi + dir * h);
        const test = (id: number): void => {
          const hit = castHit(
            a[0],
            a[1],
            a[2],
            rays[o + 3],
            rays[o + 4],
            rays[o + 5],
            r1,
            spheres[4 * id],
            spheres[4 * id + 1],
            spheres[4 * id + 2],
            spheres[4 * id + 3],
          );
          if (!hit) return;
          if (allHits) hits.push([hit.t, id]);
          else if (hit.t < best || (hit.t === best && id < bestIndex)) {
            best = hit.t;
            bestIndex = id;
          }
        };
        if (Math.floor(Math.abs(slabLast - slabFirst) / thickness) + 1 > level.count) {
          visitLevel(grid, b, (_, id) => test(id), stats);
          continue;
        }
        // A row's cells along x within h of the stretch [t0, t1] of the slab's where the cast is
        // within h of the row's cells in y and z, up to the best hit so far (the kernel's rowClip).
        const rowClip =
          (tIn: number, tOut: number) =>
          (y: number, z: number): [number, number] => {
            let t0 = tIn;
            let t1 = Math.min(tOut, stop());
            [y, z].forEach((cell, i) => {
              const c = i + 1;
              if (!(Math.abs(n[c]) >= 2 ** -20)) return;
              const low = cell === 0 ? -Infinity : cell * level.cellSize - h;
              const high = cell === level.dims[c] - 1 ? Infinity : (cell + 1) * level.cellSize + h;
              const ta = (low - al[c]) / n[c],
                tb = (high - al[c]) / n[c];
              t0 = Math.max(t0, Math.min(ta, tb));
              t1 = Math.min(t1, Math.max(ta, tb));
            });
            if (t0 > t1) return [1, 0];
            const xa = al[0] + n[0] * t0,
              xb = al[0] + n[0] * t1;
            return [cellAt(0, Math.min(xa, xb) - h), cellAt(0, Math.max(xa, xb) + h)];
          };
        for (let slab = slabFirst; ; slab += dir * thickness) {
          const first = dir > 0 ? slab : Math.max(slab - thickness + 1, 0);
          const last = dir > 0 ? Math.min(slab + thickness - 1, lastSlab) : slab;
          const x0 = first === 0 ? -Infinity : first * level.cellSize - h;
          const x1 = last === lastSlab ? Infinity : (last + 1) * level.cellSize + h;
          const tIn = Math.max(((dir > 0 ? x0 : x1) - al[axis]) / n[axis], tLo);
          if (tIn > Math.min(stop(), tHi)) break;
          const tOut = Math.min(((dir > 0 ? x1 : x0) - al[axis]) / n[axis], stop(), tHi);
          if (stats?.slabs !== undefined) stats.slabs++;
          if (tIn <= tOut) {
            const p0 = al.map((v, c) => v + n[c] * tIn);
            const p1 = al.map((v, c) => v + n[c] * tOut);
            const lo = [0, 1, 2].map((c) => cellAt(c, Math.min(p0[c], p1[c]) - h));
            const hi = [0, 1, 2].map((c) => cellAt(c, Math.max(p0[c], p1[c]) + h));
            lo[axis] = first;
            hi[axis] = last;
            walkRows(grid, b, lo, hi, 0, (_, id) => test(id), stats, lo, true, rowClip(tIn, tOut));
          }
          if (slabLast >= first && slabLast <= last) break;
        }
      }
    }
    if (allHits) {
      hits.sort((p, q) => p[0] - q[0] || p[1] - q[1]);
      for (const [t, id] of hits) {
        distance.push(t);
        index.push(id);
      }
      offsets[k + 1] = index.length;
    } else {
      index.push(bestIndex);
      distance.push(bestIndex >= 0 ? best : NaN);
    }
  }
  return {
    index: Int32Array.from(index),
    distance: Float64Array.from(distance),
    offsets: allHits ? offsets : undefined,
  };
}
