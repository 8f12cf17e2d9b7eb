/**
 * Over 500 lines: one peer, whole: its build and a walk for each query kind, written as a CPU
 * engine's authors would, with nothing shared that could make it slower.
 *
 * A float64 CPU BVH over spheres ("cpu-bvh" in the tables): the strongest single-threaded CPU
 * peer a user could write for the library's queries, built from scratch on every call (as the
 * GPU methods are) and queried in double precision on the f32 inputs, with the oracle's own tests
 * (src/reference: `bruteForceSpherePairs`, `sphereAabbDistance2`, `sphereObbDistance2`,
 * `castHit`), so its answers are the oracle's.
 *
 * - **Build: binned SAH.** Each node splits its range of spheres on the longest axis of its
 *   centres' bounds, at the best of 15 planes between 16 equal bins by the surface-area
 *   heuristic (left area × count + right area × count). Bins are made of the centres' bounds, so
 *   both sides are never empty; a node whose centres all coincide (coincident groups, points on
 *   one site) is halved by count. The children's boxes and centre bounds are the unions of their
 *   bins', so each level costs one binning pass and one in-place partition of an index array.
 *   SAH rather than a median split: on skewed scenes (far blobs, outliers, a tiny blob in a box)
 *   the median puts empty space inside nodes that every query then has to visit.
 * - **Leaves of at most 4 spheres**, the usual choice: one node test costs about as much as a
 *   few sphere tests, and a leaf of 4 keeps the tree's depth (and memory) down.
 * - **Flat typed arrays.** Node boxes in one Float64Array (6 per node), children and entry ranges
 *   in Int32Arrays; the two children of a node are adjacent (left, left + 1). The spheres are
 *   copied into tree order (x, y, z, r as doubles, input index beside), so a leaf reads
 *   contiguous memory. Each sphere's box is grown by 2⁻⁴⁰ of its magnitude: rounding of x ± r can
 *   never cull a pair the oracle's double-precision test accepts.
 * - **Queries:** iterative traversal with an explicit stack (children tested before they are
 *   pushed); all working memory (the tree, stacks, pair lists) is kept from call to call and
 *   grown when outgrown, so a query allocates nothing but its result.
 *   - sphere pairs: each sphere, in tree order, walks the tree with its box, skipping every node
 *     whose range ends at or before it: each pair is tested once, from its earlier entry.
 *   - sphere–box pairs: each box (an oriented box by its world AABB) walks the tree.
 *   - casts: the segment's slab test against node boxes grown by the cast radius, nearer child
 *     first, nodes entered past the nearest hit so far culled; ties go to the lower index.
 */

/** Spheres a leaf holds at most. */
export const LEAF_SIZE = 4;
/** Bins of the SAH split. */
const BINS = 16;
/** Sphere boxes grow by this much of their magnitude (|x|, |y|, |z| max, + r). */
const PAD = 2 ** -40;
/** Slack of the cast's slab test, as a fraction of the segment (never culls a hit in rounding). */
const U_EPS = 1e-9;

type Scratch = Float64Array | Int32Array | Uint8Array;
const scratch = new Map<string, Scratch>();
/** A kept array of at least `length` elements (grown by 1.25× when outgrown; not cleared). */
function take<T extends Scratch>(name: string, make: (length: number) => T, length: number): T {
  let array = scratch.get(name) as T | undefined;
  if (!array || array.length < length) {
    array = make(Math.max(length, Math.ceil((array?.length ?? 0) * 1.25), 16));
    scratch.set(name, array);
  }
  return array;
}
const f64 = (n: number) => new Float64Array(n);
const i32 = (n: number) => new Int32Array(n);
const u8 = (n: number) => new Uint8Array(n);

/** A built tree (views of the kept arrays: valid until the next build). */
export interface CpuBvh {
  /** Spheres in the tree. */
  count: number;
  nodes: number;
  leaves: number;
  /** The deepest leaf's depth (the root is 0). */
  depth: number;
  /** x, y, z, r of the spheres in tree order (4 per entry). */
  s: Float64Array;
  /** The input index of each entry. */
  id: Int32Array;
  /** Each entry's box half-width (r grown by the pad). */
  ext: Float64Array;
  /** minX, minY, minZ, maxX, maxY, maxZ per node. */
  box: Float64Array;
  /** The left child (the right is left + 1), or −1 for a leaf. */
  child: Int32Array;
  /** Entries start[k] .. end[k] − 1 are node k's. */
  start: Int32Array;
  end: Int32Array;
}

/** Optional statistics of a call: the build's time and the tree's shape. */
export interface CpuBvhStats {
  buildMs?: number;
  nodes?: number;
  leaves?: number;
  depth?: number;
}

/**
 * The build's working state: the spheres' centres, box half-widths and radii by input index,
 * the permutation into tree order (partitioned in place as nodes split), each entry's bin, and
 * per bin the union of its boxes and of its centres.
 * Maxima are kept negated throughout, so every union is a min.
 */
interface Build {
  cx: Float64Array;
  cy: Float64Array;
  cz: Float64Array;
  ce: Float64Array;
  perm: Int32Array;
  binOf: Uint8Array;
  binCount: Int32Array;
  /** 12 per bin: box min xyz, −max xyz, centre min xyz, −max xyz. */
  bins: Float64Array;
  /** Per bin k: the SAH area of the union of bins k .. nb − 1. */
  right: Float64Array;
}

/** Bins entries s .. e − 1 on `axis` into `nb` bins (bin = ⌊(c − cmin)·scale⌋, at most nb − 1), noting each entry's bin. */
function binRange(b: Build, s: number, e: number, axis: number, cmin: number, scale: number, nb: number): void {
  const { cx, cy, cz, ce, perm, binOf, binCount, bins } = b;
  const cen = axis === 0 ? cx : axis === 1 ? cy : cz;
  binCount.fill(0, 0, nb);
  bins.fill(Infinity, 0, 12 * nb);
  for (let q = s; q < e; q++) {
    const p = perm[q];
    let k = ((cen[p] - cmin) * scale) | 0;
    if (k >= nb) k = nb - 1;
    binOf[q] = k;
    binCount[k]++;
    const o = 12 * k,
      x = cx[p],
      y = cy[p],
      z = cz[p],
      w = ce[p];
    if (x - w < bins[o]) bins[o] = x - w;
    if (y - w < bins[o + 1]) bins[o + 1] = y - w;
    if (z - w < bins[o + 2]) bins[o + 2] = z - w;
    if (-x - w < bins[o + 3]) bins[o + 3] = -x - w;
    if (-y - w < bins[o + 4]) bins[o + 4] = -y - w;
    if (-z - w < bins[o + 5]) bins[o + 5] = -z - w;
    if (x < bins[o + 6]) bins[o + 6] = x;
    if (y < bins[o + 7]) bins[o + 7] = y;
    if (z < bins[o + 8]) bins[o + 8] = z;
    if (-x < bins[o + 9]) bins[o + 9] = -x;
    if (-y < bins[o + 10]) bins[o + 10] = -y;
    if (-z < bins[o + 11]) bins[o + 11] = -z;
  }
}

/**
 * The SAH's best plane of `nb` bins, as the last bin of the left side (area × count on each
 * side, from suffix unions of the bins' boxes and a running prefix one).
 */
function bestSplit(b: Build, count: number, nb: number): number {
  const { binCount, bins, right } = b;
  let x0 = Infinity,
    y0 = Infinity,
    z0 = Infinity,
    x1 = Infinity,
    y1 = Infinity,
    z1 = Infinity;
  for (let k = nb - 1; k > 0; k--) {
    const o = 12 * k;
    if (bins[o] < x0) x0 = bins[o];
    if (bins[o + 1] < y0) y0 = bins[o + 1];
    if (bins[o + 2] < z0) z0 = bins[o + 2];
    if (bins[o + 3] < x1) x1 = bins[o + 3];
    if (bins[o + 4] < y1) y1 = bins[o + 4];
    if (bins[o + 5] < z1) z1 = bins[o + 5];
    right[k] = area(-x1 - x0, -y1 - y0, -z1 - z0);
  }
  x0 = Infinity;
  y0 = Infinity;
  z0 = Infinity;
  x1 = Infinity;
  y1 = Infinity;
  z1 = Infinity;
  let best = 0,
    bestCost = Infinity,
    m = 0;
  for (let k = 0; k < nb - 1; k++) {
    const o = 12 * k;
    if (bins[o] < x0) x0 = bins[o];
    if (bins[o + 1] < y0) y0 = bins[o + 1];
    if (bins[o + 2] < z0) z0 = bins[o + 2];
    if (bins[o + 3] < x1) x1 = bins[o + 3];
    if (bins[o + 4] < y1) y1 = bins[o + 4];
    if (bins[o + 5] < z1) z1 = bins[o + 5];
    m += binCount[k];
    if (m === 0 || m === count) continue;
    const cost = m * area(-x1 - x0, -y1 - y0, -z1 - z0) + (count - m) * right[k + 1];
    if (cost < bestCost) {
      bestCost = cost;
      best = k;
    }
  }
  return best;
}

/** Moves the entries of bins ≤ best before the others; returns the first of the right side. */
function partitionRange(perm: Int32Array, binOf: Uint8Array, s: number, e: number, best: number): number {
  let i = s,
    j = e - 1;
  while (i <= j) {
    if (binOf[i] <= best) {
      i++;
      continue;
    }
    const p = perm[i];
    perm[i] = perm[j];
    perm[j] = p;
    binOf[i] = binOf[j];
    j--;
  }
  return i;
}

/** Node k's box and centre bounds from entries a .. e − 1 (the root, and the halving of coincident centres). */
function boundsOf(b: Build, a: number, e: number, box: Float64Array, cb: Float64Array, k: number): void {
  const { cx, cy, cz, ce, perm } = b;
  let lx = Infinity,
    ly = Infinity,
    lz = Infinity,
    hx = -Infinity,
    hy = -Infinity,
    hz = -Infinity;
  let mx = Infinity,
    my = Infinity,
    mz = Infinity,
    nx = -Infinity,
    ny = -Infinity,
    nz = -Infinity;
  for (let q = a; q < e; q++) {
    const p = perm[q],
      x = cx[p],
      y = cy[p],
      z = cz[p],
      w = ce[p];
    lx = Math.min(lx, x - w);
    ly = Math.min(ly, y - w);
    lz = Math.min(lz, z - w);
    hx = Math.max(hx, x + w);
    hy = Math.max(hy, y + w);
    hz = Math.max(hz, z + w);
    mx = Math.min(mx, x);
    my = Math.min(my, y);
    mz = Math.min(mz, z);
    nx = Math.max(nx, x);
    ny = Math.max(ny, y);
    nz = Math.max(nz, z);
  }
  const o = 6 * k;
  box[o] = lx;
  box[o + 1] = ly;
  box[o + 2] = lz;
  box[o + 3] = hx;
  box[o + 4] = hy;
  box[o + 5] = hz;
  cb[o] = mx;
  cb[o + 1] = my;
  cb[o + 2] = mz;
  cb[o + 3] = nx;
  cb[o + 4] = ny;
  cb[o + 5] = nz;
}

/** Node k's box and centre bounds: the union of bins b0 .. b1 − 1 (maxima negated in the bins). */
function binUnion(bins: Float64Array, b0: number, b1: number, box: Float64Array, cb: Float64Array, k: number): void {
  const q = 6 * k;
  for (let a = 0; a < 6; a++) {
    let u = Infinity,
      v = Infinity;
    for (let bin = b0; bin < b1; bin++) {
      if (bins[12 * bin + a] < u) u = bins[12 * bin + a];
      if (bins[12 * bin + 6 + a] < v) v = bins[12 * bin + 6 + a];
    }
    box[q + a] = a < 3 ? u : -u;
    cb[q + a] = a < 3 ? v : -v;
  }
}

/** Builds the tree over `spheres` (x, y, z, r records) by binned SAH. */
export function buildCpuBvh(spheres: Float32Array): CpuBvh {
  const n = spheres.length >> 2;
  const maxNodes = Math.max(1, 2 * n - 1);
  const b: Build = {
    cx: take('cx', f64, n),
    cy: take('cy', f64, n),
    cz: take('cz', f64, n),
    ce: take('ce', f64, n),
    perm: take('perm', i32, n),
    binOf: take('binOf', u8, n),
    binCount: take('binCount', i32, BINS).subarray(0, BINS),
    bins: take('bins', f64, 12 * BINS).subarray(0, 12 * BINS),
    right: take('rightArea', f64, BINS),
  };
  const { cx, cy, cz, ce, perm, binOf } = b;
  const box = take('box', f64, 6 * maxNodes);
  const cb = take('cb', f64, 6 * maxNodes); // centre bounds, build only
  const child = take('child', i32, maxNodes),
    start = take('start', i32, maxNodes),
    end = take('end', i32, maxNodes);
  const stack = take('buildStack', i32, 2 * maxNodes + 2),
    depthOf = take('buildDepth', i32, 2 * maxNodes + 2);
  for (let i = 0; i < n; i++) {
    const x = spheres[4 * i],
      y = spheres[4 * i + 1],
      z = spheres[4 * i + 2],
      r = spheres[4 * i + 3];
    cx[i] = x;
    cy[i] = y;
    cz[i] = z;
    perm[i] = i;
    ce[i] = r + PAD * (Math.max(Math.abs(x), Math.abs(y), Math.abs(z)) + r);
  }
  boundsOf(b, 0, n, box, cb, 0);
  start[0] = 0;
  end[0] = n;
  let nodes = 1,
    leaves = 0,
    depth = 0,
    sp = 0;
  stack[sp] = 0;
  depthOf[sp++] = 0;

  while (sp > 0) {
    const node = stack[--sp],
      d = depthOf[sp];
    const s = start[node],
      e = end[node],
      count = e - s;
    if (count <= LEAF_SIZE) {
      child[node] = -1;
      leaves++;
      if (d > depth) depth = d;
      continue;
    }
    const c6 = 6 * node;
    const ex = cb[c6 + 3] - cb[c6],
      ey = cb[c6 + 4] - cb[c6 + 1],
      ez = cb[c6 + 5] - cb[c6 + 2];
    const axis = ex >= ey && ex >= ez ? 0 : ey >= ez ? 1 : 2;
    const extent = axis === 0 ? ex : axis === 1 ? ey : ez;
    const left = nodes;
    nodes += 2;
    let mid: number;
    if (!(extent > 0)) {
      // Every centre the same: halve by count.
      mid = s + (count >> 1);
      boundsOf(b, s, mid, box, cb, left);
      boundsOf(b, mid, e, box, cb, left + 1);
    } else {
      // 16 bins, or one a sphere in a small node.
      const nb = count < BINS ? count : BINS;
      binRange(b, s, e, axis, cb[c6 + axis], nb / extent, nb);
      const best = bestSplit(b, count, nb);
      mid = partitionRange(perm, binOf, s, e, best);
      binUnion(b.bins, 0, best + 1, box, cb, left);
      binUnion(b.bins, best + 1, nb, box, cb, left + 1);
    }
    child[node] = left;
    start[left] = s;
    end[left] = mid;
    start[left + 1] = mid;
    end[left + 1] = e;
    stack[sp] = left + 1;
    depthOf[sp++] = d + 1;
    stack[sp] = left;
    depthOf[sp++] = d + 1;
  }

  // The spheres in tree order, x, y, z, r together, with their input indices and box half-widths.
  const sorted = take('sorted', f64, 4 * n),
    ext = take('ext', f64, n);
  for (let q = 0; q < n; q++) {
    const p = perm[q];
    sorted[4 * q] = cx[p];
    sorted[4 * q + 1] = cy[p];
    sorted[4 * q + 2] = cz[p];
    sorted[4 * q + 3] = spheres[4 * p + 3];
    ext[q] = ce[p];
  }
  return { count: n, nodes, leaves, depth, s: sorted, id: perm, ext, box, child, start, end };
}

/** Half the surface area of a box, plus a tiny perimeter term (flat boxes of points, a plane). */
function area(x: number, y: number, z: number): number {
  const p = x + y + z;
  return x * y + y * z + z * x + 1e-9 * p * p;
}

/** A growing list of index pairs, kept from call to call. */
let pairBuf: Uint32Array = new Uint32Array(1 << 16);
function growPairs(need: number): Uint32Array {
  let size = pairBuf.length;
  while (size < need) size *= 2;
  const next = new Uint32Array(size);
  next.set(pairBuf);
  pairBuf = next;
  return next;
}

function built(spheres: Float32Array, stats?: CpuBvhStats): CpuBvh {
  const t = performance.now();
  const tree = buildCpuBvh(spheres);
  if (stats) {
    stats.buildMs = performance.now() - t;
    stats.nodes = tree.nodes;
    stats.leaves = tree.leaves;
    stats.depth = tree.depth;
  }
  return tree;
}

/**
 * Every overlapping pair of spheres, |cA − cB|² ≤ (rA + rB)² in double precision (touching
 * counts; points pair only when they coincide), each once as (i, j) with i < j, in no
 * particular order: `[i0, j0, i1, j1, ...]`, as `collider.spherePairs` returns.
 */
export function cpuBvhSpherePairs(spheres: Float32Array, stats?: CpuBvhStats): Uint32Array {
  const n = spheres.length >> 2;
  if (n < 2) return new Uint32Array(0);
  const { s, id, ext, box, child, start, end, depth } = built(spheres, stats);
  const stack = take('queryStack', i32, 2 * depth + 8);
  let out: Uint32Array = pairBuf,
    len = 0;
  for (let p = 0; p < n; p++) {
    const x = s[4 * p],
      y = s[4 * p + 1],
      z = s[4 * p + 2],
      r = s[4 * p + 3],
      w = ext[p];
    const lx = x - w,
      ly = y - w,
      lz = z - w,
      hx = x + w,
      hy = y + w,
      hz = z + w;
    const after = p + 1;
    let sp = 0;
    stack[sp++] = 0;
    while (sp > 0) {
      const node = stack[--sp];
      const left = child[node];
      if (left < 0) {
        const me = id[p];
        for (let q = Math.max(start[node], after), qe = end[node]; q < qe; q++) {
          const dx = s[4 * q] - x,
            dy = s[4 * q + 1] - y,
            dz = s[4 * q + 2] - z,
            sum = r + s[4 * q + 3];
          if (dx * dx + dy * dy + dz * dz <= sum * sum) {
            if (len + 2 > out.length) out = growPairs(len + 2);
            const other = id[q];
            if (me < other) {
              out[len] = me;
              out[len + 1] = other;
            } else {
              out[len] = other;
              out[len + 1] = me;
            }
            len += 2;
          }
        }
        continue;
      }
      for (let c = left + 1; c >= left; c--) {
        const o = 6 * c;
        if (
          end[c] > after &&
          box[o] <= hx &&
          box[o + 3] >= lx &&
          box[o + 1] <= hy &&
          box[o + 4] >= ly &&
          box[o + 2] <= hz &&
          box[o + 5] >= lz
        )
          stack[sp++] = c;
      }
    }
  }
  return out.slice(0, len);
}

/** The box shapes: AABBs (6 floats: min, max) or oriented boxes (10: centre, half extents, quaternion). */
export type CpuBvhBoxShape = 'aabb' | 'obb';

/**
 * Every (sphere, box) that overlap, `[sphere0, box0, ...]` in no particular order, as
 * `collider.sphereBoxPairs` (AABBs: the centre clamped into the box within r) and
 * `sphereOrientedBoxPairs` (the same in the box's frame, the quaternion normalised in double
 * precision) return. Each box walks the tree with its world AABB.
 */
export function cpuBvhSphereBoxPairs(
  spheres: Float32Array,
  boxes: Float32Array,
  shape: CpuBvhBoxShape,
  stats?: CpuBvhStats,
): Uint32Array {
  const n = spheres.length >> 2;
  const stride = shape === 'aabb' ? 6 : 10;
  const m = (boxes.length / stride) | 0;
  if (n === 0 || m === 0) return new Uint32Array(0);
  const { s, id, box, child, start, end, depth } = built(spheres, stats);
  const stack = take('queryStack', i32, 2 * depth + 8);
  let out: Uint32Array = pairBuf,
    len = 0;
  for (let k = 0; k < m; k++) {
    const o = stride * k;
    let lx: number, ly: number, lz: number, hx: number, hy: number, hz: number;
    // Oriented boxes: the unit quaternion (negated vector part: the inverse rotation), centre, half extents.
    let ux = 0,
      uy = 0,
      uz = 0,
      qw = 1,
      bx = 0,
      by = 0,
      bz = 0,
      ex = 0,
      ey = 0,
      ez = 0;
    if (shape === 'aabb') {
      lx = boxes[o];
      ly = boxes[o + 1];
      lz = boxes[o + 2];
      hx = boxes[o + 3];
      hy = boxes[o + 4];
      hz = boxes[o + 5];
    } else {
      bx = boxes[o];
      by = boxes[o + 1];
      bz = boxes[o + 2];
      ex = boxes[o + 3];
      ey = boxes[o + 4];
      ez = boxes[o + 5];
      const len4 = Math.hypot(boxes[o + 6], boxes[o + 7], boxes[o + 8], boxes[o + 9]);
      const qx = boxes[o + 6] / len4,
        qy = boxes[o + 7] / len4,
        qz = boxes[o + 8] / len4;
      qw = boxes[o + 9] / len4;
      ux = -qx;
      uy = -qy;
      uz = -qz;
      // World AABB: half extent on axis i is Σ_j |R_ij| h_j, R the rotation by q; grown for rounding.
      const r00 = 1 - 2 * (qy * qy + qz * qz),
        r01 = 2 * (qx * qy - qz * qw),
        r02 = 2 * (qx * qz + qy * qw);
      const r10 = 2 * (qx * qy + qz * qw),
        r11 = 1 - 2 * (qx * qx + qz * qz),
        r12 = 2 * (qy * qz - qx * qw);
      const r20 = 2 * (qx * qz - qy * qw),
        r21 = 2 * (qy * qz + qx * qw),
        r22 = 1 - 2 * (qx * qx + qy * qy);
      const pad = 1e-9 * (ex + ey + ez + Math.abs(bx) + Math.abs(by) + Math.abs(bz));
      const wx = Math.abs(r00) * ex + Math.abs(r01) * ey + Math.abs(r02) * ez + pad;
      const wy = Math.abs(r10) * ex + Math.abs(r11) * ey + Math.abs(r12) * ez + pad;
      const wz = Math.abs(r20) * ex + Math.abs(r21) * ey + Math.abs(r22) * ez + pad;
      lx = bx - wx;
      ly = by - wy;
      lz = bz - wz;
      hx = bx + wx;
      hy = by + wy;
      hz = bz + wz;
    }
    let sp = 0;
    stack[sp++] = 0;
    while (sp > 0) {
      const node = stack[--sp];
      const o6 = 6 * node;
      if (
        !(
          box[o6] <= hx &&
          box[o6 + 3] >= lx &&
          box[o6 + 1] <= hy &&
          box[o6 + 4] >= ly &&
          box[o6 + 2] <= hz &&
          box[o6 + 5] >= lz
        )
      )
        continue;
      const left = child[node];
      if (left >= 0) {
        stack[sp++] = left + 1;
        stack[sp++] = left;
        continue;
      }
      for (let q = start[node], qe = end[node]; q < qe; q++) {
        const x = s[4 * q],
          y = s[4 * q + 1],
          z = s[4 * q + 2],
          r = s[4 * q + 3];
        let d2: number;
        if (shape === 'aabb') {
          const dx = Math.min(Math.max(x, lx), hx) - x,
            dy = Math.min(Math.max(y, ly), hy) - y,
            dz = Math.min(Math.max(z, lz), hz) - z;
          d2 = dx * dx + dy * dy + dz * dz;
        } else {
          // v = q⁻¹ (S − centre) q, as src/reference/sphereBox.ts's rotateInverse.
          const vx = x - bx,
            vy = y - by,
            vz = z - bz;
          const tx = 2 * (uy * vz - uz * vy),
            ty = 2 * (uz * vx - ux * vz),
            tz = 2 * (ux * vy - uy * vx);
          const px = vx + qw * tx + (uy * tz - uz * ty),
            py = vy + qw * ty + (uz * tx - ux * tz),
            pz = vz + qw * tz + (ux * ty - uy * tx);
          const dx = Math.min(Math.max(px, -ex), ex) - px,
            dy = Math.min(Math.max(py, -ey), ey) - py,
            dz = Math.min(Math.max(pz, -ez), ez) - pz;
          d2 = dx * dx + dy * dy + dz * dz;
        }
        if (d2 <= r * r) {
          if (len + 2 > out.length) out = growPairs(len + 2);
          out[len] = id[q];
          out[len + 1] = k;
          len += 2;
        }
      }
    }
  }
  return out.slice(0, len);
}

/** Nearest hits of rays (stride 6) or sphere casts (stride 7), in the library's result layout. */
export interface CpuBvhHits {
  index: Int32Array;
  distance: Float32Array;
  /** D = A + n·t (raycast `point`, sphere cast `center`), xyz per cast. */
  point: Float32Array;
  /** The contact point E (sphere casts; equal to `point` for a ray), xyz per cast. */
  contact: Float32Array;
}

/**
 * The nearest sphere each ray or sphere cast hits, as `collider.raycast` / `sphereCast` define it
 * (the oracle's `castHit`: tangent hits, 0 ≤ t ≤ |AB|, a start inside or overlapping ignores the
 * sphere, zero-length casts miss, ties to the lowest index). A miss is index −1 and NaN.
 */
export function cpuBvhCasts(
  casts: Float32Array,
  stride: 6 | 7,
  spheres: Float32Array,
  stats?: CpuBvhStats,
): CpuBvhHits {
  const count = (casts.length / stride) | 0;
  const index = new Int32Array(count).fill(-1);
  const distance = new Float32Array(count).fill(NaN);
  const point = new Float32Array(3 * count).fill(NaN);
  const contact = new Float32Array(3 * count).fill(NaN);
  const n = spheres.length >> 2;
  if (n === 0 || count === 0) return { index, distance, point, contact };
  const { s, id, box, child, start, end, depth } = built(spheres, stats);
  const stack = take('queryStack', i32, 2 * depth + 8);
  const enterAt = take('enterStack', f64, 2 * depth + 8);
  for (let k = 0; k < count; k++) {
    const o = stride * k;
    const ax = casts[o],
      ay = casts[o + 1],
      az = casts[o + 2];
    const lx = casts[o + 3] - ax,
      ly = casts[o + 4] - ay,
      lz = casts[o + 5] - az;
    const r1 = stride === 7 ? casts[o + 6] : 0;
    const l2 = lx * lx + ly * ly + lz * lz;
    if (l2 === 0) continue;
    const length = Math.sqrt(l2);
    // 1/l, or a huge number on an axis the segment does not move along (no 0 × ∞).
    const ix = lx !== 0 ? 1 / lx : 1e300,
      iy = ly !== 0 ? 1 / ly : 1e300,
      iz = lz !== 0 ? 1 / lz : 1e300;
    let best = Infinity,
      bestU = Infinity,
      bestQ = -1,
      bestId = -1;
    let sp = 0;
    const rootEnter = slab(box, 0, r1, ax, ay, az, ix, iy, iz);
    if (rootEnter === Infinity) continue;
    stack[sp] = 0;
    enterAt[sp++] = rootEnter;
    while (sp > 0) {
      const node = stack[--sp];
      if (enterAt[sp] > bestU + U_EPS) continue;
      const left = child[node];
      if (left >= 0) {
        const e0 = slab(box, left, r1, ax, ay, az, ix, iy, iz),
          e1 = slab(box, left + 1, r1, ax, ay, az, ix, iy, iz);
        const limit = bestU + U_EPS;
        // Push the farther first, so the nearer is walked first.
        if (e0 <= e1) {
          if (e1 <= limit) {
            stack[sp] = left + 1;
            enterAt[sp++] = e1;
          }
          if (e0 <= limit) {
            stack[sp] = left;
            enterAt[sp++] = e0;
          }
        } else {
          if (e0 <= limit) {
            stack[sp] = left;
            enterAt[sp++] = e0;
          }
          if (e1 <= limit) {
            stack[sp] = left + 1;
            enterAt[sp++] = e1;
          }
        }
        continue;
      }
      for (let q = start[node], qe = end[node]; q < qe; q++) {
        // src/reference/casts.ts's castHit, operation for operation.
        const dx = s[4 * q] - ax,
          dy = s[4 * q + 1] - ay,
          dz = s[4 * q + 2] - az;
        const R = r1 + s[4 * q + 3];
        const as2 = dx * dx + dy * dy + dz * dz;
        if (as2 < R * R) continue;
        const cx = dy * lz - dz * ly,
          cy = dz * lx - dx * lz,
          cz = dx * ly - dy * lx;
        const disc = (R * R * l2 - (cx * cx + cy * cy + cz * cz)) / l2;
        if (disc < 0) continue;
        const tl = dx * lx + dy * ly + dz * lz - Math.sqrt(disc) * length;
        if (tl < 0 || tl > l2) continue;
        const t = tl / length;
        if (t < best || (t === best && id[q] < bestId)) {
          best = t;
          bestU = t / length;
          bestQ = q;
          bestId = id[q];
        }
      }
    }
    if (bestQ < 0) continue;
    index[k] = bestId;
    distance[k] = best;
    const px = ax + (lx / length) * best,
      py = ay + (ly / length) * best,
      pz = az + (lz / length) * best;
    point[3 * k] = px;
    point[3 * k + 1] = py;
    point[3 * k + 2] = pz;
    const R = r1 + s[4 * bestQ + 3];
    const f = R > 0 ? r1 / R : 0;
    contact[3 * k] = px + (s[4 * bestQ] - px) * f;
    contact[3 * k + 1] = py + (s[4 * bestQ + 1] - py) * f;
    contact[3 * k + 2] = pz + (s[4 * bestQ + 2] - pz) * f;
  }
  return { index, distance, point, contact };
}

/**
 * Where the segment A + u·L, u in [0, 1], enters node `c`'s box grown by r1 (u, at least 0), or
 * Infinity when it misses it (with a slack of U_EPS for rounding).
 */
function slab(
  box: Float64Array,
  c: number,
  r1: number,
  ax: number,
  ay: number,
  az: number,
  ix: number,
  iy: number,
  iz: number,
): number {
  const o = 6 * c;
  let t1 = (box[o] - r1 - ax) * ix,
    t2 = (box[o + 3] + r1 - ax) * ix;
  let enter = t1 < t2 ? t1 : t2,
    exit = t1 < t2 ? t2 : t1;
  t1 = (box[o + 1] - r1 - ay) * iy;
  t2 = (box[o + 4] + r1 - ay) * iy;
  enter = Math.max(enter, t1 < t2 ? t1 : t2);
  exit = Math.min(exit, t1 < t2 ? t2 : t1);
  t1 = (box[o + 2] - r1 - az) * iz;
  t2 = (box[o + 5] + r1 - az) * iz;
  enter = Math.max(enter, t1 < t2 ? t1 : t2, 0);
  exit = Math.min(exit, t1 < t2 ? t2 : t1, 1);
  return enter <= exit + U_EPS ? enter : Infinity;
}

/** `collider.raycast`'s result: `{ index, distance, point }`. */
export function cpuBvhRaycast(
  rays: Float32Array,
  spheres: Float32Array,
  stats?: CpuBvhStats,
): { index: Int32Array; distance: Float32Array; point: Float32Array } {
  const { index, distance, point } = cpuBvhCasts(rays, 6, spheres, stats);
  return { index, distance, point };
}

/** `collider.sphereCast`'s result: `{ index, distance, center, contact }`. */
export function cpuBvhSphereCast(
  casts: Float32Array,
  spheres: Float32Array,
  stats?: CpuBvhStats,
): { index: Int32Array; distance: Float32Array; center: Float32Array; contact: Float32Array } {
  const { index, distance, point, contact } = cpuBvhCasts(casts, 7, spheres, stats);
  return { index, distance, center: point, contact };
}

let warmed = false;
/**
 * Runs every query a few dozen times on a small scene, once per process, so that V8 has
 * optimised the build and the walks before a bench times them (an engine running frame after
 * frame is warm; the GPU methods' pipelines are compiled when the collider is made).
 */
export function warmCpuBvh(): void {
  if (warmed) return;
  warmed = true;
  let seed = 1;
  const rand = (): number => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
  const spheres = new Float32Array(4 * 2000);
  for (let i = 0; i < 2000; i++) spheres.set([rand() * 20, rand() * 20, rand() * 20, 0.2 + 0.6 * rand()], 4 * i);
  const aabbs = new Float32Array(6 * 200),
    obbs = new Float32Array(10 * 200),
    rays = new Float32Array(6 * 200),
    casts = new Float32Array(7 * 200);
  for (let k = 0; k < 200; k++) {
    const c = [rand() * 20, rand() * 20, rand() * 20];
    aabbs.set([c[0] - 1, c[1] - 1, c[2] - 1, c[0] + 1, c[1] + 1, c[2] + 1], 6 * k);
    obbs.set([...c, 1, 2, 0.5, rand(), rand(), rand(), 1], 10 * k);
    rays.set([-5, c[1], c[2], 25, c[0], c[2]], 6 * k);
    casts.set([c[0], -5, c[2], c[1], 25, c[0], 0.3], 7 * k);
  }
  for (let r = 0; r < 40; r++) {
    cpuBvhSpherePairs(spheres);
    cpuBvhSphereBoxPairs(spheres, aabbs, 'aabb');
    cpuBvhSphereBoxPairs(spheres, obbs, 'obb');
    cpuBvhCasts(rays, 6, spheres);
    cpuBvhCasts(casts, 7, spheres);
  }
}
