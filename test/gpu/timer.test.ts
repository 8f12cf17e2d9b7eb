/**
 * GpuTimer (src/gpu/timer.ts) times every pass recorded with it, however many: past a query
 * set's last pass, the next one starts another set. A particle world's profiled step reports every
 * pass it recorded, the same passes an encoded step records (a step with box colliders records
 * more than a fixed estimate allowed: its last substeps went untimed before).
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from '../support/gpu.js';
import { GpuTimer } from '../../src/gpu/timer.js';
import { InvalidInputError } from '../../src/errors.js';
import { createParticleWorld } from '../../src/particles/index.js';
import { mulberry32 } from '../support/random.js';

const gpu = useGpu();

describe('GpuTimer', () => {
  it('times every pass, in order, across query sets of 3 passes', async () => {
    if (!gpu.device.features.has('timestamp-query')) return;
    const timer = new GpuTimer(gpu.device, true, 3);
    const encoder = gpu.device.createCommandEncoder();
    const names = Array.from({ length: 8 }, (_, k) => `pass ${k}`);
    for (const name of names) encoder.beginComputePass(timer.pass(name)).end();
    timer.resolve(encoder);
    gpu.device.queue.submit([encoder.finish()]);
    const profile = await timer.read();
    expect(profile.stages.map((s) => s.name)).toEqual(names);
    for (const stage of profile.stages) expect(stage.ms).toBeGreaterThanOrEqual(0);
    expect(profile.totalMs).toBeCloseTo(
      profile.stages.reduce((sum, s) => sum + s.ms, 0),
      9,
    );
    // The span runs from the first pass's start (set 0) to the last's end (set 2).
    expect(profile.spanMs).toBeGreaterThanOrEqual(profile.totalMs * (1 - 1e-6));
    timer.destroy();
  });

  it('rejects a capacity that is not an integer from 1 to 2048, naming it', () => {
    for (const capacity of [0, 2049, 1.5, Number.NaN]) {
      expect(() => new GpuTimer(gpu.device, true, capacity)).toThrow(InvalidInputError);
      expect(() => new GpuTimer(gpu.device, true, capacity)).toThrow(/capacity/);
    }
  });

  it("a particle world's profiled step with boxes reports the passes an encoded step records, seed 3111", async () => {
    if (!gpu.device.features.has('timestamp-query')) return;
    const rand = mulberry32(3111);
    const n = 300;
    const spheres = new Float32Array(4 * n);
    for (let i = 0; i < n; i++)
      spheres.set([-3 + (i % 15) * 0.4, 1 + Math.floor(i / 15) * 0.4, 0.2 * (rand() - 0.5), 0.18], 4 * i);
    const world = await createParticleWorld({
      device: gpu.device,
      capacity: n,
      bounds: [-5, -1, -3, 5, 10, 3],
      gravity: [0, -9.8, 0],
      substeps: 6,
      iterations: 2,
    });
    world.setParticles({ spheres, velocities: new Float32Array(3 * n) });
    world.setColliders({ boxes: new Float32Array([0, 0.2, 0, 4, 0.1, 2, 0, 0, 0, 1]) });
    await world.step(1 / 60);
    await world.step(1 / 60, 1, { profile: true });
    const stepped = world.lastProfile!.stages.map((s) => s.name);
    const timer = new GpuTimer(gpu.device, true, 7);
    const encoder = gpu.device.createCommandEncoder();
    world.encode(encoder, 1 / 60, 1, timer);
    timer.resolve(encoder);
    gpu.device.queue.submit([encoder.finish()]);
    const encoded = (await timer.read()).stages.map((s) => s.name);
    timer.destroy();
    // Six substeps of two sweeps: a pair pass a sweep, an integration a substep, all timed.
    expect(stepped.filter((name) => name === 'solver integrate')).toHaveLength(6);
    expect(stepped.filter((name) => name === 'solver pairs')).toHaveLength(12);
    expect(stepped.length).toBeGreaterThan(86);
    expect([...stepped].sort()).toEqual([...encoded].sort());
    world.destroy();
  });
});
