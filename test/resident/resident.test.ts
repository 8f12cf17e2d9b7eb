/**
 * GPU-resident calls: inputs in GPUBuffers, recorded into the caller's encoder, results left on
 * the GPU. Each is checked against the one-shot call on the same seeded scene (which is checked
 * against the CPU reference elsewhere), on every broad phase that serves it; plus what the GPU
 * keeps: the true count past capacity, indirect arguments a kernel of the caller's consumes with
 * no readback, and the scene promise checked on the GPU.
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from '../support/gpu.js';
import { uniformScene, sceneBoundsOf } from '../support/scenes.js';
import { mulberry32 } from '../support/random.js';
import { sortPairs } from '../../src/reference/spherePairs.js';
import { CapacityError, InvalidInputError } from '../../src/errors.js';
import { validateAabbs, validateOrientedBoxes, validateCasts } from '../../src/validate.js';
import { RULES } from '../../src/checks.js';
import type { EncodedPairs } from '../../src/resident.js';
import { BufferUsage, MapMode } from '../../src/gpu/flags.js';
import { GpuTimer } from '../../src/gpu/timer.js';
import { workDone } from '../../src/gpu/wait.js';
import { thrown } from '../support/thrown.js';
import { phasesServing } from '../../src/broadphase/registry.js';

const gpu = useGpu();

function storage(data: Float32Array, extra = 0, offsetFloats = 0): GPUBuffer {
  const buffer = gpu.device.createBuffer({
    size: Math.max(4 * (data.length + offsetFloats + extra), 16),
    usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST,
  });
  gpu.device.queue.writeBuffer(buffer, 4 * offsetFloats, data);
  return buffer;
}

async function submit(record: (encoder: GPUCommandEncoder) => void): Promise<void> {
  const encoder = gpu.device.createCommandEncoder();
  record(encoder);
  gpu.device.queue.submit([encoder.finish()]);
  await workDone(gpu.device);
}

describe('encodeSpherePairs', () => {
  const spheres = uniformScene(3000, { seed: 1601 });
  for (const broadphase of phasesServing('pairs')) {
    it(`equals spherePairs, ${broadphase} (seed 1601), from a buffer at offset 0 and at an offset`, async () => {
      const expected = sortPairs(await gpu.collider.spherePairs(spheres, { broadphase }));
      expect(expected.length).toBeGreaterThan(100);
      for (const offsetFloats of [0, 12]) {
        const buffer = storage(spheres, 0, offsetFloats);
        let result!: EncodedPairs;
        await submit((encoder) => {
          result = gpu.collider.encodeSpherePairs(
            encoder,
            { buffer, count: 3000, offset: 4 * offsetFloats },
            { scene: sceneBoundsOf(spheres), broadphase },
          );
        });
        expect(sortPairs(await result.read())).toEqual(expected);
        result.destroy();
        buffer.destroy();
      }
    });
  }

  it("'auto' decides from the promise as the one-shot call decides from the spheres: a long thin scene is swept (seed 1604)", async () => {
    const rand = mulberry32(1604);
    const line = new Float32Array(4 * 3000).map((_, k) =>
      k % 4 === 0 ? rand() * 3000 : k % 4 === 3 ? 0.5 : rand() * 10,
    );
    const buffer = storage(line);
    const timer = new GpuTimer(gpu.device, true);
    let result!: EncodedPairs;
    await submit((encoder) => {
      result = gpu.collider.encodeSpherePairs(encoder, { buffer, count: 3000 }, { scene: sceneBoundsOf(line), timer });
      timer.resolve(encoder);
    });
    expect((await timer.read()).stages.some((s) => s.name.startsWith('sweep'))).toBe(true);
    const oneShot = await gpu.collider.spherePairs(line, { profile: true });
    expect(gpu.collider.lastProfile?.stages.some((s) => s.name.startsWith('sweep'))).toBe(true);
    expect(sortPairs(await result.read())).toEqual(sortPairs(oneShot));
    timer.destroy();
    result.destroy();
    buffer.destroy();
  });

  it('keeps the true count past capacity; read() throws it; encoding into the result again grows it', async () => {
    const buffer = storage(spheres);
    const expected = sortPairs(await gpu.collider.spherePairs(spheres));
    let result!: EncodedPairs;
    await submit((encoder) => {
      result = gpu.collider.encodeSpherePairs(
        encoder,
        { buffer, count: 3000 },
        { scene: sceneBoundsOf(spheres), capacity: 10 },
      );
    });
    const error = await result.read().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CapacityError);
    expect((error as CapacityError).count).toBe(expected.length / 2);
    const again = result;
    await submit((encoder) => {
      result = gpu.collider.encodeSpherePairs(
        encoder,
        { buffer, count: 3000 },
        { scene: sceneBoundsOf(spheres), into: again },
      );
    });
    expect(result).toBe(again);
    expect(sortPairs(await result.read())).toEqual(expected);
    result.destroy();
    buffer.destroy();
  });

  it("the caller's kernel consumes the pairs through the indirect arguments, with no readback", async () => {
    const buffer = storage(spheres);
    const expected = (await gpu.collider.spherePairs(spheres)).length / 2;
    const module = gpu.device.createShaderModule({
      code: /* wgsl */ `
        @group(0) @binding(0) var<storage, read> pairs: array<vec2u>;
        @group(0) @binding(1) var<storage, read_write> seen: array<atomic<u32>, 2>;
        @compute @workgroup_size(64)
        fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
          let k = (wid.x + wid.y * nwg.x) * 64u + lid;
          if (k < arrayLength(&pairs)) {
            let p = pairs[k];
            if (p.x < p.y) { atomicAdd(&seen[0], 1u); }
            atomicAdd(&seen[1], 1u);
          }
        }`,
    });
    const pipeline = gpu.device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
    const seen = gpu.device.createBuffer({ size: 8, usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC });
    let result!: EncodedPairs;
    await submit((encoder) => {
      result = gpu.collider.encodeSpherePairs(
        encoder,
        { buffer, count: 3000 },
        { scene: sceneBoundsOf(spheres), capacity: expected, workgroupSize: 64 },
      );
      const pass = encoder.beginComputePass();
      pass.setPipeline(pipeline);
      pass.setBindGroup(
        0,
        gpu.device.createBindGroup({
          layout: pipeline.getBindGroupLayout(0),
          entries: [
            { binding: 0, resource: { buffer: result.pairs, size: 8 * expected } },
            { binding: 1, resource: { buffer: seen } },
          ],
        }),
      );
      pass.dispatchWorkgroupsIndirect(result.dispatch, 0);
      pass.end();
    });
    const staging = gpu.device.createBuffer({ size: 8, usage: BufferUsage.COPY_DST | BufferUsage.MAP_READ });
    await submit((encoder) => encoder.copyBufferToBuffer(seen, 0, staging, 0, 8));
    await staging.mapAsync(MapMode.READ);
    const [ordered, total] = new Uint32Array(staging.getMappedRange().slice(0));
    staging.unmap();
    expect([ordered, total]).toEqual([expected, expected]);
    for (const b of [buffer, seen, staging]) b.destroy();
    result.destroy();
  });

  it('a radius above the promised maxRadius: read() throws InvalidInputError naming the first such sphere', async () => {
    const bad = spheres.slice();
    bad[4 * 7 + 3] = 5;
    bad[4 * 9 + 3] = 6;
    const buffer = storage(bad);
    let result!: EncodedPairs;
    await submit((encoder) => {
      result = gpu.collider.encodeSpherePairs(encoder, { buffer, count: 3000 }, { scene: sceneBoundsOf(spheres) });
    });
    const error = await result.read().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect([
      (error as InvalidInputError).argument,
      (error as InvalidInputError).index,
      (error as InvalidInputError).rule,
    ]).toEqual(['spheres', 7, RULES.sceneBounds]);
    result.destroy();
    buffer.destroy();
  });

  it('two calls recorded before either is submitted both answer, submitted in either order; read() before submitting refuses', async () => {
    const a = uniformScene(300, { seed: 1611 });
    const b = uniformScene(100, { seed: 1612 });
    const expectedA = sortPairs(await gpu.collider.spherePairs(a));
    const expectedB = sortPairs(await gpu.collider.spherePairs(b));
    const [bufferA, bufferB] = [storage(a), storage(b)];
    const first = gpu.device.createCommandEncoder();
    const second = gpu.device.createCommandEncoder();
    const resultA = gpu.collider.encodeSpherePairs(first, { buffer: bufferA, count: 300 }, { scene: sceneBoundsOf(a) });
    const resultB = gpu.collider.encodeSpherePairs(
      second,
      { buffer: bufferB, count: 100 },
      { scene: sceneBoundsOf(b) },
    );
    const unsubmitted = await resultA.read().catch((e: unknown) => e);
    expect(unsubmitted).toBeInstanceOf(InvalidInputError);
    expect([(unsubmitted as InvalidInputError).argument, (unsubmitted as InvalidInputError).rule]).toEqual([
      'encoder',
      RULES.submitFirst,
    ]);
    gpu.device.queue.submit([second.finish()]);
    gpu.device.queue.submit([first.finish()]);
    expect(sortPairs(await resultA.read())).toEqual(expectedA);
    expect(sortPairs(await resultB.read())).toEqual(expectedB);
    // Encoded into again, each answers for its new call.
    await submit((encoder) => {
      gpu.collider.encodeSpherePairs(
        encoder,
        { buffer: bufferB, count: 100 },
        { scene: sceneBoundsOf(b), into: resultA },
      );
      gpu.collider.encodeSpherePairs(
        encoder,
        { buffer: bufferA, count: 300 },
        { scene: sceneBoundsOf(a), into: resultB },
      );
    });
    expect(sortPairs(await resultA.read())).toEqual(expectedB);
    expect(sortPairs(await resultB.read())).toEqual(expectedA);
    for (const r of [resultA, resultB]) r.destroy();
    for (const buffer of [bufferA, bufferB]) buffer.destroy();
  });

  it('bad arguments are typed errors naming them', () => {
    const buffer = storage(spheres);
    const encoder = gpu.device.createCommandEncoder();
    const scene = sceneBoundsOf(spheres);
    const cases: [() => unknown, string, string][] = [
      [() => gpu.collider.encodeSpherePairs(encoder, { buffer, count: 3001 }, { scene }), 'spheres', RULES.gpuRecords],
      [
        () => gpu.collider.encodeSpherePairs(encoder, { buffer: 42 as never, count: 1 }, { scene }),
        'spheres',
        RULES.gpuRecords,
      ],
      [
        () => gpu.collider.encodeSpherePairs(encoder, { buffer, count: 10, offset: 2 }, { scene }),
        'spheres.offset',
        RULES.option,
      ],
      [
        () => gpu.collider.encodeSpherePairs(encoder, { buffer, count: 10 }, {} as never),
        'options.scene',
        RULES.option,
      ],
      [
        () => gpu.collider.encodeSpherePairs(encoder, { buffer, count: 10 }, { scene: { ...scene, maxRadius: NaN } }),
        'options.scene.maxRadius',
        RULES.option,
      ],
      [
        () =>
          gpu.collider.encodeRaycast(
            encoder,
            { buffer, count: 1 },
            { buffer, count: 10 },
            { scene, broadphase: 'sweep' },
          ),
        'options.broadphase',
        RULES.option,
      ],
      // Unchecked, a NaN length or extent made the walk's rounding slack NaN, and casts missed.
      [
        () =>
          gpu.collider.encodeRaycast(encoder, { buffer, count: 1 }, { buffer, count: 10 }, { scene, maxLength: NaN }),
        'options.maxLength',
        RULES.option,
      ],
      [
        () =>
          gpu.collider.encodeSphereCast(
            encoder,
            { buffer, count: 1 },
            { buffer, count: 10 },
            { scene, maxLength: 'far' as never },
          ),
        'options.maxLength',
        RULES.option,
      ],
      [
        () =>
          gpu.collider.encodeRaycast(encoder, { buffer, count: 1 }, { buffer, count: 10 }, { scene, maxLength: -1 }),
        'options.maxLength',
        RULES.option,
      ],
      [
        () => gpu.collider.encodeRaycast(encoder, { buffer, count: 1 }, { buffer, count: 10 }, { scene, maxAbs: NaN }),
        'options.maxAbs',
        RULES.option,
      ],
      [
        () =>
          gpu.collider.encodeSphereCast(
            encoder,
            { buffer, count: 1 },
            { buffer, count: 10 },
            { scene, maxAbs: 2 ** 61 },
          ),
        'options.maxAbs',
        RULES.option,
      ],
      [
        () => gpu.collider.encodeSpherePairs(encoder, { buffer, count: 10 }, { scene, timer: 'yes' as never }),
        'options.timer',
        RULES.option,
      ],
      [
        () =>
          gpu.collider.encodeRaycast(
            encoder,
            { buffer, count: 1 },
            { buffer, count: 10 },
            { scene, timer: {} as never },
          ),
        'options.timer',
        RULES.option,
      ],
      [
        () => gpu.collider.encodeSpherePairs(undefined as never, { buffer, count: 10 }, { scene }),
        'encoder',
        RULES.encoder,
      ],
      [
        () => gpu.collider.encodeSphereCast({} as never, { buffer, count: 1 }, { buffer, count: 10 }, { scene }),
        'encoder',
        RULES.encoder,
      ],
    ];
    for (const [call, argument, rule] of cases) {
      const error = thrown(call);
      expect(error, argument).toBeInstanceOf(InvalidInputError);
      expect([(error as InvalidInputError).argument, (error as InvalidInputError).rule]).toEqual([argument, rule]);
    }
    encoder.finish();
    buffer.destroy();
  });
});

describe('encodeSphereBoxPairs, encodeSphereOrientedBoxPairs, encodeRaycast, encodeSphereCast', () => {
  const spheres = uniformScene(2000, { seed: 1602 });
  const scene = sceneBoundsOf(spheres);
  const rand = mulberry32(1602);
  const side = scene.max[0];
  const aabbs = new Float32Array(6 * 200).map((_, k) => (k % 6 < 3 ? rand() * side : 0));
  for (let k = 0; k < 200; k++) for (let a = 0; a < 3; a++) aabbs[6 * k + 3 + a] = aabbs[6 * k + a] + rand() * 3;
  const obbs = new Float32Array(10 * 200).map(
    (_, k) =>
      [
        rand() * side,
        rand() * side,
        rand() * side,
        rand() * 2,
        rand() * 2,
        rand() * 2,
        rand() - 0.5,
        rand() - 0.5,
        rand() - 0.5,
        rand() - 0.5,
      ][k % 10],
  );
  const rays = new Float32Array(6 * 500).map(() => rand() * side);
  const casts = new Float32Array(7 * 500).map((_, k) => (k % 7 === 6 ? rand() : rand() * side));

  for (const broadphase of phasesServing('boxes')) {
    it(`box pairs equal the one-shot calls, ${broadphase} (seed 1602)`, async () => {
      const sphereBuffer = storage(spheres);
      const aabbBuffer = storage(validateAabbs('aabbs', aabbs));
      const obbBuffer = storage(validateOrientedBoxes('boxes', obbs));
      let a!: EncodedPairs;
      await submit((encoder) => {
        a = gpu.collider.encodeSphereBoxPairs(
          encoder,
          { buffer: sphereBuffer, count: 2000 },
          { buffer: aabbBuffer, count: 200 },
          { scene, broadphase },
        );
      });
      const boxPairs = await a.read();
      expect(boxPairs.length).toBeGreaterThan(100);
      expect(sortPairs(boxPairs)).toEqual(sortPairs(await gpu.collider.sphereBoxPairs(spheres, aabbs, { broadphase })));
      let o!: EncodedPairs;
      await submit((encoder) => {
        o = gpu.collider.encodeSphereOrientedBoxPairs(
          encoder,
          { buffer: sphereBuffer, count: 2000 },
          { buffer: obbBuffer, count: 200 },
          { scene, broadphase },
        );
      });
      const orientedPairs = await o.read();
      expect(orientedPairs.length).toBeGreaterThan(100);
      expect(sortPairs(orientedPairs)).toEqual(
        sortPairs(await gpu.collider.sphereOrientedBoxPairs(spheres, obbs, { broadphase })),
      );
      for (const b of [sphereBuffer, aabbBuffer, obbBuffer]) b.destroy();
      a.destroy();
      o.destroy();
    });
  }

  for (const broadphase of phasesServing('casts')) {
    it(`nearest raycasts and sphere casts equal the one-shot calls, ${broadphase} (seed 1602)`, async () => {
      const sphereBuffer = storage(spheres);
      const rayBuffer = storage(validateCasts('rays', rays, 6).packed);
      const castBuffer = storage(validateCasts('casts', casts, 7).packed);
      let r!: ReturnType<typeof gpu.collider.encodeRaycast>;
      let c!: ReturnType<typeof gpu.collider.encodeSphereCast>;
      await submit((encoder) => {
        r = gpu.collider.encodeRaycast(
          encoder,
          { buffer: rayBuffer, count: 500 },
          { buffer: sphereBuffer, count: 2000 },
          { scene, broadphase },
        );
      });
      await submit((encoder) => {
        c = gpu.collider.encodeSphereCast(
          encoder,
          { buffer: castBuffer, count: 500 },
          { buffer: sphereBuffer, count: 2000 },
          { scene, broadphase },
        );
      });
      const ray = await r.read();
      const cast = await c.read();
      const oneRay = await gpu.collider.raycast(rays, spheres, { broadphase });
      const oneCast = await gpu.collider.sphereCast(casts, spheres, { broadphase });
      expect(Array.from(ray.index)).toEqual(Array.from(oneRay.index));
      expect(Array.from(cast.index)).toEqual(Array.from(oneCast.index));
      expect(ray.index.filter((i) => i >= 0).length).toBeGreaterThan(50);
      for (const b of [sphereBuffer, rayBuffer, castBuffer]) b.destroy();
      r.destroy();
      c.destroy();
    });
  }

  it("'auto' weighs the grid's walk (bounded by its cells however long the casts) against brute force and the BVH: a walk for a batch, brute force for a handful (seed 1602)", async () => {
    const sphereBuffer = storage(spheres);
    const rayBuffer = storage(validateCasts('rays', rays, 6).packed);
    const stages = async (count: number, maxLength?: number): Promise<string[]> => {
      const timer = new GpuTimer(gpu.device, true);
      let r!: ReturnType<typeof gpu.collider.encodeRaycast>;
      await submit((encoder) => {
        r = gpu.collider.encodeRaycast(
          encoder,
          { buffer: rayBuffer, count },
          { buffer: sphereBuffer, count: 2000 },
          { scene, timer, maxLength },
        );
        timer.resolve(encoder);
      });
      const names = (await timer.read()).stages.map((s) => s.name);
      const oneRay = await gpu.collider.raycast((maxLength === 1 ? short : rays).subarray(0, 6 * count), spheres);
      expect(Array.from((await r.read()).index)).toEqual(Array.from(oneRay.index));
      timer.destroy();
      r.destroy();
      return names;
    };
    // Rays of at most 2 across a scene 20 wide: a few cells each.
    const short = new Float32Array(rays);
    for (let k = 0; k < 500; k++)
      for (let a = 0; a < 3; a++) short[6 * k + 3 + a] = short[6 * k + a] + (a === 0 ? 1 : 0);
    gpu.device.queue.writeBuffer(rayBuffer, 0, validateCasts('rays', short, 6).packed);
    // 500 casts over 2,000 spheres: a walk, the grid's or the BVH's (castCosts: the BVH here,
    // which measures 18 ms against the grid's 29 and brute force's 53 on SwiftShader).
    const walked = (names: string[]): boolean =>
      names.includes('cast grid nearest') || names.includes('cast bvh nearest');
    expect(walked(await stages(500, 1))).toBe(true);
    gpu.device.queue.writeBuffer(rayBuffer, 0, validateCasts('rays', rays, 6).packed);
    expect(walked(await stages(500))).toBe(true); // the default: twice the scene's diagonal
    // However long the casts may be, a walk stops at the structure's last cells: still a walk.
    expect(walked(await stages(500, 1e5))).toBe(true);
    // Four casts: fewer tests than the grid's passes cost.
    expect(await stages(4)).toEqual(['cast all-pairs nearest']);
    sphereBuffer.destroy();
    rayBuffer.destroy();
  });

  for (const broadphase of phasesServing('casts')) {
    it(`all hits: equal the one-shot calls; past the capacity a CapacityError with the true total, then it grows; indirect arguments from the total, ${broadphase} (seed 1603)`, async () => {
      const sphereBuffer = storage(spheres);
      const rayBuffer = storage(validateCasts('rays', rays, 6).packed);
      const castBuffer = storage(validateCasts('casts', casts, 7).packed);
      const oneRay = await gpu.collider.raycast(rays, spheres, { broadphase, allHits: true });
      const oneCast = await gpu.collider.sphereCast(casts, spheres, { broadphase, allHits: true });
      const total = oneRay.offsets[500];
      expect(total).toBeGreaterThan(100);
      // Room for 10 hits: the read throws with the true total; encoded again, the result grows to it.
      let r!: ReturnType<typeof gpu.collider.encodeRaycast>;
      await submit((encoder) => {
        r = gpu.collider.encodeRaycast(
          encoder,
          { buffer: rayBuffer, count: 500 },
          { buffer: sphereBuffer, count: 2000 },
          { scene, broadphase, allHits: true, capacity: 10 },
        );
      });
      const error = await r.read().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CapacityError);
      expect(error).toMatchObject({ count: total });
      await submit((encoder) => {
        gpu.collider.encodeRaycast(
          encoder,
          { buffer: rayBuffer, count: 500 },
          { buffer: sphereBuffer, count: 2000 },
          { scene, broadphase, allHits: true, into: r, workgroupSize: 32 },
        );
      });
      const ray = (await r.read()) as typeof oneRay;
      expect(r.capacity).toBeGreaterThanOrEqual(total);
      for (const key of ['offsets', 'index', 'distance', 'point'] as const)
        expect(Array.from(ray[key]), key).toEqual(Array.from(oneRay[key]));
      // The total and the indirect arguments, read straight from the GPU buffers.
      const words = async (buffer: GPUBuffer, size: number): Promise<number[]> => {
        const staging = gpu.device.createBuffer({ size, usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST });
        await submit((encoder) => encoder.copyBufferToBuffer(buffer, 0, staging, 0, size));
        await staging.mapAsync(MapMode.READ);
        const out = Array.from(new Uint32Array(staging.getMappedRange().slice(0)));
        staging.destroy();
        return out;
      };
      expect(await words(r.total, 8)).toEqual([total, 0]);
      expect(await words(r.dispatch, 12)).toEqual([Math.ceil(total / 32), 1, 1]);

      let c!: ReturnType<typeof gpu.collider.encodeSphereCast>;
      await submit((encoder) => {
        c = gpu.collider.encodeSphereCast(
          encoder,
          { buffer: castBuffer, count: 500 },
          { buffer: sphereBuffer, count: 2000 },
          { scene, broadphase, allHits: true, capacity: oneCast.offsets[500] },
        );
      });
      const cast = (await c.read()) as typeof oneCast;
      for (const key of ['offsets', 'index', 'distance', 'center', 'contact'] as const)
        expect(Array.from(cast[key]), key).toEqual(Array.from(oneCast[key]));
      // No casts: offsets [0] and no hits.
      await submit((encoder) => {
        gpu.collider.encodeSphereCast(
          encoder,
          { buffer: castBuffer, count: 0 },
          { buffer: sphereBuffer, count: 2000 },
          { scene, broadphase, allHits: true, into: c },
        );
      });
      const none = (await c.read()) as typeof oneCast;
      expect([Array.from(none.offsets), none.index.length]).toEqual([[0], 0]);
      for (const b of [sphereBuffer, rayBuffer, castBuffer]) b.destroy();
      r.destroy();
      c.destroy();
    });
  }
});
