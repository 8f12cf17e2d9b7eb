/**
 * Sphere–sphere pairs on named scenarios: the GPU grid and all-pairs beside the CPU reference
 * grid (the GPU grid's twin), a plain single-threaded JS grid, and Rapier's broad + narrow phase
 * (sensor intersections). Before a method's time counts, its pair set is checked against the GPU
 * grid's: they may differ only within DESIGN.md's rounding band.
 */
import { reference } from '../../src/index.js';
import { uniformScene, mixedRadiiScene, clusteredScene } from '../../test/support/scenes.js';
import { diffPairs, bandViolations } from '../../test/support/pairs.js';
import { jsGridSpherePairs } from '../peers/jsGrid.js';
import { initRapier, rapierSpherePairs } from '../peers/rapier.js';
import { measureChecked, profileOf, type Context, type Row } from '../harness.js';

export const SCENES: Record<string, (n: number) => Float32Array> = {
  uniform: (n) => uniformScene(n, { seed: 7, fraction: 0.1 }),
  clustered: (n) => clusteredScene(n, { seed: 9 }),
  mixed: (n) => mixedRadiiScene(n, { seed: 8, fraction: 0.1 }, 0.01, 1),
  dense: (n) => uniformScene(n, { seed: 10, fraction: 0.4 }),
};

export const CROSSOVER_SIZES = [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384];
export const PAIR_METHODS = ['gpu-grid', 'gpu-all-pairs', 'cpu-grid', 'js-grid', 'rapier'];

/** Bytes the GPU grid moves: build (count 24 B + scatter 36 B per sphere, scan 12 B per bucket), walk (8 B a row, 16 B a candidate), 8 B a pair out. */
function gridBytes(n: number, buckets: number, rows: number, candidates: number, pairs: number): number {
  return 60 * n + 12 * buckets + 8 * rows + 16 * candidates + 8 * pairs;
}

export async function pairsSuite(ctx: Context, sizes: number[], scenes: string[], crossover: boolean, methods = PAIR_METHODS): Promise<Row[]> {
  const rows: Row[] = [];
  const { collider } = ctx;
  await initRapier();
  // Per-item cost at the last size each method ran, to estimate (and skip) the next.
  const rate: Record<string, number> = {};
  const estimate = (key: string, n: number): number | undefined => {
    const per = rate[key];
    if (!per) return undefined;
    return key.endsWith(' gpu-all-pairs') ? per * n * n : per * n;
  };
  const learn = (row: Row, n: number): Row => {
    const t = row.gpuMs?.median ?? row.wallMs?.median;
    if (t) rate[`${row.scene} ${row.method}`] = row.method === 'gpu-all-pairs' ? t / (n * n) : t / n;
    return row;
  };

  const runScene = async (scene: string, n: number, methodNames: string[], label = scene): Promise<void> => {
    const spheres = SCENES[scene](n);
    const plan = collider.planFor(spheres);
    const stats = { rows: 0, candidates: 0 };
    const expected = reference.gridSpherePairs(spheres, plan, stats);
    const check = (pairs: Uint32Array): string | null => {
      const problems = bandViolations(diffPairs(spheres, pairs, expected));
      return problems.length ? problems.slice(0, 3).join('; ') : null;
    };
    const answer = expected.length / 2;
    const gridWork = { rows: stats.rows, candidates: stats.candidates, bytes: gridBytes(n, plan.bucketCount, stats.rows, stats.candidates, answer) };
    for (const method of methodNames) {
      const base = { suite: 'pairs', scene: label, size: { spheres: n }, method };
      const key = `${label} ${method}`;
      let row: Row;
      if (method === 'gpu-grid') {
        row = await measureChecked(ctx, { ...base, work: gridWork }, async () => {
          const pairs = await collider.spherePairs(spheres, { broadphase: 'grid', profile: true });
          return { answer: pairs.length / 2, output: pairs, ...profileOf(collider) };
        }, estimate(key, n), check);
      } else if (method === 'gpu-all-pairs') {
        const tests = (n * (n - 1)) / 2;
        row = await measureChecked(ctx, { ...base, work: { tests, bytes: 16 * n * Math.ceil(n / 64) + 8 * answer } }, async () => {
          const pairs = await collider.spherePairs(spheres, { broadphase: 'all-pairs', profile: true });
          return { answer: pairs.length / 2, output: pairs, ...profileOf(collider) };
        }, estimate(key, n), check);
      } else if (method === 'cpu-grid') {
        row = await measureChecked(ctx, { ...base, work: gridWork }, async () => {
          const pairs = reference.gridSpherePairs(spheres, plan);
          return { answer: pairs.length / 2, output: pairs };
        }, estimate(key, n), check);
      } else if (method === 'js-grid') {
        row = await measureChecked(ctx, base, async () => {
          const pairs = jsGridSpherePairs(spheres);
          return { answer: pairs.length / 2, output: pairs };
        }, estimate(key, n), check);
      } else {
        // Rapier: the step (broad + narrow phase) is the time; building the world is reported beside it.
        let setup = 0;
        row = await measureChecked(ctx, base, async () => {
          const r = rapierSpherePairs(spheres);
          setup = r.setupMs;
          return { answer: r.result.length / 2, output: r.result, timeMs: r.queryMs };
        }, estimate(key, n), check);
        row = { ...row, note: `world construction ${setup.toFixed(0)} ms more` };
      }
      rows.push(learn(row, n));
    }
  };
  for (const scene of scenes) for (const n of sizes) await runScene(scene, n, methods);
  if (crossover) for (const n of CROSSOVER_SIZES) await runScene('uniform', n, ['gpu-all-pairs', 'gpu-grid'], 'crossover');
  return rows;
}
