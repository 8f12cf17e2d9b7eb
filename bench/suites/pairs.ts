/**
 * Sphere–sphere pairs on named scene kinds (bench/scenes.ts; `--scenes`): the GPU grid and
 * all-pairs beside the CPU reference grid (the GPU grid's twin), two single-threaded JS grids —
 * `js-grid`, written as a careful CPU author would (levels by radius, coordinates copied into
 * cell order, half the neighbour cells), and `js-grid-naive`, the straightforward one — and
 * Rapier's broad + narrow phase (sensor intersections) and `cpu-bvh` (bench/peers/cpuBvh.ts: a
 * float64 binned-SAH BVH built per call, its build timed with its query). Before a method's time counts, its pair
 * set is checked against the reference grid's: they may differ only within docs/CONTRACT.md's
 * rounding band.
 */
import { reference } from '../../src/index.js';
import { diffPairs, bandViolations } from '../../test/support/pairs.js';
import { jsGridSpherePairs, jsGridSpherePairsNaive, type JsGridLevels } from '../peers/jsGrid.js';
import { initRapier, rapierSpherePairs } from '../peers/rapier.js';
import { cpuBvhSpherePairs, warmCpuBvh, type CpuBvhStats } from '../peers/cpuBvh.js';
import { measureChecked, profileOf, type Context, type Row, type Sample } from '../harness.js';
import { PAIR_SCENES, pairScene } from '../scenes.js';
import { gpuMethod, gpuMethods, broadphaseOf, BRUTE_FORCE_METHODS } from '../methods.js';

/** The scene kinds, by name (bench/scenes.ts). */
export const SCENES: Record<string, (n: number) => Float32Array> = Object.fromEntries(
  Object.entries(PAIR_SCENES).map(([k, v]) => [k, v.make]),
);

export const CROSSOVER_SIZES = [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384];
/** The GPU methods (bench/methods.ts: 'auto' and each phase serving pairs, from the registry), then the peers. */
export const PAIR_METHODS = [...gpuMethods('pairs'), 'cpu-grid', 'js-grid', 'js-grid-naive', 'cpu-bvh', 'rapier'];

/** Bytes the GPU grid moves: build (count 24 B + scatter 36 B per sphere, scan 12 B per bucket), walk (8 B a row, 16 B a candidate), 8 B a pair out. */
function gridBytes(n: number, buckets: number, rows: number, candidates: number, pairs: number): number {
  return 60 * n + 12 * buckets + 8 * rows + 16 * candidates + 8 * pairs;
}

/** A method's run on a scene: what it found, and its GPU time or its own timing where it has one. */
async function runMethod(
  ctx: Context,
  method: string,
  spheres: Float32Array,
  levels?: JsGridLevels,
  bvh?: CpuBvhStats,
): Promise<Sample & { setupMs?: number }> {
  const { collider } = ctx;
  const broadphase = broadphaseOf(method);
  if (broadphase) {
    const pairs = await collider.spherePairs(spheres, { broadphase, profile: ctx.profiling });
    return { answer: pairs.length / 2, output: pairs, ...(ctx.profiling ? profileOf(collider) : {}) };
  }
  if (method === 'cpu-grid') {
    const pairs = reference.gridSpherePairs(spheres, collider.planFor(spheres));
    return { answer: pairs.length / 2, output: pairs };
  }
  if (method === 'js-grid' || method === 'js-grid-naive') {
    const pairs = method === 'js-grid' ? jsGridSpherePairs(spheres, levels) : jsGridSpherePairsNaive(spheres);
    return { answer: pairs.length / 2, output: pairs };
  }
  if (method === 'cpu-bvh') {
    const pairs = cpuBvhSpherePairs(spheres, bvh);
    return { answer: pairs.length / 2, output: pairs };
  }
  if (method === 'rapier') {
    // Rapier: the step (broad + narrow phase) is the time; building the world is reported beside it.
    const r = rapierSpherePairs(spheres);
    return { answer: r.result.length / 2, output: r.result, timeMs: r.queryMs, setupMs: r.setupMs };
  }
  throw new Error(`unknown pair method "${method}": the methods are ${PAIR_METHODS.join(', ')}`);
}

/**
 * From this size on, a method not yet timed on a smaller size of the scene is first timed on two
 * smaller instances of it (n/128 and n/16, at most PROBE_MAX / 8 and PROBE_MAX; the faster of two
 * runs each, after one to warm up): some methods are quadratic on some scenes (Rapier and the GPU
 * grid on the tiny blob), and the budget needs an estimate.
 */
const PROBE_FROM = 20_000;
const PROBE_MAX = 8192;

export async function pairsSuite(
  ctx: Context,
  sizes: number[],
  scenes: string[],
  crossover: boolean,
  methods = PAIR_METHODS,
): Promise<Row[]> {
  const rows: Row[] = [];
  const { collider } = ctx;
  await initRapier();
  if (methods.includes('cpu-bvh')) warmCpuBvh(); // V8 optimises the peer before it is timed
  // (size, time) of every run of each scene and method, to estimate (and skip) the next size:
  // a power law through the last two, exponent clamped to [1, 2] (all-pairs: 2).
  const history: Record<string, [number, number][]> = {};
  const estimate = (key: string, n: number): number | undefined => {
    const points = history[key] ?? [];
    if (!points.length) return undefined;
    const [n2, t2] = points[points.length - 1];
    let k = [...BRUTE_FORCE_METHODS].some((method) => key.endsWith(` ${method}`)) ? 2 : 1;
    if (points.length > 1 && k === 1) {
      const [n1, t1] = points[points.length - 2];
      if (n2 > n1 && t1 > 0) k = Math.min(Math.max(Math.log(t2 / t1) / Math.log(n2 / n1), 1), 2);
    }
    return t2 * (n / n2) ** k;
  };
  const timeOf = (sample: Sample, wallMs: number): number => sample.gpuMs ?? sample.timeMs ?? wallMs;
  const learn = (key: string, row: Row, n: number): Row => {
    const t = row.gpuMs?.median ?? row.wallMs?.median;
    if (t) (history[key] ??= []).push([n, t]);
    return row;
  };

  const runScene = async (scene: string, n: number, methodNames: string[], label = scene): Promise<void> => {
    const spheres = pairScene(scene, n);
    const plan = collider.planFor(spheres);
    const stats = { rows: 0, candidates: 0 };
    const expected = reference.gridSpherePairs(spheres, plan, stats);
    const check = (pairs: Uint32Array): string | null => {
      const problems = bandViolations(diffPairs(spheres, pairs, expected));
      return problems.length ? problems.slice(0, 3).join('; ') : null;
    };
    const answer = expected.length / 2;
    const gridWork = {
      rows: stats.rows,
      candidates: stats.candidates,
      bytes: gridBytes(n, plan.bucketCount, stats.rows, stats.candidates, answer),
    };
    const work: Record<string, Record<string, number>> = {
      'gpu-grid': gridWork,
      'cpu-grid': gridWork,
      'gpu-all-pairs': { tests: (n * (n - 1)) / 2, bytes: 16 * n * Math.ceil(n / 64) + 8 * answer },
    };
    for (const method of methodNames) {
      const base = {
        suite: 'pairs',
        scene: label,
        size: { spheres: n },
        method,
        ...(work[method] ? { work: work[method] } : {}),
      };
      const key = `${label} ${method}`;
      let probed = '';
      if (!history[key] && n >= PROBE_FROM) {
        // Time it on two smaller instances of the scene, so that the budget can skip it.
        const m2 = Math.min(Math.round(n / 16), PROBE_MAX);
        for (const m of [Math.round(m2 / 8), m2]) {
          const small = pairScene(scene, m);
          if (m < m2) await runMethod(ctx, method, small);
          let best = Infinity;
          for (let r = 0; r < 2; r++) {
            const t = performance.now();
            const sample = await runMethod(ctx, method, small);
            best = Math.min(best, timeOf(sample, performance.now() - t));
          }
          (history[key] ??= []).push([m, best]);
        }
        probed = `estimated from runs at ${history[key].map(([m]) => m).join(' and ')} spheres`;
      }
      const levels = {} as JsGridLevels;
      const bvh: CpuBvhStats = {};
      let setup: number | undefined;
      let row = await measureChecked(
        ctx,
        base,
        async () => {
          const sample = await runMethod(ctx, method, spheres, levels, bvh);
          setup = sample.setupMs;
          return sample;
        },
        estimate(key, n),
        check,
      );
      const notes: string[] = [];
      if (method === 'js-grid' && levels.spheres) {
        notes.push(
          `levels: ${levels.spheres.map((m, l) => `${m} spheres r ≤ ${levels.rMax[l].toPrecision(2)}${levels.sparse[l] ? ' (sparse cells)' : ''}`).join(', ')}`,
        );
      }
      if (method === 'cpu-bvh' && bvh.buildMs !== undefined)
        notes.push(`build ${bvh.buildMs.toFixed(1)} ms of it; ${bvh.leaves} leaves, depth ${bvh.depth}`);
      if (setup !== undefined) notes.push(`+ world build ${setup.toFixed(0)} ms`);
      if (row.skipped && probed) notes.push(probed);
      if (notes.length) row = { ...row, note: notes.join('; ') };
      rows.push(learn(key, row, n));
    }
  };
  for (const scene of scenes) for (const n of sizes) await runScene(scene, n, methods);
  if (crossover)
    for (const n of CROSSOVER_SIZES)
      await runScene('uniform', n, [gpuMethod('all-pairs'), gpuMethod('grid')], 'crossover');
  return rows;
}
