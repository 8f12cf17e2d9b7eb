/**
 * The CPU twin of the LBVH broad phase (shaders/spatial/bvh.wgsl.ts, its queries shaders/broadphase/bvh/): the same f32 Morton codes, a
 * stable sort by code, Karras's range and split search with the index appended to equal codes,
 * the same f32 leaf boxes (centre ± P(r), their unions as node boxes) and the same walks, which
 * can count their work (bvhPairWork, bvhBoxWork, bvhNearestCasts). The narrow tests are
 * the oracle's (double precision), so away from the rounding band the twin must give the
 * oracle's answers exactly: that checks the tree covers every sphere and the pruning never
 * drops one.
 */
import { spheresOverlap } from './spherePairs.js';
import { sphereAabbOverlap, sphereObbOverlap, obbWorldHalfExtents } from './sphereBox.js';
import { castHit } from './casts.js';
import { validateSpheres } from '../validate.js';
import { BVH_LEAF, BVH_PAD, BVH_TINY, BVH_OBB_GROW, MORTON_CELLS, bvhMortonGrid } from '../spatial/bvhShape.js';
import { bvhCastSlack } from '../broadphase/bvh/castSlack.js';

const f32 = Math.fround;

/** P(r) as paddedRadius computes it: the radius leaf boxes and pair queries' boxes grow to. */
export function bvhPaddedRadius(r: number): number {
  return f32(f32(r * BVH_PAD) + BVH_TINY);
}

export interface CpuBvhNode {
  lo: number[];
  hi: number[];
  /** Internal node index, or sorted leaf position | BVH_LEAF. */
  left: number;
  right: number;
}

export interface CpuBvh {
  /** Sphere indices in sorted (code, index) order. */
  order: Uint32Array;
  /** The sorted spheres' Morton codes. */
  codes: MortonCodes;
  nodes: CpuBvhNode[];
  /** Internal nodes on the longest path from the root. */
  depth: number;
}

function spread(v: number): number {
  let x = v & 0x3ff;
  x = Math.imul(x, 0x00010001) & 0xff0000ff;
  x = Math.imul(x, 0x00000101) & 0x0f00f00f;
  x = Math.imul(x, 0x00000011) & 0xc30c30c3;
  x = Math.imul(x, 0x00000005) & 0x49249249;
  return x >>> 0;
}

/** 60-bit Morton codes as two 30-bit words: high (the interleave of each axis' high 10 bits) and low. */
export interface MortonCodes {
  high: Uint32Array;
  low: Uint32Array;
}

/** The 60-bit Morton code of each centre (20 bits an axis), as mortonWords computes it. */
export function mortonCodes(spheres: Float32Array): MortonCodes {
  const stats = validateSpheres('spheres', spheres);
  const { origin, scale } = bvhMortonGrid(stats);
  const n = stats.count;
  const high = new Uint32Array(n);
  const low = new Uint32Array(n);
  const interleave = (c: number[]): number => ((spread(c[0]) << 2) | (spread(c[1]) << 1) | spread(c[2])) >>> 0;
  for (let i = 0; i < n; i++) {
    const cell = [0, 1, 2].map((a) =>
      Math.floor(Math.min(Math.max(f32(f32(spheres[4 * i + a] - f32(origin[a])) * scale[a]), 0), MORTON_CELLS - 1)),
    );
    high[i] = interleave(cell.map((c) => c >>> 10));
    low[i] = interleave(cell);
  }
  return { high, low };
}

const clz = Math.clz32;

/** Builds the tree as the GPU does. */
export function buildBvh(spheres: Float32Array): CpuBvh {
  const stats = validateSpheres('spheres', spheres);
  const n = stats.count;
  const unsorted = mortonCodes(spheres);
  const order = Uint32Array.from({ length: n }, (_, i) => i).sort(
    (a, b) => unsorted.high[a] - unsorted.high[b] || unsorted.low[a] - unsorted.low[b] || a - b,
  );
  const high = Uint32Array.from(order, (i) => unsorted.high[i]);
  const low = Uint32Array.from(order, (i) => unsorted.low[i]);
  const delta = (i: number, j: number): number => {
    if (j < 0 || j >= n) return -1;
    if (high[i] !== high[j]) return clz(high[i] ^ high[j]);
    if (low[i] !== low[j]) return 32 + clz(low[i] ^ low[j]);
    return 64 + clz(i ^ j);
  };
  const nodes: CpuBvhNode[] = [];
  const ranges: [number, number][] = [];
  for (let i = 0; i + 1 < n; i++) {
    const d = delta(i, i + 1) > delta(i, i - 1) ? 1 : -1;
    const deltaMin = delta(i, i - d);
    let lMax = 2;
    while (delta(i, i + lMax * d) > deltaMin) lMax *= 2;
    let l = 0;
    for (let t = lMax / 2; t >= 1; t = Math.floor(t / 2)) if (delta(i, i + (l + t) * d) > deltaMin) l += t;
    const j = i + l * d;
    const deltaNode = delta(i, j);
    let s = 0;
    for (let div = 2; ; div *= 2) {
      const t = Math.ceil(l / div);
      if (delta(i, i + (s + t) * d) > deltaNode) s += t;
      if (t <= 1) break;
    }
    const gamma = i + s * d + Math.min(d, 0);
    const first = Math.min(i, j);
    const last = Math.max(i, j);
    nodes.push({
      lo: [],
      hi: [],
      left: first === gamma ? (gamma | BVH_LEAF) >>> 0 : gamma,
      right: last === gamma + 1 ? ((gamma + 1) | BVH_LEAF) >>> 0 : gamma + 1,
    });
    ranges.push([first, last]);
  }
  // Node boxes: the union of the f32 leaf boxes in the node's range (min and max are exact, so
  // any grouping gives the GPU pyramid's boxes).
  const leafLo = (u: number, a: number): number =>
    f32(spheres[4 * order[u] + a] - bvhPaddedRadius(spheres[4 * order[u] + 3]));
  const leafHi = (u: number, a: number): number =>
    f32(spheres[4 * order[u] + a] + bvhPaddedRadius(spheres[4 * order[u] + 3]));
  const boxOf = (child: number): { lo: number[]; hi: number[] } =>
    child & BVH_LEAF
      ? {
          lo: [0, 1, 2].map((a) => leafLo(child & ~BVH_LEAF, a)),
          hi: [0, 1, 2].map((a) => leafHi(child & ~BVH_LEAF, a)),
        }
      : nodes[child];
  // Children cover sub-ranges: fill boxes from the shortest ranges up.
  const byLength = nodes.map((_, i) => i).sort((a, b) => ranges[a][1] - ranges[a][0] - (ranges[b][1] - ranges[b][0]));
  for (const i of byLength) {
    const l = boxOf(nodes[i].left);
    const r = boxOf(nodes[i].right);
    nodes[i].lo = [0, 1, 2].map((a) => Math.min(l.lo[a], r.lo[a]));
    nodes[i].hi = [0, 1, 2].map((a) => Math.max(l.hi[a], r.hi[a]));
  }
  let depth = 0;
  const stack: [number, number][] = n > 1 ? [[0, 1]] : [];
  while (stack.length > 0) {
    const [node, level] = stack.pop()!;
    depth = Math.max(depth, level);
    for (const child of [nodes[node].left, nodes[node].right]) if (!(child & BVH_LEAF)) stack.push([child, level + 1]);
  }
  return { order, codes: { high, low }, nodes, depth };
}

/**
 * The GPU walk (bvhWalk): `test` gives a node's key (negative: pruned), `visit` each leaf's
 * sorted position, `skip` drops a node before the walk goes into it, `dropLeft` an internal left
 * child (by its index, the last of its leaves) before its box is tested. The walk goes on into
 * the nearer passing child (the right one on a tie) and stacks the farther. Returns the deepest
 * the stack got.
 */
export function walkBvh(
  tree: CpuBvh,
  test: (node: CpuBvhNode) => number,
  visit: (u: number) => void,
  skip?: (key: number) => boolean,
  dropLeft?: (child: number) => boolean,
): number {
  if (tree.order.length === 0) return 0;
  if (tree.order.length === 1) {
    visit(0);
    return 0;
  }
  const stack: [number, number][] = [];
  let deepest = 0;
  let node = 0;
  for (;;) {
    let next = -1;
    let nextKey = 0;
    for (const child of [tree.nodes[node].left, tree.nodes[node].right]) {
      if (child & BVH_LEAF) {
        visit(child & ~BVH_LEAF);
        continue;
      }
      if (dropLeft && child === tree.nodes[node].left && dropLeft(child)) continue;
      const k = test(tree.nodes[child]);
      if (k < 0) continue;
      if (next < 0) {
        next = child;
        nextKey = k;
      } else if (k <= nextKey) {
        stack.push([next, nextKey]);
        next = child;
        nextKey = k;
      } else {
        stack.push([child, k]);
      }
    }
    deepest = Math.max(deepest, stack.length);
    if (next >= 0 && !skip?.(nextKey)) {
      node = next;
      continue;
    }
    let popped = -1;
    while (stack.length > 0) {
      const [candidate, key] = stack.pop()!;
      if (!skip?.(key)) {
        popped = candidate;
        break;
      }
    }
    if (popped < 0) return deepest;
    node = popped;
  }
}

const boxKey =
  (lo: number[], hi: number[]) =>
  (node: CpuBvhNode): number =>
    [0, 1, 2].every((a) => node.lo[a] <= hi[a] && node.hi[a] >= lo[a]) ? 0 : -1;

/** The work of walks: internal nodes whose box was tested, and leaves reached (each a narrow test, or, in the pair walk, skipped as a sphere earlier in sorted order). */
export interface BvhWork {
  queries: number;
  nodeTests: number;
  leafVisits: number;
}

/** `test`, counting its calls in `work.nodeTests`. */
const counted =
  (test: (node: CpuBvhNode) => number, work: BvhWork) =>
  (node: CpuBvhNode): number => {
    work.nodeTests++;
    return test(node);
  };

/** The pair query's box of sphere i: its centre ± P(r), as bvhPairs computes it. */
function pairQueryBox(spheres: Float32Array, i: number): { lo: number[]; hi: number[] } {
  const p = bvhPaddedRadius(spheres[4 * i + 3]);
  return {
    lo: [0, 1, 2].map((a) => f32(spheres[4 * i + a] - p)),
    hi: [0, 1, 2].map((a) => f32(spheres[4 * i + a] + p)),
  };
}

/**
 * Every overlapping pair (i < j) found by walking the tree from each sphere, in no particular
 * order. `work`, when given, is added the walks' node tests and leaf visits (the GPU walk's
 * work, query for query).
 */
export function bvhSpherePairs(spheres: Float32Array, tree = buildBvh(spheres), work?: BvhWork): Uint32Array {
  const out: number[] = [];
  tree.order.forEach((i, k) => {
    const { lo, hi } = pairQueryBox(spheres, i);
    const test = boxKey(lo, hi);
    if (work) work.queries++;
    walkBvh(
      tree,
      work ? counted(test, work) : test,
      (u) => {
        if (work) work.leafVisits++;
        const j = tree.order[u];
        if (u > k && spheresOverlap(spheres, i, j)) out.push(Math.min(i, j), Math.max(i, j));
      },
      undefined,
      (child) => child <= k,
    );
  });
  return Uint32Array.from(out);
}

/**
 * The pair walk's work (node tests, leaf visits) from every `step`-th sphere in sorted order,
 * without the narrow tests: what bvhPairs does for those spheres on the GPU.
 */
export function bvhPairWork(spheres: Float32Array, tree = buildBvh(spheres), step = 1): BvhWork {
  const work: BvhWork = { queries: 0, nodeTests: 0, leafVisits: 0 };
  for (let k = 0; k < tree.order.length; k += step) {
    const { lo, hi } = pairQueryBox(spheres, tree.order[k]);
    const test = boxKey(lo, hi);
    work.queries++;
    walkBvh(
      tree,
      counted(test, work),
      () => work.leafVisits++,
      undefined,
      (child) => child <= k,
    );
  }
  return work;
}

/**
 * The bounds box k walks the tree with, as bvhBoxBounds (shaders/broadphase/bvh/walk.wgsl.ts): an
 * AABB's own (min, max); an oriented box's centre ± E, E = (e + BVH_OBB_GROW·span)(1 + 2^-20),
 * each bound rounded to f32 once (e from the normalised quaternion in double, as the oracle's
 * test, so the twin's bounds hold the oracle's spheres as the GPU's hold the GPU test's).
 */
export function bvhBoxBounds(boxes: Float32Array, kind: 'aabb' | 'obb', k: number): number[] {
  if (kind === 'aabb') return Array.from(boxes.subarray(6 * k, 6 * k + 6));
  const b = 10 * k;
  const e = obbWorldHalfExtents(boxes, k);
  const span = e[0] + e[1] + e[2];
  const reach = e.map((v) => (v + span * BVH_OBB_GROW) * (1 + 2 ** -20));
  return [0, 1, 2].map((a) => f32(boxes[b + a] - reach[a])).concat([0, 1, 2].map((a) => f32(boxes[b + a] + reach[a])));
}

/** The box walk's work (node tests, leaf visits) for each box, as bvhBoxes does it. */
export function bvhBoxWork(
  spheres: Float32Array,
  boxes: Float32Array,
  kind: 'aabb' | 'obb',
  tree = buildBvh(spheres),
): BvhWork {
  const work: BvhWork = { queries: 0, nodeTests: 0, leafVisits: 0 };
  const boxCount = boxes.length / (kind === 'aabb' ? 6 : 10);
  for (let k = 0; k < boxCount; k++) {
    const b = bvhBoxBounds(boxes, kind, k);
    const test = boxKey(b.slice(0, 3), b.slice(3));
    work.queries++;
    walkBvh(tree, counted(test, work), () => work.leafVisits++);
  }
  return work;
}

/** Every (sphere, box) that overlap. `kind` 'aabb': (min, max), 6 floats; 'obb': 10 floats. */
export function bvhSphereBoxPairs(
  spheres: Float32Array,
  boxes: Float32Array,
  kind: 'aabb' | 'obb',
  tree = buildBvh(spheres),
): Uint32Array {
  const boxCount = boxes.length / (kind === 'aabb' ? 6 : 10);
  const out: number[] = [];
  for (let k = 0; k < boxCount; k++) {
    const b = bvhBoxBounds(boxes, kind, k);
    walkBvh(tree, boxKey(b.slice(0, 3), b.slice(3)), (u) => {
      const i = tree.order[u];
      if (kind === 'aabb' ? sphereAabbOverlap(spheres, i, boxes, k) : sphereObbOverlap(spheres, i, boxes, k))
        out.push(i, k);
    });
  }
  return Uint32Array.from(out);
}

/** Entry distance of the ray (a, unit n) into [lo − g, hi + g] within [0, tStop], or −1 (rayBoxEntry: grown after moving to a). */
function rayBoxEntry(a: number[], n: number[], tStop: number, lo: number[], hi: number[], g: number): number {
  let t0 = 0;
  let t1 = tStop;
  for (let axis = 0; axis < 3; axis++) {
    const dlo = lo[axis] - a[axis] - g;
    const dhi = hi[axis] - a[axis] + g;
    if (n[axis] === 0) {
      if (dlo > 0 || dhi < 0) return -1;
    } else {
      const ta = dlo / n[axis];
      const tb = dhi / n[axis];
      t0 = Math.max(t0, Math.min(ta, tb));
      t1 = Math.min(t1, Math.max(ta, tb));
    }
  }
  return t0 <= t1 ? t0 : -1;
}

/**
 * Nearest hit of every ray (stride 6) or cast (stride 7) by the nearest-first walk, pruned by the
 * best distance so far (ties to the lowest index); index −1 and distance NaN for a miss.
 */
export function bvhNearestCasts(
  rays: Float32Array,
  stride: 6 | 7,
  spheres: Float32Array,
  tree = buildBvh(spheres),
  work?: BvhWork,
): { index: Int32Array; distance: Float32Array } {
  const count = rays.length / stride;
  const stats = validateSpheres('spheres', spheres);
  let abs = Math.max(0, ...stats.min.map(Math.abs), ...stats.max.map(Math.abs));
  let maxLength = 0;
  for (let k = 0; k < count; k++) {
    const o = stride * k;
    for (let c = 0; c < 6; c++) abs = Math.max(abs, Math.abs(rays[o + c]));
    maxLength = Math.max(
      maxLength,
      Math.hypot(rays[o + 3] - rays[o], rays[o + 4] - rays[o + 1], rays[o + 5] - rays[o + 2]),
    );
  }
  // The GPU walk's slack (BroadPhase.castSlack: 2^-24 of the coordinates, 2^-20 of the length and reach).
  const slack = bvhCastSlack({ maxAbs: abs, maxLength, maxRadius: stats.count > 0 ? stats.maxRadius : 0 });
  const index = new Int32Array(count).fill(-1);
  const distance = new Float32Array(count).fill(NaN);
  for (let k = 0; k < count; k++) {
    const o = stride * k;
    const r1 = stride === 7 ? rays[o + 6] : 0;
    const a = [rays[o], rays[o + 1], rays[o + 2]];
    const len = Math.hypot(rays[o + 3] - a[0], rays[o + 4] - a[1], rays[o + 5] - a[2]);
    if (len === 0 || stats.count === 0) continue;
    const n = [0, 1, 2].map((c) => (rays[o + 3 + c] - a[c]) / len);
    const grow = r1 * (1 + 2 ** -20) + slack;
    let best = Infinity;
    let bestIndex = -1;
    if (work) work.queries++;
    walkBvh(
      tree,
      (node) => {
        if (work) work.nodeTests++;
        return rayBoxEntry(a, n, Math.min(len, best), node.lo, node.hi, grow);
      },
      (u) => {
        if (work) work.leafVisits++;
        const i = tree.order[u];
        const hit = castHit(
          a[0],
          a[1],
          a[2],
          rays[o + 3],
          rays[o + 4],
          rays[o + 5],
          r1,
          spheres[4 * i],
          spheres[4 * i + 1],
          spheres[4 * i + 2],
          spheres[4 * i + 3],
        );
        if (hit && (hit.t < best || (hit.t === best && i < bestIndex))) {
          best = hit.t;
          bestIndex = i;
        }
      },
      (key) => key > best,
    );
    index[k] = bestIndex;
    if (bestIndex >= 0) distance[k] = best;
  }
  return { index, distance };
}
