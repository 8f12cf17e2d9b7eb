/**
 * Encoded calls that share a submission: pairs, a kernel of the caller's consuming them through
 * the indirect arguments, raycasts and sphere casts, recorded into one encoder on one Collider
 * and on two, submitted once; every read() must answer for its own call (the one-shot call's
 * answer on the same broad phase). Each call leases a recorder of its own (ResidentPool), given
 * back once its read() saw it run.
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from '../support/gpu.js';
import { uniformScene, clusteredScene, sceneBoundsOf } from '../support/scenes.js';
import { mulberry32 } from '../support/random.js';
import { sortPairs } from '../../src/reference/spherePairs.js';
import { validateCasts } from '../../src/validate.js';
import { createCollider, type Collider } from '../../src/collider.js';
import type { EncodedPairs, EncodedHits, ResidentPool } from '../../src/resident.js';
import type { RaycastResult, SphereCastResult, RaycastAllHits } from '../../src/castQueries.js';
import { BufferUsage, MapMode } from '../../src/gpu/flags.js';
import { workDone } from '../../src/gpu/wait.js';
import { BROADPHASE_NAMES } from '../../src/broadphase/registry.js';

const gpu = useGpu();

function storage(data: Float32Array | Uint32Array): GPUBuffer {
  const buffer = gpu.device.createBuffer({
    size: Math.max(data.byteLength, 16),
    usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST,
  });
  gpu.device.queue.writeBuffer(buffer, 0, data);
  return buffer;
}

function poolOf(collider: Collider): ResidentPool {
  return (collider as unknown as { resident: ResidentPool }).resident;
}

/** A kernel of the caller's: per pair (i, j) below the true count, counts i < j, all pairs, and sums i + j (mod 2^32). */
function pairConsumer(): {
  pipeline: GPUComputePipeline;
  record: (encoder: GPUCommandEncoder, result: EncodedPairs, seen: GPUBuffer) => void;
} {
  const module = gpu.device.createShaderModule({
    code: /* wgsl */ `
      @group(0) @binding(0) var<storage, read> pairs: array<vec2u>;
      @group(0) @binding(1) var<storage, read> counter: array<u32>;
      @group(0) @binding(2) var<storage, read_write> seen: array<atomic<u32>, 3>;
      @compute @workgroup_size(64)
      fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
        let k = (wid.x + wid.y * nwg.x) * 64u + lid;
        if (k < counter[0] && k < arrayLength(&pairs)) {
          let p = pairs[k];
          if (p.x < p.y) { atomicAdd(&seen[0], 1u); }
          atomicAdd(&seen[1], 1u);
          atomicAdd(&seen[2], p.x + p.y);
        }
      }`,
  });
  const pipeline = gpu.device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
  return {
    pipeline,
    record(encoder, result, seen) {
      const pass = encoder.beginComputePass({ label: 'caller pair consumer' });
      pass.setPipeline(pipeline);
      pass.setBindGroup(
        0,
        gpu.device.createBindGroup({
          layout: pipeline.getBindGroupLayout(0),
          entries: [
            { binding: 0, resource: { buffer: result.pairs } },
            { binding: 1, resource: { buffer: result.counter } },
            { binding: 2, resource: { buffer: seen } },
          ],
        }),
      );
      pass.dispatchWorkgroupsIndirect(result.dispatch, 0);
      pass.end();
    },
  };
}

async function readWords(buffer: GPUBuffer, words: number): Promise<number[]> {
  const staging = gpu.device.createBuffer({ size: 4 * words, usage: BufferUsage.COPY_DST | BufferUsage.MAP_READ });
  const encoder = gpu.device.createCommandEncoder();
  encoder.copyBufferToBuffer(buffer, 0, staging, 0, 4 * words);
  gpu.device.queue.submit([encoder.finish()]);
  await staging.mapAsync(MapMode.READ);
  const out = Array.from(new Uint32Array(staging.getMappedRange().slice(0)));
  staging.unmap();
  staging.destroy();
  return out;
}

/** What the consumer must have seen for these pairs: i < j count, pair count, sum of indices mod 2^32. */
function consumed(pairs: Uint32Array): number[] {
  let sum = 0;
  for (let k = 0; k < pairs.length; k++) sum = (sum + pairs[k]) >>> 0;
  return [pairs.length / 2, pairs.length / 2, sum];
}

function sameHits(got: RaycastResult | SphereCastResult, want: RaycastResult | SphereCastResult): void {
  expect(Array.from(got.index)).toEqual(Array.from(want.index));
  expect(Array.from(got.distance)).toEqual(Array.from(want.distance));
}

describe('encoded calls sharing one submission', () => {
  const spheresA = uniformScene(2500, { seed: 3801 });
  const spheresB = clusteredScene(1500, { seed: 3802 });
  const sceneA = sceneBoundsOf(spheresA);
  const sceneB = sceneBoundsOf(spheresB);
  const rand = mulberry32(3803);
  const side = sceneA.max[0];
  const rays = new Float32Array(6 * 400).map(() => rand() * side);
  const casts = new Float32Array(7 * 300).map((_, k) => (k % 7 === 6 ? rand() * 0.5 : rand() * side));

  for (const [pairsPhase, castPhase] of [
    ['grid', 'grid'],
    ['sweep', 'bvh'],
    ['bvh', 'all-pairs'],
  ] as const) {
    it(`pairs, a kernel consuming them, raycasts (nearest and all hits) and sphere casts in one encoder, one collider: every read() answers for its call (pairs ${pairsPhase}, casts ${castPhase}; seeds 3801, 3803)`, async () => {
      const sphereBuffer = storage(spheresA);
      const rayBuffer = storage(validateCasts('rays', rays, 6).packed);
      const castBuffer = storage(validateCasts('casts', casts, 7).packed);
      const seen = storage(new Uint32Array(4));
      const consumer = pairConsumer();
      const encoder = gpu.device.createCommandEncoder();
      const pairs = gpu.collider.encodeSpherePairs(
        encoder,
        { buffer: sphereBuffer, count: 2500 },
        { scene: sceneA, broadphase: pairsPhase },
      );
      consumer.record(encoder, pairs, seen);
      const ray = gpu.collider.encodeRaycast(
        encoder,
        { buffer: rayBuffer, count: 400 },
        { buffer: sphereBuffer, count: 2500 },
        { scene: sceneA, broadphase: castPhase },
      );
      const allRay = gpu.collider.encodeRaycast(
        encoder,
        { buffer: rayBuffer, count: 400 },
        { buffer: sphereBuffer, count: 2500 },
        { scene: sceneA, broadphase: castPhase, allHits: true },
      );
      const cast = gpu.collider.encodeSphereCast(
        encoder,
        { buffer: castBuffer, count: 300 },
        { buffer: sphereBuffer, count: 2500 },
        { scene: sceneA, broadphase: castPhase },
      );
      gpu.device.queue.submit([encoder.finish()]);
      await workDone(gpu.device);

      const expected = await gpu.collider.spherePairs(spheresA, { broadphase: pairsPhase });
      expect(expected.length).toBeGreaterThan(200);
      expect(sortPairs(await pairs.read())).toEqual(sortPairs(expected));
      expect(await readWords(seen, 3)).toEqual(consumed(expected));
      const oneRay = await gpu.collider.raycast(rays, spheresA, { broadphase: castPhase });
      expect(oneRay.index.filter((i) => i >= 0).length).toBeGreaterThan(50);
      sameHits(await ray.read(), oneRay);
      const oneAll = await gpu.collider.raycast(rays, spheresA, { broadphase: castPhase, allHits: true });
      const all = (await allRay.read()) as RaycastAllHits;
      expect(Array.from(all.offsets)).toEqual(Array.from(oneAll.offsets));
      expect(Array.from(all.index)).toEqual(Array.from(oneAll.index));
      const oneCast = await gpu.collider.sphereCast(casts, spheresA, { broadphase: castPhase });
      expect(oneCast.index.filter((i) => i >= 0).length).toBeGreaterThan(50);
      sameHits(await cast.read(), oneCast);
      for (const r of [pairs, ray, allRay, cast]) r.destroy();
      for (const b of [sphereBuffer, rayBuffer, castBuffer, seen]) b.destroy();
    });
  }

  it('the same calls over two colliders, interleaved in one encoder, different scenes (seeds 3801–3803)', async () => {
    const second = await createCollider({ device: gpu.device });
    try {
      const bufferA = storage(spheresA);
      const bufferB = storage(spheresB);
      const rayBuffer = storage(validateCasts('rays', rays, 6).packed);
      const castBuffer = storage(validateCasts('casts', casts, 7).packed);
      const seenA = storage(new Uint32Array(4));
      const seenB = storage(new Uint32Array(4));
      const consumer = pairConsumer();
      const encoder = gpu.device.createCommandEncoder();
      const pairsA = gpu.collider.encodeSpherePairs(
        encoder,
        { buffer: bufferA, count: 2500 },
        { scene: sceneA, broadphase: 'grid' },
      );
      const pairsB = second.encodeSpherePairs(
        encoder,
        { buffer: bufferB, count: 1500 },
        { scene: sceneB, broadphase: 'grid' },
      );
      const rayB = second.encodeRaycast(
        encoder,
        { buffer: rayBuffer, count: 400 },
        { buffer: bufferB, count: 1500 },
        { scene: sceneB, broadphase: 'grid' },
      );
      consumer.record(encoder, pairsA, seenA);
      const rayA = gpu.collider.encodeRaycast(
        encoder,
        { buffer: rayBuffer, count: 400 },
        { buffer: bufferA, count: 2500 },
        { scene: sceneA, broadphase: 'grid' },
      );
      consumer.record(encoder, pairsB, seenB);
      const castA = gpu.collider.encodeSphereCast(
        encoder,
        { buffer: castBuffer, count: 300 },
        { buffer: bufferA, count: 2500 },
        { scene: sceneA, broadphase: 'bvh' },
      );
      const castB = second.encodeSphereCast(
        encoder,
        { buffer: castBuffer, count: 300 },
        { buffer: bufferB, count: 1500 },
        { scene: sceneB, broadphase: 'bvh' },
      );
      gpu.device.queue.submit([encoder.finish()]);

      const expectedA = await gpu.collider.spherePairs(spheresA, { broadphase: 'grid' });
      const expectedB = await second.spherePairs(spheresB, { broadphase: 'grid' });
      expect(expectedB.length).toBeGreaterThan(200);
      expect(sortPairs(await pairsA.read())).toEqual(sortPairs(expectedA));
      expect(sortPairs(await pairsB.read())).toEqual(sortPairs(expectedB));
      expect(await readWords(seenA, 3)).toEqual(consumed(expectedA));
      expect(await readWords(seenB, 3)).toEqual(consumed(expectedB));
      sameHits(await rayA.read(), await gpu.collider.raycast(rays, spheresA, { broadphase: 'grid' }));
      sameHits(await rayB.read(), await second.raycast(rays, spheresB, { broadphase: 'grid' }));
      sameHits(await castA.read(), await gpu.collider.sphereCast(casts, spheresA, { broadphase: 'bvh' }));
      sameHits(await castB.read(), await second.sphereCast(casts, spheresB, { broadphase: 'bvh' }));
      for (const r of [pairsA, pairsB, rayA, rayB, castA, castB]) r.destroy();
      for (const b of [bufferA, bufferB, rayBuffer, castBuffer, seenA, seenB]) b.destroy();
    } finally {
      second.destroy();
    }
  });

  for (const broadphase of BROADPHASE_NAMES) {
    it(`two spherePairs of different scenes in one encoder, the larger second; frames encoded into the same results make no new recorder (${broadphase}; seeds 3801, 3802)`, async () => {
      const collider = await createCollider({ device: gpu.device });
      try {
        const small = spheresB.subarray(0, 4 * 600);
        const bufferSmall = storage(small);
        const bufferA = storage(spheresA);
        const expectedSmall = sortPairs(await collider.spherePairs(small, { broadphase }));
        const expectedA = sortPairs(await collider.spherePairs(spheresA, { broadphase }));
        let first: EncodedPairs | undefined;
        let second: EncodedPairs | undefined;
        for (let frame = 0; frame < 3; frame++) {
          const encoder = gpu.device.createCommandEncoder();
          // Frame 1 swaps the scenes between the results.
          const [x, y] = frame === 1 ? [bufferA, bufferSmall] : [bufferSmall, bufferA];
          const [nx, ny] = frame === 1 ? [2500, 600] : [600, 2500];
          const [sx, sy] = frame === 1 ? [sceneA, sceneBoundsOf(small)] : [sceneBoundsOf(small), sceneA];
          first = collider.encodeSpherePairs(encoder, { buffer: x, count: nx }, { scene: sx, broadphase, into: first });
          second = collider.encodeSpherePairs(
            encoder,
            { buffer: y, count: ny },
            { scene: sy, broadphase, into: second },
          );
          gpu.device.queue.submit([encoder.finish()]);
          const [wantFirst, wantSecond] = frame === 1 ? [expectedA, expectedSmall] : [expectedSmall, expectedA];
          expect(sortPairs(await second.read())).toEqual(wantSecond);
          expect(sortPairs(await first.read())).toEqual(wantFirst);
          // Read, both recorders are free again; the next frame takes them back.
          expect([poolOf(collider).size, poolOf(collider).idle]).toEqual([2, 2]);
        }
        first!.destroy();
        second!.destroy();
        bufferSmall.destroy();
        bufferA.destroy();
      } finally {
        collider.destroy();
      }
    });
  }

  it('a result encoded into every frame, never read, keeps its recorder: no new one (seed 3801)', async () => {
    const collider = await createCollider({ device: gpu.device });
    try {
      const buffer = storage(spheresA);
      const rayBuffer = storage(validateCasts('rays', rays, 6).packed);
      let pairs: EncodedPairs | undefined;
      let hits: EncodedHits | undefined;
      for (let frame = 0; frame < 3; frame++) {
        const encoder = gpu.device.createCommandEncoder();
        pairs = collider.encodeSpherePairs(encoder, { buffer, count: 2500 }, { scene: sceneA, into: pairs });
        hits = collider.encodeRaycast(
          encoder,
          { buffer: rayBuffer, count: 400 },
          { buffer, count: 2500 },
          { scene: sceneA, into: hits },
        );
        gpu.device.queue.submit([encoder.finish()]);
        expect([poolOf(collider).size, poolOf(collider).idle]).toEqual([2, 0]);
      }
      expect(sortPairs(await pairs!.read())).toEqual(sortPairs(await collider.spherePairs(spheresA)));
      pairs!.destroy();
      hits!.destroy();
      expect(poolOf(collider).idle).toBe(2);
      buffer.destroy();
      rayBuffer.destroy();
    } finally {
      collider.destroy();
    }
  });
});
