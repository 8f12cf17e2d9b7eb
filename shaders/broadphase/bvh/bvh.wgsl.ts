/**
 * A linear BVH (Karras 2012, "Maximizing parallelism in the construction of BVHs, octrees, and
 * k-d trees") over the spheres. The CPU twin is in src/reference/bvh.ts.
 *
 *   bvhCodes    key = the low word of the centre's 60-bit Morton code (20 bits an axis over the
 *               centres' bounds: the interleave of each axis' low 10 bits), value = index
 *   (radix sort, 30 bits, src/passes/radixSort.ts: stable, so equal words keep index order)
 *   bvhCodesHi  key = the high word (the interleave of the high 10 bits) of each sphere in that order
 *   (radix sort again: stable, so the order is by (high word, low word, index))
 *   bvhGather   the spheres and their two code words copied into sorted order
 *   bvhPyramid  one dispatch per level L = 1 .. floor(log2 n): the box of every aligned block of
 *               2^L sorted leaves, the union of two blocks of the level below (level 0, the
 *               leaves, is read from the sorted spheres). Not several levels a dispatch through
 *               workgroup memory: on SwiftShader its barriers cost 30–90 ms at 16,000 spheres
 *               where the 13 dispatches take 1.2–1.9 ms
 *   bvhNodes    one thread per internal node (n − 1): Karras's range and split search over the
 *               sorted codes, with the index appended to the code where codes are equal (the
 *               keys are then distinct: all-coincident spheres build a balanced tree over their
 *               indices), and the node's box as the union of the ≤ 2·log2 n pyramid blocks
 *               that tile its range of leaves
 *
 * Why the boxes come from a pyramid and not from the usual bottom-up refit with visit counters:
 * WGSL's atomics are relaxed and its barriers reach only a workgroup, so the second thread to
 * arrive at a node has no guarantee of seeing the box the first one wrote (a message passed
 * between workgroups through plain memory is a data race in WGSL's memory model). Dispatch
 * boundaries do order everything: each pyramid level is its own dispatch, and bvhNodes reads
 * only what earlier dispatches wrote. No atomics, no flags, no race; log2 n small dispatches.
 *
 * Why 20 bits an axis: with 10, a blob 1/1000 of the scene across or a line 30,000 long puts
 * thousands of spheres on one code, the tree splits them by index, not by place, and the walks
 * go quadratic (100k spheres: 15.9 s for the tiny blob, 7.2 s for the long line on SwiftShader).
 *
 * Depth: the keys (high word, low word, index) are distinct, and in a binary radix tree a
 * child's common prefix is strictly longer than its parent's. Each 30-bit word sits in 32 bits
 * with its top 2 bits 0, so a common prefix is 2 .. 31 bits (the high words differ), 34 .. 63
 * (the low words differ) or 64 .. 95 (the indices differ): 92 lengths, at most 92 internal
 * nodes on any path from the root. The walks' stack (the farther child of each node on the
 * path, at most one a level) then never holds more than 92 entries: a fixed stack of 96 cannot
 * overflow, on any input.
 *
 * Queries (one thread per query): walk the nodes whose box passes the query's test, and run the
 * same narrow test as every broad phase on each leaf reached.
 *
 * Why the pruning never drops a pair the narrow test keeps, with boxes grown only by their own
 * radius: a leaf box is [x − P(r), x + P(r)] per axis, each end one correctly rounded f32 add,
 * P(r) = r·(1 + 2^-18) + 2^-100 (`paddedRadius`); a sphere pair's query box is its own centre
 * ± P(r) the same way. When spheresOverlap accepts (i, j), per axis |xj − xi| ≤ (ri + rj)(1 + 8u)
 * + 2^-126 (u = 2^-24; the 2^-126 for a flushed subnormal difference), which is less than
 * P(ri) + P(rj), so xj − P(rj) ≤ xi + P(ri) exactly; rounding to nearest is monotone, so
 * fl(xj − P(rj)) ≤ fl(xi + P(ri)), the leaf's lower end against the query's upper end: the test
 * passes whatever the rounding of the positions. An AABB's bounds are the box's own f32 values
 * (an accepted sphere's centre lies within r(1 + 8u) + 2^-126 of them), an oriented box's are
 * its centre ± a reach grown for its rotation, each rounded once (bvhBoxBounds, which says why
 * that is enough). No term grows with |x|: a slack of 2^-20·|x|max (about 1 unit at 1e6, eight
 * spacings of a touching lattice of radius 1/16) made every query of a far-from-origin scene
 * reach some 3,000 leaves instead of 33 (16.5 s for 15,625 spheres).
 * The node boxes hold their spheres but for the rounding of x ± P(r) (at most half an ulp of
 * x): the casts' slack (bvhCastSlack, ./castSlack.ts: 2^-24 of the coordinates, and 2^-20 of
 * the casts' length and reach) covers that, as it covers the rest of the ray test's rounding,
 * which rayBoxEntry keeps relative to offsets from the cast's origin.
 *
 * The pair walk drops a left child whose leaves all come at or before the query's own sorted
 * position (bvhWalk's dropLeft): each pair is reported from its earlier sphere, so those leaves
 * were skipped anyway, and the walk tests about half the nodes (a touching lattice: 48 node
 * tests and 16 leaves a query, where it was 85 and 33).
 *
 * Over 500 lines: the BVH's kernels (codes, gather, pyramid, nodes, pairs, boxes) share the node
 * layout and the margin proofs written out above; splitting them would separate each proof from
 * the code it covers.
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { BvhParams, BvhLevel, BvhNode } from './layout.js';
import { flatWorkgroup, spheresOverlap, pairAppend, PAIR_OUTPUT } from '../../common.wgsl.js';
import { bindings, uniform, readOnly, readWrite, entry, WG } from '../../../src/gpu/kernel.js';
import { boxMath, boxTest, boxBounds } from '../../boxes.wgsl.js';
import type { BoxKind } from '../../../src/queryKinds.js';
import { MORTON_CELLS, BVH_LEAF, BVH_STACK, BVH_PAD, BVH_TINY, BVH_OBB_GROW } from '../../../src/broadphase/bvh/shape.js';

/** The kernels' entries (src/gpu/kernel.ts): name, thread index and bounds check, declared once. */
export const bvhCodesEntry = entry({ name: 'bvhCodes', index: 'i', bound: 'params.sphereCount' });
export const bvhCodesHiEntry = entry({ name: 'bvhCodesHi', index: 'k', bound: 'params.sphereCount' });
export const bvhGatherEntry = entry({ name: 'bvhGather', index: 'k', bound: 'params.sphereCount' });
export const bvhPyramidEntry = entry({ name: 'bvhPyramid', index: 'b', bound: 'level.count' });
export const bvhNodesEntry = entry({ name: 'bvhNodes', index: 'node', exit: 'node + 1u >= params.sphereCount' });
export const bvhPairsEntry = entry({ name: 'bvhPairs', index: 'k', bound: 'params.sphereCount' });
export const bvhBoxCodesEntry = entry({ name: 'bvhBoxCodes', index: 'k', bound: 'params.boxCount' });
export const bvhBoxesEntry = entry({ name: 'bvhBoxes', index: 't', exit: 'params.sphereCount == 0u', bound: 'params.boxCount' });

export { MORTON_CELLS, BVH_LEAF, BVH_STACK, BVH_MAX_DEPTH, BVH_PAD, BVH_TINY } from '../../../src/broadphase/bvh/shape.js';

/** P(r): the radius a leaf box and a pair query's box are grown to (the module's comment). */
const paddedRadius = /* wgsl */ `
fn paddedRadius(r: f32) -> f32 {
  return r * ${BVH_PAD} + ${BVH_TINY.toExponential()};
}
`;

/** The leaf box of sorted sphere s: its centre ± P(r). */
const leafBox = /* wgsl */ `
${paddedRadius}
fn leafLo(s: vec4f) -> vec3f {
  return s.xyz - vec3f(paddedRadius(s.w));
}
fn leafHi(s: vec4f) -> vec3f {
  return s.xyz + vec3f(paddedRadius(s.w));
}
`;

/** The centre's 60-bit Morton code as (high word, low word), 30 bits each (src/reference/bvh.ts twins it). */
const morton = /* wgsl */ `
// The 10 low bits of v spread to every third bit.
fn spread(v: u32) -> u32 {
  var x = v & 0x3ffu;
  x = (x * 0x00010001u) & 0xff0000ffu;
  x = (x * 0x00000101u) & 0x0f00f00fu;
  x = (x * 0x00000011u) & 0xc30c30c3u;
  x = (x * 0x00000005u) & 0x49249249u;
  return x;
}

fn mortonWords(p: vec3f) -> vec2u {
  let cell = vec3u(clamp((p - params.origin) * params.scale, vec3f(0.0), vec3f(${MORTON_CELLS - 1}.0)));
  let high = cell >> vec3u(10u);
  return vec2u((spread(high.x) << 2u) | (spread(high.y) << 1u) | spread(high.z),
               (spread(cell.x) << 2u) | (spread(cell.y) << 1u) | spread(cell.z));
}
`;

export const bvhCodesBindings = bindings({
  params: uniform('BvhParams'),
  spheres: readOnly('array<vec4f>'),
  codes: readWrite('array<u32>'),
  ids: readWrite('array<u32>'),
});
export const bvhCodesShader = () => wgsl`
${BvhParams.wgsl}
${bvhCodesBindings.wgsl}
${flatWorkgroup}
${morton}
${WG.wgsl}

${bvhCodesEntry.wgsl}
  codes[i] = mortonWords(spheres[i].xyz).y;
  ids[i] = i;
}
`;

export const bvhCodesHiBindings = bindings({
  params: uniform('BvhParams'),
  spheres: readOnly('array<vec4f>'),
  ids: readOnly('array<u32>'),
  codes: readWrite('array<u32>'),
});
export const bvhCodesHiShader = () => wgsl`
${BvhParams.wgsl}
${bvhCodesHiBindings.wgsl}
${flatWorkgroup}
${morton}
${WG.wgsl}

${bvhCodesHiEntry.wgsl}
  codes[k] = mortonWords(spheres[ids[k]].xyz).x;
}
`;

export const bvhGatherBindings = bindings({
  params: uniform('BvhParams'),
  spheres: readOnly('array<vec4f>'),
  ids: readOnly('array<u32>'),
  sorted: readWrite('array<vec4f>'),
  keys: readWrite('array<vec2u>'),
});
export const bvhGatherShader = () => wgsl`
${BvhParams.wgsl}
${bvhGatherBindings.wgsl}
${flatWorkgroup}
${morton}
${WG.wgsl}

${bvhGatherEntry.wgsl}
  let s = spheres[ids[k]];
  sorted[k] = s;
  keys[k] = mortonWords(s.xyz);
}
`;

export const bvhPyramidBindings = bindings({
  params: uniform('BvhParams'),
  level: uniform('BvhLevel'),
  sorted: readOnly('array<vec4f>'),
  pyramid: readWrite('array<vec4f>'),
});
export const bvhPyramidShader = () => wgsl`
${BvhParams.wgsl}
${bvhPyramidBindings.wgsl}
${BvhLevel.wgsl}
${flatWorkgroup}
${leafBox}
${WG.wgsl}

${bvhPyramidEntry.wgsl}
  var lo: vec3f;
  var hi: vec3f;
  if (level.level == 1u) {
    let s0 = sorted[2u * b];
    let s1 = sorted[2u * b + 1u];
    lo = min(leafLo(s0), leafLo(s1));
    hi = max(leafHi(s0), leafHi(s1));
  } else {
    let src = 2u * (level.srcBase + 2u * b);
    lo = min(pyramid[src].xyz, pyramid[src + 2u].xyz);
    hi = max(pyramid[src + 1u].xyz, pyramid[src + 3u].xyz);
  }
  let dst = 2u * (level.dstBase + b);
  pyramid[dst] = vec4f(lo, 0.0);
  pyramid[dst + 1u] = vec4f(hi, 0.0);
}
`;

export const bvhNodesBindings = bindings({
  params: uniform('BvhParams'),
  keys: readOnly('array<vec2u>'),
  sorted: readOnly('array<vec4f>'),
  pyramid: readOnly('array<vec4f>'),
  nodes: readWrite('array<BvhNode>'),
});
export const bvhNodesShader = () => wgsl`
${BvhParams.wgsl}
${bvhNodesBindings.wgsl}
${BvhNode.wgsl}
${flatWorkgroup}
${leafBox}
${WG.wgsl}
const LEAF: u32 = ${BVH_LEAF}u;

// The common prefix of keys i and j, the key being (high word, low word, index), 32 bits each:
// −1 outside [0, n). \`a\` is keys[i], read once by the caller (each search step reads one key).
fn delta(a: vec2u, i: i32, j: i32) -> i32 {
  if (j < 0 || j >= i32(params.sphereCount)) {
    return -1;
  }
  let b = keys[j];
  if (a.x != b.x) {
    return i32(countLeadingZeros(a.x ^ b.x));
  }
  if (a.y != b.y) {
    return 32 + i32(countLeadingZeros(a.y ^ b.y));
  }
  return 64 + i32(countLeadingZeros(u32(i) ^ u32(j)));
}

${bvhNodesEntry.wgsl}
  let i = i32(node);
  let ki = keys[i];
  // The direction of the range, then its other end j (exponential then binary search).
  let deltaNext = delta(ki, i, i + 1);
  let deltaPrev = delta(ki, i, i - 1);
  let d = select(-1, 1, deltaNext > deltaPrev);
  let deltaMin = min(deltaNext, deltaPrev); // delta(i, i − d)
  var lMax = 2;
  while (delta(ki, i, i + lMax * d) > deltaMin) {
    lMax *= 2;
  }
  var l = 0;
  for (var t = lMax / 2; t >= 1; t /= 2) {
    if (delta(ki, i, i + (l + t) * d) > deltaMin) {
      l += t;
    }
  }
  let j = i + l * d;
  // The split: the last key sharing more than the node's prefix with i.
  let deltaNode = delta(ki, i, j);
  var s = 0;
  var k = 1u; // t = ceil(l / 2^k), as a shift (an integer division is a loop of lanes on SwiftShader)
  loop {
    let t = (l + (1 << k) - 1) >> k;
    if (delta(ki, i, i + (s + t) * d) > deltaNode) {
      s += t;
    }
    if (t <= 1) {
      break;
    }
    k += 1u;
  }
  let gamma = i + s * d + min(d, 0);
  let first = u32(min(i, j));
  let last = u32(max(i, j));
  let split = u32(gamma);
  let left = select(split, split | LEAF, first == split);
  let right = select(split + 1u, (split + 1u) | LEAF, last == split + 1u);

  // The box: the union of the aligned pyramid blocks that tile [first, last].
  var lo = vec3f(3.0e38);
  var hi = vec3f(-3.0e38);
  var a = first;
  var b = last + 1u;
  var lvl = 0u;
  var base = 0u; // where level lvl starts in the pyramid (levels ≥ 1)
  while (a < b) {
    if ((a & 1u) == 1u) {
      if (lvl == 0u) {
        let q = sorted[a];
        lo = min(lo, leafLo(q));
        hi = max(hi, leafHi(q));
      } else {
        lo = min(lo, pyramid[2u * (base + a)].xyz);
        hi = max(hi, pyramid[2u * (base + a) + 1u].xyz);
      }
      a += 1u;
    }
    if ((b & 1u) == 1u) {
      b -= 1u;
      if (lvl == 0u) {
        let q = sorted[b];
        lo = min(lo, leafLo(q));
        hi = max(hi, leafHi(q));
      } else {
        lo = min(lo, pyramid[2u * (base + b)].xyz);
        hi = max(hi, pyramid[2u * (base + b) + 1u].xyz);
      }
    }
    a >>= 1u;
    b >>= 1u;
    if (lvl > 0u) {
      base += params.sphereCount >> lvl;
    }
    lvl += 1u;
  }
  nodes[node] = BvhNode(lo, left, hi, right);
}
`;

export interface BvhWalk {
  /**
   * Statements that declare `let key: f32` for the internal node `c` (its box in nodes[c].lo,
   * nodes[c].hi): negative when the query misses the box, else an order key (nearer first).
   */
  test: string;
  /** Statements run for each leaf reached: `u` its sorted position, `q` its sphere. */
  visit: string;
  /** Optional: a bool expression of `key` that skips a node when it is popped (nearest casts). */
  skip?: string;
  /**
   * Optional: a bool expression of `child`, an internal left child, that drops it untested. A
   * left child c's leaves are the sorted positions up to c (in Karras's tree a node's index is
   * one end of its range, and a left child's is its last), so the pair walk drops c ≤ k: none of
   * its leaves comes after the query's own.
   */
  dropLeft?: string;
}

/**
 * A depth-first walk of the tree from the root, nearer child first (the right one on a tie, as
 * before): leaves are visited as soon as
 * their parent is; of the internal children whose box passes, the walk goes on into the nearer
 * and pushes the farther onto a stack of BVH_STACK (nodes and keys), which it pops when a node
 * has no child to go on into. Keeping the next node out of the stack halves the stack's traffic
 * (on SwiftShader a private array indexed at run time lives in memory). A node is skipped when
 * `skip` holds for its key, checked after its siblings' leaves were visited, as a node popped
 * right after them would be. Expects `nodes` and `sorted` bound and `sphereCount` (u32
 * expression, > 0) in scope. The stack bound is the module's comment: at most 92 entries.
 */
export function bvhWalk({ test, visit, skip, dropLeft }: BvhWalk, sphereCount: string): string {
  const skips = (key: string): string => (skip ? skip.replaceAll('key', key) : 'false');
  return /* wgsl */ `{
    var stack: array<u32, ${BVH_STACK}>;
    ${skip ? `var stackKey: array<f32, ${BVH_STACK}>;` : '// No skip: the stack holds no keys (each store to a private array is a store to memory on SwiftShader).'}
    var sp = 0u;
    var node = 0u;
    var walking = true;
    if (${sphereCount} == 1u) {
      let u = 0u;
      let q = sorted[0];
      ${visit}
      walking = false;
    }
    while (walking) {
      var walkNext = 0u;
      var walkNextKey = 0.0;
      var walkFound = false;
      ${['left', 'right'].map((side) => `{
        let child = nodes[node].${side};
        if ((child & ${BVH_LEAF}u) != 0u) {
          let u = child & ${BVH_LEAF - 1}u;
          let q = sorted[u];
          ${visit}
        } else${side === 'left' && dropLeft ? ` if (!(${dropLeft}))` : ''} {
          let c = child;
          ${test}
          if (key >= 0.0) {
            if (!walkFound) {
              walkNext = c;
              walkNextKey = key;
              walkFound = true;
            } else if (key <= walkNextKey) {
              stack[sp] = walkNext;
              ${skip ? 'stackKey[sp] = walkNextKey;' : ''}
              sp += 1u;
              walkNext = c;
              walkNextKey = key;
            } else {
              stack[sp] = c;
              ${skip ? 'stackKey[sp] = key;' : ''}
              sp += 1u;
            }
          }
        }
      }`).join('\n      ')}
      if (walkFound && !(${skips('walkNextKey')})) {
        node = walkNext;
      } else {
        // Pop the next node that is not skipped, or end.
        loop {
          if (sp == 0u) {
            walking = false;
            break;
          }
          sp -= 1u;
          node = stack[sp];
          if (!(${skips('stackKey[sp]')})) {
            break;
          }
        }
      }
    }
  }`;
}

/** The overlap of an internal node's box with the box [qLo, qHi] as a walk key: 0 or −1. */
const boxKey = (qLo: string, qHi: string): string =>
  `let key = select(-1.0, 0.0, all(nodes[c].lo <= ${qHi}) && all(nodes[c].hi >= ${qLo}));`;

/**
 * The entry distance of the ray (origin a, unit direction n) into box [lo − g, hi + g] within
 * [0, tStop], or −1 when it misses. An axis the ray does not move along is a bound on the origin.
 * The box is grown after it is moved to the origin, (lo − a) − g and (hi − a) + g, so every
 * rounding is relative to offsets from the cast's origin, none to the size of the coordinates:
 * an offset that decides the test is within the cast's length and reach, and the slack's 2^-20
 * of those covers it (bvhCastSlack). Grown first, lo − g rounded by half an ulp of the
 * coordinates themselves (1/32 at 1e6), which the slack had to cover too.
 */
export const rayBoxEntry = /* wgsl */ `
fn rayBoxEntry(a: vec3f, n: vec3f, tStop: f32, lo: vec3f, hi: vec3f, g: vec3f) -> f32 {
  // The three axes at once (on SwiftShader a loop over an axis index, with its branches, costs
  // more than the arithmetic): each moving axis bounds t by its two planes; each still one (no
  // division by its 0) must hold the origin between them. The same operations as axis by axis.
  let still = n == vec3f(0.0);
  let d = select(n, vec3f(1.0), still);
  let dlo = (lo - a) - g;
  let dhi = (hi - a) + g;
  let ta = dlo / d;
  let tb = dhi / d;
  let near = select(min(ta, tb), vec3f(0.0), still);
  let far = select(max(ta, tb), vec3f(tStop), still);
  let t0 = max(max(0.0, near.x), max(near.y, near.z));
  let t1 = min(min(tStop, far.x), min(far.y, far.z));
  let outside = any(still & ((dlo > vec3f(0.0)) | (dhi < vec3f(0.0))));
  return select(-1.0, t0, t0 <= t1 && !outside);
}
`;

export const bvhPairsBindings = bindings({
  params: uniform('BvhParams'),
  sorted: readOnly('array<vec4f>'),
  ids: readOnly('array<u32>'),
  nodes: readOnly('array<BvhNode>'),
  ...PAIR_OUTPUT,
});
export const bvhPairsShader = () => wgsl`
${BvhParams.wgsl}
${bvhPairsBindings.wgsl}
${BvhNode.wgsl}
${pairAppend}
${flatWorkgroup}
${spheresOverlap}
${paddedRadius}
${WG.wgsl}

${bvhPairsEntry.wgsl}
  let s = sorted[k];
  let id = ids[k];
  let qLo = s.xyz - vec3f(paddedRadius(s.w));
  let qHi = s.xyz + vec3f(paddedRadius(s.w));
  // Each pair once: from the earlier of its two sorted positions (so subtrees wholly at or
  // before k are dropped untested: dropLeft).
  ${bvhWalk({
    test: boxKey('qLo', 'qHi'),
    dropLeft: 'child <= k',
    visit: `if (u > k && spheresOverlap(s, q)) {
            let other = ids[u];
            appendPair(min(id, other), max(id, other));
          }`,
  }, 'params.sphereCount')}
}
`;

/**
 * Declares `boxMin` and `boxMax`, the bounds box `k` walks the tree with: an AABB's own values;
 * an oriented box's centre ± its reach, E = (e + 2^-16·span + 2^-20·span)·(1 + 2^-20) per axis
 * (e the world half extents, span their sum; BVH_OBB_GROW), each bound one rounding of the exact
 * c ± E. The span terms are the shared boxBounds' (shaders/boxes.wgsl.ts): the narrow test
 * rounds in the box's frame by ulps of the sphere's offset from the centre, so an accepted
 * sphere's centre s has s − P(r) ≤ c + e + 2^-16·span + 2^-20·span on each axis, in real numbers
 * (and the mirror below); the factor 1 + 2^-20 covers the rounding of E's own sum and product.
 * So s − P(r) ≤ c + E; rounding to nearest is monotone, so the leaf's lower end fl(s − P(r)) is
 * ≤ fl(c + E) = boxMax (and its upper end ≥ boxMin), whatever the size of the coordinates. The
 * shared bounds round twice (c − e, then − grow) and so grow by 2^-22 of the centre's
 * coordinates besides, to cover both roundings and the leaf's: about 0.24 at 1e6, two spacings of
 * the touching lattice there, and each box reached 673 leaves there against 175 at the origin
 * (16,000 spheres × 20,000 boxes: 2.3–3.9 s, 13–23× the CPU BVH; now 0.9 s). Here the only
 * rounding is the one monotone step, and the work at 1e6 is within 1.2× of the work at 0, where
 * f32 rounds the boxes' own ends to 1/16 (test/bvhCliff.test.ts).
 */
export function bvhBoxBounds(kind: BoxKind, k: string): string {
  if (kind === 'aabb') return boxBounds(kind, k);
  return `let center = boxes[3u * ${k}].xyz;
  let e = obbWorldHalfExtents(boxes[3u * ${k} + 1u].xyz, boxes[3u * ${k} + 2u]);
  let reach = (e + vec3f((e.x + e.y + e.z) * ${BVH_OBB_GROW})) * ${1 + 2 ** -20};
  let boxMin = center - reach;
  let boxMax = center + reach;`;
}

/**
 * The boxes in the order of their centres' Morton codes (the high 30 bits of the spheres' grid,
 * mortonWords: 10 bits an axis; a centre outside the spheres' bounds is clamped to them), for
 * the box walk to take them in: one thread a box, and on SwiftShader a 4-lane group walks as
 * long as its longest walk, so lanes whose boxes lie side by side walk much the same nodes. The
 * order is a permutation (the codes sorted with the box indices), so no box is dropped or taken
 * twice whatever the codes. Boxes of the bench's scenes, in the order they come: the walk 10–17%
 * faster (tiny-blob AABBs at 16k × 20k: 337 → 279 and 291 → 247 ms).
 */
export const bvhBoxCodesBindings = bindings({
  params: uniform('BvhParams'),
  boxes: readOnly('array<vec4f>'),
  boxKeys: readWrite('array<u32>'),
  boxOrder: readWrite('array<u32>'),
});
export const bvhBoxCodesShader = ({ kind }: { kind: BoxKind }) => wgsl`
${BvhParams.wgsl}
${bvhBoxCodesBindings.wgsl}
${flatWorkgroup}
${morton}
${WG.wgsl}

${bvhBoxCodesEntry.wgsl}
  ${kind === 'aabb' ? `let boxCentre = 0.5 * boxes[2u * k].xyz + 0.5 * boxes[2u * k + 1u].xyz;` : `let boxCentre = boxes[3u * k].xyz;`}
  boxKeys[k] = mortonWords(boxCentre).x;
  boxOrder[k] = k;
}
`;

export const bvhBoxesBindings = bindings({
  params: uniform('BvhParams'),
  sorted: readOnly('array<vec4f>'),
  ids: readOnly('array<u32>'),
  nodes: readOnly('array<BvhNode>'),
  boxes: readOnly('array<vec4f>'),
  boxOrder: readOnly('array<u32>'),
  ...PAIR_OUTPUT,
});
export const bvhBoxesShader = ({ kind }: { kind: BoxKind }) => wgsl`
${BvhParams.wgsl}
${bvhBoxesBindings.wgsl}
${BvhNode.wgsl}
${pairAppend}
${flatWorkgroup}
${boxMath}
${WG.wgsl}

${bvhBoxesEntry.wgsl}
  let k = boxOrder[t];
  ${bvhBoxBounds(kind, 'k')}
  ${bvhWalk({
    test: boxKey('boxMin', 'boxMax'),
    visit: `let s = q;
          if (${boxTest(kind, 'k')}) {
            appendPair(ids[u], k);
          }`,
  }, 'params.sphereCount')}
}
`;
