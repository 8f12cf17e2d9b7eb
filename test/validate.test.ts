/** Every bad-input rule of DESIGN.md for spherePairs: a typed error naming argument, record and rule. */
import { describe, it, expect } from 'vitest';
import { useGpu } from './support/gpu.js';
import { InvalidInputError, CapacityError } from '../src/errors.js';
import { RULES, validateSpheres } from '../src/validate.js';

const gpu = useGpu();

async function rejection(spheres: unknown, options?: unknown): Promise<unknown> {
  return gpu.collider.spherePairs(spheres as Float32Array, options as never).then(
    () => new Error('expected a rejection'),
    (error: unknown) => error,
  );
}

function expectInvalid(error: unknown, argument: string, index: number, rule: string): void {
  expect(error).toBeInstanceOf(InvalidInputError);
  const e = error as InvalidInputError;
  expect({ argument: e.argument, index: e.index, rule: e.rule }).toEqual({ argument, index, rule });
  expect(e.message).toContain(argument);
  expect(e.message).toContain(rule);
}

const good = (): Float32Array => new Float32Array([0, 0, 0, 1, 1, 0, 0, 1, 5, 5, 5, 2]);

describe('sphere input validation', () => {
  for (const [what, value] of [['an Array', [0, 0, 0, 1]], ['a Float64Array', new Float64Array(4)], ['null', null], ['undefined', undefined], ['a string', 'spheres']] as const) {
    it(`rejects ${what}: must be a Float32Array`, async () => {
      expectInvalid(await rejection(value), 'spheres', -1, RULES.type);
    });
  }

  it('rejects a length that is not a multiple of 4', async () => {
    expectInvalid(await rejection(new Float32Array(7)), 'spheres', -1, RULES.stride);
  });

  for (const field of [0, 1, 2, 3]) {
    for (const bad of [NaN, Infinity, -Infinity]) {
      it(`rejects ${bad} in field ${['x', 'y', 'z', 'radius'][field]} of record 2`, async () => {
        const spheres = good();
        spheres[8 + field] = bad;
        expectInvalid(await rejection(spheres), 'spheres', 2, RULES.finite);
      });
    }
  }

  it('rejects a negative radius, naming the record', async () => {
    const spheres = good();
    spheres[7] = -0.5;
    expectInvalid(await rejection(spheres), 'spheres', 1, RULES.radius);
  });

  it('accepts radius 0 and -0', async () => {
    const spheres = new Float32Array([0, 0, 0, 0, 0, 0, 0, -0]);
    expect(Array.from(await gpu.collider.spherePairs(spheres))).toEqual([0, 1]);
  });

  it('rejects a detached buffer', async () => {
    const spheres = good();
    structuredClone(spheres.buffer, { transfer: [spheres.buffer] });
    expectInvalid(await rejection(spheres), 'spheres', -1, RULES.detached);
  });

  it('accepts a view into a larger buffer (byteOffset ≠ 0)', async () => {
    const backing = new Float32Array(20);
    backing.set(good(), 4);
    const pairs = await gpu.collider.spherePairs(backing.subarray(4, 16));
    expect(Array.from(pairs)).toEqual([0, 1]);
  });

  it('rejects more records than the device holds with CapacityError and the true count', () => {
    const error = (() => {
      try {
        validateSpheres('spheres', good(), 2);
      } catch (e) {
        return e;
      }
    })() as CapacityError;
    expect(error).toBeInstanceOf(CapacityError);
    expect([error.count, error.capacity]).toEqual([3, 2]);
    expect(gpu.collider.limits.maxSpheres).toBe(Math.floor(Math.min(gpu.device.limits.maxStorageBufferBindingSize, gpu.device.limits.maxBufferSize) / 16));
  });
});

describe('option validation', () => {
  it('rejects an unknown broad phase', async () => {
    expectInvalid(await rejection(good(), { broadphase: 'octree' }), 'options.broadphase', -1, RULES.option);
  });
  for (const maxPairs of [-1, 1.5, NaN, '10']) {
    it(`rejects maxPairs ${String(maxPairs)}`, async () => {
      expectInvalid(await rejection(good(), { maxPairs }), 'options.maxPairs', -1, RULES.option);
    });
  }
});
