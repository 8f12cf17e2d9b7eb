/**
 * Over 500 lines: the careful grid, for pairs and for boxes, and the naive grid beside it, each
 * whole, as a CPU author would write it.
 *
 * Single-threaded JS grids for sphere–sphere and sphere–box pairs: the CPU peers of the GPU grid
 * (`jsGridSphereBoxPairs`, below, bins the spheres the same way and walks the cells of each box).
 *
 * `jsGridSpherePairs` ("js-grid" in the tables) is written the way a careful CPU author would:
 *
 * - **Levels by radius.** Radii are binned in factors of 4 below the largest. Going from the
 *   coarsest bin down, a finer bin joins the level above it when it is sparse there (at most one
 *   of its spheres per cell of that level on average, over its own bounds), since then it adds
 *   few tests; otherwise it becomes its own level. So equal or moderately mixed radii give one
 *   grid, and a blob of tiny spheres among large ones gets its own fine grid instead of landing
 *   in one large cell (quadratic). Each level's cell is its largest diameter (padded by 1e-6 so
 *   rounding can never put a touching pair two cells apart).
 * - **Dense or sparse cells.** A level's cells are a dense array over its bounds when that is at
 *   most 8 cells a sphere; otherwise (sparse scenes: clusters far apart, outliers) only the
 *   occupied cells are kept, sorted by a stable radix sort on (z, y, x), and found by a pointer
 *   that walks forward or a binary search. Either way at most 2^17 cells an axis (the cell
 *   grows if needed), so a cell's linear index is exact in a double. Points (all radii 0) take
 *   the mean spacing over their bounds as the cell.
 * - **Cell order, contiguous memory.** A counting sort copies x, y, z, r into one Float32Array
 *   in cell order (cells in x-fastest linear order, input order within a cell), with the input
 *   indices beside it. The narrow phase reads only that array.
 * - **Half the neighbours.** Each occupied cell tests its own spheres pairwise (later ones only)
 *   and then the 13 neighbour cells that come after it in (z, y, x) order: every pair once.
 * - **Across levels**, each sphere of a finer level visits the cells of every coarser level that
 *   its bounds, grown by that level's largest radius, overlap (about 8 cells).
 *
 * The test is the oracle's (`bruteForceSpherePairs`): |cA − cB|² ≤ (rA + rB)² in double
 * precision on the f32 inputs, so the pair set is exactly the reference's. Pairs come out as
 * (i, j) with i < j, in no particular order.
 *
 * `jsGridSpherePairsNaive` ("js-grid-naive") is the straightforward grid the bench used first:
 * one level, cells in a dense array, each sphere reading its 27 neighbour cells through an index
 * array in random memory order and keeping j > i.
 */

/** Radii within this factor of each other share a bin. */
const LEVEL_FACTOR = 4;
/** Bins below the largest radius (4^12 ≈ 1.7·10⁷; smaller radii, and 0, share the last). */
const MAX_BIN = 12;
/** Cells an axis at most: a linear index x + nx(y + ny z) stays below 2^51. */
const AXIS_CELLS = 1 << 17;
/** A level's cells are a dense array when there are at most this many a sphere. */
const DENSE_CELLS_PER_SPHERE = 8;

interface Level {
  rMax: number;
  minX: number;
  minY: number;
  minZ: number;
  /** 1 / cell size. */
  inv: number;
  nx: number;
  ny: number;
  nz: number;
  /** x, y, z, r of the level's spheres in cell order. */
  s: Float32Array;
  /** Their indices in the input. */
  id: Uint32Array;
  /** Cell c holds entries start[c] .. start[c + 1] − 1. Dense: c is the linear index; sparse: the rank of the occupied cell. */
  start: Uint32Array;
  cells: number;
  /** Sparse levels: the linear index of each occupied cell, ascending (null when dense). */
  cellKey: Float64Array | null;
}

type Scratch = Uint8Array | Uint32Array | Float32Array;

/**
 * Arrays kept from call to call, by name, as a CPU broad phase run every frame keeps its
 * buffers: a call allocates its result and what outgrows them, not its working memory, so it
 * leaves little for the garbage collector (the bench collects garbage before each method; each
 * pays for its own). `take` returns a view of `length` elements, not cleared.
 */
const scratch = new Map<string, Scratch>();

function take<T extends Scratch>(name: string, make: (length: number) => T, length: number): T {
  let array = scratch.get(name) as T | undefined;
  if (!array || array.length < length) {
    array = make(Math.max(length, Math.ceil((array?.length ?? 0) * 1.25)));
    scratch.set(name, array);
  }
  return array.subarray(0, length) as T;
}

const u32 = (n: number) => new Uint32Array(n);
const f32 = (n: number) => new Float32Array(n);

/** The first occupied cell of a sparse level whose linear index is ≥ key (binary search). */
function lowerBound(cellKey: Float64Array, key: number): number {
  let lo = 0,
    hi = cellKey.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cellKey[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** One stable counting-sort pass of `order` by digit[order[k]] (0 .. range − 1) into `to`. */
function countingPass(order: Uint32Array, digit: Uint32Array, range: number, to: Uint32Array): void {
  const count = new Uint32Array(range + 1);
  for (let k = 0; k < order.length; k++) count[digit[order[k]] + 1]++;
  for (let d = 0; d < range; d++) count[d + 1] += count[d];
  for (let k = 0; k < order.length; k++) to[count[digit[order[k]]]++] = order[k];
}

/** A level of the spheres `members` (ascending input indices), of largest radius rMax, within bounds [minX, minY, minZ, maxX, maxY, maxZ]. */
function buildLevel(spheres: Float32Array, members: Uint32Array, rMax: number, bounds: number[], tag: number): Level {
  const m = members.length;
  const [minX, minY, minZ, maxX, maxY, maxZ] = bounds;
  const ex = maxX - minX,
    ey = maxY - minY,
    ez = maxZ - minZ;
  let size = Math.max(2 * rMax * (1 + 1e-6), ex / (AXIS_CELLS - 2), ey / (AXIS_CELLS - 2), ez / (AXIS_CELLS - 2));
  if (rMax === 0) {
    // Points: any cell finds the coincident ones; take the mean spacing over the bounds (its non-flat axes).
    let volume = 1,
      axes = 0;
    for (const e of [ex, ey, ez])
      if (e > 0) {
        volume *= e;
        axes++;
      }
    if (axes) size = Math.max(size, (volume / m) ** (1 / axes));
  }
  if (!(size > 0)) size = 1;
  const inv = 1 / size;
  const nx = Math.floor(ex * inv) + 1,
    ny = Math.floor(ey * inv) + 1,
    nz = Math.floor(ez * inv) + 1;
  const dense = nx * ny * nz <= DENSE_CELLS_PER_SPHERE * m + 4096;
  const L: Level = {
    rMax,
    minX,
    minY,
    minZ,
    inv,
    nx,
    ny,
    nz,
    s: take(`s${tag}`, f32, 4 * m),
    id: take(`id${tag}`, u32, m),
    start: new Uint32Array(0),
    cells: 0,
    cellKey: null,
  };
  if (dense) {
    // Two stable counting passes, so that neither reads or writes all over memory: by z layer
    // (copying x, y, z, r, cell and index into layer order), then by cell within that order,
    // where a layer's counters and destinations are close together.
    L.cells = nx * ny * nz;
    const plane = nx * ny;
    const cellOf = take('cellOf', u32, m);
    const layerStart = take('layerStart', u32, nz + 1).fill(0);
    for (let k = 0; k < m; k++) {
      const b = 4 * members[k];
      const z = Math.floor((spheres[b + 2] - minZ) * inv);
      cellOf[k] = Math.floor((spheres[b] - minX) * inv) + nx * Math.floor((spheres[b + 1] - minY) * inv) + plane * z;
      layerStart[z + 1]++;
    }
    for (let z = 0; z < nz; z++) layerStart[z + 1] += layerStart[z];
    const ts = take('ts', f32, 4 * m),
      tcell = take('tcell', u32, m),
      tid = take('tid', u32, m);
    for (let k = 0; k < m; k++) {
      const c = cellOf[k];
      const p = layerStart[Math.floor(c / plane)]++;
      const i = members[k],
        b = 4 * i;
      ts[4 * p] = spheres[b];
      ts[4 * p + 1] = spheres[b + 1];
      ts[4 * p + 2] = spheres[b + 2];
      ts[4 * p + 3] = spheres[b + 3];
      tcell[p] = c;
      tid[p] = i;
    }
    const start = take(`start${tag}`, u32, L.cells + 1).fill(0);
    for (let p = 0; p < m; p++) start[tcell[p] + 1]++;
    for (let c = 0; c < L.cells; c++) start[c + 1] += start[c];
    const fill = take('fill', u32, L.cells);
    fill.set(start.subarray(0, L.cells));
    const s = L.s,
      id = L.id;
    for (let p = 0; p < m; p++) {
      const q = fill[tcell[p]]++;
      s[4 * q] = ts[4 * p];
      s[4 * q + 1] = ts[4 * p + 1];
      s[4 * q + 2] = ts[4 * p + 2];
      s[4 * q + 3] = ts[4 * p + 3];
      id[q] = tid[p];
    }
    L.start = start;
    return L;
  } else {
    // Sparse: a stable radix sort by cell (x, then y, then z: at most 2^17 values each), then
    // the runs of equal cells are the occupied cells.
    const cx = new Uint32Array(m),
      cy = new Uint32Array(m),
      cz = new Uint32Array(m);
    for (let k = 0; k < m; k++) {
      const b = 4 * members[k];
      cx[k] = Math.floor((spheres[b] - minX) * inv);
      cy[k] = Math.floor((spheres[b + 1] - minY) * inv);
      cz[k] = Math.floor((spheres[b + 2] - minZ) * inv);
    }
    const a = new Uint32Array(m),
      b = new Uint32Array(m);
    for (let k = 0; k < m; k++) a[k] = k;
    countingPass(a, cx, nx, b);
    countingPass(b, cy, ny, a);
    countingPass(a, cz, nz, b);
    const order = b;
    const cellKey = new Float64Array(m);
    const start = new Uint32Array(m + 1);
    let cells = 0,
      last = -1;
    for (let p = 0; p < m; p++) {
      const k = order[p];
      const key = cx[k] + nx * (cy[k] + ny * cz[k]);
      if (key !== last) {
        cellKey[cells] = key;
        start[cells++] = p;
        last = key;
      }
    }
    start[cells] = m;
    L.cells = cells;
    L.cellKey = cellKey.slice(0, cells);
    L.start = start.slice(0, cells + 1);
    // Copy the spheres into cell order.
    const s = L.s,
      id = L.id;
    for (let p = 0; p < m; p++) {
      const i = members[order[p]],
        b = 4 * i;
      s[4 * p] = spheres[b];
      s[4 * p + 1] = spheres[b + 1];
      s[4 * p + 2] = spheres[b + 2];
      s[4 * p + 3] = spheres[b + 3];
      id[p] = i;
    }
    return L;
  }
}

/** Growable output of pairs. */
interface Out {
  buf: Uint32Array;
  len: number;
}

function grow(out: Out, need: number): Uint32Array {
  let size = out.buf.length;
  while (size < need) size *= 2;
  const next = new Uint32Array(size);
  next.set(out.buf.subarray(0, out.len));
  out.buf = next;
  return next;
}

/** Tests entries a..e against entries a2..e2 (disjoint ranges of one level, or of two levels). */
function testSpan(
  s: Float32Array,
  id: Uint32Array,
  a: number,
  e: number,
  s2: Float32Array,
  id2: Uint32Array,
  a2: number,
  e2: number,
  out: Out,
): void {
  let buf = out.buf,
    len = out.len;
  for (let p = a; p < e; p++) {
    const x = s[4 * p],
      y = s[4 * p + 1],
      z = s[4 * p + 2],
      r = s[4 * p + 3];
    for (let q = a2; q < e2; q++) {
      const dx = s2[4 * q] - x,
        dy = s2[4 * q + 1] - y,
        dz = s2[4 * q + 2] - z,
        t = r + s2[4 * q + 3];
      if (dx * dx + dy * dy + dz * dz <= t * t) {
        if (len + 2 > buf.length) {
          out.len = len;
          buf = grow(out, len + 2);
        }
        const i = id[p],
          j = id2[q];
        buf[len++] = i < j ? i : j;
        buf[len++] = i < j ? j : i;
      }
    }
  }
  out.buf = buf;
  out.len = len;
}

/** The neighbour rows after a cell's own row, as (dy, dz): with x − 1 .. x + 1 each is one run of cells, so one run of entries. */
const ROWS_DY = [1, -1, 0, 1];
const ROWS_DZ = [0, 1, 1, 1];

/**
 * Pairs within one level. Each occupied cell: its own entries pairwise, then the cell after it
 * in x, then the 4 rows of 3 cells after its row (13 neighbours). The cells are in linear order
 * and their entries contiguous, so a row of neighbours is one contiguous span: found by index
 * when the level is dense, by a pointer per row that only moves forward when sparse.
 */
function pairsWithin(L: Level, out: Out): void {
  const { s, id, start, nx, ny, nz, cellKey, cells } = L;
  const plane = nx * ny;
  const ptr = new Int32Array(4);
  for (let c = 0; c < cells; c++) {
    const a = start[c],
      e = start[c + 1];
    if (a === e) continue;
    const key = cellKey === null ? c : cellKey[c];
    const cx = key % nx,
      yz = (key - cx) / nx,
      cy = yz % ny,
      cz = (yz - cy) / ny;
    // Own cell: each pair once.
    let buf = out.buf,
      len = out.len;
    for (let p = a; p < e; p++) {
      const x = s[4 * p],
        y = s[4 * p + 1],
        z = s[4 * p + 2],
        r = s[4 * p + 3];
      for (let q = p + 1; q < e; q++) {
        const dx = s[4 * q] - x,
          dy = s[4 * q + 1] - y,
          dz = s[4 * q + 2] - z,
          t = r + s[4 * q + 3];
        if (dx * dx + dy * dy + dz * dz <= t * t) {
          if (len + 2 > buf.length) {
            out.len = len;
            buf = grow(out, len + 2);
          }
          const i = id[p],
            j = id[q];
          buf[len++] = i < j ? i : j;
          buf[len++] = i < j ? j : i;
        }
      }
    }
    out.buf = buf;
    out.len = len;
    // The next cell in x: the next cell in order, when it is that one.
    if (cellKey === null ? cx + 1 < nx : c + 1 < cells && cellKey[c + 1] === key + 1) {
      if (start[c + 2] > e) testSpan(s, id, a, e, s, id, e, start[c + 2], out);
    }
    for (let row = 0; row < 4; row++) {
      const y2 = cy + ROWS_DY[row],
        z2 = cz + ROWS_DZ[row];
      if (y2 < 0 || y2 >= ny || z2 >= nz) continue;
      const base = key + nx * ROWS_DY[row] + plane * ROWS_DZ[row];
      const lo = cx > 0 ? base - 1 : base,
        hi = cx + 1 < nx ? base + 1 : base;
      let a2: number, e2: number;
      if (cellKey === null) {
        a2 = start[lo];
        e2 = start[hi + 1];
      } else {
        let p = ptr[row];
        while (p < cells && cellKey[p] < lo) p++;
        ptr[row] = p;
        let p2 = p;
        while (p2 < cells && cellKey[p2] <= hi) p2++;
        a2 = start[p];
        e2 = start[p2];
      }
      if (e2 > a2) testSpan(s, id, a, e, s, id, a2, e2, out);
    }
  }
}

/**
 * Pairs between a finer level's spheres and a coarser level's: each fine sphere visits the
 * coarse cells its bounds, grown by the coarse level's largest radius, overlap (a run of cells
 * a row: by index when the coarse level is dense, by a binary search when sparse).
 */
function pairsAcross(F: Level, C: Level, out: Out): void {
  const s = F.s,
    id = F.id,
    cs = C.s,
    cid = C.id,
    cstart = C.start;
  const { minX, minY, minZ, inv, nx, ny, nz } = C;
  const cellKey = C.cellKey,
    dense = cellKey === null;
  const m = id.length;
  for (let p = 0; p < m; p++) {
    const x = s[4 * p],
      y = s[4 * p + 1],
      z = s[4 * p + 2],
      r = s[4 * p + 3];
    const h = (r + C.rMax) * (1 + 1e-6);
    const x0 = Math.max(Math.floor((x - h - minX) * inv), 0),
      x1 = Math.min(Math.floor((x + h - minX) * inv), nx - 1);
    const y0 = Math.max(Math.floor((y - h - minY) * inv), 0),
      y1 = Math.min(Math.floor((y + h - minY) * inv), ny - 1);
    const z0 = Math.max(Math.floor((z - h - minZ) * inv), 0),
      z1 = Math.min(Math.floor((z + h - minZ) * inv), nz - 1);
    if (x0 > x1) continue;
    for (let cz = z0; cz <= z1; cz++) {
      for (let cy = y0; cy <= y1; cy++) {
        if (dense) {
          const base = nx * (cy + ny * cz);
          const a2 = cstart[base + x0],
            e2 = cstart[base + x1 + 1];
          if (e2 > a2) testSpan(s, id, p, p + 1, cs, cid, a2, e2, out);
        } else {
          const base = nx * (cy + ny * cz);
          const c0 = lowerBound(cellKey!, base + x0);
          let c1 = c0;
          while (c1 < cellKey!.length && cellKey![c1] <= base + x1) c1++;
          if (c1 > c0) testSpan(s, id, p, p + 1, cs, cid, cstart[c0], cstart[c1], out);
        }
      }
    }
  }
}

/** What the levels came to, for the bench's notes: each level's sphere count and largest radius. */
export interface JsGridLevels {
  spheres: number[];
  rMax: number[];
  sparse: boolean[];
}

/** The careful single-threaded JS grid: every overlapping pair (i < j), exactly the oracle's set. */
export function jsGridSpherePairs(spheres: Float32Array, levelsOut?: JsGridLevels): Uint32Array {
  const n = spheres.length / 4;
  if (n < 2) return new Uint32Array(0);
  const levels = buildLevels(spheres, levelsOut);
  const out: Out = { buf: take('pairs', u32, Math.max(1024, n, scratch.get('pairs')?.length ?? 0)), len: 0 };
  for (let l = 0; l < levels.length; l++) {
    pairsWithin(levels[l], out);
    for (let c = 0; c < l; c++) pairsAcross(levels[l], levels[c], out);
  }
  scratch.set('pairs', out.buf); // grown, if it grew
  return out.buf.slice(0, out.len);
}

/** The spheres binned by radius into levels (coarsest first), each copied into cell order. */
function buildLevels(spheres: Float32Array, levelsOut?: JsGridLevels): Level[] {
  const n = spheres.length / 4;
  // Bin by radius below the largest.
  let rMax = 0;
  for (let i = 0; i < n; i++) if (spheres[4 * i + 3] > rMax) rMax = spheres[4 * i + 3];
  const bins = MAX_BIN + 1;
  const binOf = take('binOf', (k) => new Uint8Array(k), n);
  const binCount = new Uint32Array(bins);
  const binR = new Float64Array(bins);
  // Each bin's count, largest radius and bounds (to judge how sparse a finer bin is in a coarser level's cells).
  const lo = new Float64Array(3 * bins).fill(Infinity),
    hi = new Float64Array(3 * bins).fill(-Infinity);
  const first = rMax / LEVEL_FACTOR;
  for (let i = 0; i < n; i++) {
    const r = spheres[4 * i + 3];
    let b = 0;
    for (let limit = first; b < MAX_BIN && r <= limit; limit /= LEVEL_FACTOR) b++;
    binOf[i] = b;
    binCount[b]++;
    if (r > binR[b]) binR[b] = r;
    for (let a = 0; a < 3; a++) {
      const v = spheres[4 * i + a];
      if (v < lo[3 * b + a]) lo[3 * b + a] = v;
      if (v > hi[3 * b + a]) hi[3 * b + a] = v;
    }
  }
  // Merge bins into levels, coarsest first.
  const levelOfBin = new Int32Array(bins).fill(-1);
  const levelR: number[] = [];
  for (let b = 0; b < bins; b++) {
    if (!binCount[b]) continue;
    const current = levelR.length - 1;
    if (current >= 0) {
      const cell = 2 * levelR[current];
      let volume = 1;
      for (let a = 0; a < 3; a++) volume *= Math.max(hi[3 * b + a] - lo[3 * b + a], cell);
      if ((binCount[b] / volume) * cell * cell * cell <= 1) {
        levelOfBin[b] = current;
        continue;
      }
    }
    levelOfBin[b] = levelR.length;
    levelR.push(binR[b]);
  }
  const levelCount = new Uint32Array(levelR.length);
  for (let b = 0; b < bins; b++) if (binCount[b]) levelCount[levelOfBin[b]] += binCount[b];
  const members = Array.from(levelCount, (c, l) => take(`members${l}`, u32, c));
  const fill = new Uint32Array(levelR.length);
  for (let i = 0; i < n; i++) {
    const l = levelOfBin[binOf[i]];
    members[l][fill[l]++] = i;
  }
  const bounds = levelR.map(() => [Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity]);
  for (let b = 0; b < bins; b++) {
    if (!binCount[b]) continue;
    const box = bounds[levelOfBin[b]];
    for (let a = 0; a < 3; a++) {
      box[a] = Math.min(box[a], lo[3 * b + a]);
      box[3 + a] = Math.max(box[3 + a], hi[3 * b + a]);
    }
  }
  const levels = members.map((m, l) => buildLevel(spheres, m, levelR[l], bounds[l], l));
  if (levelsOut) {
    levelsOut.spheres = levels.map((L) => L.id.length);
    levelsOut.rMax = levels.map((L) => L.rMax);
    levelsOut.sparse = levels.map((L) => L.cellKey !== null);
  }
  return levels;
}

/** The box shapes of `jsGridSphereBoxPairs`: AABBs (6 floats: min, max) or oriented boxes (10: centre, half extents, quaternion x y z w). */
export type JsBoxShape = 'aabb' | 'obb';

/**
 * The careful JS grid for sphere–box pairs: the spheres in the levels of `jsGridSpherePairs`
 * (by radius, copied into cell order), and each box walks, in each level, the rows of cells its
 * bounds (an oriented box's enclosing AABB), grown by the level's largest radius, overlap: a run
 * of cells a row, so one run of the sorted spheres (by index when the level is dense, by a
 * binary search when sparse). A box whose rows outnumber a level's spheres (a huge box over a
 * fine level) tests that level's spheres directly instead. The test is the oracle's in double
 * precision (src/reference/sphereBox.ts): AABB exactly its set; an oriented box's rotation is a
 * 3×3 matrix made once per box, so it may differ from the oracle's quaternion rotation in the
 * last bits (within docs/CONTRACT.md's band). Pairs come out as (sphere, box), box-major.
 */
export function jsGridSphereBoxPairs(spheres: Float32Array, boxes: Float32Array, shape: JsBoxShape): Uint32Array {
  const n = spheres.length / 4;
  const stride = shape === 'aabb' ? 6 : 10;
  const m = boxes.length / stride;
  if (n === 0 || m === 0) return new Uint32Array(0);
  const levels = buildLevels(spheres);
  const out: Out = { buf: new Uint32Array(Math.max(1024, m)), len: 0 };
  const lo = [0, 0, 0],
    hi = [0, 0, 0];
  // An oriented box: centre, half extents, and its axes (the rotation's columns) as rows of R.
  const c = [0, 0, 0],
    h = [0, 0, 0],
    R = new Float64Array(9);
  for (let k = 0; k < m; k++) {
    const b = stride * k;
    if (shape === 'aabb') {
      for (let a = 0; a < 3; a++) {
        lo[a] = boxes[b + a];
        hi[a] = boxes[b + 3 + a];
      }
    } else {
      const len = Math.hypot(boxes[b + 6], boxes[b + 7], boxes[b + 8], boxes[b + 9]);
      const x = boxes[b + 6] / len,
        y = boxes[b + 7] / len,
        z = boxes[b + 8] / len,
        w = boxes[b + 9] / len;
      // R's rows are the box's axes in world space: in box space, v_a = R[3a..3a+2] · (S − centre).
      R[0] = 1 - 2 * (y * y + z * z);
      R[1] = 2 * (x * y + w * z);
      R[2] = 2 * (x * z - w * y);
      R[3] = 2 * (x * y - w * z);
      R[4] = 1 - 2 * (x * x + z * z);
      R[5] = 2 * (y * z + w * x);
      R[6] = 2 * (x * z + w * y);
      R[7] = 2 * (y * z - w * x);
      R[8] = 1 - 2 * (x * x + y * y);
      let size = 0;
      for (let a = 0; a < 3; a++) {
        c[a] = boxes[b + a];
        h[a] = boxes[b + 3 + a];
        size += Math.abs(c[a]) + h[a];
      }
      // The enclosing AABB, padded against the rounding of its extents.
      const pad = 1e-9 * size;
      for (let a = 0; a < 3; a++) {
        const e = Math.abs(R[a]) * h[0] + Math.abs(R[3 + a]) * h[1] + Math.abs(R[6 + a]) * h[2] + pad;
        lo[a] = c[a] - e;
        hi[a] = c[a] + e;
      }
    }
    for (const L of levels) {
      const { s, id, start, minX, minY, minZ, inv, nx, ny, nz, cellKey } = L;
      const g = L.rMax * (1 + 1e-6);
      const x0 = Math.max(Math.floor((lo[0] - g - minX) * inv), 0),
        x1 = Math.min(Math.floor((hi[0] + g - minX) * inv), nx - 1);
      const y0 = Math.max(Math.floor((lo[1] - g - minY) * inv), 0),
        y1 = Math.min(Math.floor((hi[1] + g - minY) * inv), ny - 1);
      const z0 = Math.max(Math.floor((lo[2] - g - minZ) * inv), 0),
        z1 = Math.min(Math.floor((hi[2] + g - minZ) * inv), nz - 1);
      if (x0 > x1 || y0 > y1 || z0 > z1) continue;
      const test = shape === 'aabb' ? testAabb : testObb;
      if ((y1 - y0 + 1) * (z1 - z0 + 1) > id.length) {
        test(s, id, 0, id.length, k, lo, hi, c, h, R, out);
        continue;
      }
      for (let cz = z0; cz <= z1; cz++) {
        for (let cy = y0; cy <= y1; cy++) {
          const base = nx * (cy + ny * cz);
          let a2: number, e2: number;
          if (cellKey === null) {
            a2 = start[base + x0];
            e2 = start[base + x1 + 1];
          } else {
            const c0 = lowerBound(cellKey, base + x0);
            let c1 = c0;
            while (c1 < cellKey.length && cellKey[c1] <= base + x1) c1++;
            a2 = start[c0];
            e2 = start[c1];
          }
          if (e2 > a2) test(s, id, a2, e2, k, lo, hi, c, h, R, out);
        }
      }
    }
  }
  return out.buf.slice(0, out.len);
}

/** Entries a..e of a level against AABB k (lo, hi): the oracle's clamp, in double. */
function testAabb(
  s: Float32Array,
  id: Uint32Array,
  a: number,
  e: number,
  k: number,
  lo: number[],
  hi: number[],
  _c: number[],
  _h: number[],
  _R: Float64Array,
  out: Out,
): void {
  let buf = out.buf,
    len = out.len;
  const lx = lo[0],
    ly = lo[1],
    lz = lo[2],
    hx = hi[0],
    hy = hi[1],
    hz = hi[2];
  for (let p = a; p < e; p++) {
    const x = s[4 * p],
      y = s[4 * p + 1],
      z = s[4 * p + 2],
      r = s[4 * p + 3];
    const dx = (x < lx ? lx : x > hx ? hx : x) - x,
      dy = (y < ly ? ly : y > hy ? hy : y) - y,
      dz = (z < lz ? lz : z > hz ? hz : z) - z;
    if (dx * dx + dy * dy + dz * dz <= r * r) {
      if (len + 2 > buf.length) {
        out.len = len;
        buf = grow(out, len + 2);
      }
      buf[len++] = id[p];
      buf[len++] = k;
    }
  }
  out.buf = buf;
  out.len = len;
}

/** Entries a..e of a level against oriented box k (centre c, half extents h, rotation R): clamp in box space, in double. */
function testObb(
  s: Float32Array,
  id: Uint32Array,
  a: number,
  e: number,
  k: number,
  _lo: number[],
  _hi: number[],
  c: number[],
  h: number[],
  R: Float64Array,
  out: Out,
): void {
  let buf = out.buf,
    len = out.len;
  const cx = c[0],
    cy = c[1],
    cz = c[2],
    hx = h[0],
    hy = h[1],
    hz = h[2];
  for (let p = a; p < e; p++) {
    const x = s[4 * p] - cx,
      y = s[4 * p + 1] - cy,
      z = s[4 * p + 2] - cz,
      r = s[4 * p + 3];
    const u = R[0] * x + R[1] * y + R[2] * z,
      v = R[3] * x + R[4] * y + R[5] * z,
      w = R[6] * x + R[7] * y + R[8] * z;
    const du = (u < -hx ? -hx : u > hx ? hx : u) - u,
      dv = (v < -hy ? -hy : v > hy ? hy : v) - v,
      dw = (w < -hz ? -hz : w > hz ? hz : w) - w;
    if (du * du + dv * dv + dw * dw <= r * r) {
      if (len + 2 > buf.length) {
        out.len = len;
        buf = grow(out, len + 2);
      }
      buf[len++] = id[p];
      buf[len++] = k;
    }
  }
  out.buf = buf;
  out.len = len;
}

/**
 * The straightforward JS grid: cell size the largest diameter (or larger, at most ~8 cells a
 * sphere), a dense array of cells over the bounds, a counting sort of indices, then each sphere
 * reads the 27 cells around its own through the index array and keeps j > i. Quadratic when
 * radii vary widely or the bounds are sparse.
 */
export function jsGridSpherePairsNaive(spheres: Float32Array): Uint32Array {
  const n = spheres.length / 4;
  if (n < 2) return new Uint32Array(0);
  let rMax = 0;
  let minX = Infinity,
    minY = Infinity,
    minZ = Infinity,
    maxX = -Infinity,
    maxY = -Infinity,
    maxZ = -Infinity;
  for (let i = 0; i < n; i++) {
    const x = spheres[4 * i],
      y = spheres[4 * i + 1],
      z = spheres[4 * i + 2];
    rMax = Math.max(rMax, spheres[4 * i + 3]);
    minX = Math.min(minX, x);
    minY = Math.min(minY, y);
    minZ = Math.min(minZ, z);
    maxX = Math.max(maxX, x);
    maxY = Math.max(maxY, y);
    maxZ = Math.max(maxZ, z);
  }
  // Cells no smaller than the largest diameter, and no more than ~8 per sphere.
  const extent = Math.max(maxX - minX, maxY - minY, maxZ - minZ);
  const size = Math.max(2 * rMax, extent / Math.cbrt(8 * n), 1e-30);
  const dx = Math.floor((maxX - minX) / size) + 1,
    dy = Math.floor((maxY - minY) / size) + 1,
    dz = Math.floor((maxZ - minZ) / size) + 1;
  const cells = dx * dy * dz;
  const start = new Uint32Array(cells + 1);
  const cellOf = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const c =
      Math.floor((spheres[4 * i] - minX) / size) +
      dx * (Math.floor((spheres[4 * i + 1] - minY) / size) + dy * Math.floor((spheres[4 * i + 2] - minZ) / size));
    cellOf[i] = c;
    start[c + 1]++;
  }
  for (let c = 0; c < cells; c++) start[c + 1] += start[c];
  const fill = start.slice(0, cells);
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[fill[cellOf[i]]++] = i;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = spheres[4 * i],
      y = spheres[4 * i + 1],
      z = spheres[4 * i + 2],
      r = spheres[4 * i + 3];
    const cx = Math.floor((x - minX) / size),
      cy = Math.floor((y - minY) / size),
      cz = Math.floor((z - minZ) / size);
    for (let zz = Math.max(cz - 1, 0); zz <= Math.min(cz + 1, dz - 1); zz++) {
      for (let yy = Math.max(cy - 1, 0); yy <= Math.min(cy + 1, dy - 1); yy++) {
        for (let xx = Math.max(cx - 1, 0); xx <= Math.min(cx + 1, dx - 1); xx++) {
          const c = xx + dx * (yy + dy * zz);
          for (let k = start[c]; k < start[c + 1]; k++) {
            const j = order[k];
            if (j <= i) continue;
            const ex = spheres[4 * j] - x,
              ey = spheres[4 * j + 1] - y,
              ez = spheres[4 * j + 2] - z,
              s = r + spheres[4 * j + 3];
            if (ex * ex + ey * ey + ez * ez <= s * s) out.push(i, j);
          }
        }
      }
    }
  }
  return Uint32Array.from(out);
}
