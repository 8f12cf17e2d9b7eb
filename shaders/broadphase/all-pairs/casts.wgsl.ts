/**
 * The all-pairs cast kernels (stages `cast all-pairs <mode>`): every cast tests every sphere,
 * staged a workgroup's worth at a time in workgroup memory. The frame, the hit test and the
 * modes are shaders/passes/casts.wgsl.ts's.
 */
import {
  castKernel,
  onCandidate,
  CAST_INPUT,
  CAST_OUTPUT,
  type CastWalk,
  type CastKernel,
} from '../../passes/casts.wgsl.js';
import { bindings, type BindingNames, readOnly } from '../../../src/gpu/kernel.js';
import type { CastMode } from '../../../src/queryKinds.js';

/** Every sphere, as the caller bound them. */
export const castAllPairsBindings = bindings({ ...CAST_INPUT, spheres: readOnly('array<vec4f>'), ...CAST_OUTPUT });

export const castAllPairsWalk = (mode: CastMode): CastWalk => ({
  bindings: castAllPairsBindings,
  workgroup: 'var<workgroup> staged: array<vec4f, WG>;',
  walk: `  for (var base = 0u; base < params.sphereCount; base += WG) {
    let j = base + lid;
    staged[lid] = spheres[min(j, params.sphereCount - 1u)];
    workgroupBarrier();
    if (moving) {
      let count = min(WG, params.sphereCount - base);
      for (var i = 0u; i < count; i++) {
        let q = staged[i];
        ${onCandidate(mode, 'base + i')}
      }
    }
    workgroupBarrier();
  }`,
});

export const castAllPairsShader = ({ mode }: { mode: CastMode }): string => castKernel(mode, castAllPairsWalk(mode));

/** The kernel for CastPass: stage `cast all-pairs <mode>`. */
export const castAllPairsKernel: CastKernel<BindingNames<typeof castAllPairsBindings>> = {
  name: 'all-pairs',
  bindings: castAllPairsBindings,
  shader: (mode) => castAllPairsShader({ mode }),
};
