/**
 * Submitting with error scopes: every error WebGPU reports for the recorded commands becomes a
 * WebGPUError, and a lost device a DeviceLostError. The scopes are pushed and popped with no
 * await in between, so concurrent callers on one device cannot interleave them.
 */
import { WebGPUError, DeviceLostError, DestroyedError, CollideError } from '../errors.js';
import { lostAfter } from './buffers.js';
import { settle } from './wait.js';

const KINDS = ['validation', 'out-of-memory', 'internal'] as const;

export async function submitChecked(
  device: GPUDevice,
  label: string,
  record: (encoder: GPUCommandEncoder) => void,
  lost: () => GPUDeviceLostInfo | null,
): Promise<void> {
  device.pushErrorScope('internal');
  device.pushErrorScope('out-of-memory');
  device.pushErrorScope('validation');
  let scopes: Promise<GPUError | null>[];
  try {
    const encoder = device.createCommandEncoder({ label });
    record(encoder);
    device.queue.submit([encoder.finish()]);
  } finally {
    scopes = [device.popErrorScope(), device.popErrorScope(), device.popErrorScope()];
  }
  (await settle(device, Promise.all(scopes))).forEach((error, k) => {
    if (error) throw new WebGPUError(KINDS[k], error.message);
  });
  const info = lost();
  if (info) throw new DeviceLostError(info.reason, info.message);
}

/**
 * Runs `make` (which creates pipelines and buffers) inside a validation scope, so that a shader
 * or layout error surfaces as a WebGPUError from the factory instead of an uncaptured error
 * later. What `make` made is destroyed before the error is thrown.
 */
export async function createChecked<T extends { destroy(): void }>(device: GPUDevice, make: () => T): Promise<T> {
  device.pushErrorScope('validation');
  let made: T | undefined;
  try {
    made = make();
  } finally {
    const error = await settle(device, device.popErrorScope());
    if (error) {
      made?.destroy();
      // biome-ignore lint/correctness/noUnsafeFinally: a validation error is the cause of whatever make() threw, so it wins
      throw new WebGPUError('validation', error.message);
    }
  }
  return made;
}

/**
 * What a failed call should reject with: DestroyedError when its owner was destroyed meanwhile,
 * DeviceLostError when the device was (or is about to be reported) lost, else the error itself.
 * Calls never hang on a lost device: WebGPU rejects or resolves every pending promise.
 */
export async function callFailure(
  error: unknown,
  device: GPUDevice,
  destroyed: () => boolean,
  what: string,
): Promise<unknown> {
  if (error instanceof CollideError && !(error instanceof WebGPUError)) return error;
  if (destroyed()) return new DestroyedError(`this ${what} was destroyed while the call was running`);
  const lost = await lostAfter(device, error);
  if (lost) return new DeviceLostError(lost.reason, lost.message);
  return error;
}
