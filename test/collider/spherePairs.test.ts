/**
 * spherePairs on the GPU against the brute-force oracle, on seeded scenes (the seed is in each
 * test's name), with both broad phases; the pair sets may differ only within docs/CONTRACT.md's band.
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from '../support/gpu.js';
import { diffPairs, bandViolations } from '../support/pairs.js';
import {
  uniformScene,
  clusteredScene,
  mixedRadiiScene,
  giantsScene,
  coincidentScene,
  separatedScene,
  outlierScene,
} from '../support/scenes.js';
import { mulberry32 } from '../support/random.js';
import { bruteForceSpherePairs, sortPairs } from '../../src/reference/spherePairs.js';
import { gridSpherePairs } from '../../src/reference/grid.js';
import { sweepSpherePairs } from '../../src/reference/sweep.js';
import { createCollider } from '../../src/collider.js';
import { CapacityError } from '../../src/errors.js';
import { RULES } from '../../src/checks.js';
import { phasesServing } from '../../src/broadphase/registry.js';

const gpu = useGpu();

const scenes: [string, () => Float32Array][] = [
  ['uniform, 5000 spheres, seed 101', () => uniformScene(5000, { seed: 101 })],
  ['clustered, 5000 spheres, seed 102', () => clusteredScene(5000, { seed: 102 })],
  ['mixed radii 1:100, 5000 spheres, seed 103', () => mixedRadiiScene(5000, { seed: 103 })],
  ['5 giants among 5000 small, seed 104', () => giantsScene(5000, 5, { seed: 104 })],
  ['uniform at negative coordinates (-1e5), seed 105', () => uniformScene(4000, { seed: 105, offset: -1e5 })],
  ['uniform at large coordinates (1e5), seed 106', () => uniformScene(4000, { seed: 106, offset: 1e5 })],
  ['four far outliers (hashed grid), seed 107', () => outlierScene(4000, { seed: 107 })],
  ['tiny scale (1e-3 box, radii 1e-5), seed 108', () => mixedRadiiScene(3000, { seed: 108 }, 1e-5, 1e-4)],
  [
    'points (radius 0) with repeated positions, seed 109',
    () => {
      const rand = mulberry32(109);
      const s = new Float32Array(4 * 2000);
      for (let i = 0; i < 2000; i++)
        s.set(
          i % 3 === 0 && i > 0
            ? s.slice(4 * (i - 1), 4 * i)
            : [Math.floor(rand() * 20), Math.floor(rand() * 20), Math.floor(rand() * 20), 0],
          4 * i,
        );
      return s;
    },
  ],
  ['all coincident, 300 spheres', () => coincidentScene(300)],
  ['none overlapping, 4000 spheres, seed 110', () => separatedScene(4000, { seed: 110 })],
];

describe('spherePairs matches the brute-force oracle', () => {
  for (const [name, make] of scenes) {
    it(name, async () => {
      const spheres = make();
      const oracle = bruteForceSpherePairs(spheres);
      const grid = await gpu.collider.spherePairs(spheres, { broadphase: 'grid' });
      const allPairs = await gpu.collider.spherePairs(spheres, { broadphase: 'all-pairs' });
      const sweep = await gpu.collider.spherePairs(spheres, { broadphase: 'sweep' });
      const bvh = await gpu.collider.spherePairs(spheres, { broadphase: 'bvh' });
      expect(bandViolations(diffPairs(spheres, grid, oracle)), 'grid vs oracle').toEqual([]);
      expect(bandViolations(diffPairs(spheres, allPairs, oracle)), 'all-pairs vs oracle').toEqual([]);
      expect(bandViolations(diffPairs(spheres, sweep, oracle)), 'sweep vs oracle').toEqual([]);
      // Every broad phase ends in the same f32 test: the same pairs, to the last one.
      expect(sortPairs(allPairs), 'all-pairs vs grid').toEqual(sortPairs(grid));
      expect(sortPairs(sweep), 'sweep vs grid').toEqual(sortPairs(grid));
      expect(sortPairs(bvh), 'bvh vs grid').toEqual(sortPairs(grid));
      // The CPU twins of the grid and the sweep have the oracle's exact predicate: they must agree to the pair.
      expect(sortPairs(gridSpherePairs(spheres, gpu.collider.planFor(spheres)))).toEqual(oracle);
      expect(sortPairs(sweepSpherePairs(spheres))).toEqual(oracle);
    });
  }

  it('the scenes exercise what they claim: pairs where expected, both grid layouts, several levels', () => {
    expect(bruteForceSpherePairs(separatedScene(4000, { seed: 110 })).length).toBe(0);
    expect(bruteForceSpherePairs(uniformScene(5000, { seed: 101 })).length).toBeGreaterThan(1000);
    expect(gpu.collider.planFor(uniformScene(5000, { seed: 101 })).dense).toBe(true);
    expect(gpu.collider.planFor(outlierScene(4000, { seed: 107 })).dense).toBe(false);
    expect(gpu.collider.planFor(mixedRadiiScene(5000, { seed: 103 })).levels.length).toBeGreaterThanOrEqual(2);
    const giants = gpu.collider.planFor(giantsScene(5000, 5, { seed: 104 }));
    expect(giants.levels.at(-1)!.count).toBe(5);
    expect(giants.levels[0].count).toBe(5000);
  });

  it('empty input and a single sphere give no pairs', async () => {
    for (const broadphase of ['auto', ...phasesServing('pairs')] as const) {
      expect(await gpu.collider.spherePairs(new Float32Array(0), { broadphase })).toEqual(new Uint32Array(0));
      expect(await gpu.collider.spherePairs(new Float32Array([1, 2, 3, 4]), { broadphase })).toEqual(
        new Uint32Array(0),
      );
    }
  });

  it('100,000 uniform spheres (seed 111): the GPU grid equals the CPU reference grid', async () => {
    const spheres = uniformScene(100_000, { seed: 111 });
    const cpu = gridSpherePairs(spheres, gpu.collider.planFor(spheres));
    const grid = await gpu.collider.spherePairs(spheres);
    expect(cpu.length).toBeGreaterThan(30_000);
    expect(bandViolations(diffPairs(spheres, grid, cpu))).toEqual([]);
  });
});

describe('every grid shape', () => {
  // 'auto' picks the octaves per level by cost; force each step, so that one octave per level
  // (7 levels here) and coarse steps both run on the GPU, dense and hashed.
  for (const levelStep of [1, 2, 3, 5]) {
    it(`mixed radii 1:100 with ${levelStep} octave(s) per level, dense and hashed (seed 115)`, async () => {
      const spheres = mixedRadiiScene(4000, { seed: 115 });
      const oracle = bruteForceSpherePairs(spheres);
      for (const denseFactor of [8, 0]) {
        const collider = await createCollider({ device: gpu.device, grid: { levelStep, denseFactor } });
        try {
          const plan = collider.planFor(spheres);
          expect(plan.levels.length).toBe(Math.ceil(6 / levelStep) + 1); // ceilLog2 r spans -6 .. 0
          const pairs = await collider.spherePairs(spheres, { broadphase: 'grid' });
          expect(bandViolations(diffPairs(spheres, pairs, oracle)), `dense ${plan.dense}`).toEqual([]);
          expect(sortPairs(gridSpherePairs(spheres, plan))).toEqual(oracle);
        } finally {
          collider.destroy();
        }
      }
    });
  }
});

describe('the rounding band, and nothing wider', () => {
  // Pairs of unit spheres at distance 2·sqrt(1 + m): margin m relative to (rA + rB)² = 4,
  // along random directions, each pair far from the others.
  const margins = [-1e-2, -1e-3, -1e-4, -3e-5, 3e-5, 1e-4, 1e-3, 1e-2, -1e-7, 0, 1e-7];
  function touchingScene(seed: number, base: number): Float32Array {
    const rand = mulberry32(seed);
    const out: number[] = [];
    margins.forEach((m, k) => {
      for (let rep = 0; rep < 20; rep++) {
        const z = 2 * rand() - 1;
        const phi = 2 * Math.PI * rand();
        const dir = [Math.sqrt(1 - z * z) * Math.cos(phi), Math.sqrt(1 - z * z) * Math.sin(phi), z];
        const d = 2 * Math.sqrt(1 + m);
        const c = [base + 10 * k, base + 10 * rep, base];
        out.push(...c, 1, ...c.map((v, a) => v + d * dir[a]), 1);
      }
    });
    return Float32Array.from(out);
  }

  for (const [seed, base] of [
    [201, 0],
    [202, 1e4],
    [203, -3e4],
  ]) {
    it(`pairs outside 1e-5 of touching are exact, seed ${seed}, base ${base}`, async () => {
      const spheres = touchingScene(seed, base);
      const oracle = bruteForceSpherePairs(spheres);
      // The f32 inputs move the margins a little; the oracle sees the true ones. Most of the
      // ±3e-5 pairs, and every pair at ±1e-4 and beyond, lie outside the band.
      for (const broadphase of ['all-pairs', 'grid'] as const) {
        const pairs = await gpu.collider.spherePairs(spheres, { broadphase });
        expect(bandViolations(diffPairs(spheres, pairs, oracle)), broadphase).toEqual([]);
      }
    });
  }

  it('the comparison itself fails on a missing pair outside the band', () => {
    const spheres = new Float32Array([0, 0, 0, 1, 1.5, 0, 0, 1, 10, 0, 0, 1]);
    expect(bandViolations(diffPairs(spheres, new Uint32Array(0), bruteForceSpherePairs(spheres)))).toHaveLength(1);
    expect(
      bandViolations(diffPairs(spheres, new Uint32Array([0, 1, 0, 1]), bruteForceSpherePairs(spheres))).length,
    ).toBeGreaterThan(0);
    expect(
      bandViolations(diffPairs(spheres, new Uint32Array([1, 0]), bruteForceSpherePairs(spheres))).length,
    ).toBeGreaterThan(0);
  });
});

describe('the pair list never loses a pair', () => {
  it('grows and runs again when the first list is too small (700 coincident: 244,650 pairs)', async () => {
    const spheres = coincidentScene(700);
    for (const broadphase of ['all-pairs', 'grid'] as const) {
      const collider = await createCollider({ device: gpu.device }); // fresh: starts with room for 4096
      try {
        const pairs = await collider.spherePairs(spheres, { broadphase });
        expect(pairs.length / 2).toBe((700 * 699) / 2);
        expect(diffPairs(spheres, pairs, bruteForceSpherePairs(spheres)).malformed).toEqual([]);
      } finally {
        collider.destroy();
      }
    }
  });

  it('maxPairs: throws CapacityError with the true count, and accepts exactly the count', async () => {
    const spheres = uniformScene(3000, { seed: 112 });
    const expected = bruteForceSpherePairs(spheres).length / 2;
    for (const broadphase of ['all-pairs', 'grid'] as const) {
      const error = await gpu.collider.spherePairs(spheres, { broadphase, maxPairs: 10 }).catch((e) => e);
      expect(error).toBeInstanceOf(CapacityError);
      expect(error.count).toBe(expected);
      expect(error.capacity).toBe(10);
      expect((await gpu.collider.spherePairs(spheres, { broadphase, maxPairs: expected })).length).toBe(2 * expected);
    }
  });
});

describe('dispatches fold past the workgroup limit', () => {
  // With a tiny per-dimension limit, every dispatch larger than it folds into 2-D: all-pairs
  // 600 spheres = 55 tiles (limit 8: 8 × 7); grid 3000 spheres: count and scatter 12
  // workgroups, pairs 24 (limit 5: 5 × 3, 5 × 5). test/passes/scan.test.ts folds the scan.
  for (const [broadphase, limit, n, seed] of [
    ['all-pairs', 8, 600, 113],
    ['grid', 5, 3000, 114],
  ] as const) {
    it(`${broadphase} with at most ${limit} workgroups per dimension gives the same pairs (seed ${seed})`, async () => {
      const collider = await createCollider({ device: gpu.device, maxWorkgroupsPerDimension: limit });
      try {
        const spheres = uniformScene(n, { seed });
        const pairs = await collider.spherePairs(spheres, { broadphase });
        expect(bandViolations(diffPairs(spheres, pairs, bruteForceSpherePairs(spheres)))).toEqual([]);
      } finally {
        collider.destroy();
      }
    });
  }
});

describe("options.out: the caller's array for the pairs", () => {
  it('a large enough array receives the pairs and comes back as a view of it (seed 131)', async () => {
    const spheres = uniformScene(3000, { seed: 131 });
    const fresh = await gpu.collider.spherePairs(spheres);
    const out = new Uint32Array(2 * fresh.length).fill(0xdeadbeef);
    for (let frame = 0; frame < 3; frame++) {
      const pairs = await gpu.collider.spherePairs(spheres, { out });
      expect(pairs.buffer, "the result is a view of the caller's array").toBe(out.buffer);
      expect(pairs.byteOffset).toBe(0);
      expect(sortPairs(pairs)).toEqual(sortPairs(fresh));
    }
    // The words past the pairs are the caller's, untouched.
    expect(out[fresh.length]).toBe(0xdeadbeef);
  });

  it("an array too small for the pairs: a new array with all of them, the caller's untouched (seed 132)", async () => {
    const spheres = uniformScene(3000, { seed: 132 });
    const out = new Uint32Array(4).fill(7);
    const pairs = await gpu.collider.spherePairs(spheres, { out });
    expect(pairs.length).toBeGreaterThan(4);
    expect(pairs.buffer).not.toBe(out.buffer);
    expect(sortPairs(pairs)).toEqual(bruteForceSpherePairs(spheres));
    expect(Array.from(out)).toEqual([7, 7, 7, 7]);
  });

  it('sphere–box pairs and the empty answer use it too; a wrong type is a typed error (seed 133)', async () => {
    const spheres = uniformScene(2000, { seed: 133 });
    const boxes = new Float32Array([0, 0, 0, 10, 10, 10, 5, 5, 5, 20, 20, 20]);
    const fresh = await gpu.collider.sphereBoxPairs(spheres, boxes);
    expect(fresh.length).toBeGreaterThan(0);
    const out = new Uint32Array(fresh.length + 10);
    const pairs = await gpu.collider.sphereBoxPairs(spheres, boxes, { out });
    expect(pairs.buffer).toBe(out.buffer);
    expect(sortPairs(pairs)).toEqual(sortPairs(fresh));
    const none = await gpu.collider.spherePairs(new Float32Array([0, 0, 0, 1]), { out });
    expect([none.length, none.buffer === out.buffer]).toEqual([0, true]);
    for (const bad of [new Float32Array(8), [1, 2], 'x']) {
      const error = await gpu.collider.spherePairs(spheres, { out: bad as never }).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'InvalidInputError', argument: 'options.out', rule: RULES.out });
    }
  });
});
