/**
 * Pipelines sized to their bindings (src/gpu/pipeline.ts): on a software adapter, a kernel's
 * runtime-sized arrays are declared with the length of the buffers bound to it. The answers must
 * be the ones the runtime-sized kernel gives, bit for bit; `arrayLength()` must read the same;
 * a kernel bound to ever new sizes must compile only now and then; the sizes it meets must be
 * few. Sizing is turned on and off here by
 * hand, so these run the same on any adapter.
 */
import { describe, it, expect, afterEach } from 'vitest';
import { useGpu } from '../support/gpu.js';
import { uniformScene } from '../support/scenes.js';
import { pileScene } from '../support/pile.js';
import { sortPairs } from '../../src/reference/spherePairs.js';
import { createParticleWorld } from '../../src/particles/index.js';
import {
  bindGroupLayout,
  bindGroup,
  computePipeline,
  pipelineFor,
  setArraySizing,
  sizedPipelineCount,
  sizesArrays,
  MAX_SIZED_VARIANTS,
  MIN_SIZED_ELEMENTS,
  RECOMPILE_AFTER_RUNS,
  MAX_SIZED_COMPILES,
} from '../../src/gpu/pipeline.js';
import { readBuffer, sizeClass } from '../../src/gpu/buffers.js';
import { ExclusiveScanPass, scanBufferBytes } from '../../src/passes/scan.js';
import { BufferUsage } from '../../src/gpu/flags.js';
import { mulberry32 } from '../support/random.js';

const gpu = useGpu();
let defaultSizing: boolean | undefined;

function sizing(on: boolean): void {
  defaultSizing ??= sizesArrays(gpu.device);
  setArraySizing(gpu.device, on);
}

afterEach(() => {
  if (defaultSizing !== undefined) setArraySizing(gpu.device, defaultSizing);
});

/** The test kernels' bindings: data (read), out (read-write), and their layout. */
const TEST_BINDINGS = /* wgsl */ `
@group(0) @binding(0) var<storage, read> data: array<vec4f>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;`;
const testLayout = (): GPUBindGroupLayout =>
  bindGroupLayout(gpu.device, 'sized test layout', ['read-only-storage', 'storage']);

describe('pipelines sized to their bindings', () => {
  it('arrayLength() reads the binding length; past MAX_SIZED_VARIANTS sizes a kernel compiles again only after RECOMPILE_AFTER_RUNS runs, dropping the least recently used', async () => {
    sizing(true);
    const device = gpu.device;
    const layout = testLayout();
    const code = /* wgsl */ `${TEST_BINDINGS}
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x == 0u) {
    out[0] = arrayLength(&data);
    out[1] = arrayLength(&out);
    out[2] = bitcast<u32>(data[arrayLength(&data) - 1u].y);
  }
}`;
    const pipeline = computePipeline(device, 'sized test', [layout], code, 'main');
    const before = sizedPipelineCount();
    /** Runs the kernel bound to size k (MIN_SIZED_ELEMENTS + 37k elements); checks its answer; returns the pipeline chosen. */
    const run = async (k: number): Promise<GPUComputePipeline> => {
      const elements = MIN_SIZED_ELEMENTS + 37 * k;
      // Bound with a size that is not a whole number of elements: the length rounds down.
      const data = device.createBuffer({ size: 16 * elements + 16, usage: BufferUsage.STORAGE | BufferUsage.COPY_DST });
      device.queue.writeBuffer(data, 16 * (elements - 1), new Float32Array([0, 1000 + k, 0, 0]));
      const out = device.createBuffer({ size: 4 * 8, usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC });
      const group = bindGroup(device, 'sized test', layout, [{ buffer: data, size: 16 * elements + 8 }, out]);
      const chosen = pipelineFor(pipeline, group);
      const encoder = device.createCommandEncoder();
      const pass = encoder.beginComputePass();
      pass.setPipeline(chosen);
      pass.setBindGroup(0, group);
      pass.dispatchWorkgroups(1);
      pass.end();
      device.queue.submit([encoder.finish()]);
      const got = new Uint32Array(await readBuffer(device, out, 0, 12));
      expect([got[0], got[1], new Float32Array(got.buffer)[2]], `size ${k}`).toEqual([elements, 8, 1000 + k]);
      data.destroy();
      out.destroy();
      return chosen;
    };
    const variants: GPUComputePipeline[] = [];
    for (let k = 0; k < MAX_SIZED_VARIANTS; k++) variants.push(await run(k));
    expect(new Set(variants).size, 'one sized pipeline per size').toBe(MAX_SIZED_VARIANTS);
    expect(variants).not.toContain(pipeline);
    expect(sizedPipelineCount() - before).toBe(MAX_SIZED_VARIANTS);
    // A size past the budget runs runtime-sized, with the same answer; known sizes keep theirs.
    expect(await run(MAX_SIZED_VARIANTS), 'a new size past the budget').toBe(pipeline);
    // The oldest size, used again: now the most recently used.
    for (let r = 0; r < RECOMPILE_AFTER_RUNS; r++) expect(await run(0)).toBe(variants[0]);
    // Enough runs since the last compile: the new size compiles, and the least recently used
    // size (1, not 0) is dropped; coming back at once, it runs runtime-sized.
    const late = await run(MAX_SIZED_VARIANTS);
    expect(late).not.toBe(pipeline);
    expect(sizedPipelineCount() - before).toBe(MAX_SIZED_VARIANTS + 1);
    expect(await run(1), 'the dropped size, right after a compile').toBe(pipeline);
    expect(await run(0), 'the size used most recently is kept').toBe(variants[0]);
    expect(await run(2)).toBe(variants[2]);
    expect(await run(MAX_SIZED_VARIANTS)).toBe(late);
  });

  it('sizes that keep alternating: a compile every RECOMPILE_AFTER_RUNS runs at most, and none past MAX_SIZED_COMPILES', () => {
    sizing(true);
    const device = gpu.device;
    const layout = testLayout();
    const code = /* wgsl */ `${TEST_BINDINGS}
@compute @workgroup_size(64) fn alternating(@builtin(global_invocation_id) g: vec3u) {
  out[0] = arrayLength(&data);
}`;
    const pipeline = computePipeline(device, 'sized alternating', [layout], code, 'alternating');
    const sizes = MAX_SIZED_VARIANTS + 2;
    const out = device.createBuffer({ size: 16, usage: BufferUsage.STORAGE });
    const datas = Array.from({ length: sizes }, (_, k) =>
      device.createBuffer({ size: 16 * (MIN_SIZED_ELEMENTS + k), usage: BufferUsage.STORAGE }),
    );
    const groups = datas.map((data) => bindGroup(device, 'alternating', layout, [data, out]));
    const before = sizedPipelineCount();
    const runs = RECOMPILE_AFTER_RUNS * (MAX_SIZED_COMPILES + 4);
    let compiledAt: number[] = [];
    for (let r = 0; r < runs; r++) {
      const count = sizedPipelineCount();
      pipelineFor(pipeline, groups[r % sizes]);
      if (sizedPipelineCount() > count) compiledAt.push(r);
    }
    expect(sizedPipelineCount() - before, 'compiles in all').toBe(MAX_SIZED_COMPILES);
    compiledAt = compiledAt.slice(MAX_SIZED_VARIANTS);
    compiledAt.forEach((r, k) => {
      const runs = r - (k === 0 ? MAX_SIZED_VARIANTS - 1 : compiledAt[k - 1]);
      expect(runs, 'runs between compiles').toBeGreaterThanOrEqual(RECOMPILE_AFTER_RUNS);
    });
    for (const buffer of [out, ...datas]) buffer.destroy();
  });

  it('a binding set smaller than MIN_SIZED_ELEMENTS keeps the runtime-sized pipeline', () => {
    sizing(true);
    const device = gpu.device;
    const layout = testLayout();
    const code = `${TEST_BINDINGS}
@compute @workgroup_size(1) fn small() { out[0] = u32(data[0].x); }`;
    const pipeline = computePipeline(device, 'sized small', [layout], code, 'small');
    const data = device.createBuffer({ size: 16 * (MIN_SIZED_ELEMENTS - 1), usage: BufferUsage.STORAGE });
    const out = device.createBuffer({ size: 4 * (MIN_SIZED_ELEMENTS - 1), usage: BufferUsage.STORAGE });
    expect(pipelineFor(pipeline, bindGroup(device, 'small', layout, [data, out]))).toBe(pipeline);
    data.destroy();
    out.destroy();
  });

  it('sizeClass: at least the bytes asked, a multiple of 4, at most 25% more, three significant bits, monotonic', () => {
    let last = 0;
    for (let bytes = 1; bytes < 3e6; bytes = Math.ceil(bytes * 1.003) + 1) {
      const size = sizeClass(bytes);
      expect(size % 4, `${bytes}`).toBe(0);
      expect(size).toBeGreaterThanOrEqual(bytes);
      expect(size).toBeGreaterThanOrEqual(last);
      if (bytes > 64) {
        expect(size, `${bytes}`).toBeLessThanOrEqual(bytes * 1.25 + 4);
        expect((size / 2 ** (Math.floor(Math.log2(size)) - 2)) % 1, `${bytes} → ${size}`).toBe(0);
      }
      last = size;
    }
    expect([4096, 4097, 5120, 5121, 8191].map(sizeClass)).toEqual([4096, 5120, 5120, 6144, 8192]);
  });

  it('scans of different counts in one buffer bind the same sizes: no new sized pipelines after the first', async () => {
    sizing(true);
    const device = gpu.device;
    const scan = new ExclusiveScanPass(device, 65535, 'sizes scan', 'serial');
    const capacity = 300_000;
    const data = device.createBuffer({
      size: scanBufferBytes(capacity),
      usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST,
    });
    let compiled = 0;
    for (const count of [capacity, 250_001, 123_457, 200_000, 99_999, 280_000]) {
      device.queue.writeBuffer(data, 0, new Uint32Array(count).fill(1));
      const before = sizedPipelineCount();
      const encoder = device.createCommandEncoder();
      scan.encode(encoder, data, count);
      device.queue.submit([encoder.finish()]);
      const out = new Uint32Array(await readBuffer(device, data, 0, 4 * (count + 1)));
      expect([out[1], out[count - 1], out[count]], `count ${count}`).toEqual([1, count - 1, count]);
      compiled += sizedPipelineCount() - before;
      if (count !== capacity) expect(sizedPipelineCount() - before, `count ${count}: sized compiles`).toBe(0);
    }
    expect(compiled, 'the first scan compiled its sized levels').toBeGreaterThan(0);
    scan.destroy();
    data.destroy();
  });

  it('spherePairs and raycast (seed 4101): the same answers, bit for bit, sized and not', async () => {
    const spheres = uniformScene(20_000, { seed: 4101 });
    const rand = mulberry32(4102);
    const rays = Float32Array.from({ length: 6 * 20_000 }, () => rand() * 60);
    const answers: { pairs: Uint32Array; index: Int32Array; distance: Float32Array }[] = [];
    for (const on of [false, true]) {
      sizing(on);
      const before = sizedPipelineCount();
      const pairs = sortPairs(await gpu.collider.spherePairs(spheres, { broadphase: 'grid' }));
      const hits = await gpu.collider.raycast(rays, spheres, { broadphase: 'grid' });
      answers.push({ pairs, index: hits.index, distance: hits.distance });
      if (on) expect(sizedPipelineCount(), 'sized pipelines compiled').toBeGreaterThan(before);
    }
    expect(answers[0].pairs.length).toBeGreaterThan(1000);
    expect(answers[1].pairs).toEqual(answers[0].pairs);
    expect(answers[1].index).toEqual(answers[0].index);
    expect(new Uint32Array(answers[1].distance.buffer)).toEqual(new Uint32Array(answers[0].distance.buffer));
  });

  it('a particle pile (5,000 particles, 40 steps): the same state, bit for bit, sized and not', async () => {
    const scene = pileScene({ n: 5000, bounds: [0, 0, 0, 16, 40, 16], seed: 4103 });
    const states: Float32Array[] = [];
    for (const on of [false, true]) {
      sizing(on);
      const before = sizedPipelineCount();
      const world = await createParticleWorld({
        device: gpu.device,
        capacity: 5000,
        bounds: scene.bounds,
        gravity: [0, -9.8, 0],
        restitution: 0.2,
        friction: 0.5,
      });
      world.setParticles({ spheres: scene.spheres, velocities: scene.velocities });
      for (let step = 0; step < 40; step++) await world.step(1 / 60);
      const state = await world.read();
      states.push(Float32Array.from([...state.spheres, ...state.velocities]));
      world.destroy();
      if (on) expect(sizedPipelineCount(), 'sized pipelines compiled').toBeGreaterThan(before);
    }
    expect(new Uint32Array(states[1].buffer)).toEqual(new Uint32Array(states[0].buffer));
  });
});
