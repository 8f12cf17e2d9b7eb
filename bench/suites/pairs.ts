/**
 * Sphere–sphere pairs: the GPU grid and all-pairs beside the CPU reference grid (the GPU grid's
 * twin) and a plain single-threaded JS grid, on the same scenes.
 */
import { reference } from '../../src/index.js';
import { uniformScene, mixedRadiiScene } from '../../test/support/scenes.js';
import { jsGridSpherePairs } from '../peers/jsGrid.js';
import { measureChecked, profileOf, type Context, type Row } from '../harness.js';

export const SCENES: Record<string, (n: number) => Float32Array> = {
  uniform: (n) => uniformScene(n, { seed: 7, fraction: 0.1 }),
  mixed: (n) => mixedRadiiScene(n, { seed: 8, fraction: 0.1 }, 0.01, 1),
};

export const CROSSOVER_SIZES = [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384];

export async function pairsSuite(ctx: Context, sizes: number[], scenes: string[], crossover: boolean): Promise<Row[]> {
  const rows: Row[] = [];
  const { collider } = ctx;
  const allPairsRate = { testsPerMs: 0 };
  const runScene = async (scene: string, n: number, methods: string[], label = scene): Promise<void> => {
    const spheres = SCENES[scene](n);
    const expected: { answer?: number } = {};
    const stats = { rows: 0, candidates: 0 };
    reference.gridSpherePairs(spheres, collider.planFor(spheres), stats);
    const gridWork = { rows: stats.rows, candidates: stats.candidates };
    for (const method of methods) {
      const base = { suite: 'pairs', scene: label, size: { spheres: n }, method };
      let row: Row;
      if (method === 'gpu-grid') {
        row = await measureChecked(ctx, { ...base, work: gridWork }, async () => {
          const pairs = await collider.spherePairs(spheres, { broadphase: 'grid', profile: true });
          return { answer: pairs.length / 2, ...profileOf(collider) };
        }, undefined, expected);
      } else if (method === 'gpu-all-pairs') {
        const tests = (n * (n - 1)) / 2;
        row = await measureChecked(ctx, { ...base, work: { tests } }, async () => {
          const pairs = await collider.spherePairs(spheres, { broadphase: 'all-pairs', profile: true });
          return { answer: pairs.length / 2, ...profileOf(collider) };
        }, allPairsRate.testsPerMs ? tests / allPairsRate.testsPerMs : undefined, expected);
        if (row.gpuMs) allPairsRate.testsPerMs = tests / row.gpuMs.median;
      } else if (method === 'cpu-grid') {
        row = await measureChecked(ctx, { ...base, work: gridWork }, async () => ({ answer: reference.gridSpherePairs(spheres, collider.planFor(spheres)).length / 2 }), undefined, expected);
      } else {
        row = await measureChecked(ctx, base, async () => ({ answer: jsGridSpherePairs(spheres).length / 2 }), undefined, expected);
      }
      rows.push(row);
    }
  };
  for (const scene of scenes) for (const n of sizes) await runScene(scene, n, ['gpu-grid', 'gpu-all-pairs', 'cpu-grid', 'js-grid']);
  if (crossover) for (const n of CROSSOVER_SIZES) await runScene('uniform', n, ['gpu-all-pairs', 'gpu-grid'], 'crossover');
  return rows;
}
