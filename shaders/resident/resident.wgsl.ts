/**
 * The two small kernels of the GPU-resident calls (src/resident.ts):
 *
 *   residentCheck     one thread per sphere: a radius above the promised maxRadius, or a value
 *                     that is not finite, counts as a violation (the first one's index kept), so
 *                     that `read()` can refuse an answer the broad phase may have got wrong
 *   residentDispatch  one thread: indirect dispatch arguments for the caller's next kernel,
 *                     covering min(count, capacity) records at `workgroupSize` a workgroup,
 *                     folded to 2-D past maxDimension (rebuild the index with x + y·nx); and
 *                     which recording's parameters the call ran with, into its status
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { PairCounter } from '../../src/layout.js';
import { ResidentParams, ResidentStatus } from './layout.js';
import { flatWorkgroup } from '../common.wgsl.js';
import { bindings, uniform, readOnly, readWrite, entry, WG, ONE_THREAD } from '../../src/gpu/kernel.js';

export const residentCheckBindings = bindings({
  params: uniform('ResidentParams'),
  spheres: readOnly('array<vec4f>'),
  status: readWrite('ResidentStatus'),
});
export const residentCheckEntry = entry({ name: 'residentCheck', index: 'i', bound: 'params.sphereCount' });
export const residentCheckShader = () => wgsl`
${ResidentParams.wgsl}
${ResidentStatus.wgsl}
${residentCheckBindings.wgsl}
${flatWorkgroup}
${WG.wgsl}

${residentCheckEntry.wgsl}
  let s = spheres[i];
  // A comparison with NaN is false: !(|v| <= max) catches NaN and ±Infinity alike.
  let finite = all(abs(s) <= vec4f(3.4028234e38));
  if (!finite || !(s.w <= params.maxRadius) || s.w < 0.0) {
    atomicAdd(&status.violations, 1u);
    atomicMin(&status.firstViolation, i);
  }
}
`;

export const residentDispatchBindings = bindings({
  params: uniform('ResidentParams'),
  counter: readOnly('array<u32, 2>'),
  args: readWrite('array<u32, 3>'),
  status: readWrite('ResidentStatus'),
});
export const residentDispatchEntry = entry({ name: 'residentDispatch', size: ONE_THREAD });
export const residentDispatchShader = () => wgsl`
${ResidentParams.wgsl}
${ResidentStatus.wgsl}
${residentDispatchBindings.wgsl}
// The result's PairCounter read as plain words: ${PairCounter.offsets.count / 4} the count, ${PairCounter.offsets.countHi / 4} its high word.

${residentDispatchEntry.wgsl}
  // The call's last pass: whose parameters it ran with (read() compares them with its own).
  atomicStore(&status.call, params.call);
  var n = counter[${PairCounter.offsets.count / 4}];
  if (counter[${PairCounter.offsets.countHi / 4}] != 0u || n > params.capacity) {
    n = params.capacity;
  }
  let groups = (n + params.workgroupSize - 1u) / params.workgroupSize;
  var y = 1u;
  if (groups > params.maxDimension) {
    y = (groups + params.maxDimension - 1u) / params.maxDimension;
  }
  args[0] = (groups + y - 1u) / y;
  args[1] = select(0u, y, groups > 0u);
  args[2] = 1u;
}
`;
