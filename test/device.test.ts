/**
 * The Node device: what it reports, the limits it asks for, and dawn.node's crash: if Dawn's
 * instance is collected while a device made from it is in use, or while a destroyed device still
 * has callbacks queued, the process dies at the next GC. requestNodeDevice keeps one instance for
 * the life of the process; these tests leave the instance unreachable from the test's side and
 * force collections (vitest runs node with --expose-gc).
 */
import { describe, it, expect } from 'vitest';
import { readFileSync, existsSync } from 'node:fs';
import { requestNodeDevice, describeDevice, dawnInstanceCount, WAIT_SLEEP_MS } from '../src/node.js';
import { shadersRunOnCpu } from '../src/device.js';
import { hasDeviceWaiter, workDone } from '../src/gpu/wait.js';
import { readBuffer } from '../src/gpu/buffers.js';
import { BufferUsage } from '../src/gpu/flags.js';
import { InvalidInputError } from '../src/errors.js';
import { createCollider } from '../src/collider.js';
import { createParticleWorld } from '../src/particles/index.js';
import { uniformScene } from './support/scenes.js';
import { bruteForceSpherePairs, sortPairs } from '../src/reference/spherePairs.js';

const gc = (globalThis as { gc?: () => void }).gc;

describe('requestNodeDevice', () => {
  it('checks its options: a misspelt waiting, a negative timeout, a Dawn option not key=value are InvalidInputError', async () => {
    for (const [options, argument] of [
      [{ waiting: 'Yield' }, 'options.waiting'],
      [{ timeoutMs: -1 }, 'options.timeoutMs'],
      [{ timeoutMs: NaN }, 'options.timeoutMs'],
      [{ dawnOptions: ['x'] }, 'options.dawnOptions'],
      [{ dawnOptions: 'a=b' }, 'options.dawnOptions'],
      [null, 'options'],
    ] as const) {
      const error = await requestNodeDevice(options as never).catch((e: unknown) => e);
      expect(error, JSON.stringify(options)).toBeInstanceOf(InvalidInputError);
      expect((error as InvalidInputError).argument).toBe(argument);
    }
  });

  it('reports its adapter and asks for the adapter limits', async () => {
    const device = await requestNodeDevice();
    try {
      const info = describeDevice(device)!;
      expect(info).toBeDefined();
      expect(typeof info.isFallbackAdapter).toBe('boolean');
      expect(info.vendor.length + info.description.length).toBeGreaterThan(0);
      // WebGPU's default is 128 MiB; every adapter we run on offers more, and we take it.
      expect(device.limits.maxStorageBufferBindingSize).toBeGreaterThan(128 * 1024 * 1024);
    } finally {
      device.destroy();
    }
  });

  it('keeps Dawn alive under forced GC between dispatches; devices share one instance', {
    timeout: 120_000,
  }, async () => {
    expect(gc, 'vitest must run node with --expose-gc').toBeTypeOf('function');
    // Only the device escapes this function: the GPU instance is unreachable from here on.
    const device = await (async () => requestNodeDevice())();
    const instances = dawnInstanceCount();
    expect(instances).toBeGreaterThanOrEqual(1);
    const collider = await createCollider({ device });
    const spheres = uniformScene(300, { seed: 301 });
    const expected = bruteForceSpherePairs(spheres);
    // 1,000 dispatches (each call submits several), with a forced collection every 10 calls.
    for (let k = 0; k < 1000; k++) {
      if (k % 10 === 0) {
        gc!();
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      const pairs = await collider.spherePairs(spheres, { broadphase: k % 2 ? 'grid' : 'all-pairs' });
      if (k % 50 === 0) expect(sortPairs(pairs)).toEqual(expected);
    }
    collider.destroy();
    device.destroy();
    const second = await requestNodeDevice();
    second.destroy();
    expect(dawnInstanceCount()).toBe(instances);
  });

  // The crash CI met (std::system_error in Dawn, once in a few runs of the fault tests): the
  // instance was released when its device was lost, while callbacks of the calls the device was
  // destroyed under were still queued. Eight rounds crashed about one run in three before the fix.
  it('a device destroyed with calls in flight, then forced GCs: the process lives and the next device works', {
    timeout: 300_000,
  }, async () => {
    const scene = uniformScene(20_000, { seed: 302 });
    const small = uniformScene(500, { seed: 303 });
    const expected = bruteForceSpherePairs(small);
    for (let round = 0; round < 8; round++) {
      const device = await requestNodeDevice();
      const collider = await createCollider({ device });
      const world = await createParticleWorld({ device, capacity: 1000 });
      world.setParticles({ spheres: uniformScene(1000, { seed: round }), velocities: new Float32Array(3000) });
      const pending = [
        collider.spherePairs(scene),
        collider.raycast(new Float32Array([0, 0, 0, 50, 50, 50]), scene),
        world.step(1 / 60, 10),
        world.read(),
      ];
      device.destroy();
      await Promise.allSettled(pending);
      collider.destroy();
      world.destroy();
      for (let k = 0; k < 5; k++) {
        gc!();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const fresh = await requestNodeDevice();
      try {
        const again = await createCollider({ device: fresh });
        expect(sortPairs(await again.spherePairs(small))).toEqual(expected);
        gc!();
        again.destroy();
      } finally {
        fresh.destroy();
      }
      gc!();
    }
  });

  // dawn.node polls a device with a pending promise from a setImmediate callback that queues
  // itself again: the waiting thread spins. On a software adapter that core is the one the
  // shaders need. Measured by the CPU time of this process's main thread (vitest's 'forks' pool
  // runs the test there; Linux's /proc) while a readback, then workDone(), waits behind a long kernel.
  const mainThreadStat = `/proc/self/task/${process.pid}/stat`;
  it('reads and workDone() wait asleep between polls on a software adapter (waiting: yield), busy with waiting: spin', {
    timeout: 120_000,
  }, async (context) => {
    const probe = await requestNodeDevice();
    const software = shadersRunOnCpu(probe);
    expect(hasDeviceWaiter(probe)).toBe(software);
    probe.destroy();
    if (!software || !existsSync(mainThreadStat)) context.skip();

    // utime + stime of the main thread, in ms (fields 14 and 15, counted after the command's ')').
    const mainThreadCpuMs = (): number => {
      const fields = readFileSync(mainThreadStat, 'utf8').split(') ')[1].split(' ');
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
    };
    const measure = async (waiting: 'spin' | 'yield') => {
      const device = await requestNodeDevice({ waiting });
      try {
        expect(hasDeviceWaiter(device)).toBe(waiting === 'yield');
        const module = device.createShaderModule({
          code: /* wgsl */ `
            @group(0) @binding(0) var<storage, read_write> out: array<u32>;
            override ITERATIONS: u32;
            @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
              var x = g.x;
              for (var k = 0u; k < ITERATIONS; k++) { x = x * 1664525u + 1013904223u; }
              out[g.x] = x;
            }`,
        });
        const pipeline = device.createComputePipeline({
          layout: 'auto',
          compute: { module, entryPoint: 'main', constants: { ITERATIONS: 120_000 } },
        });
        const out = device.createBuffer({ size: 4096 * 4, usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC });
        const bindGroup = device.createBindGroup({
          layout: pipeline.getBindGroupLayout(0),
          entries: [{ binding: 0, resource: { buffer: out } }],
        });
        const run = async (wait: 'read' | 'workDone') => {
          const encoder = device.createCommandEncoder();
          const pass = encoder.beginComputePass();
          pass.setPipeline(pipeline);
          pass.setBindGroup(0, bindGroup);
          pass.dispatchWorkgroups(64);
          pass.end();
          device.queue.submit([encoder.finish()]);
          const cpu = mainThreadCpuMs();
          const start = performance.now();
          await (wait === 'read' ? readBuffer(device, out, 0, 4) : workDone(device));
          return { cpuMs: mainThreadCpuMs() - cpu, wallMs: performance.now() - start };
        };
        await run('read'); // the pipeline's first run
        const read = await run('read');
        const done = await run('workDone');
        return { cpuMs: read.cpuMs + done.cpuMs, wallMs: read.wallMs + done.wallMs };
      } finally {
        device.destroy();
      }
    };
    const spin = await measure('spin');
    const asleep = await measure('yield');
    const detail = `spin: ${spin.cpuMs} ms of CPU over ${spin.wallMs.toFixed(0)} ms; yield: ${asleep.cpuMs} over ${asleep.wallMs.toFixed(0)}`;
    // A wait long enough for the 10 ms ticks of /proc to count it.
    expect(spin.wallMs, detail).toBeGreaterThan(200);
    // Spinning takes whatever share of a core it gets beside the shader threads (0.6–0.7 alone here).
    expect(spin.cpuMs / spin.wallMs, detail).toBeGreaterThan(0.3);
    // Asleep: a turn of the loop (~0.02 ms) every WAIT_SLEEP_MS.last at most (0.04 here).
    expect(asleep.cpuMs / asleep.wallMs, detail).toBeLessThan(0.25);
    expect(asleep.cpuMs / asleep.wallMs, detail).toBeLessThan(spin.cpuMs / spin.wallMs / 2);
    expect(WAIT_SLEEP_MS.last).toBeLessThanOrEqual(1);
  });
});
