/** The passes' structs: the cast kernels' parameters and hit records, the scan's parameters. Each is interpolated into the shaders that use it as `${Struct.wgsl}` (src/layout.ts). */
import { defineStruct } from '../../src/layout.js';

/** The raycast and sphere-cast kernels' parameters (uniform). */
export const CastParams = defineStruct('CastParams', {
  castCount: 'u32',
  sphereCount: 'u32',
  /** Slack added to every search distance: covers rounding in positions of this magnitude. */
  slack: 'f32',
});

/**
 * One hit as the cast kernels write it: for a ray, `point` and `contact` are both D and
 * `distance` is |AD|; for a sphere cast, `point` is the centre at contact C, `contact` is E,
 * `distance` is |AC|. `index` is the sphere, or −1 for a miss.
 *
 * @category Record layouts
 */
export const CastHitRecord = defineStruct('CastHitRecord', {
  point: 'vec3f',
  distance: 'f32',
  contact: 'vec3f',
  index: 'i32',
});

/** One level of the exclusive scan (uniform). */
export const ScanParams = defineStruct('ScanParams', {
  count: 'u32',
  /** 1 when blockSums holds the (already scanned) offsets of the tiles. */
  useOffsets: 'u32',
  /** Nonzero: every thread returns at once (a gated caller copies its switch here on the GPU). */
  skip: 'u32',
});
