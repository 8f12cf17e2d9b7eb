/**
 * The GPU fixture for a test file: one device (dawn.node in Node, navigator.gpu in a browser;
 * SwiftShader in CI) and one collider,
 * with every uncaptured WebGPU error recorded so that `expectNoGpuErrors()` fails the test.
 * There is no skip: without an adapter the suite fails, with the message of NoAdapterError
 * (what to install). `npm test` checks for an adapter first (scripts/check-gpu.ts).
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { createCollider, type Collider, type ColliderOptions } from '../../src/collider.js';
import { requestTestDevice } from './device.js';

export interface GpuFixture {
  device: GPUDevice;
  collider: Collider;
  errors: string[];
}

export function useGpu(options: Omit<ColliderOptions, 'device'> = {}): GpuFixture {
  const fixture = { errors: [] as string[] } as GpuFixture;
  beforeAll(async () => {
    fixture.device = await requestTestDevice();
    fixture.device.onuncapturederror = (event) => {
      fixture.errors.push((event as GPUUncapturedErrorEvent).error.message);
    };
    fixture.collider = await createCollider({ ...options, device: fixture.device });
  });
  afterEach(() => {
    const errors = fixture.errors.splice(0);
    expect(errors, 'uncaptured WebGPU errors').toEqual([]);
  });
  afterAll(() => {
    fixture.collider?.destroy();
    fixture.device?.destroy();
  });
  return fixture;
}
