/**
 * The CPU twin of the GPU grid (shaders/spatial/grid.wgsl.ts, shaders/broadphase/grid/pairs.wgsl.ts): the same
 * plan, the same level, cell, row and bucket functions (same names), the same counting sort and
 * the same neighbour walk. Cell math is done in f32 (Math.fround after every operation) so the
 * cells match the GPU's bit for bit; the overlap test is the oracle's double-precision one, so
 * this grid must give exactly the brute-force pairs. Fast enough to check 100k spheres.
 */
import { ceilLog2 } from '../spatial/level.js';
import { EXT_SCALE } from '../spatial/level.js';
import { levelOfLog2, type GridPlan, type GridLevelPlan } from '../spatial/plan.js';
import { validateSpheres } from '../validate.js';
import { RULES } from '../checks.js';
import { InvalidInputError } from '../errors.js';

const f32 = Math.fround;

/** The grid level a sphere of radius `r` belongs to (the WGSL `sphereLevel`). */
export function sphereLevel(plan: GridPlan, r: number): number {
  return levelOfLog2(ceilLog2(r), plan.levelBias, plan.levelStep, plan.levels.length);
}

/** Cell coordinate along one axis (0, 1, 2) of value x at a level. */
export function cellOf(plan: GridPlan, level: number, axis: number, x: number): number {
  const l = plan.levels[level];
  const c = Math.floor(f32(f32(x - l.origin[axis]) * f32(l.invCellSize)));
  return Math.min(Math.max(c, 0), l.dims[axis] - 1);
}

/** The hash of a row of cells (level, y, z) in a hashed grid (the WGSL `hashRow`, a murmur3 finalizer). */
export function hashRow(level: number, y: number, z: number): number {
  let h = (Math.imul(level, 0x9e3779b1) ^ Math.imul(y, 0x85ebca77) ^ Math.imul(z, 0xc2b2ae3d)) >>> 0;
  h = (h ^ (h >>> 16)) >>> 0;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h = (h ^ (h >>> 13)) >>> 0;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** The key of a row of cells: its first cell's index when dense, else {@link hashRow}. */
export function rowKey(plan: GridPlan, level: number, y: number, z: number): number {
  if (plan.dense) {
    const l = plan.levels[level];
    return (l.keyBase + Math.imul(l.dims[0], (y + Math.imul(l.dims[1], z)) >>> 0)) >>> 0;
  }
  return hashRow(level, y, z);
}

/** The bucket of cell (x, y, z) at a level: `(rowKey + x) & bucketMask`. */
export function bucketOf(plan: GridPlan, level: number, x: number, y: number, z: number): number {
  return (((rowKey(plan, level, y, z) + x) >>> 0) & plan.bucketMask) >>> 0;
}

/** The grid the GPU builds, built on the CPU: spheres sorted by bucket. */
export interface CpuGrid {
  /** The plan it was built with. */
  plan: GridPlan;
  /** cellStart[k] = first sorted position of bucket k; cellStart[bucketCount] = N. */
  cellStart: Uint32Array;
  /** Original index of the sphere at each sorted position (stable: by index within a bucket). */
  order: Uint32Array;
  /** Bucket of each sphere (by original index). */
  bucket: Uint32Array;
}

/** gridCount + scan + gridScatter, on the CPU. */
export function buildGrid(spheres: Float32Array, plan: GridPlan): CpuGrid {
  const n = spheres.length / 4;
  const m = plan.bucketCount;
  const bucket = new Uint32Array(n);
  const cellStart = new Uint32Array(m + 1);
  for (let i = 0; i < n; i++) {
    const level = sphereLevel(plan, spheres[4 * i + 3]);
    const k = bucketOf(
      plan,
      level,
      cellOf(plan, level, 0, spheres[4 * i]),
      cellOf(plan, level, 1, spheres[4 * i + 1]),
      cellOf(plan, level, 2, spheres[4 * i + 2]),
    );
    bucket[i] = k;
    cellStart[k]++;
  }
  let sum = 0;
  for (let k = 0; k <= m; k++) {
    const c = k < m ? cellStart[k] : 0;
    cellStart[k] = sum;
    sum += c;
  }
  const next = cellStart.slice(0, m);
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[next[bucket[i]]++] = i;
  return { plan, cellStart, order, bucket };
}

/** Work a walk did: rows of cells visited and candidate spheres tested (after filtering). */
export interface WalkStats {
  /** Rows of cells visited. */
  rows: number;
  /** Candidate spheres tested. */
  candidates: number;
}

/** A built grid with each sphere's level, ready to walk. */
export interface WalkableGrid extends CpuGrid {
  /** The spheres, x, y, z, r each, by original index. */
  spheres: Float32Array;
  /** Each sphere's level, by original index. */
  levelOf: Uint8Array;
}

/** Builds the grid of `spheres` by `plan` and notes each sphere's level. */
export function walkableGrid(spheres: Float32Array, plan: GridPlan): WalkableGrid {
  const grid = buildGrid(spheres, plan);
  const n = spheres.length / 4;
  const levelOf = new Uint8Array(n);
  for (let i = 0; i < n; i++) levelOf[i] = sphereLevel(plan, spheres[4 * i + 3]);
  return { ...grid, spheres, levelOf };
}

/**
 * `walkableGrid` for the public twins (gridSpherePairs, gridSphereAabbPairs, gridSphereObbPairs,
 * gridCasts): the spheres validated as the GPU calls validate them (InvalidInputError), and the
 * plan checked to be one made for them (every centre within its level's bounds): a plan for other
 * spheres misses pairs silently, and a NaN would make the casts' walk loop forever.
 */
export function checkedGrid(spheres: Float32Array, plan: GridPlan): WalkableGrid {
  validateSpheres('spheres', spheres);
  const n = spheres.length / 4;
  for (let i = 0; i < n; i++) {
    const level = plan.levels[sphereLevel(plan, spheres[4 * i + 3])];
    for (let a = 0; a < 3; a++) {
      const v = spheres[4 * i + a];
      if (!level || !(v >= level.lower[a] && v <= level.upper[a])) {
        throw new InvalidInputError(
          'plan',
          i,
          RULES.option,
          `a plan made for these spheres (collider.planFor(spheres)): sphere ${i} lies outside its level's bounds`,
        );
      }
    }
  }
  return walkableGrid(spheres, plan);
}

/**
 * The twin of `walkRows` (shaders/spatial/walk.wgsl.ts): visits every sphere of `level` whose cell is
 * in [lo, hi], a row (y, z) at a time. Dense: the rows before `head` are skipped; hashed: a row's
 * bucket range may wrap, and candidates are filtered by their own level and cell. Spheres before
 * position `first` in bucket order are skipped. `rowClip(y, z)`, when given, narrows each row to
 * its cells [x0, x1] along x within [lo.x, hi.x] (none when x0 > x1), as the casts' walk does.
 * `visit(u, id)` gets the sorted position and the sphere's index.
 */
export function walkRows(
  grid: WalkableGrid,
  level: number,
  lo: number[],
  hi: number[],
  first: number,
  visit: (u: number, id: number) => void,
  stats?: WalkStats,
  head: number[] = lo,
  levelScan = false,
  rowClip?: (y: number, z: number) => [number, number],
): void {
  const { plan, cellStart, order, spheres, levelOf } = grid;
  if (levelScan && (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1) > plan.levels[level].count) {
    visitLevel(
      grid,
      level,
      (u, id) => {
        for (let a = 0; a < 3; a++) {
          const c = cellOf(plan, level, a, spheres[4 * id + a]);
          if (c < lo[a] || c > hi[a]) return;
        }
        visit(u, id);
      },
      stats,
    );
    return;
  }
  const m = plan.bucketCount;
  const range = (k0: number, k1: number, y: number, z: number, x0: number, x1: number): void => {
    for (let u = Math.max(cellStart[k0], first); u < cellStart[k1]; u++) {
      const id = order[u];
      if (!plan.dense) {
        if (levelOf[id] !== level) continue;
        if (cellOf(plan, level, 1, spheres[4 * id + 1]) !== y || cellOf(plan, level, 2, spheres[4 * id + 2]) !== z)
          continue;
        const cx = cellOf(plan, level, 0, spheres[4 * id]);
        if (cx < x0 || cx > x1) continue;
      }
      if (stats) stats.candidates++;
      visit(u, id);
    }
  };
  for (let z = plan.dense ? head[2] : lo[2]; z <= hi[2]; z++) {
    for (let y = plan.dense && z === head[2] ? head[1] : lo[1]; y <= hi[1]; y++) {
      if (stats) stats.rows++;
      // The row's cells along x: the range's, or narrowed by rowClip (the casts' walk).
      let x0 = lo[0],
        x1 = hi[0];
      if (rowClip) {
        const [a, b] = rowClip(y, z);
        x0 = Math.max(a, lo[0]);
        x1 = Math.min(b, hi[0]);
        if (x0 > x1) continue;
      }
      const width = x1 - x0 + 1;
      if (width >= m) {
        range(0, m, y, z, x0, x1);
        continue;
      }
      const k0 = (((rowKey(plan, level, y, z) + x0) >>> 0) & plan.bucketMask) >>> 0;
      const k1 = k0 + width;
      if (k1 <= m) range(k0, k1, y, z, x0, x1);
      else {
        range(k0, m, y, z, x0, x1);
        range(0, k1 - m, y, z, x0, x1);
      }
    }
  }
}

/** The twin of `visitLevel`: every sphere of a level, in bucket order. */
export function visitLevel(
  grid: WalkableGrid,
  level: number,
  visit: (u: number, id: number) => void,
  stats?: WalkStats,
): void {
  const { plan, cellStart, order, levelOf } = grid;
  let from = 0;
  let to = order.length;
  if (plan.dense) {
    const l = plan.levels[level];
    from = cellStart[l.keyBase];
    to = cellStart[l.keyBase + l.dims[0] * l.dims[1] * l.dims[2]];
  }
  for (let u = from; u < to; u++) {
    if (!plan.dense && levelOf[order[u]] !== level) continue;
    if (stats) stats.candidates++;
    visit(u, order[u]);
  }
}

/** Can the box [min, max] hold a centre of the level? (The WGSL `levelTouches`.) */
export function levelTouches(level: GridLevelPlan, min: readonly number[], max: readonly number[]): boolean {
  for (let a = 0; a < 3; a++) if (max[a] < level.lower[a] || min[a] > level.upper[a]) return false;
  return true;
}

/** The cell range [lo, hi] of a level covering the box [min − ext, max + ext] (f32, as the GPU). */
export function cellRange(
  plan: GridPlan,
  level: number,
  min: number[],
  max: number[],
  ext: number,
): { lo: number[]; hi: number[] } {
  return {
    lo: [0, 1, 2].map((a) => cellOf(plan, level, a, f32(min[a] - ext))),
    hi: [0, 1, 2].map((a) => cellOf(plan, level, a, f32(max[a] + ext))),
  };
}

/**
 * Every overlapping pair (i < j), by the GPU's walk over a CPU-built grid. Unordered. `plan` must
 * be the plan of these spheres (`collider.planFor(spheres)`): a level skips query boxes outside
 * the bounds of the centres it was planned for.
 */
export function gridSpherePairs(spheres: Float32Array, plan: GridPlan, stats?: WalkStats): Uint32Array {
  const grid = checkedGrid(spheres, plan);
  const { order, levelOf } = grid;
  const out: number[] = [];
  for (let t = 0; t < order.length; t++) {
    const id = order[t];
    const p = [spheres[4 * id], spheres[4 * id + 1], spheres[4 * id + 2]];
    const r = spheres[4 * id + 3];
    const a = levelOf[id];
    for (let b = a; b < plan.levels.length; b++) {
      const level = plan.levels[b];
      if (level.count === 0) continue;
      const ext = f32(f32(r + level.maxRadius) * f32(EXT_SCALE));
      if (
        !levelTouches(
          level,
          p.map((v) => f32(v - ext)),
          p.map((v) => f32(v + ext)),
        )
      )
        continue;
      const { lo, hi } = cellRange(plan, b, p, p, ext);
      const head = b === a ? [0, 1, 2].map((axis) => cellOf(plan, a, axis, p[axis])) : lo;
      walkRows(
        grid,
        b,
        lo,
        hi,
        b === a ? t + 1 : 0,
        (_, other) => {
          const dx = spheres[4 * other] - p[0];
          const dy = spheres[4 * other + 1] - p[1];
          const dz = spheres[4 * other + 2] - p[2];
          const s = r + spheres[4 * other + 3];
          if (dx * dx + dy * dy + dz * dz <= s * s) out.push(Math.min(id, other), Math.max(id, other));
        },
        stats,
        head,
      );
    }
  }
  return Uint32Array.from(out);
}
