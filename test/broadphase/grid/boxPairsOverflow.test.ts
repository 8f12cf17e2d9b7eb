/**
 * The grid's box kernel (boxGridPairs, shaders/broadphase/grid/boxes.wgsl.ts) past the pair list's
 * capacity: the counter counts every pair, only those that fit are written, and a list that
 * overflowed grows and reruns to exactly all-pairs' set. A scene where boxes find many pairs
 * each (groups of spheres at one centre, as the bench's coincident scene), AABBs and oriented
 * boxes, the one-shot and the resident paths, capacities from 1 to one pair short.
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from '../../support/gpu.js';
import { mulberry32 } from '../../support/random.js';
import { sceneBoundsOf } from '../../support/scenes.js';
import { sortPairs } from '../../../src/reference/spherePairs.js';
import { createCollider } from '../../../src/collider.js';
import { CapacityError } from '../../../src/errors.js';
import { validateAabbs, validateOrientedBoxes } from '../../../src/validate.js';
import { BufferUsage } from '../../../src/gpu/flags.js';
import { workDone } from '../../../src/gpu/wait.js';
import type { EncodedPairs } from '../../../src/resident.js';

const gpu = useGpu();

/** Groups of 7 spheres at one centre (a coincident scene in small), 301 groups. */
function coincidentSpheres(seed: number): Float32Array {
  const rand = mulberry32(seed);
  const groups = 301;
  const out = new Float32Array(4 * 7 * groups);
  for (let g = 0; g < groups; g++) {
    const c = [rand() * 40, rand() * 40, rand() * 40];
    for (let i = 0; i < 7; i++) out.set([...c, 0.2 + rand() * 0.8], 4 * (7 * g + i));
  }
  return out;
}

function aabbsOver(m: number, seed: number): Float32Array {
  const rand = mulberry32(seed);
  const out = new Float32Array(6 * m);
  for (let k = 0; k < m; k++) {
    const min = [rand() * 36, rand() * 36, rand() * 36];
    out.set([...min, ...min.map((v) => v + rand() * 14)], 6 * k);
  }
  return out;
}

function obbsOver(m: number, seed: number): Float32Array {
  const rand = mulberry32(seed);
  const out = new Float32Array(10 * m);
  for (let k = 0; k < m; k++) {
    out.set(
      [
        rand() * 40,
        rand() * 40,
        rand() * 40,
        rand() * 7,
        rand() * 7,
        rand() * 7,
        rand() - 0.5,
        rand() - 0.5,
        rand() - 0.5,
        rand() - 0.5,
      ],
      10 * k,
    );
  }
  return out;
}

function storage(data: Float32Array): GPUBuffer {
  const buffer = gpu.device.createBuffer({
    size: Math.max(4 * data.length, 16),
    usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST,
  });
  gpu.device.queue.writeBuffer(buffer, 0, data);
  return buffer;
}

async function submit(record: (encoder: GPUCommandEncoder) => void): Promise<void> {
  const encoder = gpu.device.createCommandEncoder();
  record(encoder);
  gpu.device.queue.submit([encoder.finish()]);
  await workDone(gpu.device);
}

describe('grid box pairs past capacity: the true count, then the exact set', () => {
  const spheres = coincidentSpheres(3601);
  const aabbs = aabbsOver(1000, 3602);
  const obbs = obbsOver(1000, 3603);

  for (const kind of ['aabb', 'obb'] as const) {
    const query = (
      collider: Awaited<ReturnType<typeof createCollider>>,
      options: { broadphase: 'grid' | 'all-pairs'; maxPairs?: number },
    ) =>
      kind === 'aabb'
        ? collider.sphereBoxPairs(spheres, aabbs, options)
        : collider.sphereOrientedBoxPairs(spheres, obbs, options);

    it(`${kind}: maxPairs throws the true count; a fresh list overflows, grows and reruns to all-pairs' set (seed 3601)`, async () => {
      const expected = sortPairs(await query(gpu.collider, { broadphase: 'all-pairs' }));
      const total = expected.length / 2;
      expect(total).toBeGreaterThan(3 * 4096); // several times a fresh collider's first list
      const fresh = await createCollider({ device: gpu.device });
      try {
        expect(sortPairs(await query(fresh, { broadphase: 'grid' }))).toEqual(expected);
        for (const maxPairs of [1, 7, 4096, total - 1]) {
          const error = await query(fresh, { broadphase: 'grid', maxPairs }).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(CapacityError);
          expect((error as CapacityError).count).toBe(total);
        }
        expect(sortPairs(await query(fresh, { broadphase: 'grid', maxPairs: total }))).toEqual(expected);
      } finally {
        fresh.destroy();
      }
    });

    it(`${kind}, resident: past a capacity of 10 the true count; encoding into it again grows it to the exact set (seed 3601)`, async () => {
      const expected = sortPairs(await query(gpu.collider, { broadphase: 'all-pairs' }));
      const total = expected.length / 2;
      const sphereBuffer = storage(spheres);
      const boxBuffer =
        kind === 'aabb' ? storage(validateAabbs('aabbs', aabbs)) : storage(validateOrientedBoxes('boxes', obbs));
      const scene = sceneBoundsOf(spheres);
      const encode = (encoder: GPUCommandEncoder, options: { capacity?: number; into?: EncodedPairs }): EncodedPairs =>
        kind === 'aabb'
          ? gpu.collider.encodeSphereBoxPairs(
              encoder,
              { buffer: sphereBuffer, count: spheres.length / 4 },
              { buffer: boxBuffer, count: 1000 },
              { scene, broadphase: 'grid', ...options },
            )
          : gpu.collider.encodeSphereOrientedBoxPairs(
              encoder,
              { buffer: sphereBuffer, count: spheres.length / 4 },
              { buffer: boxBuffer, count: 1000 },
              { scene, broadphase: 'grid', ...options },
            );
      try {
        for (const capacity of [10]) {
          let result!: EncodedPairs;
          await submit((encoder) => {
            result = encode(encoder, { capacity });
          });
          const error = await result.read().catch((e: unknown) => e);
          expect(error).toBeInstanceOf(CapacityError);
          expect((error as CapacityError).count).toBe(total);
          const again = result;
          await submit((encoder) => {
            result = encode(encoder, { into: again });
          });
          expect(result).toBe(again);
          expect(sortPairs(await result.read())).toEqual(expected);
          result.destroy();
        }
      } finally {
        sphereBuffer.destroy();
        boxBuffer.destroy();
      }
    });
  }
});
