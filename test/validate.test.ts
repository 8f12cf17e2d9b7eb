/** Every bad-input rule of docs/CONTRACT.md for spherePairs: a typed error naming argument, record and rule. */
import { describe, it, expect } from 'vitest';
import { useGpu } from './support/gpu.js';
import { InvalidInputError, CapacityError } from '../src/errors.js';
import { validateSpheres } from '../src/validate.js';
import { RULES } from '../src/checks.js';
import { createCollider } from '../src/collider.js';
import { createParticleWorld } from '../src/particles/index.js';
import { sortPairs } from '../src/reference/spherePairs.js';
import { PAIR_SCENES } from '../bench/scenes.js';
import { sceneBoundsOf } from './support/scenes.js';

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
  for (const [what, value] of [
    ['an Array', [0, 0, 0, 1]],
    ['a Float64Array', new Float64Array(4)],
    ['null', null],
    ['undefined', undefined],
    ['a string', 'spheres'],
  ] as const) {
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
    expect(gpu.collider.limits.maxSpheres).toBe(
      Math.floor(Math.min(gpu.device.limits.maxStorageBufferBindingSize, gpu.device.limits.maxBufferSize) / 16),
    );
  });
});

describe('the statistics validation gathers', () => {
  // The scene's bounds and largest radius come from the per-octave ones after the pass: the
  // same values a pass over the spheres finds, on every bench scene kind.
  for (const kind of Object.keys(PAIR_SCENES)) {
    it(`bounds and largest radius, ${kind}`, () => {
      const spheres = PAIR_SCENES[kind].make(5000);
      const { min, max, maxRadius } = sceneBoundsOf(spheres);
      const stats = validateSpheres('spheres', spheres);
      // == rather than toEqual: −0 and +0 are the same bound.
      for (let a = 0; a < 3; a++) {
        expect(stats.min[a] === min[a], `min ${a}`).toBe(true);
        expect(stats.max[a] === max[a], `max ${a}`).toBe(true);
      }
      expect(stats.maxRadius).toBe(maxRadius);
    });
  }

  it('no spheres: empty bounds, radius 0', () => {
    const stats = validateSpheres('spheres', new Float32Array(0));
    expect(stats.min).toEqual([Infinity, Infinity, Infinity]);
    expect(stats.max).toEqual([-Infinity, -Infinity, -Infinity]);
    expect(stats.maxRadius).toBe(0);
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
  // A fractional levelStep used to drop pairs silently, 0 to throw a raw TypeError.
  for (const [grid, argument] of [
    [{ levelStep: 1.5 }, 'options.grid.levelStep'],
    [{ levelStep: 0 }, 'options.grid.levelStep'],
    [{ levelStep: 9 }, 'options.grid.levelStep'],
    [{ levelStep: '2' }, 'options.grid.levelStep'],
    [{ denseFactor: -1 }, 'options.grid.denseFactor'],
    [{ denseFactor: NaN }, 'options.grid.denseFactor'],
    [42, 'options.grid'],
  ] as const) {
    it(`createCollider and createParticleWorld reject grid ${JSON.stringify(grid)}`, async () => {
      for (const create of [
        () => createCollider({ device: gpu.device, grid: grid as never }),
        () => createParticleWorld({ device: gpu.device, capacity: 4, grid: grid as never }),
      ]) {
        const error = await create().then(
          () => new Error('expected a rejection'),
          (e: unknown) => e,
        );
        expectInvalid(error, argument, -1, RULES.option);
      }
    });
  }
  it('accepts every integer levelStep 1–8 and finds the same pairs with each', async () => {
    const spheres = good();
    const expected = sortPairs(await gpu.collider.spherePairs(spheres, { broadphase: 'all-pairs' }));
    for (let levelStep = 1; levelStep <= 8; levelStep++) {
      const collider = await createCollider({ device: gpu.device, grid: { levelStep } });
      expect(sortPairs(await collider.spherePairs(spheres, { broadphase: 'grid' })), `levelStep ${levelStep}`).toEqual(
        expected,
      );
      collider.destroy();
    }
  });
});

describe('box, ray and cast validation', () => {
  const spheres = good();
  const call = {
    aabbs: (v: unknown) => gpu.collider.sphereBoxPairs(spheres, v as Float32Array),
    boxes: (v: unknown) => gpu.collider.sphereOrientedBoxPairs(spheres, v as Float32Array),
    rays: (v: unknown) => gpu.collider.raycast(v as Float32Array, spheres),
    casts: (v: unknown) => gpu.collider.sphereCast(v as Float32Array, spheres),
  };
  const valid = {
    aabbs: () => new Float32Array([0, 0, 0, 1, 1, 1, -1, -1, -1, 0, 0, 0]),
    boxes: () => new Float32Array([0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 5, 5, 5, 1, 2, 3, 0.1, 0.2, 0.3, 0.4]),
    rays: () => new Float32Array([0, 0, 0, 1, 1, 1, 5, 5, 5, 6, 6, 6]),
    casts: () => new Float32Array([0, 0, 0, 1, 1, 1, 0.5, 5, 5, 5, 6, 6, 6, 0]),
  };
  const strides = { aabbs: 6, boxes: 10, rays: 6, casts: 7 };
  const reject = (fn: (v: unknown) => Promise<unknown>, v: unknown): Promise<unknown> =>
    fn(v).then(
      () => new Error('expected a rejection'),
      (e: unknown) => e,
    );

  for (const arg of ['aabbs', 'boxes', 'rays', 'casts'] as const) {
    it(`${arg}: must be a Float32Array of whole records, all finite`, async () => {
      expectInvalid(await reject(call[arg], [0, 0, 0, 1, 1, 1]), arg, -1, RULES.type);
      expectInvalid(await reject(call[arg], new Float32Array(strides[arg] + 1)), arg, -1, RULES.stride);
      for (const field of [0, strides[arg] - 1]) {
        for (const bad of [NaN, Infinity, -Infinity]) {
          const v = valid[arg]();
          v[strides[arg] + field] = bad;
          expectInvalid(await reject(call[arg], v), arg, 1, RULES.finite);
        }
      }
    });
  }

  it('aabbs: min > max on any axis is rejected, min == max is a valid flat box', async () => {
    for (const axis of [0, 1, 2]) {
      const v = valid.aabbs();
      v[6 + axis] = 1; // min of record 1 above its max (0)
      expectInvalid(await reject(call.aabbs, v), 'aabbs', 1, RULES.minMax);
    }
    expect((await gpu.collider.sphereBoxPairs(spheres, new Float32Array([1, 0, 0, 1, 0, 0]))).length).toBeGreaterThan(
      0,
    );
  });

  it('boxes: negative half extents and a zero quaternion are rejected', async () => {
    for (const field of [3, 4, 5]) {
      const v = valid.boxes();
      v[10 + field] = -0.5;
      expectInvalid(await reject(call.boxes, v), 'boxes', 1, RULES.halfExtent);
    }
    const v = valid.boxes();
    v.fill(0, 16, 20);
    expectInvalid(await reject(call.boxes, v), 'boxes', 1, RULES.quaternion);
  });

  it('casts: a negative radius is rejected', async () => {
    const v = valid.casts();
    v[13] = -1;
    expectInvalid(await reject(call.casts, v), 'casts', 1, RULES.radius);
  });

  it('spheres are checked for the queries too', async () => {
    const bad = good();
    bad[5] = NaN;
    expectInvalid(await gpu.collider.raycast(valid.rays(), bad).catch((e) => e), 'spheres', 1, RULES.finite);
    expectInvalid(await gpu.collider.sphereBoxPairs(bad, valid.aabbs()).catch((e) => e), 'spheres', 1, RULES.finite);
  });

  it('maxHits bounds allHits calls only: nearest hits come back whatever it is', async () => {
    // One ray that misses everything: nearest hits are one record a cast, hit or miss.
    const miss = new Float32Array([100, 100, 100, 101, 100, 100]);
    const nearest = await gpu.collider.raycast(miss, spheres, { maxHits: 0 });
    expect(Array.from(nearest.index)).toEqual([-1]);
    const cast = await gpu.collider.sphereCast(new Float32Array([100, 100, 100, 101, 100, 100, 0.5]), spheres, {
      maxHits: 0,
    });
    expect(Array.from(cast.index)).toEqual([-1]);
    const all = await gpu.collider.raycast(miss, spheres, { allHits: true, maxHits: 0 });
    expect(all.index.length).toBe(0);
  });

  it('an options argument that is not an object (null, a number) is an option error, not a TypeError', async () => {
    const rays = valid.rays();
    for (const options of [null, 7, 'fast']) {
      expectInvalid(
        await gpu.collider.spherePairs(spheres, options as never).catch((e) => e),
        'options',
        -1,
        RULES.option,
      );
      expectInvalid(
        await gpu.collider.sphereBoxPairs(spheres, valid.aabbs(), options as never).catch((e) => e),
        'options',
        -1,
        RULES.option,
      );
      expectInvalid(
        await gpu.collider.sphereOrientedBoxPairs(spheres, valid.boxes(), options as never).catch((e) => e),
        'options',
        -1,
        RULES.option,
      );
      expectInvalid(
        await gpu.collider.raycast(rays, spheres, options as never).catch((e) => e),
        'options',
        -1,
        RULES.option,
      );
      expectInvalid(
        await gpu.collider.sphereCast(valid.casts(), spheres, options as never).catch((e) => e),
        'options',
        -1,
        RULES.option,
      );
      expectInvalid(await createCollider(options as never).catch((e) => e), 'options', -1, RULES.option);
    }
  });

  it('createCollider checks maxBindingBytes (an integer ≥ 16) and maxWorkgroupsPerDimension (an integer ≥ 1)', async () => {
    for (const maxBindingBytes of [NaN, 'x', -1, 0, 15, 100.5]) {
      expectInvalid(
        await createCollider({ device: gpu.device, maxBindingBytes: maxBindingBytes as never }).catch((e) => e),
        'options.maxBindingBytes',
        -1,
        RULES.option,
      );
    }
    for (const maxWorkgroupsPerDimension of [NaN, 'x', -1, 0, 1.5]) {
      expectInvalid(
        await createCollider({
          device: gpu.device,
          maxWorkgroupsPerDimension: maxWorkgroupsPerDimension as never,
        }).catch((e) => e),
        'options.maxWorkgroupsPerDimension',
        -1,
        RULES.option,
      );
      const world = await createParticleWorld({
        device: gpu.device,
        capacity: 4,
        maxWorkgroupsPerDimension: maxWorkgroupsPerDimension as never,
      }).catch((e) => e);
      expectInvalid(world, 'options.maxWorkgroupsPerDimension', -1, RULES.option);
    }
  });

  it('query options: broadphase, allHits, maxHits', async () => {
    const rays = valid.rays();
    expectInvalid(
      await gpu.collider.raycast(rays, spheres, { broadphase: 'octree' as never }).catch((e) => e),
      'options.broadphase',
      -1,
      RULES.option,
    );
    expectInvalid(
      await gpu.collider.raycast(rays, spheres, { allHits: 1 as never }).catch((e) => e),
      'options.allHits',
      -1,
      RULES.option,
    );
    expectInvalid(
      await gpu.collider.raycast(rays, spheres, { allHits: true, maxHits: -2 }).catch((e) => e),
      'options.maxHits',
      -1,
      RULES.option,
    );
    expectInvalid(
      await gpu.collider.sphereBoxPairs(spheres, valid.aabbs(), { maxPairs: 0.5 }).catch((e) => e),
      'options.maxPairs',
      -1,
      RULES.option,
    );
  });
});
