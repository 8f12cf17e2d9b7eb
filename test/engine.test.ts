/**
 * describeDevice says which engine ran the tests: each test project provides the engine it is
 * meant to run on (vitest.config.ts: Dawn in Node and Chromium, wgpu in Firefox; Deno's runner,
 * scripts/deno-tests.ts, has no `inject` and means wgpu), so a project that silently ran on
 * another engine, or a host describeDevice misreads, fails here.
 */
import { describe, it, expect, inject } from 'vitest';
import { useGpu } from './support/gpu.js';
import { inDeno } from './support/device.js';
import { describeDevice } from '../src/device.js';
import { createParticleWorld } from '../src/particles/index.js';

declare module 'vitest' {
  // biome-ignore lint/suspicious/noExportsInTest: a module augmentation (the context the projects provide), not a test's export
  export interface ProvidedContext {
    webgpuEngine: 'Dawn' | 'wgpu';
  }
}

const gpu = useGpu();

describe('describeDevice names the engine, host and driver', () => {
  it('the engine this project runs on, and a label that says it', () => {
    const expected = inDeno ? 'wgpu' : inject('webgpuEngine');
    const info = describeDevice(gpu.device)!;
    expect(info, 'a device made by the library is described').toBeDefined();
    expect(info.engine).toBe(expected);
    expect(info.label).toContain(expected);
    expect(info.label).toContain(info.host);
    const host = inDeno
      ? /^Deno \d/
      : expected === 'wgpu'
        ? /^Firefox \d+$/
        : /^(Node \d+\.\d+\.\d+ \(dawn\.node\)|Chrome \d+)$/;
    expect(info.host).toMatch(host);
    expect(typeof info.isFallbackAdapter).toBe('boolean');
    // A fallback adapter is software; software drivers are named where the adapter names them.
    if (info.isFallbackAdapter) expect(info.software).toBe(true);
    if (/swiftshader|llvmpipe/i.test(info.description)) expect(info.software).toBe(true);
  });

  it('the driver: named by the adapter, except in Firefox, whose adapter.info is empty', () => {
    const info = describeDevice(gpu.device)!;
    if (info.host.startsWith('Firefox')) {
      // Firefox leaves vendor, architecture and description empty: the driver is unknown, and
      // the label says so rather than guessing.
      expect(info.driver).toBe('');
      expect(info.label).toContain('unnamed driver');
    } else {
      expect(info.driver.length).toBeGreaterThan(0);
      expect(info.label).toContain(info.driver);
    }
  });
});

describe('empty inputs on every engine', () => {
  // Deno 2.9's queue.writeBuffer panics (the whole process) on zero bytes of data: empty inputs
  // must not write any. A world set to no particles did, once.
  it('a world set to no particles steps and reads; every collider call answers empty inputs', async () => {
    const world = await createParticleWorld({ device: gpu.device, capacity: 8 });
    try {
      world.setParticles({ spheres: new Float32Array(0), velocities: new Float32Array(0) });
      await world.step(1 / 60);
      const state = await world.read();
      expect(state.spheres.length).toBe(0);
    } finally {
      world.destroy();
    }
    const none = new Float32Array(0);
    expect((await gpu.collider.spherePairs(none)).length).toBe(0);
    expect((await gpu.collider.sphereBoxPairs(none, none)).length).toBe(0);
    expect((await gpu.collider.sphereOrientedBoxPairs(none, none)).length).toBe(0);
    expect((await gpu.collider.raycast(none, none)).index.length).toBe(0);
    expect((await gpu.collider.sphereCast(none, new Float32Array([0, 0, 0, 1]))).index.length).toBe(0);
  });
});
