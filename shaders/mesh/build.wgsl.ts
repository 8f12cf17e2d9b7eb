/**
 * A mesh's BVH, built and refitted on the GPU: the LBVH of broad phase 'bvh'
 * (shaders/spatial/bvh.wgsl.ts, which says how and why) with the triangles as its leaves,
 * keyed by their centroids; its nodes are BvhChildBoxes, each its two children's boxes (the
 * walks' layout: shaders/spatial/bvhWalk.wgsl.ts). The host is src/mesh/mesh.ts.
 *
 *   meshCodes    key = the low word of the centroid's 60-bit Morton code, value = triangle index;
 *                both words kept in `keys`, by triangle
 *   (radix sort, 30 bits)
 *   meshCodesHi  key = the high word, in that order (one 8-byte read a triangle, not its vertices)
 *   (radix sort again: the order is by (high word, low word, index))
 *   then the topology, the nodes' order and their boxes (below): the exact f32 bounds of the
 *   vertices, the leaves' written by meshLeaves, which copies the triangles' vertices into sorted
 *   order (three vec4f a leaf, their w the unit face normal: 0 for a degenerate triangle)
 *
 * Refit runs meshLeaves and the boxes again (the tree's shape kept): the boxes come from the new
 * vertices.
 *
 * The vertices are read from `positions`, packed x, y, z f32 (the layout of a three.js position
 * attribute and of `createMesh`'s `positions`), through `indices`, three a triangle.
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { BvhParams, BvhChildBoxes } from '../spatial/bvhLayout.js';
import { morton, keyDelta } from '../spatial/bvh.wgsl.js';
import { BVH_LEAF } from '../../src/spatial/bvhShape.js';
import { MeshBucket } from './layout.js';
import { flatWorkgroup } from '../common.wgsl.js';
import { faceNormal } from './triangle.wgsl.js';
import { bindings, uniform, dynamicUniform, readOnly, readWrite, entry, WG, ONE_THREAD } from '../../src/gpu/kernel.js';

/** The kernels' entries (src/gpu/kernel.ts). */
export const meshCodesEntry = entry({ name: 'meshCodes', index: 'i', bound: 'params.sphereCount' });
export const meshCodesHiEntry = entry({ name: 'meshCodesHi', index: 'k', bound: 'params.sphereCount' });
export const meshLeavesEntry = entry({ name: 'meshLeaves', index: 'k', bound: 'params.sphereCount' });

/** Vertex v of `positions` and the centroid of triangle t (through `indices`). */
const vertices = /* wgsl */ `
fn vertexAt(v: u32) -> vec3f {
  return vec3f(positions[3u * v], positions[3u * v + 1u], positions[3u * v + 2u]);
}
fn centroidOf(t: u32) -> vec3f {
  let a = vertexAt(indices[3u * t]);
  let b = vertexAt(indices[3u * t + 1u]);
  let c = vertexAt(indices[3u * t + 2u]);
  return a * (1.0 / 3.0) + b * (1.0 / 3.0) + c * (1.0 / 3.0);
}
`;

export const meshCodesBindings = bindings({
  params: uniform('BvhParams'),
  positions: readOnly('array<f32>'),
  indices: readOnly('array<u32>'),
  codes: readWrite('array<u32>'),
  ids: readWrite('array<u32>'),
  keys: readWrite('array<vec2u>'),
});
export const meshCodesShader = () => wgsl`
${BvhParams.wgsl}
${meshCodesBindings.wgsl}
${flatWorkgroup}
${morton}
${vertices}
${WG.wgsl}

${meshCodesEntry.wgsl}
  let words = mortonWords(centroidOf(i));
  codes[i] = words.y;
  keys[i] = words;
  ids[i] = i;
}
`;

export const meshCodesHiBindings = bindings({
  params: uniform('BvhParams'),
  keys: readOnly('array<vec2u>'),
  ids: readOnly('array<u32>'),
  codes: readWrite('array<u32>'),
});
export const meshCodesHiShader = () => wgsl`
${BvhParams.wgsl}
${meshCodesHiBindings.wgsl}
${flatWorkgroup}
${WG.wgsl}

${meshCodesHiEntry.wgsl}
  codes[k] = keys[ids[k]].x;
}
`;

/**
 * \`parents\`: for internal node c at c, for leaf k at n − 1 + k, its parent's index times 2 plus
 * its side (0 left, 1 right); NO_PARENT for the root. A box goes into its side of the parent's
 * record: two siblings write different fields, and the parent reads both in a later dispatch.
 */
const NO_PARENT = 0xffffffff;
const intoParent = /* wgsl */ `
fn intoParent(slot: u32, lo: vec3f, hi: vec3f) {
  if (slot == ${NO_PARENT}u) {
    return;
  }
  let parent = slot >> 1u;
  if ((slot & 1u) == 0u) {
    children[parent].leftLo = lo;
    children[parent].leftHi = hi;
  } else {
    children[parent].rightLo = lo;
    children[parent].rightHi = hi;
  }
}
`;

export const meshLeavesBindings = bindings({
  params: uniform('BvhParams'),
  positions: readOnly('array<f32>'),
  indices: readOnly('array<u32>'),
  ids: readOnly('array<u32>'),
  sorted: readWrite('array<vec4f>'),
  parents: readOnly('array<u32>'),
  children: readWrite('array<BvhChildBoxes>'),
});
/**
 * Each triangle into sorted order, and its box into its parent's record (the side `parents`
 * says), where the node boxes read it (after the topology: it wrote the parents).
 */
export const meshLeavesShader = () => wgsl`
${BvhParams.wgsl}
${BvhChildBoxes.wgsl}
${meshLeavesBindings.wgsl}
${flatWorkgroup}
${vertices}
${faceNormal}
${WG.wgsl}
${intoParent}

${meshLeavesEntry.wgsl}
  let t = ids[k];
  let a = vertexAt(indices[3u * t]);
  let b = vertexAt(indices[3u * t + 1u]);
  let c = vertexAt(indices[3u * t + 2u]);
  // The w of the three vertices: the unit face normal, 0 for a degenerate triangle (which every
  // query skips). The index stays in ids: a u32 bitcast into w would be a subnormal f32, which
  // a GPU may flush.
  let normal = faceNormal(a, b, c);
  sorted[3u * k] = vec4f(a, normal.x);
  sorted[3u * k + 1u] = vec4f(b, normal.y);
  sorted[3u * k + 2u] = vec4f(c, normal.z);
  if (params.sphereCount > 1u) {
    intoParent(parents[params.sphereCount - 1u + k], min(min(a, b), c), max(max(a, b), c));
  }
}
`;

/**
 * Node boxes by prefix buckets. Every child's common prefix is longer than its parent's
 * (a radix tree's), so the nodes sorted by prefix length, longest first, come after all their
 * children: one dispatch a prefix length (MESH_BUCKETS of them, dispatched indirectly, empty
 * ones doing nothing) finishes each node: its children's boxes are in its record by then (a
 * leaf's from meshLeaves, a node's from an earlier dispatch), so it writes its height and puts
 * its own box, their union, into its side of its parent's record. Dispatch boundaries order
 * every write before every later read: no atomics between workgroups carry a box, so none of the
 * memory-model race the LBVH's pyramid avoids (shaders/spatial/bvh.wgsl.ts). One record read a
 * node, against the pyramid's up to 2·log2 n; and a refit reruns only the leaves and these
 * dispatches, the order kept.
 *
 *   meshSplits    each boundary's prefix: δ(j, j + 1), the prefix keys j and j + 1 share
 *   meshTopology  the radix tree bottom-up from those (below): each node's children (into its
 *                 BvhChildBoxes record, the boxes written later), its prefix, and each child's
 *                 parent and side (\`parents\`)
 *   meshCount     the buckets' counts, and the nodes' indices in \`order\`
 *   (radix sort of the nodes by prefix, 7 bits, one pass: stable, so each bucket holds its nodes
 *   in index order)
 *   meshBuckets   one thread: the buckets' starts (exclusive scan) and each one's indirect
 *                 arguments (folded past the device's limit)
 *   meshLeaves    the triangles into sorted order, each one's box into its parent's record
 *   meshBoxes     one dispatch a bucket, longest prefix first
 *
 * Each child puts its box into its parent, rather than each node reading its children's boxes
 * from a leaf's vertices or from a node's record: on SwiftShader both sides of that branch ran
 * for every node, which cost twice the pass (docs/PERFORMANCE.md). In index order a bucket's
 * dispatch sweeps the nodes and their parents' records from low to high (a node's parent is
 * near it in Karras's numbering).
 *
 * \`buckets\` holds the counts (0 .. B−1) and the starts (B .. 2B−1).
 */
export const MESH_BUCKETS = 96;

export const meshTopologyEntry = entry({ name: 'meshTopology', index: 'leaf', bound: 'params.sphereCount' });
export const meshSplitsEntry = entry({ name: 'meshSplits', index: 'j', exit: 'j + 1u >= params.sphereCount' });
export const meshCountEntry = entry({ name: 'meshCount', index: 'node', exit: 'node + 1u >= params.sphereCount' });
export const meshBucketsEntry = entry({ name: 'meshBuckets', size: ONE_THREAD });
export const meshBoxesEntry = entry({ name: 'meshBoxes', index: 'k', bound: 'buckets[bucket.index]' });

/**
 * The radix tree over the sorted keys, bottom-up (Apetrei, "Fast and Simple Agglomerative LBVH
 * Construction", 2014), in Karras's numbering: the tree and the node indices Karras's search
 * gives (shaders/spatial/bvh.wgsl.ts), in about 2 steps a leaf where the search takes 2·log2 of a
 * node's range.
 *
 * A thread starts at its leaf and climbs. A node with range [first, last] is its parent's left
 * child when the boundary past \`last\` shares the longer prefix (δ(last, last+1) > δ(first−1,
 * first); they are never equal below the root), and then the parent splits after \`last\`;
 * else it is the right child and the parent splits after first − 1. Internal node γ (split after
 * γ) is thus reached by both its children's threads; each swaps its far end into
 * \`arrivals[γ]\` (plus one, 0 meaning none yet). The first to arrive stops; the second reads the
 * other's end from the same atomic, so it knows the parent's whole range and goes on: no value
 * passes between workgroups but the one the atomic itself holds.
 *
 * In Karras's numbering the left child of a split γ is node γ (its range ends at γ) and the right
 * child node γ + 1 (its range starts there), each a leaf when its range is one key; the root is
 * node 0. So a node's thread writes its record once its own parent's side is known: at index
 * \`last\` when it is a left child, \`first\` when a right one, 0 for the root.
 */
export const meshSplitsBindings = bindings({
  params: uniform('BvhParams'),
  keys: readOnly('array<vec2u>'),
  ids: readOnly('array<u32>'),
  splits: readWrite('array<u32>'),
});
export const meshSplitsShader = () => wgsl`
${BvhParams.wgsl}
${meshSplitsBindings.wgsl}
${flatWorkgroup}
${WG.wgsl}
${keyDelta}

// The keys by triangle (meshCodes), so in sorted order through ids.
${meshSplitsEntry.wgsl}
  splits[j] = u32(commonPrefix(keys[ids[j]], keys[ids[j + 1u]], j, j + 1u));
}
`;

export const meshTopologyBindings = bindings({
  params: uniform('BvhParams'),
  splits: readOnly('array<u32>'),
  arrivals: readWrite('array<atomic<u32>>'),
  children: readWrite('array<BvhChildBoxes>'),
  prefix: readWrite('array<u32>'),
  parents: readWrite('array<u32>'),
});
export const meshTopologyShader = () => wgsl`
${BvhParams.wgsl}
${BvhChildBoxes.wgsl}
${meshTopologyBindings.wgsl}
${flatWorkgroup}
${WG.wgsl}
const LEAF: u32 = ${BVH_LEAF}u;

// Where \`parents\` holds child c's parent: an internal node's at c, leaf k's at n − 1 + k.
fn parentSlot(c: u32) -> u32 {
  return select(c, params.sphereCount - 1u + (c & ${BVH_LEAF - 1}u), (c & LEAF) != 0u);
}

// δ(j, j + 1): the prefix the keys either side of boundary j share, −1 past either end.
fn across(j: i32) -> i32 {
  if (j < 0 || j + 1 >= i32(params.sphereCount)) {
    return -1;
  }
  return i32(splits[j]);
}

${meshTopologyEntry.wgsl}
  let n = params.sphereCount;
  var first = leaf;
  var last = leaf;
  var split = 0u; // the node's split, once it is an internal node (first < last)
  loop {
    let root = first == 0u && last == n - 1u;
    let parentRight = !root && across(i32(last)) > across(i32(first) - 1);
    if (first != last) {
      let index = select(select(first, last, parentRight), 0u, root);
      let left = select(split, split | LEAF, first == split);
      let right = select(split + 1u, (split + 1u) | LEAF, last == split + 1u);
      children[index].left = left;
      children[index].right = right;
      prefix[index] = splits[split];
      parents[parentSlot(left)] = 2u * index;
      parents[parentSlot(right)] = 2u * index + 1u;
    }
    if (root) {
      parents[0] = ${NO_PARENT}u;
      break;
    }
    split = select(first - 1u, last, parentRight);
    let other = atomicExchange(&arrivals[split], select(last, first, parentRight) + 1u);
    if (other == 0u) {
      break;
    }
    if (parentRight) {
      last = other - 1u;
    } else {
      first = other - 1u;
    }
  }
}
`;

/**
 * The buckets' counts, a global add a node (in a pass of its own: in the topology's divergent
 * loop the same adds cost more; a histogram in workgroup memory cost more still), and the sort's
 * values: each node's index.
 */
export const meshCountBindings = bindings({
  params: uniform('BvhParams'),
  prefix: readOnly('array<u32>'),
  buckets: readWrite('array<atomic<u32>>'),
  order: readWrite('array<u32>'),
});
export const meshCountShader = () => wgsl`
${BvhParams.wgsl}
${meshCountBindings.wgsl}
${flatWorkgroup}
${WG.wgsl}

${meshCountEntry.wgsl}
  atomicAdd(&buckets[prefix[node]], 1u);
  order[node] = node;
}
`;

export const meshBucketsBindings = bindings({
  params: uniform('BvhParams'),
  buckets: readWrite('array<u32>'),
  args: readWrite('array<u32>'),
});
/** MAX_GROUPS: the most workgroups a dimension takes (the fold); BOX_WG: meshBoxes' workgroup size. */
export const meshBucketsShader = () => wgsl`
${BvhParams.wgsl}
${meshBucketsBindings.wgsl}
override MAX_GROUPS: u32;
override BOX_WG: u32;
const B: u32 = ${MESH_BUCKETS}u;

${meshBucketsEntry.wgsl}
  var start = 0u;
  for (var p = 0u; p < B; p++) {
    let count = buckets[p];
    buckets[B + p] = start;
    start += count;
    let groups = (count + BOX_WG - 1u) / BOX_WG;
    let x = min(groups, MAX_GROUPS);
    args[3u * p] = x;
    args[3u * p + 1u] = select(0u, (groups + x - 1u) / max(x, 1u), groups > 0u);
    args[3u * p + 2u] = 1u;
  }
}
`;

export const meshBoxesBindings = bindings({
  bucket: dynamicUniform('MeshBucket'),
  buckets: readOnly('array<u32>'),
  order: readOnly('array<u32>'),
  parents: readOnly('array<u32>'),
  children: readWrite('array<BvhChildBoxes>'),
});
export const meshBoxesShader = () => wgsl`
${MeshBucket.wgsl}
${BvhChildBoxes.wgsl}
${meshBoxesBindings.wgsl}
${flatWorkgroup}
${WG.wgsl}
${intoParent}
const B: u32 = ${MESH_BUCKETS}u;
const LEAF: u32 = ${BVH_LEAF}u;

// A child's height: 0 for a leaf, else what its own record holds (an earlier dispatch wrote it).
// One read of a clamped index either way: on SwiftShader both sides of a branch cost.
fn heightOf(c: u32) -> u32 {
  let leaf = (c & LEAF) != 0u;
  return select(children[select(c, 0u, leaf)].height, 0u, leaf);
}

// The node's record already holds its children's boxes (each child put its own there, a leaf
// in meshLeaves, a node in an earlier dispatch): its height, and its box into its parent's.
${meshBoxesEntry.wgsl}
  let node = order[buckets[B + bucket.index] + k];
  let record = &children[node];
  (*record).height = 1u + max(heightOf((*record).left), heightOf((*record).right));
  intoParent(parents[node], min((*record).leftLo, (*record).rightLo), max((*record).leftHi, (*record).rightHi));
}
`;
