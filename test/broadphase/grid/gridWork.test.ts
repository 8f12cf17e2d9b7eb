/**
 * The grid's work on skewed scenes, counted by its CPU twin (src/reference/grid.ts and
 * gridQueries.ts walk the same plan, levels, cells and rows as the GPU kernels): rows of cells
 * visited, candidate spheres tested and, for casts, slabs walked, per sphere, per box or per
 * cast. Counts, unlike times, cannot be fooled by a loaded machine. Each is bounded at about 3×
 * what the plan of cdf4606 does; at 74492f8 (a cell floor taken from the bounds alone), the
 * far-apart blobs tested 720 candidates a sphere and the few far outliers 4,000 (8,000 a box and
 * a cast), against 3 and 6 here. The scene kinds are the bench's (bench/scenes.ts); 8,000
 * spheres, 2,000 boxes (boxScene), 2,000 mixed casts (mixedCasts).
 */
import { describe, it, expect } from 'vitest';
import { PAIR_SCENES, boxScene, mixedCasts, castSceneOf } from '../../../bench/scenes.js';
import { validateSpheres, validateAabbs, validateCasts, boxSampleOf } from '../../../src/validate.js';
import { chooseBroadphase, castCosts, castCostTerms, phasesServing, CAST_COST } from '../../../src/broadphase/index.js';
import type { CastPhaseName } from '../../../src/broadphase/registry.js';
import { planGrid } from '../../../src/spatial/plan.js';
import { gridSpherePairs } from '../../../src/reference/grid.js';
import { gridSphereAabbPairs, gridCasts } from '../../../src/reference/gridQueries.js';

const N = 8000;
const BOXES = 2000;
const CASTS = 2000;

/**
 * Work measured at cdf4606 (rows + candidates per sphere; per box; slabs + rows + candidates per
 * cast). The bound is 3× these. Casts on the blobs are costly by nature of the grid (long casts
 * through empty cells between blobs): 'auto' weighs them against the BVH (src/broadphase/index.ts).
 * The far lattice's and the far scene's casts are measured since the walk works in each level's
 * frame (gridWalkSlack) and over the stretch within reach of its bounds: with a slack of 2^-20 of
 * the absolute coordinates they walked 3,377 and 80.4 (a tube 16 cells across at 1e6). The casts'
 * counts are measured again since the walk takes the coarsest level first and narrows each row to
 * where the cast reaches it (shaders/broadphase/grid/casts.wgsl.ts): none more, the tiny blob 57% fewer.
 */
const MEASURED: Record<string, { pairs: number; boxes: number; casts: number }> = {
  uniform: { pairs: 7.3, boxes: 45.9, casts: 25.6 },
  clustered: { pairs: 7.2, boxes: 32.1, casts: 40.4 },
  mixed: { pairs: 11.6, boxes: 43.2, casts: 52 },
  dense: { pairs: 14.2, boxes: 102.4, casts: 25.2 },
  'tiny-blob': { pairs: 9.9, boxes: 50.1, casts: 23.6 },
  radii1000: { pairs: 11.7, boxes: 38, casts: 56.2 },
  far: { pairs: 7.3, boxes: 45.9, casts: 26 },
  slab: { pairs: 6.3, boxes: 31.8, casts: 20.8 },
  long: { pairs: 5.4, boxes: 20.7, casts: 14.8 },
  coincident: { pairs: 26.4, boxes: 183.4, casts: 65.9 },
  points: { pairs: 1.4, boxes: 67.8, casts: 94.1 },
  blobs: { pairs: 7.2, boxes: 30.9, casts: 2312.6 },
  outliers: { pairs: 9.6, boxes: 45.2, casts: 40.3 },
  lattice: { pairs: 23, boxes: 124.3, casts: 27.8 },
  'lattice-far': { pairs: 16.4, boxes: 123.7, casts: 30.5 },
  line: { pairs: 2.5, boxes: 6.9, casts: 142.3 },
  plane: { pairs: 3.7, boxes: 15.4, casts: 13 },
};

describe('the grid walks a bounded amount of work on every scene kind (CPU twin counts, 8,000 spheres)', () => {
  it('every bench scene kind has a measured bound here', () => {
    expect(Object.keys(MEASURED).sort()).toEqual(Object.keys(PAIR_SCENES).sort());
  });

  for (const [kind, measured] of Object.entries(MEASURED)) {
    it(`${kind}: pairs, 2,000 boxes and 2,000 mixed casts stay within 3× the work measured`, () => {
      const spheres = PAIR_SCENES[kind].make(N);
      const stats = validateSpheres('spheres', spheres);
      const plan = planGrid(stats);

      const pairs = { rows: 0, candidates: 0 };
      gridSpherePairs(spheres, plan, pairs);
      const { boxes } = boxScene(kind, N, BOXES, 'aabb');
      const boxPlan = planGrid(stats, {}, boxSampleOf('aabb', validateAabbs('aabbs', boxes)));
      const box = { rows: 0, candidates: 0 };
      gridSphereAabbPairs(spheres, boxes, boxPlan, box);
      const { casts, stride } = mixedCasts(spheres, CASTS);
      const cast = { rows: 0, candidates: 0, slabs: 0 };
      gridCasts(casts, stride, spheres, plan, false, cast);

      const work = {
        pairs: (pairs.rows + pairs.candidates) / N,
        boxes: (box.rows + box.candidates) / BOXES,
        casts: (cast.slabs + cast.rows + cast.candidates) / CASTS,
      };
      for (const query of ['pairs', 'boxes', 'casts'] as const) {
        expect(
          work[query],
          `${kind} ${query}: ${work[query].toFixed(1)} against ${measured[query]} measured`,
        ).toBeLessThanOrEqual(3 * measured[query]);
      }
    });
  }
});

describe("'auto' for casts weighs the grid's walk against the BVH and brute force (castCosts)", () => {
  const pick = (kind: string, n: number, casts = 2000): string => {
    const spheres = PAIR_SCENES[kind].make(n);
    const stats = validateSpheres('spheres', spheres);
    const plan = planGrid(stats);
    const batch = validateCasts('rays', mixedCasts(spheres, casts).casts, 6);
    return chooseBroadphase('auto', { query: 'casts', sphereCount: n, casts: batch, stats, gridPlan: () => plan });
  };

  it('the grid where casts meet spheres soon: uniform, dense, slab, lattice, plane (16,000 spheres)', () => {
    for (const kind of ['uniform', 'dense', 'slab', 'lattice', 'plane']) expect(pick(kind, 16_000), kind).toBe('grid');
  });

  it('the BVH where casts cross empty cells between far-apart blobs (the grid walked 2,300 rows a cast: 6.5 s against 0.13 s)', () => {
    expect(pick('blobs', 16_000)).toBe('bvh');
    expect(pick('blobs', 200_000)).toBe('bvh');
  });

  it("sphere casts (radius 0.5) from outside: the grid into the touching lattices and past the tiny blob, the BVH over the points' hashed cells (bench/probes/castFit.ts: 63 ms against 93-113, 32 against 50, 48 against 305)", () => {
    const pickOutside = (kind: string, n: number): string => {
      const { spheres, casts, stride } = castSceneOf(kind, n, 2000, 0.5);
      const stats = validateSpheres('spheres', spheres);
      const plan = planGrid(stats);
      const batch = validateCasts('casts', casts, stride);
      return chooseBroadphase('auto', { query: 'casts', sphereCount: n, casts: batch, stats, gridPlan: () => plan });
    };
    for (const kind of ['lattice', 'lattice-far', 'tiny-blob']) expect(pickOutside(kind, 16_000), kind).toBe('grid');
    expect(pickOutside('points', 16_000)).toBe('bvh');
  });

  it("every phase's cast-cost terms have a constant, and the costs are finite and positive", () => {
    const spheres = PAIR_SCENES.uniform.make(4000);
    const stats = validateSpheres('spheres', spheres);
    const plan = planGrid(stats);
    const batch = validateCasts('rays', mixedCasts(spheres, 500).casts, 6);
    const terms = castCostTerms(plan, stats, batch);
    const costs = castCosts(plan, stats, batch);
    for (const name of phasesServing('casts') as CastPhaseName[]) {
      expect(Object.keys(terms[name]).sort(), name).toEqual(Object.keys(CAST_COST[name]).sort());
      expect(costs[name] > 0 && Number.isFinite(costs[name]), `${name}: ${costs[name]}`).toBe(true);
    }
  });

  it('brute force for a handful of casts, and all-pairs below the grid threshold', () => {
    expect(pick('uniform', 16_000, 2)).toBe('all-pairs');
    expect(pick('uniform', 100, 2000)).toBe('all-pairs');
  });
});
