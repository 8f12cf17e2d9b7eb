/**
 * A mesh's BVH, built and refitted on the GPU: the LBVH of broad phase 'bvh'
 * (shaders/spatial/bvh.wgsl.ts, which says how and why) with the triangles as its leaves,
 * keyed by their centroids. The kernels here make the leaves; the pyramid and the nodes are the
 * LBVH's own kernels with `leaf: 'triangle'`. The host is src/mesh/mesh.ts.
 *
 *   meshCodes    key = the low word of the centroid's 60-bit Morton code, value = triangle index
 *   (radix sort, 30 bits)
 *   meshCodesHi  key = the high word, in that order
 *   (radix sort again: the order is by (high word, low word, index))
 *   meshLeaves   the triangles' vertices copied into sorted order (three vec4f a leaf), and with
 *                `keys`, their two code words
 *   bvhPyramid, bvhNodes  (leaf 'triangle'): the node boxes, the exact f32 bounds of the vertices
 *
 * Refit runs meshLeaves without keys, the pyramid and the nodes again: the nodes' search over
 * the old keys gives the same tree, and the boxes come from the new vertices.
 *
 * The vertices are read from `positions`, packed x, y, z f32 (the layout of a three.js position
 * attribute and of `createMesh`'s `positions`), through `indices`, three a triangle.
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { BvhParams } from '../spatial/bvhLayout.js';
import { morton } from '../spatial/bvh.wgsl.js';
import { flatWorkgroup } from '../common.wgsl.js';
import { bindings, uniform, readOnly, readWrite, entry, WG } from '../../src/gpu/kernel.js';

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
});
export const meshCodesShader = () => wgsl`
${BvhParams.wgsl}
${meshCodesBindings.wgsl}
${flatWorkgroup}
${morton}
${vertices}
${WG.wgsl}

${meshCodesEntry.wgsl}
  codes[i] = mortonWords(centroidOf(i)).y;
  ids[i] = i;
}
`;

export const meshCodesHiBindings = bindings({
  params: uniform('BvhParams'),
  positions: readOnly('array<f32>'),
  indices: readOnly('array<u32>'),
  ids: readOnly('array<u32>'),
  codes: readWrite('array<u32>'),
});
export const meshCodesHiShader = () => wgsl`
${BvhParams.wgsl}
${meshCodesHiBindings.wgsl}
${flatWorkgroup}
${morton}
${vertices}
${WG.wgsl}

${meshCodesHiEntry.wgsl}
  codes[k] = mortonWords(centroidOf(ids[k])).x;
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
${WG.wgsl}

${meshLeavesEntry.wgsl}
  let t = ids[k];
  let a = vertexAt(indices[3u * t]);
  let b = vertexAt(indices[3u * t + 1u]);
  let c = vertexAt(indices[3u * t + 2u]);
  // The index stays in ids (a u32 bitcast into w would be a subnormal f32, which a GPU may flush).
  sorted[3u * k] = vec4f(a, 0.0);
  sorted[3u * k + 1u] = vec4f(b, 0.0);
  sorted[3u * k + 2u] = vec4f(c, 0.0);
#if ${keys}
  keys[k] = mortonWords(a * (1.0 / 3.0) + b * (1.0 / 3.0) + c * (1.0 / 3.0));
#endif
}
`;
