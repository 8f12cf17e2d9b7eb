/**
 * The grid plan with points (radius 0) and tiny spheres among larger ones. A point's octave is
 * −127, and it used to drag level 0 down as far as the plan's other rules allowed (16 levels,
 * 655,361 × 1,966,081 × 655,361 cells for a 20 × 60 × 20 world), so that a particle world's
 * step, whose particles walk every level, visited 10^9 rows per particle. Here: the plan stays
 * small and quick to make, and the queries over it still give exactly the oracle's answers, on
 * the GPU and in the CPU twin. Seeds are in the test names.
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from '../support/gpu.js';
import { diffPairs, bandViolations } from '../support/pairs.js';
import { aabbMargin } from '../support/boxes.js';
import { nearestViolations } from '../support/casts.js';
import { mulberry32 } from '../support/random.js';
import { uniformScene, mixedRadiiScene } from '../support/scenes.js';
import { planGrid, levelOfLog2, CELLS_PER_SPHERE, type GridPlan } from '../../src/spatial/plan.js';
import { gridParamsData } from '../../src/passes/gridBuild.js';
import { log2RangeOfLevel } from '../../src/spatial/level.js';
import { GridParams, GridLevel } from '../../shaders/spatial/layout.js';
import { EXT_SCALE } from '../../src/spatial/level.js';
import { validateSpheres, type SphereStats } from '../../src/validate.js';
import { bruteForceSpherePairs, sortPairs } from '../../src/reference/spherePairs.js';
import { gridSpherePairs, cellRange } from '../../src/reference/grid.js';
import { bruteForceSphereAabbPairs } from '../../src/reference/sphereBox.js';
import { bruteForceNearestCasts } from '../../src/reference/casts.js';
import { gridSphereAabbPairs, gridCasts } from '../../src/reference/gridQueries.js';

const gpu = useGpu();

/** The world of the report: walls at [0, 0, 0] – [20, 60, 20]. */
const BOUNDS = [0, 0, 0, 20, 60, 20];

interface SceneOptions {
  /** How many records are points (radius 0) or tiny (radius `tiny`), the first ones. */
  small?: number;
  tiny?: number;
  /** How many of the points are copies of an earlier point (coincident points). */
  copies?: number;
  /** How many of the points sit on the centre of a radius-0.5 sphere. */
  centred?: number;
  /** The rest's radius. */
  radius?: number;
}

/** n spheres of radius 0.5 inside BOUNDS, the first `small` of them points or tiny spheres. */
function pointScene(
  n: number,
  seed: number,
  { small = 1, tiny = 0, copies = 0, centred = 0, radius = 0.5 }: SceneOptions = {},
): Float32Array {
  const rand = mulberry32(seed);
  const out = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) {
    const p = [0, 1, 2].map((a) => BOUNDS[a] + radius + rand() * (BOUNDS[a + 3] - BOUNDS[a] - 2 * radius));
    out.set([...p, i < small ? tiny : radius], 4 * i);
  }
  // Copies of earlier points, and points on the centre of a big sphere, spread over the points.
  for (let k = 0; k < copies; k++) out.set(out.subarray(0, 3), 4 * (1 + k));
  for (let k = 0; k < centred; k++) out.set(out.subarray(4 * (n - 1 - k), 4 * (n - 1 - k) + 3), 4 * (1 + copies + k));
  return out;
}

/** The stats a bounded world plans from: the spheres' histogram over the world's bounds. */
function worldStats(spheres: Float32Array): SphereStats {
  return {
    ...validateSpheres('spheres', spheres),
    min: [BOUNDS[0], BOUNDS[1], BOUNDS[2]],
    max: [BOUNDS[3], BOUNDS[4], BOUNDS[5]],
    binBounds: undefined,
  };
}

/** Cells of the non-empty levels (what a dense grid would allocate). */
function totalCells(plan: GridPlan): number {
  return plan.levels.filter((l) => l.count > 0).reduce((sum, l) => sum + l.dims[0] * l.dims[1] * l.dims[2], 0);
}

/**
 * The most rows a sphere of radius r at `p` walks in one non-empty level: a world particle (and
 * a box or a cast) walks every level, finer ones too, over p ± (r + maxRadius_b).
 */
function mostRows(plan: GridPlan, p: number[], r: number): number {
  let most = 0;
  plan.levels.forEach((level, b) => {
    if (level.count === 0) return;
    const ext = Math.fround(Math.fround(r + level.maxRadius) * Math.fround(EXT_SCALE));
    const { lo, hi } = cellRange(plan, b, p, p, ext);
    most = Math.max(most, (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1));
  });
  return most;
}

const planned = (stats: SphereStats): { plan: GridPlan; ms: number } => {
  const start = performance.now();
  const plan = planGrid(stats, { maxBuckets: 2 ** 27 });
  return { plan, ms: performance.now() - start };
};

describe('planGrid: points and tiny spheres do not shrink the cells', () => {
  const cases: [string, () => Float32Array, boolean][] = [
    ['one point among 3000 spheres of r = 0.5, world 20×60×20, seed 701', () => pointScene(3000, 701), true],
    ['10% points, world, seed 702', () => pointScene(3000, 702, { small: 300, copies: 20, centred: 20 }), true],
    ['half of them r = 1e-10, world, seed 703', () => pointScene(3000, 703, { small: 1500, tiny: 1e-10 }), true],
    ['one point among 30,000 (dense world), seed 704', () => pointScene(30_000, 704), true],
    ['one point, one-shot (bounds of the centres), seed 705', () => pointScene(3000, 705), false],
    ['10% points, one-shot, seed 706', () => pointScene(3000, 706, { small: 300, copies: 20, centred: 20 }), false],
    ['points around one r = 3 giant, world, seed 707', () => pointScene(5000, 707, { small: 4999, radius: 3 }), true],
  ];
  for (const [name, make, world] of cases) {
    it(name, () => {
      const spheres = make();
      const n = spheres.length / 4;
      const stats = world ? worldStats(spheres) : validateSpheres('spheres', spheres);
      const { plan, ms } = planned(stats);
      expect(ms, 'planning time (ms)').toBeLessThan(1000);
      // Every radius-0.5 sphere lands somewhere, and no level is finer than the scene needs: the
      // cells number at most CELLS_PER_SPHERE per sphere (or the bounds' volume in cells of the
      // largest diameter, when that is more).
      expect(plan.levels.reduce((sum, l) => sum + l.count, 0)).toBe(n);
      const volume = [0, 1, 2].reduce((v, a) => v * (stats.max[a] - stats.min[a] + 1), 1);
      expect(totalCells(plan)).toBeLessThanOrEqual(Math.max(CELLS_PER_SPHERE * n, volume / (2 * stats.maxRadius) ** 3));
      for (const level of plan.levels) for (const d of level.dims) expect(d).toBeLessThan(2 ** 16);
      // The largest sphere walks few rows in every level (it walked 1.1e9 in the points' level).
      const centre = [0, 1, 2].map((a) => (stats.min[a] + stats.max[a]) / 2);
      expect(mostRows(plan, centre, stats.maxRadius)).toBeLessThanOrEqual(100);
    });
  }

  it('scenes without points or tiny spheres keep their plans (uniform, mixed radii; seeds 708, 709)', () => {
    // The floor only binds when the smallest spheres' cells would be finer than the spacing / 8.
    const uniform = planGrid(validateSpheres('spheres', uniformScene(5000, { seed: 708 })));
    expect(uniform.levels.map((l) => [l.cellSize, l.count])).toEqual([[2, 5000]]);
    expect(uniform.dense).toBe(true);
    const mixed = planGrid(validateSpheres('spheres', mixedRadiiScene(5000, { seed: 709 }, 1e-5, 1e-4)));
    expect(mixed.levels[0].cellSize).toBeLessThanOrEqual(2 ** -12);
  });

  it('all points (no radius to size the cells) still plan, the extent sizing them (seed 710)', () => {
    const spheres = pointScene(2000, 710, { small: 2000 });
    for (const stats of [validateSpheres('spheres', spheres), worldStats(spheres)]) {
      const { plan, ms } = planned(stats);
      expect(ms).toBeLessThan(1000);
      expect(plan.levels.length).toBe(1);
      expect(plan.levels[0].count).toBe(2000);
      expect(mostRows(plan, [10, 30, 10], 0)).toBe(1);
    }
  });
});

/** A few thousand spheres: 10% points, some of them coincident, some on a sphere's centre. */
const oneShotScene = (): Float32Array => pointScene(3000, 711, { small: 300, copies: 40, centred: 30 });

/** Random AABBs over the bounds, up to a fifth of them on each axis, some flat. */
function boxesIn(m: number, seed: number): Float32Array {
  const rand = mulberry32(seed);
  const out = new Float32Array(6 * m);
  for (let k = 0; k < m; k++) {
    const size = [0, 1, 2].map((a) => (rand() < 0.1 ? 0 : (rand() * (BOUNDS[a + 3] - BOUNDS[a])) / 5));
    const min = [0, 1, 2].map((a) => BOUNDS[a] + rand() * (BOUNDS[a + 3] - BOUNDS[a]));
    out.set([...min, ...min.map((v, a) => v + size[a])], 6 * k);
  }
  return out;
}

/** Random segments through the bounds. */
function raysIn(m: number, seed: number): Float32Array {
  const rand = mulberry32(seed);
  const point = (): number[] => [0, 1, 2].map((a) => BOUNDS[a] - 2 + rand() * (BOUNDS[a + 3] - BOUNDS[a] + 4));
  const out = new Float32Array(6 * m);
  for (let k = 0; k < m; k++) out.set([...point(), ...point()], 6 * k);
  return out;
}

describe('queries over points and spheres match the oracle (GPU grid and CPU twin)', () => {
  it('spherePairs, 3000 spheres, 10% points, coincident points, seed 711', async () => {
    const spheres = oneShotScene();
    const oracle = bruteForceSpherePairs(spheres);
    // The scene has the pairs it claims: point–point (coincident) and point–sphere pairs.
    const isPoint = (i: number): boolean => spheres[4 * i + 3] === 0;
    let pointPoint = 0;
    let pointSphere = 0;
    for (let k = 0; k < oracle.length; k += 2) {
      if (isPoint(oracle[k]) && isPoint(oracle[k + 1])) pointPoint++;
      else if (isPoint(oracle[k]) || isPoint(oracle[k + 1])) pointSphere++;
    }
    expect(pointPoint).toBeGreaterThanOrEqual((40 * 41) / 2);
    expect(pointSphere).toBeGreaterThanOrEqual(30);

    const plan = gpu.collider.planFor(spheres);
    expect(totalCells(plan)).toBeLessThanOrEqual(CELLS_PER_SPHERE * 3000);
    const grid = await gpu.collider.spherePairs(spheres, { broadphase: 'grid' });
    expect(bandViolations(diffPairs(spheres, grid, oracle)), 'grid vs oracle').toEqual([]);
  });

  it("the CPU twin of the grid finishes with the oracle's pairs, on the query plan and the world plan (seed 711)", () => {
    const spheres = oneShotScene();
    const oracle = bruteForceSpherePairs(spheres);
    for (const plan of [gpu.collider.planFor(spheres), planGrid(worldStats(spheres))]) {
      const start = performance.now();
      const stats = { rows: 0, candidates: 0 };
      expect(sortPairs(gridSpherePairs(spheres, plan, stats))).toEqual(oracle);
      expect(performance.now() - start, 'CPU twin time (ms)').toBeLessThan(10_000);
      expect(stats.rows).toBeLessThan(100 * 3000);
    }
  });

  it('sphereBoxPairs with points, seed 712', async () => {
    const spheres = oneShotScene();
    const boxes = boxesIn(300, 712);
    const oracle = bruteForceSphereAabbPairs(spheres, boxes);
    expect(oracle.length).toBeGreaterThan(0);
    const pairs = await gpu.collider.sphereBoxPairs(spheres, boxes, { broadphase: 'grid' });
    expect(bandViolations(diffPairs(spheres, pairs, oracle, aabbMargin(boxes), false), 1)).toEqual([]);
    expect(sortPairs(gridSphereAabbPairs(spheres, boxes, gpu.collider.planFor(spheres)))).toEqual(oracle);
  });

  it('raycast with points, seed 713', async () => {
    const spheres = oneShotScene();
    const rays = raysIn(500, 713);
    const res = await gpu.collider.raycast(rays, spheres, { broadphase: 'grid' });
    expect(nearestViolations(rays, 6, spheres, res)).toEqual([]);
    expect(res.index.filter((i) => i >= 0).length, 'some rays hit').toBeGreaterThan(100);
    const walked = gridCasts(rays, 6, spheres, gpu.collider.planFor(spheres));
    const oracle = bruteForceNearestCasts(rays, 6, spheres);
    expect(Array.from(walked.index)).toEqual(Array.from(oracle.index));
  });
});

/**
 * Skewed scenes where every level covering the whole scene made the grid quadratic: a blob of
 * tiny spheres that shared one or two coarse cells (50,000 of them: 1.25·10⁹ candidates, 21 s),
 * and boxes far from a level of coincident points that clamped into its one cell (20k boxes ×
 * 2,000 points: 4·10⁷ candidates, 5–10 s). Each level now covers its own spheres' centres, and a
 * query box outside them skips the level. The candidate counts are the CPU twin's, which walks
 * the GPU's cells; the answers are the oracle's, on the GPU and in the twin.
 */
describe('levels cover their own spheres: no quadratic cliff on skewed scenes', () => {
  /** n/2 radius-1 spheres in a box (fraction 0.1) around a ball holding n/2 spheres of r ≈ 0.001. */
  function blobScene(n: number, seed: number): Float32Array {
    const rand = mulberry32(seed);
    const big = n / 2;
    const side = Math.cbrt((big * (4 / 3) * Math.PI) / 0.1);
    const ball = 0.001 * Math.cbrt(big / 0.1);
    const out = new Float32Array(4 * n);
    for (let i = 0; i < n; i++) {
      if (i % 2 === 0) {
        out.set([rand() * side, rand() * side, rand() * side, 1], 4 * i);
        continue;
      }
      let p: number[];
      do p = [0, 1, 2].map(() => 2 * rand() - 1);
      while (Math.hypot(p[0], p[1], p[2]) > 1);
      out.set([...p.map((v) => side / 2 + ball * v), 0.001 * (0.9 + 0.2 * rand())], 4 * i);
    }
    return out;
  }

  /** n spheres of r 0.5 (fraction 0.1), 200 points at one spot and 200 unit spheres at another. */
  function spotsScene(n: number, seed: number): Float32Array {
    const out = uniformScene(n, { seed });
    for (let i = 0; i < 200; i++) out.set([3, 3, 3, 0], 4 * i);
    for (let i = 200; i < 400; i++) out.set([12, 12, 12, 1], 4 * i);
    return out;
  }

  /** m AABBs up to `size` across, anywhere in the spheres' bounds. */
  function aabbsOver(spheres: Float32Array, m: number, size: number, seed: number): Float32Array {
    const { min, max } = validateSpheres('spheres', spheres);
    const rand = mulberry32(seed);
    const out = new Float32Array(6 * m);
    for (let k = 0; k < m; k++) {
      const p = [0, 1, 2].map((a) => min[a] + rand() * (max[a] - min[a]));
      out.set([...p, ...p.map((v) => v + rand() * size)], 6 * k);
    }
    return out;
  }

  it('a blob of 3,000 tiny spheres among 3,000 large ones gets a level over the blob alone (seed 721)', async () => {
    const spheres = blobScene(6000, 721);
    const plan = gpu.collider.planFor(spheres);
    // The tiny spheres (two octaves) have levels of their own, of cells their size over the blob.
    const tinyLevels = plan.levels.filter((l) => l.count > 0 && l.maxRadius < 0.01);
    expect(
      tinyLevels.reduce((sum, l) => sum + l.count, 0),
      'spheres in the tiny levels',
    ).toBe(3000);
    for (const level of tinyLevels) expect(Math.max(...level.dims), 'cells per axis of a tiny level').toBeLessThan(64);
    const stats = { rows: 0, candidates: 0 };
    const oracle = bruteForceSpherePairs(spheres);
    expect(sortPairs(gridSpherePairs(spheres, plan, stats))).toEqual(oracle);
    // Quadratic was 3000²/2 = 4.5·10⁶ candidates.
    expect(stats.candidates, 'candidates').toBeLessThan(20 * 6000);
    const pairs = await gpu.collider.spherePairs(spheres, { broadphase: 'grid' });
    expect(bandViolations(diffPairs(spheres, pairs, oracle))).toEqual([]);
  });

  it("the blob's plan has empty levels between the tiny and the large, and the shaders' level links pass over them (seed 721)", () => {
    const plan = gpu.collider.planFor(blobScene(6000, 721));
    const holding = plan.levels.flatMap((l, b) => (l.count > 0 ? [b] : []));
    expect(holding.length, 'levels holding spheres').toBeLessThan(plan.levels.length);
    const params = new DataView(gridParamsData(plan));
    const level = (b: number, field: 'next' | 'count'): number =>
      params.getUint32(GridParams.offsets.levels + b * GridLevel.size + GridLevel.offsets[field], true);
    const walked: number[] = [];
    for (let b = params.getUint32(GridParams.offsets.firstLevel, true); b < plan.levels.length; b = level(b, 'next'))
      walked.push(b);
    expect(walked).toEqual(holding);
    for (const b of walked) expect(level(b, 'count')).toBe(plan.levels[b].count);
  });

  it('sphere casts through the blob hit what the oracle hits (seed 722)', async () => {
    const spheres = blobScene(6000, 722);
    const { min, max } = validateSpheres('spheres', spheres);
    const rand = mulberry32(722);
    const centre = [0, 1, 2].map((a) => (min[a] + max[a]) / 2);
    // Half the casts aim at the blob, half cross the box anywhere.
    const casts = new Float32Array(7 * 400);
    for (let k = 0; k < 400; k++) {
      const from = [0, 1, 2].map((a) => min[a] + rand() * (max[a] - min[a]));
      const to =
        k % 2
          ? [0, 1, 2].map((a) => centre[a] + (rand() - 0.5) * 0.04)
          : [0, 1, 2].map((a) => min[a] + rand() * (max[a] - min[a]));
      casts.set([...from, ...to.map((v, a) => from[a] + 1.5 * (v - from[a])), k % 4 < 2 ? 0 : 0.002], 7 * k);
    }
    const res = await gpu.collider.sphereCast(casts, spheres, { broadphase: 'grid' });
    expect(nearestViolations(casts, 7, spheres, res)).toEqual([]);
    const oracle = bruteForceNearestCasts(casts, 7, spheres);
    const tinyHits = Array.from(oracle.index).filter((i) => i >= 0 && spheres[4 * i + 3] < 0.01).length;
    expect(tinyHits, 'casts that hit a tiny sphere first').toBeGreaterThan(20);
    expect(Array.from(gridCasts(casts, 7, spheres, gpu.collider.planFor(spheres)).index)).toEqual(
      Array.from(oracle.index),
    );
  });

  it('2,000 boxes anywhere skip the level of 200 coincident points unless they cover its spot (seed 723)', async () => {
    const spheres = spotsScene(5000, 723);
    const boxes = aabbsOver(spheres, 2000, 4, 723);
    const plan = gpu.collider.planFor(spheres);
    const stats = { rows: 0, candidates: 0 };
    const oracle = bruteForceSphereAabbPairs(spheres, boxes);
    expect(sortPairs(gridSphereAabbPairs(spheres, boxes, plan, stats))).toEqual(oracle);
    // Every box walking the points' one cell was 2000 × 200 = 4·10⁵ candidates from it alone.
    expect(stats.candidates, 'candidates').toBeLessThan((10 * oracle.length) / 2 + 2000 * 10);
    const pairs = await gpu.collider.sphereBoxPairs(spheres, boxes, { broadphase: 'grid' });
    expect(bandViolations(diffPairs(spheres, pairs, oracle, aabbMargin(boxes), false), 1)).toEqual([]);
    const centred = new Float32Array(6 * 50);
    for (let k = 0; k < 50; k++) centred.set([2 + k * 0.01, 2, 2, 4, 4, 4 - k * 0.01], 6 * k);
    const spot = bruteForceSphereAabbPairs(spheres, centred);
    expect(spot.length / 2, 'boxes over the spot find its points').toBeGreaterThanOrEqual(50 * 200);
    const spotPairs = await gpu.collider.sphereBoxPairs(spheres, centred, { broadphase: 'grid' });
    expect(bandViolations(diffPairs(spheres, spotPairs, spot, aabbMargin(centred), false), 1)).toEqual([]);
  });
});

describe('log2RangeOfLevel: the radii of a level, as the shaders test them', () => {
  it('holds exactly the radius bins levelOfLog2 puts in the level, for every bias, step and level count', () => {
    for (const levelCount of [1, 2, 3, 7, 16]) {
      for (const levelStep of [1, 2, 3, 5, 8]) {
        for (const levelBias of [-130, -20, -1, 0, 3, 40]) {
          for (let c = -127; c <= 128; c++) {
            const level = levelOfLog2(c, levelBias, levelStep, levelCount);
            for (let b = 0; b < levelCount; b++) {
              const [lo, hi] = log2RangeOfLevel(b, levelBias, levelStep, levelCount);
              expect(
                lo <= c && c <= hi,
                `c ${c}, level ${b} of ${levelCount}, bias ${levelBias}, step ${levelStep}`,
              ).toBe(level === b);
            }
          }
        }
      }
    }
  });
});
