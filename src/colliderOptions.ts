/** The Collider's options and the limits it derives from them and its device. */
import { checkPositiveInteger } from './checks.js';
import { bindingLimit } from './gpu/buffers.js';
import { HIT_BYTES } from './castQueries.js';
import { PAIR_BYTES, GPU_STRIDE } from './layout.js';
import type { PlanOptions } from './spatial/plan.js';

/**
 * Options of {@link createCollider}.
 *
 * @category Collider
 */
export interface ColliderOptions {
  /** The device to use. In a browser it may be omitted: one is requested from navigator.gpu. */
  device?: GPUDevice;
  /**
   * Fold dispatches past this many workgroups per dimension (default: the device's limit).
   * Lower it to exercise the 2-D fold cheaply in tests.
   */
  maxWorkgroupsPerDimension?: number;
  /**
   * The largest buffer the collider may bind, in bytes (default: the device's limit). Lower it to
   * cap memory, or to exercise the capacity errors cheaply in tests.
   */
  maxBindingBytes?: number;
  /** Tuning of the grid plan (dense factor, octaves per level); defaults are measured. */
  grid?: Pick<PlanOptions, 'denseFactor' | 'levelStep'>;
}

/**
 * What one call of a {@link Collider} can take and return on its device (`collider.limits`).
 *
 * @category Collider
 */
export interface ColliderLimits {
  /** Most spheres (or boxes, or casts) one call takes. */
  maxSpheres: number;
  /** Most boxes (AABBs or oriented boxes) one call takes. */
  maxBoxes: number;
  /** Most rays or sphere casts one call takes. */
  maxCasts: number;
  /** Most pairs one call can return (the largest pair buffer the device can bind). */
  maxPairs: number;
  /** Most hits one allHits call can return. */
  maxHits: number;
  /** Workgroups per dispatch dimension before a dispatch is folded into 2-D. */
  maxWorkgroupsPerDimension: number;
  /** Most grid buckets (a power of two). */
  maxBuckets: number;
}

/** The limits of a Collider made with `options` on `device`, and the largest buffer it binds. */
export function colliderLimits(
  device: GPUDevice,
  options: ColliderOptions,
): { limits: ColliderLimits; binding: number } {
  // At least one sphere's bytes; at least one workgroup a dimension.
  const binding = Math.min(
    bindingLimit(device),
    checkPositiveInteger('options.maxBindingBytes', options.maxBindingBytes, Number.MAX_SAFE_INTEGER, 16) ?? Infinity,
  );
  const maxWorkgroupsPerDimension = Math.min(
    checkPositiveInteger(
      'options.maxWorkgroupsPerDimension',
      options.maxWorkgroupsPerDimension,
      Number.MAX_SAFE_INTEGER,
      1,
    ) ?? Infinity,
    device.limits.maxComputeWorkgroupsPerDimension,
  );
  const limits: ColliderLimits = {
    maxSpheres: Math.floor(binding / 16),
    maxBoxes: Math.floor(binding / (4 * GPU_STRIDE.orientedBox)),
    maxCasts: Math.floor(binding / HIT_BYTES),
    maxPairs: Math.floor(binding / PAIR_BYTES),
    maxHits: Math.floor(binding / HIT_BYTES),
    maxWorkgroupsPerDimension,
    maxBuckets: 2 ** Math.floor(Math.log2(binding / 4 - 1)),
  };
  return { limits, binding };
}
