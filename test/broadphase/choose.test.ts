/**
 * 'auto''s choice (chooseBroadphase), host side only: the phase it picks over a grid of query
 * shapes around every threshold (AUTO_GRID_MIN_SPHERES, AUTO_GRID_MIN_BOXES, the sweep's
 * estimate: AUTO_SWEEP_MAX_CANDIDATES and AUTO_SWEEP_MIN_ELONGATION), on the bench's scene kinds
 * with and without the host's statistics, and for casts with and without their records. The
 * picks were recorded from the rules as they stood in src/broadphase/index.ts before each
 * phase's rule moved into its registry line (issue 38): moving them must not change one pick.
 * Where 'auto' weighs cast costs the record says only that it took the cheapest (the cost model
 * has its own tests, test/broadphase/grid/gridWork.test.ts). An intended change of 'auto''s rules changes PICKS
 * here, with its measurement in docs/PERFORMANCE.md.
 */
import { describe, it, expect } from 'vitest';
import { PAIR_SCENES, mixedCasts } from '../../bench/scenes.js';
import { validateSpheres, validateCasts } from '../../src/validate.js';
import { planGrid } from '../../src/spatial/plan.js';
import { LOG2_BINS, LOG2_BIAS, ceilLog2 } from '../../src/spatial/level.js';
import {
  chooseBroadphase,
  castCosts,
  castCostsOf,
  BROADPHASE_NAMES,
  SERVES,
  WITHOUT_SPHERES,
  REGISTRY,
  autoCandidates,
  type QueryShape,
} from '../../src/broadphase/index.js';
import { AUTO_SWEEP_MAX_CANDIDATES, AUTO_SWEEP_MIN_ELONGATION } from '../../src/broadphase/sweep/axis.js';
import { ALL_PAIRS_MAX_SPHERES } from '../../src/broadphase/all-pairs/pairs.js';
import { AUTO_GRID_MIN_SPHERES, AUTO_GRID_MIN_BOXES } from '../../src/options.js';
import { CapacityError } from '../../src/errors.js';
import type { SphereStats } from '../../src/validate.js';
import type { GridPlan } from '../../src/spatial/plan.js';

/** A phase's mark in PICKS: its index in the registry's table (0 all-pairs, 1 grid, 2 sweep, 3 bvh). */
const mark = (name: string): string => String(BROADPHASE_NAMES.indexOf(name as (typeof BROADPHASE_NAMES)[number]));

/** Statistics of n spheres of radius r spread `length` along `axis` and `across` on the other two (uniform, as the sweep's estimate assumes). */
function syntheticStats(n: number, r: number, axis: number, length: number, across: number): SphereStats {
  const log2Hist = new Uint32Array(LOG2_BINS);
  const log2MaxRadius = new Float32Array(LOG2_BINS);
  const bin = Math.max(0, Math.min(LOG2_BINS - 1, ceilLog2(r) + LOG2_BIAS));
  log2Hist[bin] = n;
  log2MaxRadius[bin] = r;
  const extent = [0, 1, 2].map((a) => (a === axis ? length : across));
  return {
    count: n,
    min: [0, 0, 0],
    max: extent as [number, number, number],
    maxRadius: r,
    log2Hist,
    log2MaxRadius,
    variance: extent.map((e) => (e * e) / 12) as [number, number, number],
  };
}

/** A plan no rule should ask for (pairs and boxes never weigh the grid's plan). */
function noPlan(): GridPlan {
  throw new Error('the plan was asked for');
}

/** Every shape the picks are recorded over, each with a label (for a failure's message). */
function shapes(): [string, QueryShape][] {
  const out: [string, QueryShape][] = [];
  const sizes = [
    0,
    1,
    2,
    100,
    AUTO_GRID_MIN_SPHERES - 1,
    AUTO_GRID_MIN_SPHERES,
    AUTO_GRID_MIN_SPHERES + 1,
    1000,
    100_000,
    ALL_PAIRS_MAX_SPHERES,
    ALL_PAIRS_MAX_SPHERES + 1,
  ];
  // Pairs with no statistics: thresholds alone.
  for (const n of sizes) out.push([`pairs n=${n}`, { query: 'pairs', sphereCount: n, gridPlan: noPlan }]);
  // Pairs with synthetic statistics around the sweep's thresholds: candidates n·2r/L, elongation L/across.
  for (const n of [100, AUTO_GRID_MIN_SPHERES - 1, AUTO_GRID_MIN_SPHERES, 20_000]) {
    for (const candidates of [
      0,
      1,
      AUTO_SWEEP_MAX_CANDIDATES * 0.99,
      AUTO_SWEEP_MAX_CANDIDATES,
      AUTO_SWEEP_MAX_CANDIDATES * 1.01,
      100,
    ]) {
      for (const elongation of [
        0.5,
        1,
        AUTO_SWEEP_MIN_ELONGATION * 0.99,
        AUTO_SWEEP_MIN_ELONGATION,
        AUTO_SWEEP_MIN_ELONGATION * 1.01,
        50,
        Infinity,
      ]) {
        for (const axis of [0, 2]) {
          const length = 1000;
          const across = elongation === Infinity ? 0 : length / elongation;
          const r = (candidates * length) / (2 * n);
          out.push([
            `pairs n=${n} candidates=${candidates} elongation=${elongation} axis=${axis}`,
            { query: 'pairs', sphereCount: n, gridPlan: noPlan, stats: syntheticStats(n, r, axis, length, across) },
          ]);
        }
      }
    }
  }
  // Degenerate statistics: every centre coincident (no extent), and none.
  out.push([
    'pairs coincident 1000',
    { query: 'pairs', sphereCount: 1000, gridPlan: noPlan, stats: syntheticStats(1000, 1, 0, 0, 0) },
  ]);
  out.push([
    'pairs coincident r=0',
    { query: 'pairs', sphereCount: 1000, gridPlan: noPlan, stats: syntheticStats(1000, 0, 0, 0, 0) },
  ]);
  // Boxes: spheres × boxes around both thresholds.
  for (const n of sizes) {
    for (const boxCount of [
      undefined,
      0,
      1,
      AUTO_GRID_MIN_BOXES - 1,
      AUTO_GRID_MIN_BOXES,
      AUTO_GRID_MIN_BOXES + 1,
      10_000,
    ]) {
      out.push([`boxes n=${n} boxes=${boxCount}`, { query: 'boxes', sphereCount: n, boxCount, gridPlan: noPlan }]);
    }
  }
  // Casts that need no weighing: none, an empty batch, few spheres.
  for (const n of [0, 100, AUTO_GRID_MIN_SPHERES - 1, AUTO_GRID_MIN_SPHERES]) {
    out.push([`casts n=${n} no batch`, { query: 'casts', sphereCount: n, gridPlan: noPlan }]);
    out.push([
      `casts n=${n} empty batch`,
      { query: 'casts', sphereCount: n, casts: { count: 0, totalLength: 0 }, gridPlan: noPlan },
    ]);
  }
  for (const n of [1, AUTO_GRID_MIN_SPHERES - 1])
    out.push([
      `casts n=${n} 1000 casts`,
      { query: 'casts', sphereCount: n, casts: { count: 1000, totalLength: 1e5 }, gridPlan: noPlan },
    ]);
  // The bench's scene kinds: pairs and boxes with their statistics, casts weighed (with the
  // records and without, as the particle world asks; with the host's statistics and without).
  for (const [kind, scene] of Object.entries(PAIR_SCENES)) {
    for (const n of [AUTO_GRID_MIN_SPHERES, 3000, 12_000]) {
      const spheres = scene.make(n);
      const stats = validateSpheres('spheres', spheres);
      let plan: GridPlan | undefined;
      const gridPlan = (): GridPlan => (plan ??= planGrid(stats));
      out.push([`pairs ${kind} n=${n}`, { query: 'pairs', sphereCount: n, gridPlan, stats }]);
      out.push([`boxes ${kind} n=${n}`, { query: 'boxes', sphereCount: n, boxCount: 500, gridPlan, stats }]);
      for (const count of [1, 2, 40, 2000]) {
        for (const radius of [0, 0.5]) {
          const made = mixedCasts(spheres, count, radius);
          const batch = validateCasts('casts', made.casts, made.stride);
          out.push([
            `casts ${kind} n=${n} casts=${count} r=${radius}`,
            { query: 'casts', sphereCount: n, casts: batch, stats, gridPlan },
          ]);
          out.push([
            `casts ${kind} n=${n} casts=${count} r=${radius} no stats`,
            { query: 'casts', sphereCount: n, casts: batch, gridPlan },
          ]);
          const bound = { count: batch.count, totalLength: batch.count * batch.maxLength };
          out.push([
            `casts ${kind} n=${n} casts=${count} r=${radius} no records`,
            { query: 'casts', sphereCount: n, casts: bound, stats, gridPlan },
          ]);
        }
      }
    }
  }
  return out;
}

/**
 * The picks over shapes(), in its order, one mark each (the phase's index in the registry's
 * table, or 'w' for the cheapest by castCosts where 'auto' weighs them), recorded from the rules before they moved into the registry. To record them again
 * after an intended change: RECORD_PICKS=1 npx vitest run --project node test/broadphase/choose.test.ts.
 */
const PICKS: string = [
  '000001111110000000000000000000000000000000000000000000000000000000000000000000000000000000000000',
  '000000000000000000000000000000000000000000000000000000000000000000000000000000000001111112222222',
  '211111122222222111111222222221111112222222211111111111111111111111111111111112222222211111122222',
  '222111111222222221111111111111111111111111111111111111111111100000000000000000000000000000000000',
  '000011100001110000111000011100001110000111000000000011wwwwwwwwwwwwwwwwwwwwwwww11wwwwwwwwwwwwwwww',
  'wwwwwwww11wwwwwwwwwwwwwwwwwwwwwwww11wwwwwwwwwwwwwwwwwwwwwwww11wwwwwwwwwwwwwwwwwwwwwwww11wwwwwwww',
  'wwwwwwwwwwwwwwww11wwwwwwwwwwwwwwwwwwwwwwww11wwwwwwwwwwwwwwwwwwwwwwww11wwwwwwwwwwwwwwwwwwwwwwww11',
  'wwwwwwwwwwwwwwwwwwwwwwww11wwwwwwwwwwwwwwwwwwwwwwww11wwwwwwwwwwwwwwwwwwwwwwww11wwwwwwwwwwwwwwwwww',
  'wwwwww11wwwwwwwwwwwwwwwwwwwwwwww11wwwwwwwwwwwwwwwwwwwwwwww11wwwwwwwwwwwwwwwwwwwwwwww11wwwwwwwwww',
  'wwwwwwwwwwwwww11wwwwwwwwwwwwwwwwwwwwwwww11wwwwwwwwwwwwwwwwwwwwwwww11wwwwwwwwwwwwwwwwwwwwwwww11ww',
  'wwwwwwwwwwwwwwwwwwwwww11wwwwwwwwwwwwwwwwwwwwwwww11wwwwwwwwwwwwwwwwwwwwwwww11wwwwwwwwwwwwwwwwwwww',
  'wwww21wwwwwwwwwwwwwwwwwwwwwwww21wwwwwwwwwwwwwwwwwwwwwwww21wwwwwwwwwwwwwwwwwwwwwwww11wwwwwwwwwwww',
  'wwwwwwwwwwww11wwwwwwwwwwwwwwwwwwwwwwww11wwwwwwwwwwwwwwwwwwwwwwww11wwwwwwwwwwwwwwwwwwwwwwww11wwww',
  'wwwwwwwwwwwwwwwwwwww11wwwwwwwwwwwwwwwwwwwwwwww11wwwwwwwwwwwwwwwwwwwwwwww11wwwwwwwwwwwwwwwwwwwwww',
  'ww11wwwwwwwwwwwwwwwwwwwwwwww11wwwwwwwwwwwwwwwwwwwwwwww11wwwwwwwwwwwwwwwwwwwwwwww11wwwwwwwwwwwwww',
  'wwwwwwwwww11wwwwwwwwwwwwwwwwwwwwwwww11wwwwwwwwwwwwwwwwwwwwwwww11wwwwwwwwwwwwwwwwwwwwwwww11wwwwww',
  'wwwwwwwwwwwwwwwwww11wwwwwwwwwwwwwwwwwwwwwwww11wwwwwwwwwwwwwwwwwwwwwwww21wwwwwwwwwwwwwwwwwwwwwwww',
  '21wwwwwwwwwwwwwwwwwwwwwwww21wwwwwwwwwwwwwwwwwwwwwwww11wwwwwwwwwwwwwwwwwwwwwwww11wwwwwwwwwwwwwwww',
  'wwwwwwww11wwwwwwwwwwwwwwwwwwwwwwww',
].join('');

/**
 * Whether 'auto' weighs the phases' cast costs for this shape (a cast batch over at least
 * AUTO_GRID_MIN_SPHERES spheres): its pick is then the cheapest by castCosts, recorded as 'w'
 * (the cost model is docs/PERFORMANCE.md's and test/broadphase/grid/gridWork.test.ts's, and changes with it).
 */
const weighed = (shape: QueryShape): boolean =>
  shape.query === 'casts' && (shape.casts?.count ?? 0) > 0 && shape.sphereCount >= AUTO_GRID_MIN_SPHERES;

/** The cheapest phase by castCosts among 'auto''s candidates for casts, the first in the table's order on a tie. */
function cheapest(shape: QueryShape): string {
  const costs: Record<string, number> = shape.stats
    ? castCosts(shape.gridPlan(), shape.stats, shape.casts!)
    : castCostsOf({ ...shape, casts: shape.casts! });
  const weighable = autoCandidates('casts').filter((name) => name in costs);
  return weighable.reduce((best, name) => (costs[name] < costs[best] ? name : best));
}

describe("'auto' picks what it picked before its rules moved into the registry", () => {
  it('every shape of the grid: the recorded pick', () => {
    const all = shapes();
    const picks = all
      .map(([, shape]) => {
        const pick = chooseBroadphase('auto', shape);
        return weighed(shape) && pick === cheapest(shape) ? 'w' : mark(pick);
      })
      .join('');
    if (process.env.RECORD_PICKS) console.log(`PICKS ${picks}`);
    expect(picks.length).toBe(PICKS.length);
    const name = (m: string): string => BROADPHASE_NAMES[Number(m)] ?? m;
    const wrong = all.flatMap(([label], i) =>
      picks[i] === PICKS[i] ? [] : [`${label}: ${name(picks[i])} (was ${name(PICKS[i])})`],
    );
    expect(wrong.slice(0, 20), `${wrong.length} picks changed`).toEqual([]);
  });

  it('picks every phase that has a rule somewhere, and only for queries it serves and it has a rule for', () => {
    const seen = new Set<string>();
    for (const [label, shape] of shapes()) {
      const pick = chooseBroadphase('auto', shape);
      seen.add(pick);
      expect(SERVES[pick], label).toContain(shape.query);
      expect(autoCandidates(shape.query), label).toContain(pick);
    }
    expect([...seen].sort()).toEqual(
      BROADPHASE_NAMES.filter((name) => Object.keys(REGISTRY[name].auto).length > 0).sort(),
    );
  });

  it('an explicit phase is kept, and all-pairs refuses more sphere pairs than it can hold', () => {
    for (const name of BROADPHASE_NAMES) {
      for (const query of REGISTRY[name].serves)
        expect(chooseBroadphase(name, { query, sphereCount: 1000, gridPlan: noPlan })).toBe(name);
    }
    expect(
      chooseBroadphase('all-pairs', { query: 'pairs', sphereCount: ALL_PAIRS_MAX_SPHERES, gridPlan: noPlan }),
    ).toBe('all-pairs');
    expect(() =>
      chooseBroadphase('all-pairs', { query: 'pairs', sphereCount: ALL_PAIRS_MAX_SPHERES + 1, gridPlan: noPlan }),
    ).toThrow(CapacityError);
    expect(
      chooseBroadphase('all-pairs', {
        query: 'boxes',
        sphereCount: ALL_PAIRS_MAX_SPHERES + 1,
        boxCount: 1,
        gridPlan: noPlan,
      }),
    ).toBe('all-pairs');
    expect(WITHOUT_SPHERES).toBe('all-pairs');
  });
});
