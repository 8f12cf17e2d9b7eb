/**
 * A mesh's BVH, built and refitted on the GPU: the LBVH of broad phase 'bvh'
 * (shaders/spatial/bvh.wgsl.ts, which says how and why) with the triangles as its leaves,
 * keyed by their centroids; its nodes are BvhChildBoxes, each its two children's boxes (the
 * walks' layout: shaders/spatial/bvhWalk.wgsl.ts). The host is src/mesh/mesh.ts.
 *
 *   meshCodes    key = the low word of the centroid's 60-bit Morton code, value = triangle index;
 *                the high word kept aside (in the keys' buffer, which the leaves fill later)
 *   (radix sort, 30 bits)
 *   meshCodesHi  key = the high word, in that order (one 4-byte read a triangle, not its vertices)
 *   (radix sort again: the order is by (high word, low word, index))
 *   meshLeaves   the triangles' vertices copied into sorted order (three vec4f a leaf, their w
 *                the unit face normal: 0 for a degenerate triangle), and with `keys`, their two
 *                code words
 *   then the nodes and their boxes (below): the exact f32 bounds of the vertices
 *
 * Refit runs meshLeaves without keys and the boxes again (the tree's shape kept): the boxes come
 * from the new vertices.
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
import { bindings, uniform, readOnly, readWrite, entry, WG, ONE_THREAD } from '../../src/gpu/kernel.js';

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
  highs: readWrite('array<u32>'),
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
  highs[i] = words.x;
  ids[i] = i;
}
`;

export const meshCodesHiBindings = bindings({
  params: uniform('BvhParams'),
  highs: readOnly('array<u32>'),
  ids: readOnly('array<u32>'),
  codes: readWrite('array<u32>'),
});
export const meshCodesHiShader = () => wgsl`
${BvhParams.wgsl}
${meshCodesHiBindings.wgsl}
${flatWorkgroup}
${WG.wgsl}

${meshCodesHiEntry.wgsl}
  codes[k] = highs[ids[k]];
}
`;

export const meshLeavesBindings = bindings({
  params: uniform('BvhParams'),
  positions: readOnly('array<f32>'),
  indices: readOnly('array<u32>'),
  ids: readOnly('array<u32>'),
  sorted: readWrite('array<vec4f>'),
  keys: readWrite('array<vec2u>'),
});
/** `keys`: also write the leaves' code words (the build; a refit keeps the old ones). */
export const meshLeavesShader = ({ keys }: { keys: boolean }) => wgsl`
${BvhParams.wgsl}
${meshLeavesBindings.wgsl}
${flatWorkgroup}
${morton}
${vertices}
${faceNormal}
${WG.wgsl}

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
#if ${keys}
  keys[k] = mortonWords(a * (1.0 / 3.0) + b * (1.0 / 3.0) + c * (1.0 / 3.0));
#endif
}
`;

/**
 * Node boxes by prefix buckets. Every child's common prefix is longer than its parent's
 * (a radix tree's), so the nodes sorted by prefix length, longest first, come after all their
 * children: one dispatch a prefix length (MESH_BUCKETS of them, dispatched indirectly, empty
 * ones doing nothing) writes each node's children's boxes, read from leaves or from records an
 * earlier dispatch wrote. Dispatch boundaries order every write before every
 * later read: no atomics between workgroups carry a box, so none of the memory-model race the
 * LBVH's pyramid avoids (shaders/spatial/bvh.wgsl.ts). 2 reads a node, against the pyramid's
 * up to 2·log2 n; and a refit reruns only the leaves and these dispatches, the order kept.
 *
 *   meshSplits    each boundary's prefix: δ(j, j + 1), the prefix keys j and j + 1 share
 *   meshTopology  the radix tree bottom-up from those (below): each node's children (into its
 *                 BvhChildBoxes record, the boxes written later) and its prefix
 *   meshCount     the buckets' counts, and the nodes' indices in `order`
 *   (radix sort of the nodes by prefix, 7 bits, one pass: stable, so each bucket holds its nodes
 *   in index order)
 *   meshBuckets   one thread: the buckets' starts (exclusive scan) and each one's indirect
 *                 arguments (folded past the device's limit)
 *   meshBoxes     one dispatch a bucket, longest prefix first: the node's two children's boxes
 *                 beside their indices (a leaf's from its vertices, an internal child's the union
 *                 of the two in its own record): the record the walks read, one a node
 *
 * In index order a bucket's dispatch sweeps the nodes, the leaves and its children's records
 * (a node's children sit at its split and the next index) from low to high: on SwiftShader,
 * where a lane's reads are not overlapped, the same reads in the order the atomic slots of an
 * unsorted bucket gave took twice as long (docs/PERFORMANCE.md).
 *
 * `buckets` holds the counts (0 .. B−1) and the starts (B .. 2B−1).
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
  splits: readWrite('array<u32>'),
});
export const meshSplitsShader = () => wgsl`
${BvhParams.wgsl}
${meshSplitsBindings.wgsl}
${flatWorkgroup}
${WG.wgsl}
${keyDelta}

${meshSplitsEntry.wgsl}
  splits[j] = u32(delta(keys[j], i32(j), i32(j) + 1));
}
`;

export const meshTopologyBindings = bindings({
  params: uniform('BvhParams'),
  splits: readOnly('array<u32>'),
  arrivals: readWrite('array<atomic<u32>>'),
  children: readWrite('array<BvhChildBoxes>'),
  prefix: readWrite('array<u32>'),
});
export const meshTopologyShader = () => wgsl`
${BvhParams.wgsl}
${BvhChildBoxes.wgsl}
${meshTopologyBindings.wgsl}
${flatWorkgroup}
${WG.wgsl}
const LEAF: u32 = ${BVH_LEAF}u;

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
      children[index].left = select(split, split | LEAF, first == split);
      children[index].right = select(split + 1u, (split + 1u) | LEAF, last == split + 1u);
      prefix[index] = splits[split];
    }
    if (root) {
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
  bucket: uniform('MeshBucket'),
  buckets: readOnly('array<u32>'),
  order: readOnly('array<u32>'),
  sorted: readOnly('array<vec4f>'),
  children: readWrite('array<BvhChildBoxes>'),
});
export const meshBoxesShader = () => wgsl`
${MeshBucket.wgsl}
${BvhChildBoxes.wgsl}
${meshBoxesBindings.wgsl}
${flatWorkgroup}
${WG.wgsl}
const B: u32 = ${MESH_BUCKETS}u;
const LEAF: u32 = ${BVH_LEAF}u;

struct Child {
  lo: vec3f,
  hi: vec3f,
  height: u32,
}

// A child's box and height: a leaf's vertices' bounds (height 0), or the union of an internal
// node's children's boxes and its height (written by an earlier dispatch: its bucket's prefix is
// longer).
fn childOf(c: u32) -> Child {
  if ((c & LEAF) != 0u) {
    let i = c & ${BVH_LEAF - 1}u;
    let a = sorted[3u * i].xyz;
    let b = sorted[3u * i + 1u].xyz;
    let d = sorted[3u * i + 2u].xyz;
    return Child(min(min(a, b), d), max(max(a, b), d), 0u);
  }
  let n = &children[c];
  return Child(min((*n).leftLo, (*n).rightLo), max((*n).leftHi, (*n).rightHi), (*n).height);
}

${meshBoxesEntry.wgsl}
  let node = order[buckets[B + bucket.index] + k];
  let left = children[node].left;
  let right = children[node].right;
  let l = childOf(left);
  let r = childOf(right);
  // Field by field: the indices stay as the topology wrote them (on SwiftShader a whole record's
  // load or store costs more than the fields it needs).
  children[node].leftLo = l.lo;
  children[node].leftHi = l.hi;
  children[node].rightLo = r.lo;
  children[node].rightHi = r.hi;
  children[node].height = 1u + max(l.height, r.height);
}
`;
