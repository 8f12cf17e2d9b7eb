/** The GPU-resident calls' structs: the check's parameters and the status it writes. Each is interpolated into the shaders that use it as `${Struct.wgsl}` (src/layout.ts). */
import { defineStruct } from '../../src/layout.js';

/** The GPU-resident calls' check and dispatch kernels (uniform; shaders/resident/resident.wgsl.ts). */
export const ResidentParams = defineStruct('ResidentParams', {
  sphereCount: 'u32',
  /** Records the result list holds. */
  capacity: 'u32',
  /** Threads a workgroup of the consumer's kernel: the indirect arguments cover min(count, capacity) of them. */
  workgroupSize: 'u32',
  maxDimension: 'u32',
  /** The largest radius the caller promised; a larger one is a violation. */
  maxRadius: 'f32',
  /** Which recording wrote these parameters (QueryRecorder counts them): the call's status gets it back. */
  call: 'u32',
});

/**
 * The status of a GPU-resident call (storage): spheres that broke the promised scene bounds
 * (a radius above maxRadius, a value not finite), and the first of them.
 *
 * @category GPU-resident
 */
export const ResidentStatus = defineStruct('ResidentStatus', {
  /** Spheres that broke the promise. */
  violations: 'atomic<u32>',
  /** The lowest index among them (0xffffffff when none). */
  firstViolation: 'atomic<u32>',
  /**
   * The recording whose parameters the call ran with (written last): another than its own means
   * a later call was recorded before this one was submitted and overwrote them.
   */
  call: 'atomic<u32>',
});
