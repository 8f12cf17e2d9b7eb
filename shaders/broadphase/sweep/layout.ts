/** The sweep's structs. Each is interpolated into the shaders that use it as `${Struct.wgsl}` (src/layout.ts). */
import { defineStruct } from '../../../src/layout.js';

/** The sort-and-sweep kernels' parameters (uniform). */
export const SweepParams = defineStruct('SweepParams', {
  sphereCount: 'u32',
  boxCount: 'u32',
  /** The sweep axis: 0, 1 or 2 (the axis of greatest variance of the centres). */
  axis: 'u32',
  /** Added to every interval's upper end, so that f32 rounding cannot prune a pair the narrow test keeps. */
  slack: 'f32',
  /** The largest radius: how far before a box an interval that reaches it can start. */
  maxRadius: 'f32',
});
