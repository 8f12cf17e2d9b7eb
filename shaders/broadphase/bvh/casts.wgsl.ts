/**
 * The BVH's cast kernels: each cast walks the nodes of the built LBVH (shaders/spatial/bvh.wgsl.ts) whose box,
 * grown by the cast's radius and the slack, the ray enters before the best hit so far (nearest)
 * or before B; nearer child first. The frame, the hit test and the modes are
 * shaders/passes/casts.wgsl.ts's.
 */
import {
  castKernel,
  onCandidate,
  CAST_INPUT,
  CAST_OUTPUT,
  type CastWalk,
  type CastKernel,
} from '../../passes/casts.wgsl.js';
import { bvhWalk, rayBoxEntry, WALK_DEFER } from '../../spatial/bvhWalk.wgsl.js';
import { BvhNode } from '../../spatial/bvhLayout.js';
import { bindings, type BindingNames, readOnly } from '../../../src/gpu/kernel.js';
import type { CastMode } from '../../../src/queryKinds.js';

/** The LBVH's nodes, the sorted spheres and their indices. */
export const castBvhBindings = bindings({
  ...CAST_INPUT,
  nodes: readOnly('array<BvhNode>'),
  sorted: readOnly('array<vec4f>'),
  sortedId: readOnly('array<u32>'),
  ...CAST_OUTPUT,
});

export const castBvhWalk = (mode: CastMode): CastWalk => ({
  bindings: castBvhBindings,
  helpers: `${BvhNode.wgsl}\n${rayBoxEntry}`,
  walk: `  if (moving && params.sphereCount > 0u) {
    // Node boxes hold their spheres but for half an ulp of their coordinates; grown by the cast's
    // radius and the slack (bvhCastSlack), relative to the cast's origin (rayBoxEntry), they
    // hold every point where the cast can touch.
    let grow = vec3f(r1 * EXT_SCALE + params.slack);
    ${bvhWalk(
      {
        test: `let key = rayBoxEntry(a, n, ${mode === 'nearest' ? 'min(len, bestT)' : 'len'}, nodes[c].lo, nodes[c].hi, grow);`,
        visit: onCandidate(mode, 'sortedId[u]'),
        skip: mode === 'nearest' ? 'key > bestT' : undefined,
        defer: WALK_DEFER[mode === 'nearest' ? 'nearest' : 'list'],
      },
      'params.sphereCount',
    )}
  }`,
});

export const castBvhShader = ({ mode }: { mode: CastMode }): string => castKernel(mode, castBvhWalk(mode));

/** The kernel for CastPass: stage `cast bvh <mode>`. */
export const castBvhKernel: CastKernel<BindingNames<typeof castBvhBindings>> = {
  name: 'bvh',
  bindings: castBvhBindings,
  shader: (mode) => castBvhShader({ mode }),
};
