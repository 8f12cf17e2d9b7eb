/**
 * A linear BVH (Karras 2012, "Maximizing parallelism in the construction of BVHs, octrees, and
 * k-d trees") over the spheres: its build (the queries walk it: ./walk.wgsl.ts). The CPU twin is
 * src/reference/bvh.ts.
 *
 *   bvhCodes    key = the low word of the centre's 60-bit Morton code (20 bits an axis over the
 *               centres' bounds: the interleave of each axis' low 10 bits), value = index
 *   (radix sort, 30 bits, src/passes/radixSort.ts: stable, so equal words keep index order)
 *   bvhCodesHi  key = the high word (the interleave of the high 10 bits) of each sphere in that order
 *   (radix sort again: stable, so the order is by (high word, low word, index))
 *   bvhGather   the spheres and their two code words copied into sorted order
 *   bvhPyramid  one dispatch per level L = 1 .. floor(log2 n): the box of every aligned block of
 *               2^L sorted leaves, the union of two blocks of the level below (level 0, the
 *               leaves, is read from the sorted spheres): log2 n small dispatches cost less
 *               than several levels a dispatch behind workgroup barriers
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
 * go quadratic.
 *
 * Depth: the keys (high word, low word, index) are distinct, and in a binary radix tree a
 * child's common prefix is strictly longer than its parent's. Each 30-bit word sits in 32 bits
 * with its top 2 bits 0, so a common prefix is 2 .. 31 bits (the high words differ), 34 .. 63
 * (the low words differ) or 64 .. 95 (the indices differ): 92 lengths, at most 92 internal
 * nodes on any path from the root. The walks' stack (the farther child of each node on the
 * path, at most one a level) then never holds more than 92 entries: a fixed stack of 96 cannot
 * overflow, on any input.
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { BvhParams, BvhLevel, BvhNode } from './bvhLayout.js';
import { flatWorkgroup } from '../common.wgsl.js';
import { bindings, uniform, readOnly, readWrite, entry, WG } from '../../src/gpu/kernel.js';
import { MORTON_CELLS, BVH_LEAF, BVH_PAD, BVH_TINY } from '../../src/spatial/bvhShape.js';

/** The kernels' entries (src/gpu/kernel.ts): name, thread index and bounds check, declared once. */
export const bvhCodesEntry = entry({ name: 'bvhCodes', index: 'i', bound: 'params.sphereCount' });
export const bvhCodesHiEntry = entry({ name: 'bvhCodesHi', index: 'k', bound: 'params.sphereCount' });
export const bvhGatherEntry = entry({ name: 'bvhGather', index: 'k', bound: 'params.sphereCount' });
export const bvhPyramidEntry = entry({ name: 'bvhPyramid', index: 'b', bound: 'level.count' });
export const bvhNodesEntry = entry({ name: 'bvhNodes', index: 'node', exit: 'node + 1u >= params.sphereCount' });

/** P(r): the radius a leaf box and a pair query's box are grown to (shaders/broadphase/bvh/walk.wgsl.ts's comment says why). */
export const paddedRadius = /* wgsl */ `
fn paddedRadius(r: f32) -> f32 {
  return r * ${BVH_PAD} + ${BVH_TINY.toExponential()};
}
`;

/** The box of sorted sphere i: its centre ± P(r). */
const leafBox = /* wgsl */ `
${paddedRadius}
fn leafLo(i: u32) -> vec3f {
  let s = sorted[i];
  return s.xyz - vec3f(paddedRadius(s.w));
}
fn leafHi(i: u32) -> vec3f {
  let s = sorted[i];
  return s.xyz + vec3f(paddedRadius(s.w));
}
`;

/** The centre's 60-bit Morton code as (high word, low word), 30 bits each (src/reference/bvh.ts twins it). */
export const morton = /* wgsl */ `
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
    lo = min(leafLo(2u * b), leafLo(2u * b + 1u));
    hi = max(leafHi(2u * b), leafHi(2u * b + 1u));
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

/**
 * The common prefix length of sorted keys i and j (\`keys\`: vec2u, high and low word, over
 * \`params.sphereCount\` leaves), the key being (high word, low word, index): distinct for any
 * i ≠ j, so that the radix tree over them is unique. Karras's search (below) and a mesh's
 * bottom-up topology (shaders/mesh/build.wgsl.ts, by commonPrefix) both rest on it.
 */
export const keyDelta = /* wgsl */ `
// The common prefix of keys a (at sorted position i) and b (at j), the key being (high word,
// low word, position), 32 bits each.
fn commonPrefix(a: vec2u, b: vec2u, i: u32, j: u32) -> i32 {
  if (a.x != b.x) {
    return i32(countLeadingZeros(a.x ^ b.x));
  }
  if (a.y != b.y) {
    return 32 + i32(countLeadingZeros(a.y ^ b.y));
  }
  return 64 + i32(countLeadingZeros(i ^ j));
}

// The common prefix of keys i and j: −1 outside [0, n). \`a\` is keys[i], read once by the
// caller (each search step reads one key).
fn delta(a: vec2u, i: i32, j: i32) -> i32 {
  if (j < 0 || j >= i32(params.sphereCount)) {
    return -1;
  }
  return commonPrefix(a, keys[j], u32(i), u32(j));
}
`;

/**
 * Karras's search for internal node \`node\` over the sorted \`keys\` (vec2u: high, low word) of
 * \`params.sphereCount\` leaves: its range [first, last], its children (internal node indices, or
 * sorted leaf positions with LEAF set) and its common prefix length. Every child's prefix is
 * longer than its parent's (the depth bound of the module's comment rests on it; a mesh's build
 * orders its nodes by it: src/mesh/mesh.ts).
 */
export const karrasNode = /* wgsl */ `
struct KarrasNode {
  first: u32,
  last: u32,
  left: u32,
  right: u32,
  prefix: u32,
}

const LEAF: u32 = ${BVH_LEAF}u;

${keyDelta}
fn karrasNode(node: u32) -> KarrasNode {
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

  return KarrasNode(first, last, left, right, u32(deltaNode));
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
${karrasNode}

${bvhNodesEntry.wgsl}
  let kn = karrasNode(node);
  let first = kn.first;
  let last = kn.last;
  let left = kn.left;
  let right = kn.right;

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
        lo = min(lo, leafLo(a));
        hi = max(hi, leafHi(a));
      } else {
        lo = min(lo, pyramid[2u * (base + a)].xyz);
        hi = max(hi, pyramid[2u * (base + a) + 1u].xyz);
      }
      a += 1u;
    }
    if ((b & 1u) == 1u) {
      b -= 1u;
      if (lvl == 0u) {
        lo = min(lo, leafLo(b));
        hi = max(hi, leafHi(b));
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
