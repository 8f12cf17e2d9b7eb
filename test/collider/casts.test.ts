/**
 * raycast and sphereCast against the double-precision reference, brute force and grid walk, on
 * seeded scenes (the seed in each test's name) and the edge cases of the seeds, within the
 * tolerance derived in test/support/casts.ts (docs/TESTING.md).
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from '../support/gpu.js';
import { nearestViolations, allHitsViolations } from '../support/casts.js';
import { uniformScene, mixedRadiiScene, outlierScene } from '../support/scenes.js';
import { mulberry32, gaussian } from '../support/random.js';
import { createCollider } from '../../src/collider.js';
import { CapacityError, InvalidInputError } from '../../src/errors.js';
import { bruteForceNearestCasts, bruteForceAllCasts, castHit } from '../../src/reference/casts.js';
import { planGrid } from '../../src/spatial/plan.js';
import { validateSpheres } from '../../src/validate.js';
import { gridCasts } from '../../src/reference/gridQueries.js';
import { trueTotal } from '../../src/castQueries.js';
import { RULES } from '../../src/checks.js';
import { thrown } from '../support/thrown.js';
import { phasesServing } from '../../src/broadphase/registry.js';

const gpu = useGpu();

type Vec = [number, number, number];
const unit = (rand: () => number): Vec => {
  const v: Vec = [gaussian(rand), gaussian(rand), gaussian(rand)];
  const l = Math.hypot(...v);
  return v.map((x) => x / l) as Vec;
};
const add = (a: Vec, b: Vec, s = 1): Vec => [a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2]];
const cross = (a: Vec, b: Vec): Vec => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
];
const sphereAt = (s: Float32Array, i: number): { c: Vec; r: number } => ({
  c: [s[4 * i], s[4 * i + 1], s[4 * i + 2]],
  r: s[4 * i + 3],
});

/**
 * Rays of every kind the seeds call out, over a sphere cloud: random through and around it,
 * starting inside a sphere, pointing away, too short, ending on a surface, tangent, zero
 * length, and with the sphere behind the origin. `radius` > 0 makes sphere casts (7 floats).
 */
function mixedRays(spheres: Float32Array, count: number, seed: number, radius = 0): Float32Array {
  const rand = mulberry32(seed);
  const n = spheres.length / 4;
  let lo = Infinity,
    hi = -Infinity;
  for (let i = 0; i < spheres.length; i++)
    if (i % 4 !== 3) {
      lo = Math.min(lo, spheres[i]);
      hi = Math.max(hi, spheres[i]);
    }
  const span = hi - lo;
  const randomPoint = (): Vec => [0, 1, 2].map(() => lo - 0.2 * span + rand() * 1.4 * span) as Vec;
  const stride = radius > 0 ? 7 : 6;
  const out = new Float32Array(stride * count);
  for (let k = 0; k < count; k++) {
    const { c, r } = sphereAt(spheres, Math.floor(rand() * n));
    const r1 = radius > 0 ? rand() * radius : 0;
    const R = r + r1;
    const u = unit(rand);
    const v = unit(rand);
    const w = cross(u, v).map((x) => x / Math.hypot(...cross(u, v))) as Vec; // ⟂ u
    let a: Vec;
    let b: Vec;
    switch (k % 9) {
      case 0:
      case 1:
        a = randomPoint();
        b = randomPoint();
        break; // through and around the cloud
      case 2:
        a = add(c, u, 0.5 * R);
        b = randomPoint();
        break; // starts inside (overlapping, for a cast)
      case 3:
        a = add(c, u, R + 2);
        b = add(c, u, R + 20);
        break; // points away; the sphere is behind
      case 4:
        a = add(c, u, R + 2);
        b = add(c, u, R + 1.5);
        break; // too short to reach
      case 5:
        a = add(c, u, R + 5);
        b = add(c, u, R);
        break; // ends exactly on the surface
      case 6:
        a = add(add(c, w, R), u, -5);
        b = add(add(c, w, R), u, 5);
        break; // tangent
      case 7:
        a = randomPoint();
        b = a;
        break; // zero length
      default:
        a = add(c, u, R + 3 * rand());
        b = add(c, u, -(R + 3));
        break; // head-on through the centre
    }
    out.set(radius > 0 ? [...a, ...b, r1] : [...a, ...b], stride * k);
  }
  return out;
}

/** The result's points agree with its distances: D (or C) = A + n·t, E = C + (S − C)·r1/R. */
function pointViolations(
  rays: Float32Array,
  stride: 6 | 7,
  spheres: Float32Array,
  res: {
    index: Int32Array;
    distance: Float32Array;
    point?: Float32Array;
    center?: Float32Array;
    contact?: Float32Array;
    offsets?: Uint32Array;
  },
): string[] {
  const out: string[] = [];
  // With all hits, hit k belongs to the ray whose offsets range holds it.
  const rayOf = new Uint32Array(res.index.length).map((_, k) => k);
  if (res.offsets)
    for (let ray = 0; ray + 1 < res.offsets.length; ray++) rayOf.fill(ray, res.offsets[ray], res.offsets[ray + 1]);
  for (let k = 0; k < res.index.length && out.length < 10; k++) {
    const rayIndex = rayOf[k];
    const o = stride * rayIndex;
    const i = res.index[k];
    const p = res.point ?? res.center!;
    if (i < 0) {
      if (!Number.isNaN(res.distance[k]) || !Number.isNaN(p[3 * k]))
        out.push(`ray ${k}: a miss must have NaN distance and point`);
      continue;
    }
    const a: Vec = [rays[o], rays[o + 1], rays[o + 2]];
    const ab: Vec = [rays[o + 3] - a[0], rays[o + 4] - a[1], rays[o + 5] - a[2]];
    const len = Math.hypot(...ab);
    const expected = add(a, ab, res.distance[k] / len);
    const tol = 1e-5 * (Math.hypot(...a) + len + 1);
    for (let c = 0; c < 3; c++)
      if (Math.abs(p[3 * k + c] - expected[c]) > tol)
        out.push(`ray ${k}: point ${c} is ${p[3 * k + c]}, A + n·t gives ${expected[c]}`);
    if (res.contact) {
      const r1 = rays[o + 6];
      const { c: s, r } = sphereAt(spheres, i);
      const e = add(
        expected,
        [s[0] - expected[0], s[1] - expected[1], s[2] - expected[2]],
        r1 + r > 0 ? r1 / (r1 + r) : 0,
      );
      for (let c = 0; c < 3; c++)
        if (Math.abs(res.contact[3 * k + c] - e[c]) > tol)
          out.push(`ray ${k}: contact ${c} is ${res.contact[3 * k + c]}, expected ${e[c]}`);
    }
  }
  return out;
}

/**
 * Scenes, with the spheres the rays are aimed around (the far outliers only make the grid
 * hashed: rays across a million units of empty grid are for the BVH or brute force, see castCosts).
 */
const scenes: [string, () => Float32Array, () => Float32Array][] = [
  ['uniform 3000, seed 501', () => uniformScene(3000, { seed: 501 }), () => uniformScene(3000, { seed: 501 })],
  [
    'mixed radii 1:100, seed 502',
    () => mixedRadiiScene(3000, { seed: 502 }),
    () => mixedRadiiScene(3000, { seed: 502 }),
  ],
  [
    'far outliers (hashed grid), seed 503',
    () => outlierScene(2000, { seed: 503 }),
    () => uniformScene(2000, { seed: 503 }),
  ],
  [
    'huge scale (×1e4, offset 1e5), seed 504',
    () => uniformScene(2000, { seed: 504 }).map((v) => v * 1e4 + 1e5),
    () => uniformScene(2000, { seed: 504 }).map((v) => v * 1e4 + 1e5),
  ],
  [
    'tiny scale (×1e-4), seed 505',
    () => uniformScene(2000, { seed: 505 }).map((v) => v * 1e-4),
    () => uniformScene(2000, { seed: 505 }).map((v) => v * 1e-4),
  ],
];

describe('raycast: nearest hit', () => {
  for (const [name, make, around] of scenes) {
    it(name, async () => {
      const spheres = make();
      const rays = mixedRays(around(), 900, 600 + name.length);
      for (const broadphase of phasesServing('casts')) {
        const res = await gpu.collider.raycast(rays, spheres, { broadphase });
        expect(nearestViolations(rays, 6, spheres, res), broadphase).toEqual([]);
        expect(pointViolations(rays, 6, spheres, res), broadphase).toEqual([]);
        expect(res.index.filter((i) => i >= 0).length, 'some rays hit').toBeGreaterThan(100);
      }
      // The CPU twin of the slab walk has the oracle's exact test: the same hits, exactly.
      const walked = gridCasts(rays, 6, spheres, gpu.collider.planFor(spheres));
      const oracle = bruteForceNearestCasts(rays, 6, spheres);
      expect(Array.from(walked.index)).toEqual(Array.from(oracle.index));
      expect(Array.from(walked.distance).map(Math.fround)).toEqual(Array.from(oracle.distance));
    });
  }

  it('ties go to the lowest index: three copies of every sphere (seed 506)', async () => {
    const base = uniformScene(500, { seed: 506 });
    const spheres = new Float32Array(3 * base.length);
    for (let i = 0; i < 500; i++)
      for (let copy = 0; copy < 3; copy++) spheres.set(base.subarray(4 * i, 4 * i + 4), 4 * (copy * 500 + i));
    const rays = mixedRays(base, 600, 506);
    for (const broadphase of phasesServing('casts')) {
      const res = await gpu.collider.raycast(rays, spheres, { broadphase });
      const hits = Array.from(res.index).filter((i) => i >= 0);
      expect(hits.length).toBeGreaterThan(100);
      expect(
        hits.every((i) => i < 500),
        `${broadphase}: always the first copy`,
      ).toBe(true);
    }
  });

  it('zero-length rays hit nothing, even inside or on a sphere; empty inputs are empty', async () => {
    const spheres = new Float32Array([0, 0, 0, 1, 5, 0, 0, 1]);
    const rays = new Float32Array([0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 9, 9, 9, 9, 9, 9]);
    for (const broadphase of phasesServing('casts')) {
      const res = await gpu.collider.raycast(rays, spheres, { broadphase });
      expect(Array.from(res.index)).toEqual([-1, -1, -1]);
    }
    expect((await gpu.collider.raycast(new Float32Array(0), spheres)).index.length).toBe(0);
    expect(Array.from((await gpu.collider.raycast(rays, new Float32Array(0))).index)).toEqual([-1, -1, -1]);
  });

  it('the seed rules on a unit sphere: inside ignored, tangent hits, the segment bounds the hit', async () => {
    const spheres = new Float32Array([0, 0, 0, 1]);
    const rays = new Float32Array([
      -5,
      0,
      0,
      5,
      0,
      0, // through: hit at 4
      0,
      0,
      0,
      5,
      0,
      0, // from the centre (inside): ignored
      -5,
      1,
      0,
      5,
      1,
      0, // tangent at (0, 1, 0): hit at 5
      -5,
      0,
      0,
      -2,
      0,
      0, // stops short: miss
      -5,
      0,
      0,
      -1,
      0,
      0, // ends on the surface: hit at 4
      5,
      0,
      0,
      10,
      0,
      0, // sphere behind: miss
      -1,
      0,
      0,
      -5,
      0,
      0, // starts on the surface, pointing away: miss
    ]);
    for (const broadphase of phasesServing('casts')) {
      const res = await gpu.collider.raycast(rays, spheres, { broadphase });
      expect(Array.from(res.index), broadphase).toEqual([0, -1, 0, -1, 0, -1, -1]);
      expect(res.distance[0]).toBeCloseTo(4, 5);
      expect(res.distance[2]).toBeCloseTo(5, 5);
      expect(Array.from(res.point.subarray(6, 9))).toEqual([0, 1, 0]);
      expect(res.distance[4]).toBeCloseTo(4, 5);
    }
  });
});

describe('sphereCast: nearest hit', () => {
  for (const [name, make, around] of scenes.slice(0, 4)) {
    it(name, async () => {
      const spheres = make();
      const casts = mixedRays(around(), 900, 700 + name.length, 1.5 * spheres[3]);
      for (const broadphase of phasesServing('casts')) {
        const res = await gpu.collider.sphereCast(casts, spheres, { broadphase });
        expect(nearestViolations(casts, 7, spheres, res), broadphase).toEqual([]);
        expect(pointViolations(casts, 7, spheres, res), broadphase).toEqual([]);
        expect(res.index.filter((i) => i >= 0).length).toBeGreaterThan(100);
      }
      expect(Array.from(gridCasts(casts, 7, spheres, gpu.collider.planFor(spheres)).index)).toEqual(
        Array.from(bruteForceNearestCasts(casts, 7, spheres).index),
      );
    });
  }

  it('the seed rules: contact point, starting overlap ignored, no contact past B', async () => {
    const spheres = new Float32Array([0, 0, 0, 1]);
    const casts = new Float32Array([
      -5,
      0,
      0,
      5,
      0,
      0,
      1, // centre at contact (-2, 0, 0), contact (-1, 0, 0)
      -1.5,
      0,
      0,
      5,
      0,
      0,
      1, // starts overlapping: ignored
      -5,
      0,
      0,
      -2.5,
      0,
      0,
      1, // contact would be at |AC| = 3 > |AB| = 2.5: no hit (the seed's gap)
      -5,
      2,
      0,
      5,
      2,
      0,
      1, // grazes: tangent, contact (0, 1, 0)
    ]);
    for (const broadphase of phasesServing('casts')) {
      const res = await gpu.collider.sphereCast(casts, spheres, { broadphase });
      expect(Array.from(res.index), broadphase).toEqual([0, -1, -1, 0]);
      expect(Array.from(res.center.subarray(0, 3))).toEqual([-2, 0, 0]);
      expect(Array.from(res.contact.subarray(0, 3))).toEqual([-1, 0, 0]);
      expect(res.distance[0]).toBe(3);
      expect(Array.from(res.contact.subarray(9, 12))).toEqual([0, 1, 0]);
    }
  });
});

describe('all hits', () => {
  it('raycast, every hit by distance, both broad phases (seed 801)', async () => {
    const spheres = mixedRadiiScene(2000, { seed: 801 });
    const rays = mixedRays(spheres, 500, 801);
    for (const broadphase of phasesServing('casts')) {
      const res = await gpu.collider.raycast(rays, spheres, { broadphase, allHits: true });
      expect(allHitsViolations(rays, 6, spheres, res), broadphase).toEqual([]);
      expect(pointViolations(rays, 6, spheres, res), broadphase).toEqual([]);
      expect(res.index.length).toBeGreaterThan(100);
    }
    const walked = gridCasts(rays, 6, spheres, gpu.collider.planFor(spheres), true);
    const oracle = bruteForceAllCasts(rays, 6, spheres);
    expect(Array.from(walked.offsets!)).toEqual(Array.from(oracle.offsets));
    expect(Array.from(walked.index)).toEqual(Array.from(oracle.index));
  });

  it('sphereCast, every hit by distance, both broad phases (seed 802)', async () => {
    const spheres = uniformScene(2000, { seed: 802 });
    const casts = mixedRays(spheres, 400, 802, 1);
    for (const broadphase of phasesServing('casts')) {
      const res = await gpu.collider.sphereCast(casts, spheres, { broadphase, allHits: true });
      expect(allHitsViolations(casts, 7, spheres, res), broadphase).toEqual([]);
      expect(pointViolations(casts, 7, spheres, res), broadphase).toEqual([]);
    }
  });

  it('maxHits throws CapacityError with the true count; a fresh collider grows its list (seed 803)', async () => {
    const spheres = uniformScene(3000, { seed: 803 });
    const rays = mixedRays(spheres, 300, 803).map((v, k) => (k % 6 < 3 ? v : v)); // long random rays: many hits each
    const fresh = await createCollider({ device: gpu.device });
    try {
      const all = await fresh.raycast(rays, spheres, { broadphase: 'grid', allHits: true });
      expect(all.index.length).toBeGreaterThan(300); // more than the first list's room (one per ray)
      expect(allHitsViolations(rays, 6, spheres, all)).toEqual([]);
      const error = await fresh.raycast(rays, spheres, { allHits: true, maxHits: 10 }).catch((e) => e);
      expect(error).toBeInstanceOf(CapacityError);
      expect(error.count).toBe(all.index.length);
    } finally {
      fresh.destroy();
    }
  });
});

describe('grid shapes and folded dispatches', () => {
  it('one octave per level (7 levels) and a forced hashed grid walk the same hits (seed 901)', async () => {
    const spheres = mixedRadiiScene(2500, { seed: 901 });
    const rays = mixedRays(spheres, 600, 901);
    for (const grid of [{ levelStep: 1 }, { levelStep: 2, denseFactor: 0 }]) {
      const collider = await createCollider({ device: gpu.device, grid });
      try {
        if (grid.denseFactor === 0) expect(collider.planFor(spheres).dense).toBe(false);
        expect(collider.planFor(spheres).levels.length).toBe(grid.levelStep === 1 ? 7 : 4);
        const res = await collider.raycast(rays, spheres, { broadphase: 'grid' });
        expect(nearestViolations(rays, 6, spheres, res), JSON.stringify(grid)).toEqual([]);
      } finally {
        collider.destroy();
      }
    }
  });

  it('folds dispatches (limit 4, 1500 rays = 24 workgroups; seed 902)', async () => {
    const collider = await createCollider({ device: gpu.device, maxWorkgroupsPerDimension: 5 });
    try {
      const spheres = uniformScene(1200, { seed: 902 });
      const rays = mixedRays(spheres, 1500, 902);
      for (const broadphase of phasesServing('casts')) {
        const res = await collider.raycast(rays, spheres, { broadphase });
        expect(nearestViolations(rays, 6, spheres, res), broadphase).toEqual([]);
        const all = await collider.raycast(rays, spheres, { broadphase, allHits: true });
        expect(allHitsViolations(rays, 6, spheres, all), broadphase).toEqual([]);
      }
    } finally {
      collider.destroy();
    }
  });
});

describe('all-hits totals past 2^32', () => {
  it('trueTotal recovers the count behind u32 offsets that wrapped', () => {
    // Three casts of 2^31 + 5, 2^31 + 7 and 9 hits: the u32 scan wraps once.
    const counts = [2 ** 31 + 5, 2 ** 31 + 7, 9];
    const offsets = new Uint32Array(4);
    for (let k = 0; k < 3; k++) offsets[k + 1] = (offsets[k] + counts[k]) >>> 0;
    expect(offsets[3]).toBe(21); // what the GPU's scan reports as the total
    expect(trueTotal(offsets)).toBe(2 ** 32 + 21);
    expect(trueTotal(new Uint32Array([0, 3, 3, 10]))).toBe(10);
  });
});

describe("options.out: results into the caller's arrays", () => {
  it('nearest hits fill the arrays given and return views of them; the rest is allocated (seed 951)', async () => {
    const spheres = uniformScene(1500, { seed: 951 });
    const rays = mixedRays(spheres, 400, 951);
    const fresh = await gpu.collider.raycast(rays, spheres);
    const out = { index: new Int32Array(410).fill(-7), distance: new Float32Array(400), point: new Float32Array(3) };
    for (let frame = 0; frame < 2; frame++) {
      const res = await gpu.collider.raycast(rays, spheres, { out });
      expect(res.index.buffer).toBe(out.index.buffer);
      expect(res.distance.buffer).toBe(out.distance.buffer);
      expect(res.point.buffer).not.toBe(out.point.buffer); // too short: a new array
      expect(Array.from(res.index)).toEqual(Array.from(fresh.index));
      expect(Array.from(res.distance)).toEqual(Array.from(fresh.distance));
      expect(Array.from(res.point)).toEqual(Array.from(fresh.point));
      expect(nearestViolations(rays, 6, spheres, res)).toEqual([]);
    }
    expect(out.index[400]).toBe(-7); // past the answer: the caller's, untouched
    expect(Array.from(out.point)).toEqual([0, 0, 0]);
  });

  it('sphere casts with allHits, and the particle world, use them too (seed 952)', async () => {
    const spheres = uniformScene(1200, { seed: 952 });
    const casts = mixedRays(spheres, 300, 952, 0.5);
    const fresh = await gpu.collider.sphereCast(casts, spheres, { allHits: true });
    const hits = fresh.index.length;
    expect(hits).toBeGreaterThan(0);
    const out = {
      index: new Int32Array(hits),
      distance: new Float32Array(hits),
      center: new Float32Array(3 * hits),
      contact: new Float32Array(3 * hits + 5),
      offsets: new Uint32Array(301),
    };
    const res = await gpu.collider.sphereCast(casts, spheres, { allHits: true, out });
    for (const key of ['index', 'distance', 'center', 'contact', 'offsets'] as const) {
      expect(res[key].buffer, key).toBe(out[key].buffer);
      expect(Array.from(res[key]), key).toEqual(Array.from(fresh[key]));
    }
    expect(allHitsViolations(casts, 7, spheres, res)).toEqual([]);

    const { createParticleWorld } = await import('../../src/index.js');
    const world = await createParticleWorld({ device: gpu.device, capacity: 16 });
    try {
      world.setParticles({ spheres: new Float32Array([0, 0, 0, 1, 5, 0, 0, 1]), velocities: new Float32Array(6) });
      const ray = new Float32Array([-5, 0, 0, 10, 0, 0, 0, 3, 5, 0, -3, 5]);
      const mine = { index: new Int32Array(2), distance: new Float32Array(2), point: new Float32Array(6) };
      const r = await world.raycast(ray, { out: mine });
      expect(r.index.buffer).toBe(mine.index.buffer);
      expect(Array.from(mine.index)).toEqual([0, -1]);
      expect(mine.distance[0]).toBeCloseTo(4, 5);
    } finally {
      world.destroy();
    }
  });

  it('a wrong type, a field the call does not return, or no object: typed errors naming it', async () => {
    const spheres = uniformScene(50, { seed: 953 });
    const rays = mixedRays(spheres, 4, 953);
    const casts = mixedRays(spheres, 4, 953, 0.5);
    const cases: Array<[() => Promise<unknown>, string, string]> = [
      [
        () => gpu.collider.raycast(rays, spheres, { out: { index: new Uint32Array(4) as never } }),
        'options.out.index',
        RULES.out,
      ],
      [
        () => gpu.collider.raycast(rays, spheres, { out: { point: [0, 0, 0] as never } }),
        'options.out.point',
        RULES.out,
      ],
      [
        () => gpu.collider.raycast(rays, spheres, { out: { center: new Float32Array(12) } }),
        'options.out.center',
        RULES.option,
      ],
      [
        () => gpu.collider.sphereCast(casts, spheres, { out: { point: new Float32Array(12) } }),
        'options.out.point',
        RULES.option,
      ],
      [
        () => gpu.collider.sphereCast(casts, spheres, { out: new Float32Array(4) as never }),
        'options.out',
        RULES.option,
      ],
    ];
    for (const [call, argument, rule] of cases) {
      await expect(call()).rejects.toMatchObject({ name: 'InvalidInputError', argument, rule });
    }
  });
});

const statsOf = (spheres: Float32Array) => validateSpheres('spheres', spheres);

describe('the exported CPU reference (casts)', () => {
  it('castHit: a point exactly on the segment is hit, at its distance along it (integer lattice, every axis mix)', () => {
    // A review found AB normalised first made |CS|² a hair above 0 for 224 of 724 such points.
    let misses = 0;
    let checked = 0;
    const rand = mulberry32(1901);
    for (let k = 0; k < 400; k++) {
      const a = [0, 1, 2].map(() => Math.floor(rand() * 20) - 10);
      const step = [0, 1, 2].map(() => Math.floor(rand() * 7) - 3);
      if (step.every((s) => s === 0)) continue;
      const b = a.map((v, i) => v + 4 * step[i]);
      for (let j = 0; j <= 4; j++) {
        const p = a.map((v, i) => v + j * step[i]);
        const hit = castHit(a[0], a[1], a[2], b[0], b[1], b[2], 0, p[0], p[1], p[2], 0);
        checked++;
        if (!hit || Math.abs(hit.t - j * Math.hypot(...step)) > 1e-12) misses++;
      }
    }
    expect(checked).toBeGreaterThan(1500);
    expect(misses).toBe(0);
    expect(
      Array.from(
        bruteForceNearestCasts(new Float32Array([5, 4, -1, 5, 6, 9]), 6, new Float32Array([5, 5, 4, 0])).index,
      ),
    ).toEqual([0]);
  });

  it('gridCasts checks its inputs: a ray with Infinity, a sphere with NaN, a ragged array, a plan for other spheres are InvalidInputError, not a walk that never ends', () => {
    const spheres = uniformScene(200, { seed: 1902 });
    const plan = planGrid(statsOf(spheres));
    const ray = new Float32Array([0, 0, 0, 10, 10, 10]);
    const bad: [() => unknown, string][] = [
      [() => gridCasts(new Float32Array([-Infinity, 0, 0, 10, 0, 0]), 6, spheres, plan), 'rays'],
      [
        () =>
          gridCasts(
            ray,
            6,
            Float32Array.from(spheres, (v, i) => (i === 5 ? NaN : v)),
            plan,
          ),
        'spheres',
      ],
      [() => gridCasts(new Float32Array(7), 6, spheres, plan), 'rays'],
      [
        () =>
          gridCasts(
            ray,
            6,
            Float32Array.from(spheres, (v, i) => (i % 4 === 0 ? v + 1000 : v)),
            plan,
          ),
        'plan',
      ],
    ];
    for (const [call, argument] of bad) {
      const error = thrown(call);
      expect(error, argument).toBeInstanceOf(InvalidInputError);
      expect((error as InvalidInputError).argument).toBe(argument);
    }
  });
});
