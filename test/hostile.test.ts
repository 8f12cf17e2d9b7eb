/**
 * The hostile-input catalogue of docs/RELIABILITY.md, one test per row: every bad input gets a
 * typed error naming argument, record and rule, or a documented valid result; none crashes or
 * answers wrongly in silence.
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from './support/gpu.js';
import { InvalidInputError, CapacityError, DestroyedError } from '../src/errors.js';
import { BufferUsage } from '../src/gpu/flags.js';
import { thrown } from './support/thrown.js';
import { RULES, MAX_MAGNITUDE } from '../src/checks.js';
import { createCollider, type Collider } from '../src/collider.js';
import { bruteForceSpherePairs, sortPairs } from '../src/reference/spherePairs.js';
import { coincidentScene } from './support/scenes.js';

const gpu = useGpu();

const spheres = (): Float32Array => new Float32Array([0, 0, 0, 1, 1.5, 0, 0, 1, 10, 0, 0, 1]);
const aabbs = (): Float32Array => new Float32Array([0, 0, 0, 1, 1, 1, 5, 5, 5, 6, 6, 6]);
const boxes = (): Float32Array =>
  new Float32Array([0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 5, 5, 5, 1, 2, 3, 0.1, 0.2, 0.3, 0.4]);
const rays = (): Float32Array => new Float32Array([-5, 0, 0, 5, 0, 0, 5, 5, 5, 6, 6, 6]);
const casts = (): Float32Array => new Float32Array([-5, 0, 0, 5, 0, 0, 0.5, 5, 5, 5, 6, 6, 6, 0]);

type Call = (c: Collider, value: Float32Array) => Promise<unknown>;
/** Every argument of every call, with a valid value, its record stride and the call that takes it. */
const ARGUMENTS: { name: string; stride: number; valid: () => Float32Array; call: Call }[] = [
  { name: 'spheres', stride: 4, valid: spheres, call: (c, v) => c.spherePairs(v) },
  { name: 'aabbs', stride: 6, valid: aabbs, call: (c, v) => c.sphereBoxPairs(spheres(), v) },
  { name: 'boxes', stride: 10, valid: boxes, call: (c, v) => c.sphereOrientedBoxPairs(spheres(), v) },
  { name: 'rays', stride: 6, valid: rays, call: (c, v) => c.raycast(v, spheres()) },
  { name: 'casts', stride: 7, valid: casts, call: (c, v) => c.sphereCast(v, spheres()) },
];

async function rejection(promise: () => Promise<unknown>): Promise<unknown> {
  return Promise.resolve()
    .then(promise)
    .then(
      () => new Error('expected a rejection'),
      (e: unknown) => e,
    );
}

function expectInvalid(error: unknown, argument: string, index: number, rule: string): void {
  expect(error).toBeInstanceOf(InvalidInputError);
  const e = error as InvalidInputError;
  expect({ argument: e.argument, index: e.index, rule: e.rule }).toEqual({ argument, index, rule });
}

describe('hostile input catalogue (docs/RELIABILITY.md)', () => {
  it('1. not a Float32Array (Array, Float64Array, Uint8Array, null, a string): type, for every argument', async () => {
    for (const arg of ARGUMENTS) {
      for (const bad of [[0, 0, 0, 1], new Float64Array(arg.stride), new Uint8Array(4 * arg.stride), null, 'x']) {
        expectInvalid(await rejection(() => arg.call(gpu.collider, bad as never)), arg.name, -1, RULES.type);
      }
    }
  });

  it('2. a length that is not a whole number of records: stride, for every argument', async () => {
    for (const arg of ARGUMENTS)
      expectInvalid(
        await rejection(() => arg.call(gpu.collider, new Float32Array(arg.stride + 1))),
        arg.name,
        -1,
        RULES.stride,
      );
  });

  it('3–4. NaN, +Infinity or −Infinity in any field of any record: finite, naming the record', async () => {
    for (const arg of ARGUMENTS) {
      for (let field = 0; field < arg.stride; field++) {
        for (const bad of [NaN, Infinity, -Infinity]) {
          const v = arg.valid();
          v[arg.stride + field] = bad;
          expectInvalid(await rejection(() => arg.call(gpu.collider, v)), arg.name, 1, RULES.finite);
        }
      }
    }
  });

  it('5. a magnitude beyond 2^60 (squares would overflow f32): magnitude; 2^60 itself is valid', async () => {
    for (const arg of ARGUMENTS) {
      const v = arg.valid();
      v[arg.stride] = 2 ** 61;
      expectInvalid(await rejection(() => arg.call(gpu.collider, v)), arg.name, 1, RULES.magnitude);
    }
    const far = new Float32Array([MAX_MAGNITUDE, 0, 0, 1, MAX_MAGNITUDE, 1.5, 0, 1, -MAX_MAGNITUDE, 0, 0, 1]);
    expect(Array.from(await gpu.collider.spherePairs(far))).toEqual([0, 1]);
  });

  it('6. a negative radius (spheres, casts): radius; −0 and 0 are valid', async () => {
    const s = spheres();
    s[7] = -1;
    expectInvalid(await rejection(() => gpu.collider.spherePairs(s)), 'spheres', 1, RULES.radius);
    const c = casts();
    c[13] = -0.5;
    expectInvalid(await rejection(() => gpu.collider.sphereCast(c, spheres())), 'casts', 1, RULES.radius);
    expect(Array.from(await gpu.collider.spherePairs(new Float32Array([0, 0, 0, -0, 0, 0, 0, 0])))).toEqual([0, 1]);
  });

  it('7. a negative half extent: halfExtent; zero half extents (flat and point boxes) are valid', async () => {
    const b = boxes();
    b[14] = -1;
    expectInvalid(
      await rejection(() => gpu.collider.sphereOrientedBoxPairs(spheres(), b)),
      'boxes',
      1,
      RULES.halfExtent,
    );
    const flat = new Float32Array([0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    expect(Array.from(await gpu.collider.sphereOrientedBoxPairs(spheres(), flat))).toEqual([0, 0]);
  });

  it('8. an inverted AABB (min > max on an axis): minMax; min == max is a valid flat box', async () => {
    const a = aabbs();
    a[7] = 7; // min y of record 1 above its max (6)
    expectInvalid(await rejection(() => gpu.collider.sphereBoxPairs(spheres(), a)), 'aabbs', 1, RULES.minMax);
    expect(Array.from(await gpu.collider.sphereBoxPairs(spheres(), new Float32Array([2, 0, 0, 2, 0, 0])))).toEqual([
      1, 0,
    ]);
  });

  it('9. a zero quaternion: quaternion; tiny and huge unnormalised ones are normalised', async () => {
    const b = boxes();
    b.fill(0, 16, 20);
    expectInvalid(
      await rejection(() => gpu.collider.sphereOrientedBoxPairs(spheres(), b)),
      'boxes',
      1,
      RULES.quaternion,
    );
    const turn = (scale: number) =>
      new Float32Array([3, 0, 0, 2, 0.2, 0.2, 0, 0, Math.SQRT1_2 * scale, Math.SQRT1_2 * scale]);
    // A quarter turn about z makes the 2 × 0.2 × 0.2 box reach x = 3 ± 0.2 only: the sphere at 1.5 (r 1) misses, at 10 misses.
    for (const scale of [1e-30, 1, 1e30])
      expect(Array.from(await gpu.collider.sphereOrientedBoxPairs(spheres(), turn(scale)))).toEqual([]);
  });

  it('10. empty arrays, for every call and argument: empty results (casts against nothing all miss)', async () => {
    const empty = new Float32Array(0);
    expect((await gpu.collider.spherePairs(empty)).length).toBe(0);
    expect((await gpu.collider.sphereBoxPairs(empty, aabbs())).length).toBe(0);
    expect((await gpu.collider.sphereBoxPairs(spheres(), empty)).length).toBe(0);
    expect((await gpu.collider.sphereOrientedBoxPairs(empty, boxes())).length).toBe(0);
    expect((await gpu.collider.raycast(empty, spheres())).index.length).toBe(0);
    expect(Array.from((await gpu.collider.raycast(rays(), empty)).index)).toEqual([-1, -1]);
    expect(Array.from((await gpu.collider.sphereCast(casts(), empty, { allHits: true })).offsets)).toEqual([0, 0, 0]);
  });

  it('11. a detached buffer: detached, for every argument', async () => {
    for (const arg of ARGUMENTS) {
      const v = arg.valid();
      structuredClone(v.buffer, { transfer: [v.buffer] });
      expectInvalid(await rejection(() => arg.call(gpu.collider, v)), arg.name, -1, RULES.detached);
    }
  });

  it('12–13. a SharedArrayBuffer, or a view at an offset into a larger buffer: valid, the same answer', async () => {
    if (typeof SharedArrayBuffer === 'undefined') return; // browsers without cross-origin isolation
    const shared = new Float32Array(new SharedArrayBuffer(48));
    shared.set(spheres());
    expect(Array.from(await gpu.collider.spherePairs(shared))).toEqual([0, 1]);
    const big = new Float32Array(40);
    big.set(spheres(), 8);
    expect(Array.from(await gpu.collider.spherePairs(big.subarray(8, 20)))).toEqual([0, 1]);
    const sharedRays = new Float32Array(new SharedArrayBuffer(48));
    sharedRays.set(rays());
    expect(Array.from((await gpu.collider.raycast(sharedRays, spheres())).index)).toEqual([0, -1]);
  });

  it('14. more records than the device can bind: CapacityError with the true count, never a truncation', async () => {
    const small = await createCollider({ device: gpu.device, maxBindingBytes: 1024 }); // 64 spheres of 16 bytes
    try {
      const many = new Float32Array(4 * 65);
      const error = await rejection(() => small.spherePairs(many));
      expect(error).toBeInstanceOf(CapacityError);
      expect([
        (error as CapacityError).what,
        (error as CapacityError).count,
        (error as CapacityError).capacity,
      ]).toEqual(['spheres', 65, 64]);
      expect(((await rejection(() => small.raycast(new Float32Array(6 * 40), spheres()))) as CapacityError).count).toBe(
        40,
      ); // 32 hits of 32 bytes fit
      // The encoded calls keep the same limits.
      const buffer = gpu.device.createBuffer({ size: 48 * 33, usage: BufferUsage.STORAGE });
      const encoder = gpu.device.createCommandEncoder();
      try {
        const scene = { min: [0, 0, 0] as const, max: [1, 1, 1] as const, maxRadius: 1 };
        const encoded = thrown(() => small.encodeSpherePairs(encoder, { buffer, count: 65 }, { scene }));
        expect(encoded).toBeInstanceOf(CapacityError);
        expect([(encoded as CapacityError).count, (encoded as CapacityError).capacity]).toEqual([65, 64]);
        expect(
          () => small.encodeSpherePairs(encoder, { buffer, count: 64 }, { scene, capacity: 129 }),
          '129 pairs of 8 bytes pass 1 kB',
        ).toThrow(InvalidInputError);
        // Boxes and casts by their own limits: 21 boxes (maxBoxes), 32 casts (maxCasts) in 1 kB.
        const records = (call: () => unknown): [number, number] => {
          const e = thrown(call);
          expect(e).toBeInstanceOf(CapacityError);
          return [(e as CapacityError).count, (e as CapacityError).capacity];
        };
        expect([small.limits.maxBoxes, small.limits.maxCasts]).toEqual([21, 32]);
        expect(
          records(() => small.encodeSphereBoxPairs(encoder, { buffer, count: 1 }, { buffer, count: 22 }, { scene })),
        ).toEqual([22, 21]);
        expect(
          records(() =>
            small.encodeSphereOrientedBoxPairs(encoder, { buffer, count: 1 }, { buffer, count: 22 }, { scene }),
          ),
        ).toEqual([22, 21]);
        expect(
          records(() => small.encodeRaycast(encoder, { buffer, count: 33 }, { buffer, count: 1 }, { scene })),
        ).toEqual([33, 32]);
        expect(
          records(() => small.encodeSphereCast(encoder, { buffer, count: 33 }, { buffer, count: 1 }, { scene })),
        ).toEqual([33, 32]);
      } finally {
        encoder.finish();
        buffer.destroy();
      }
    } finally {
      small.destroy();
    }
  });

  it('15. more pairs than maxPairs or than one buffer holds: CapacityError with the true count', async () => {
    const scene = coincidentScene(40); // 780 pairs
    const error = await rejection(() => gpu.collider.spherePairs(scene, { maxPairs: 779 }));
    expect((error as CapacityError).count).toBe(780);
    const small = await createCollider({ device: gpu.device, maxBindingBytes: 4096 }); // 512 pairs of 8 bytes
    try {
      const full = await rejection(() => small.spherePairs(scene, { broadphase: 'grid' }));
      expect(full).toBeInstanceOf(CapacityError);
      expect([(full as CapacityError).count, (full as CapacityError).capacity]).toEqual([780, 512]);
      expect(sortPairs(await small.spherePairs(coincidentScene(32)))).toEqual(
        bruteForceSpherePairs(coincidentScene(32)),
      ); // 496 fit
    } finally {
      small.destroy();
    }
  });

  it('16. more hits than maxHits or than one buffer holds: CapacityError with the true count', async () => {
    const scene = coincidentScene(100, {}, 1); // 100 spheres at (1, 2, 3): a ray through there hits them all
    const through = new Float32Array([-5, 2, 3, 5, 2, 3, 1, -5, 3, 1, 5, 3]);
    const error = await rejection(() => gpu.collider.raycast(through, scene, { allHits: true, maxHits: 150 }));
    expect(error).toBeInstanceOf(CapacityError);
    expect((error as CapacityError).count).toBe(200);
    const small = await createCollider({ device: gpu.device, maxBindingBytes: 4096 }); // 128 hits of 32 bytes
    try {
      const full = await rejection(() => small.raycast(through, scene, { allHits: true }));
      expect([(full as CapacityError).count, (full as CapacityError).capacity]).toEqual([200, 128]);
    } finally {
      small.destroy();
    }
  });

  it('17. options out of range: option, naming the option', async () => {
    const cases: [() => Promise<unknown>, string][] = [
      [() => gpu.collider.spherePairs(spheres(), { broadphase: 'octree' as never }), 'options.broadphase'],
      [() => gpu.collider.spherePairs(spheres(), { maxPairs: -1 }), 'options.maxPairs'],
      [() => gpu.collider.spherePairs(spheres(), { maxPairs: 2.5 }), 'options.maxPairs'],
      [() => gpu.collider.spherePairs(spheres(), { profile: 'yes' as never }), 'options.profile'],
      [() => gpu.collider.raycast(rays(), spheres(), { allHits: 1 as never }), 'options.allHits'],
      [() => gpu.collider.raycast(rays(), spheres(), { allHits: true, maxHits: NaN }), 'options.maxHits'],
      [() => gpu.collider.sphereBoxPairs(spheres(), aabbs(), { broadphase: 'GRID' as never }), 'options.broadphase'],
    ];
    for (const [call, argument] of cases) expectInvalid(await rejection(call), argument, -1, RULES.option);
  });

  it('18. zero-length rays and casts: valid, they hit nothing', async () => {
    const r = await gpu.collider.raycast(new Float32Array([0, 0, 0, 0, 0, 0, 1.5, 0, 0, 1.5, 0, 0]), spheres());
    expect(Array.from(r.index)).toEqual([-1, -1]);
    const c = await gpu.collider.sphereCast(new Float32Array([-5, 0, 0, -5, 0, 0, 1]), spheres());
    expect(Array.from(c.index)).toEqual([-1]);
  });

  it('19. a nonzero radius or extent below 2^-60 (its square would underflow f32): tiny; tiny coordinates are valid', async () => {
    expectInvalid(
      await rejection(() => gpu.collider.spherePairs(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1e-20]))),
      'spheres',
      1,
      RULES.tiny,
    );
    expectInvalid(
      await rejection(() =>
        gpu.collider.sphereOrientedBoxPairs(spheres(), new Float32Array([0, 0, 0, 1, 1e-30, 1, 0, 0, 0, 1])),
      ),
      'boxes',
      0,
      RULES.tiny,
    );
    expectInvalid(
      await rejection(() => gpu.collider.sphereCast(new Float32Array([0, 0, 0, 1, 1, 1, 1e-25]), spheres())),
      'casts',
      0,
      RULES.tiny,
    );
    // Subnormal and tiny coordinates, with radii of a normal size: the oracle's answer.
    const tiny = new Float32Array([1e-40, 0, 0, 1e-3, 2e-39, 0, 0, 1e-3, 5e-3, 1e-30, 0, 1e-3]);
    for (const broadphase of ['all-pairs', 'grid'] as const) {
      expect(sortPairs(await gpu.collider.spherePairs(tiny, { broadphase }))).toEqual(bruteForceSpherePairs(tiny));
    }
  });

  it('22. the caller writes into its arrays after the call: the answer is for the arrays as they were', async () => {
    const s = spheres();
    const r = rays();
    const before = sortPairs(await gpu.collider.spherePairs(spheres()));
    const boxBefore = sortPairs(await gpu.collider.sphereBoxPairs(spheres(), aabbs()));
    const hitsBefore = await gpu.collider.raycast(rays(), spheres());
    // Queue a slow call first, so these wait behind it with the caller's arrays changed.
    const busy = gpu.collider.spherePairs(coincidentScene(2000));
    const pairs = gpu.collider.spherePairs(s);
    const boxPairs = gpu.collider.sphereBoxPairs(s, aabbs());
    const hits = gpu.collider.raycast(r, s);
    s.fill(0);
    r.fill(100);
    await busy;
    expect(sortPairs(await pairs)).toEqual(before);
    expect(sortPairs(await boxPairs)).toEqual(boxBefore);
    const h = await hits;
    expect(Array.from(h.index)).toEqual(Array.from(hitsBefore.index));
  });

  it('20. a destroyed collider: DestroyedError, at once', async () => {
    const c = await createCollider({ device: gpu.device });
    c.destroy();
    await expect(c.spherePairs(spheres())).rejects.toBeInstanceOf(DestroyedError);
    await expect(c.raycast(rays(), spheres())).rejects.toBeInstanceOf(DestroyedError);
    c.destroy(); // twice is harmless
  });
});
