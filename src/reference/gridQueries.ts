/**
 * CPU twins of the grid query kernels: sphere–box pairs (src/broadphase/grid/boxes.wgsl.ts, `boxGridPairs`)
 * and the slab walk of casts (src/broadphase/grid/casts.wgsl.ts, the grid's walk in `castMain`), over the same
 * CPU-built grid as reference/grid.ts, with the same row walk. They use the oracle's
 * double-precision tests, so they must give exactly the brute-force answers; they also count
 * the rows and candidates they visit, which is the work the GPU kernels do.
 */
import { EXT_SCALE, SLAB_X } from '../grid/level.js';
import type { GridPlan } from '../grid/plan.js';
import { checkedGrid, walkableGrid, walkRows, visitLevel, cellRange, cellOf, levelTouches, type WalkStats } from './grid.js';
import { validateAabbs, validateOrientedBoxes, validateCasts } from '../validate.js';
import { sphereAabbOverlap, sphereObbOverlap } from './sphereBox.js';
import { castHit } from './casts.js';


/** (sphere, box) pairs of AABBs (6 floats each), each box walking the sphere grid. */
export function gridSphereAabbPairs(spheres: Float32Array, aabbs: Float32Array, plan: GridPlan, stats?: WalkStats): Uint32Array {
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
export function gridSphereObbPairs(spheres: Float32Array, boxes: Float32Array, plan: GridPlan, stats?: WalkStats): Uint32Array {
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
    queryBox(grid, [0, 1, 2].map((a) => boxes[b + a] - e[a]), [0, 1, 2].map((a) => boxes[b + a] + e[a]), stats, (id) => {
      if (sphereObbOverlap(spheres, id, boxes, k)) out.push(id, k);
    });
  }
  return Uint32Array.from(out);
}

function queryBox(grid: ReturnType<typeof walkableGrid>, min: number[], max: number[], stats: WalkStats | undefined, visit: (id: number) => void): void {
  const { plan } = grid;
  plan.levels.forEach((level, b) => {
    if (level.count === 0) return;
    const ext = Math.fround(level.maxRadius * EXT_SCALE);
    if (!levelTouches(level, min.map((v) => Math.fround(v - ext)), max.map((v) => Math.fround(v + ext)))) return;
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
export function gridCasts(rays: Float32Array, stride: 6 | 7, spheres: Float32Array, plan: GridPlan, allHits = false, stats?: WalkStats & { slabs?: number }): WalkedCasts {
  const grid = checkedGrid(spheres, plan);
  validateCasts(stride === 6 ? 'rays' : 'casts', rays, stride);
  const count = rays.length / stride;
  // The GPU's reach slack (castSlack: the rounding in positions of this size), added to every
  // reach as the kernel does: a hit the double-precision test accepts next to a level's bounds
  // or a cell's edge is then never walked past.
  let extent = 0;
  let maxLength = 0;
  let maxRadius = 0;
  for (let o = 0; o < rays.length; o += stride) {
    for (let c = 0; c < 6; c++) extent = Math.max(extent, Math.abs(rays[o + c]));
    maxLength = Math.max(maxLength, Math.hypot(rays[o + 3] - rays[o], rays[o + 4] - rays[o + 1], rays[o + 5] - rays[o + 2]));
  }
  for (let o = 0; o < spheres.length; o += 4) {
    for (let c = 0; c < 3; c++) extent = Math.max(extent, Math.abs(spheres[o + c]));
    maxRadius = Math.max(maxRadius, spheres[o + 3]);
  }
  const slack = (extent + maxLength + maxRadius) * 2 ** -20;
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
      plan.levels.forEach((level, b) => {
        if (level.count === 0) return;
        const lastSlab = level.dims[axis] - 1;
        const h = (level.maxRadius + r1) * EXT_SCALE + slack;
        const stop = (): number => (allHits ? len : Math.min(len, best));
        const thickness = axis === 0 ? SLAB_X : 1;
        const end = a.map((v, c) => v + n[c] * stop());
        if (!levelTouches(level, a.map((v, c) => Math.min(v, end[c]) - h), a.map((v, c) => Math.max(v, end[c]) + h))) return;
        const slabFirst = cellOf(plan, b, axis, a[axis] - dir * h);
        const slabLast = cellOf(plan, b, axis, a[axis] + n[axis] * stop() + dir * h);
        const test = (id: number): void => {
          const hit = castHit(a[0], a[1], a[2], rays[o + 3], rays[o + 4], rays[o + 5], r1, spheres[4 * id], spheres[4 * id + 1], spheres[4 * id + 2], spheres[4 * id + 3]);
          if (!hit) return;
          if (allHits) hits.push([hit.t, id]);
          else if (hit.t < best || (hit.t === best && id < bestIndex)) {
            best = hit.t;
            bestIndex = id;
          }
        };
        if (Math.floor(Math.abs(slabLast - slabFirst) / thickness) + 1 > level.count) {
          visitLevel(grid, b, (_, id) => test(id), stats);
          return;
        }
        for (let slab = slabFirst; ; slab += dir * thickness) {
          const first = dir > 0 ? slab : Math.max(slab - thickness + 1, 0);
          const last = dir > 0 ? Math.min(slab + thickness - 1, lastSlab) : slab;
          const x0 = first === 0 ? -Infinity : level.origin[axis] + first * level.cellSize - h;
          const x1 = last === lastSlab ? Infinity : level.origin[axis] + (last + 1) * level.cellSize + h;
          const tIn = Math.max(((dir > 0 ? x0 : x1) - a[axis]) / n[axis], 0);
          if (tIn > stop()) break;
          const tOut = Math.min(((dir > 0 ? x1 : x0) - a[axis]) / n[axis], stop());
          if (stats?.slabs !== undefined) stats.slabs++;
          if (tIn <= tOut) {
            const p0 = a.map((v, c) => v + n[c] * tIn);
            const p1 = a.map((v, c) => v + n[c] * tOut);
            const { lo, hi } = cellRange(plan, b, p0.map((v, c) => Math.min(v, p1[c])), p0.map((v, c) => Math.max(v, p1[c])), h);
            lo[axis] = first;
            hi[axis] = last;
            walkRows(grid, b, lo, hi, 0, (_, id) => test(id), stats, lo, true);
          }
          if (slabLast >= first && slabLast <= last) break;
        }
      });
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
  return { index: Int32Array.from(index), distance: Float64Array.from(distance), offsets: allHits ? offsets : undefined };
}
