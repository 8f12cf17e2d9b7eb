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
import { morton, karrasNode } from '../spatial/bvh.wgsl.js';
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
 * (karrasNode), so the nodes sorted by prefix length, longest first, come after all their
 * children: one dispatch a prefix length (MESH_BUCKETS of them, dispatched indirectly, empty
 * ones doing nothing) writes each node's children's boxes, read from leaves or from records an
 * earlier dispatch wrote. Dispatch boundaries order every write before every
 * later read: no atomics between workgroups carry a box, so none of the memory-model race the
 * LBVH's pyramid avoids (shaders/spatial/bvh.wgsl.ts). 2 reads a node, against the pyramid's
 * up to 2·log2 n; and a refit reruns only the leaves and these dispatches, the order kept.
 *
 *   meshTopology  Karras's search for each node: its children (into its BvhChildBoxes record, the
 *                 boxes written later) and its prefix
 *   meshCount     the buckets' counts
 *   meshBuckets   one thread: the buckets' starts (exclusive scan) and each one's indirect
 *                 arguments (folded past the device's limit), the cursors cleared
 *   meshOrder     each node into its bucket's range (the order within a bucket does not matter)
 *   meshBoxes     one dispatch a bucket, longest prefix first: the node's two children's boxes
 *                 beside their indices (a leaf's from its vertices, an internal child's the union
 *                 of the two in its own record): the record the walks read, one a node
 *
 * `buckets` holds the counts (0 .. B−1), the cursors (B .. 2B−1) and the starts (2B .. 3B−1).
 */
export const MESH_BUCKETS = 96;

export const meshTopologyEntry = entry({
  name: 'meshTopology',
  index: 'node',
  exit: 'node + 1u >= params.sphereCount',
});
export const meshCountEntry = entry({ name: 'meshCount', index: 'node', exit: 'node + 1u >= params.sphereCount' });
export const meshBucketsEntry = entry({ name: 'meshBuckets', size: ONE_THREAD });
export const meshOrderEntry = entry({ name: 'meshOrder', index: 'node', exit: 'node + 1u >= params.sphereCount' });
export const meshBoxesEntry = entry({ name: 'meshBoxes', index: 'k', bound: 'buckets[bucket.index]' });

export const meshTopologyBindings = bindings({
  params: uniform('BvhParams'),
  keys: readOnly('array<vec2u>'),
  children: readWrite('array<BvhChildBoxes>'),
  prefix: readWrite('array<u32>'),
});
export const meshTopologyShader = () => wgsl`
${BvhParams.wgsl}
${BvhChildBoxes.wgsl}
${meshTopologyBindings.wgsl}
${flatWorkgroup}
${WG.wgsl}
${karrasNode}

${meshTopologyEntry.wgsl}
  let kn = karrasNode(node);
  children[node] = BvhChildBoxes(vec3f(0.0), kn.left, vec3f(0.0), kn.right, vec3f(0.0), 0u, vec3f(0.0));
  prefix[node] = kn.prefix;
}
`;

/**
 * The buckets' counts, a global add a node (in a pass of its own: in the topology's divergent
 * loops the same adds cost as much as the search itself on SwiftShader; a histogram in workgroup
 * memory cost more still).
 */
export const meshCountBindings = bindings({
  params: uniform('BvhParams'),
  prefix: readOnly('array<u32>'),
  buckets: readWrite('array<atomic<u32>>'),
});
export const meshCountShader = () => wgsl`
${BvhParams.wgsl}
${meshCountBindings.wgsl}
${flatWorkgroup}
${WG.wgsl}

${meshCountEntry.wgsl}
  atomicAdd(&buckets[prefix[node]], 1u);
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
    buckets[B + p] = 0u;
    buckets[2u * B + p] = start;
    start += count;
    let groups = (count + BOX_WG - 1u) / BOX_WG;
    let x = min(groups, MAX_GROUPS);
    args[3u * p] = x;
    args[3u * p + 1u] = select(0u, (groups + x - 1u) / max(x, 1u), groups > 0u);
    args[3u * p + 2u] = 1u;
  }
}
`;

export const meshOrderBindings = bindings({
  params: uniform('BvhParams'),
  prefix: readOnly('array<u32>'),
  buckets: readWrite('array<atomic<u32>>'),
  order: readWrite('array<u32>'),
});
export const meshOrderShader = () => wgsl`
${BvhParams.wgsl}
${meshOrderBindings.wgsl}
${flatWorkgroup}
${WG.wgsl}
const B: u32 = ${MESH_BUCKETS}u;

${meshOrderEntry.wgsl}
  let p = prefix[node];
  let slot = atomicAdd(&buckets[B + p], 1u);
  order[atomicLoad(&buckets[2u * B + p]) + slot] = node;
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
  let n = children[c];
  return Child(min(n.leftLo, n.rightLo), max(n.leftHi, n.rightHi), n.height);
}

${meshBoxesEntry.wgsl}
  let node = order[buckets[2u * B + bucket.index] + k];
  let left = children[node].left;
  let right = children[node].right;
  let l = childOf(left);
  let r = childOf(right);
  children[node] = BvhChildBoxes(l.lo, left, l.hi, right, r.lo, 1u + max(l.height, r.height), r.hi);
}
`;
