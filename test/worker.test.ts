/**
 * The library in a dedicated Web Worker, for real: the worker example (examples/worker/worker.ts)
 * is started as a module worker, finds its own device on the worker's navigator.gpu, and answers
 * with the overlapping pairs of a seeded scene and a small world after some steps. The pairs must
 * equal the CPU oracle's within the contract's rounding band; the world must have moved, with no
 * NaN. Runs in Chromium, Firefox and Deno (vitest.config.ts, scripts/deno-tests.ts); Node has no
 * Web Worker with navigator.gpu.
 */
import { describe, it, expect } from 'vitest';
import { bruteForceSpherePairs } from '../src/reference/spherePairs.js';
import { diffPairs, bandViolations } from './support/pairs.js';
import { seededSpheres, type WorkerRequest, type WorkerReply } from '../examples/worker/shared.js';

function askWorker(request: WorkerRequest): Promise<WorkerReply> {
  // Inline `new Worker(new URL(...))`: the form Vite recognises and bundles in browser mode.
  const worker = new Worker(new URL('../examples/worker/worker.ts', import.meta.url), { type: 'module' });
  return new Promise<WorkerReply>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<WorkerReply | { error: string }>) => {
      if ('error' in event.data) reject(new Error(`in the worker: ${event.data.error}`));
      else resolve(event.data);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(`worker error: ${event.message}`));
    };
    worker.postMessage(request);
  }).finally(() => worker.terminate());
}

describe('in a dedicated worker', () => {
  it('spherePairs of 3000 spheres (seed 5) equal the CPU oracle, and a 500-particle world steps', async () => {
    const request = { n: 3000, seed: 5, particles: 500, steps: 10 } satisfies WorkerRequest;
    const reply = await askWorker(request);
    expect(reply.device).toMatch(/Dawn|wgpu/);
    expect([reply.n, reply.particles], "the sizes asked for, not the adapter's").toEqual([3000, 500]);

    const spheres = seededSpheres(request.n, request.seed);
    const oracle = bruteForceSpherePairs(spheres);
    expect(oracle.length, 'the scene has pairs to find').toBeGreaterThan(100);
    const diff = diffPairs(spheres, reply.pairs, oracle);
    expect(diff.malformed).toEqual([]);
    expect(bandViolations(diff)).toEqual([]);

    expect(reply.before).toEqual(seededSpheres(request.particles, request.seed + 1));
    expect(reply.after.length).toBe(4 * request.particles);
    expect(reply.after.every(Number.isFinite), 'no NaN or infinity after the steps').toBe(true);
    let moved = 0;
    for (let i = 0; i < request.particles; i++) if (reply.after[4 * i + 1] < reply.before[4 * i + 1] - 1e-3) moved++;
    expect(moved, 'particles fell under gravity').toBeGreaterThan(request.particles / 2);
  });
});
