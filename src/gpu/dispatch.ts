/**
 * Dispatch sizing. `dispatchWorkgroups` stops at `maxComputeWorkgroupsPerDimension` (65535 by
 * default) per dimension; past that we fold the workgroups into a 2-D grid and every shader
 * rebuilds the linear index with `flatWorkgroup` (shaders/common.wgsl.ts) and guards the tail.
 */

/** Workgroups `[x, y]` covering `groups` workgroups, x ≤ maxPerDimension, y ≤ maxPerDimension. */
import { CapacityError } from '../errors.js';

export function foldWorkgroups(groups: number, maxPerDimension: number): [number, number] {
  if (!(groups >= 0) || !Number.isFinite(groups)) throw new RangeError(`bad workgroup count ${groups}`);
  if (groups <= maxPerDimension) return [groups, 1];
  const y = Math.ceil(groups / maxPerDimension);
  if (y > maxPerDimension) {
    throw new CapacityError(
      'workgroups in one dispatch',
      groups,
      maxPerDimension * maxPerDimension,
      'the 2-D dispatch limit',
    );
  }
  return [Math.ceil(groups / y), y];
}

/** Records a dispatch of `groups` workgroups, folded to 2-D when needed. Nothing for zero. */
export function dispatchFolded(pass: GPUComputePassEncoder, groups: number, maxPerDimension: number): void {
  if (groups === 0) return;
  const [x, y] = foldWorkgroups(groups, maxPerDimension);
  pass.dispatchWorkgroups(x, y, 1);
}

/**
 * How a pass records a dispatch of `groups` workgroups: by default `dispatchFolded` with the
 * pass's limit; a caller that gates the pass with indirect arguments (src/gpu/gate.ts) passes its own.
 */
export type Dispatcher = (pass: GPUComputePassEncoder, groups: number) => void;

/**
 * A u32 that a kernel writes on the GPU to turn passes off for the rest of the submission: a
 * gated pass copies it (copyBufferToBuffer) into the `skip` field of its own uniform before it
 * runs, and every thread returns at once where it is nonzero. Passes stay direct dispatches of
 * their full size: no indirect dispatch, which Dawn validates with a pass of its own each, on a
 * GPU many times the cost of a direct dispatch (measured: docs/PERFORMANCE.md).
 * (Where empty threads cost more than that, as on SwiftShader, a caller may still gate with
 * indirect arguments on top: src/gpu/gate.ts.)
 */
export interface SkipSwitch {
  buffer: GPUBuffer;
  /** Byte offset of the u32 (a multiple of 4). */
  offset: number;
}

export const ceilDiv = (a: number, b: number): number => Math.ceil(a / b);
