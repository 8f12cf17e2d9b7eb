/**
 * `npm run bench`: every query on the GPU beside the CPU references (and, for pairs, a plain JS
 * grid), on the same scenes in the same run. Prints Markdown tables and writes JSON.
 *
 *   npm run bench -- [--suites pairs,casts,boxes,particles] [--sizes 10000,100000,400000]
 *                    [--cast-sizes 10000x10000,100000x100000] [--box-sizes 100000x10000]
 *                    [--particle-sizes 100000,1000000]
 *                    [--scenes uniform,mixed] [--crossover] [--large]
 *                    [--reps 7] [--warmup 2] [--budget 60] [--json bench/results/bench.json]
 *
 * GPU time is the sum of the stages' timestamp-query times (median over reps, after warm-up);
 * wall time is the whole call, validation, upload and readback included. A method whose
 * estimated time for all its repetitions exceeds the budget (seconds) is skipped and said so;
 * one that would take more than a tenth of it runs once. `--large` adds 1M × 1M casts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { requestNodeDevice, createCollider, describeDevice } from '../src/node.js';
import { ms, table } from './stats.js';
import type { Context, Row } from './harness.js';
import { pairsSuite, CROSSOVER_SIZES } from './suites/pairs.js';
import { castsSuite } from './suites/casts.js';
import { boxesSuite } from './suites/boxes.js';
import { particlesSuite } from './suites/particles.js';

const { values: args } = parseArgs({
  options: {
    suites: { type: 'string', default: 'pairs,casts,boxes,particles' },
    'particle-sizes': { type: 'string', default: '100000,1000000' },
    sizes: { type: 'string', default: '10000,100000,400000' },
    'cast-sizes': { type: 'string', default: '10000x10000,100000x100000' },
    'box-sizes': { type: 'string', default: '100000x10000' },
    scenes: { type: 'string', default: 'uniform,mixed' },
    reps: { type: 'string', default: '7' },
    warmup: { type: 'string', default: '2' },
    budget: { type: 'string', default: '60' },
    crossover: { type: 'boolean', default: false },
    large: { type: 'boolean', default: false },
    json: { type: 'string', default: 'bench/results/bench.json' },
  },
});

const pairsOf = (list: string): [number, number][] => list.split(',').filter(Boolean).map((s) => s.split('x').map(Number) as [number, number]);

const device = await requestNodeDevice();
const info = describeDevice(device);
const collider = await createCollider({ device });
const ctx: Context = { collider, reps: Number(args.reps), warmup: Number(args.warmup), budgetMs: Number(args.budget) * 1000, large: args.large };
const suites = args.suites.split(',');
const command = `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim();
console.log(`# webgpu-collide bench\n\nadapter: ${info?.description} (${info?.vendor}/${info?.architecture})${info?.isFallbackAdapter ? ', software' : ''}; node ${process.version}; ${new Date().toISOString()}\ncommand: ${command}\n`);

const rows: Row[] = [];
if (suites.includes('pairs')) rows.push(...(await pairsSuite(ctx, args.sizes.split(',').map(Number), args.scenes.split(','), args.crossover)));
if (suites.includes('casts')) {
  const sizes = pairsOf(args['cast-sizes']);
  if (args.large) sizes.push([1_000_000, 1_000_000]);
  rows.push(...(await castsSuite(ctx, sizes)));
}
if (suites.includes('boxes')) rows.push(...(await boxesSuite(ctx, pairsOf(args['box-sizes']))));
if (suites.includes('particles')) rows.push(...(await particlesSuite(ctx, args['particle-sizes'].split(',').map(Number))));

const sizeText = (size: Record<string, number>): string => Object.entries(size).map(([k, v]) => `${v >= 1000 ? `${v / 1000}k` : v} ${k}`).join(' × ');
const workText = (work?: Record<string, number>): string => (work ? Object.entries(work).map(([k, v]) => `${k} ${v.toExponential(2)}`).join(', ') : '');
for (const suite of ['pairs', 'casts', 'boxes', 'particles']) {
  const mine = rows.filter((r) => r.suite === suite);
  if (!mine.length) continue;
  console.log(`\n## ${suite}\n`);
  console.log(table(
    ['scene', 'size', 'method', 'answer', 'GPU ms', 'wall ms (min–max)', 'rate', 'work', 'GPU stages (ms)'],
    mine.map((r) => [
      r.scene,
      sizeText(r.size),
      r.method,
      r.answer === undefined ? '–' : String(r.answer),
      r.gpuMs ? ms(r.gpuMs.median) : '–',
      r.wallMs ? `${ms(r.wallMs.median)} (${ms(r.wallMs.min)}–${ms(r.wallMs.max)})` : r.skipped ?? '–',
      r.rate ? `${r.rate.value.toExponential(2)} ${r.rate.unit}` : '',
      workText(r.work),
      r.stagesMs ? Object.entries(r.stagesMs).map(([k, v]) => `${k} ${ms(v)}`).join(', ') : '',
    ]),
  ));
}

/**
 * Weights for predicting the grid's speed-up over brute force, fixed before measuring, from
 * what each unit reads: a brute-force test reads a sphere staged in workgroup memory (1); a
 * candidate reads one sphere from global memory at a data-dependent address (4); a row reads
 * two bucket offsets from global memory (4); a slab sets up its stretch and cell range (8).
 */
const WORK_WEIGHTS = { candidates: 4, rows: 4, slabs: 8 };
const weighted = (work: Record<string, number>): number =>
  Object.entries(WORK_WEIGHTS).reduce((sum, [k, w]) => sum + w * (work[k] ?? 0), 0);

// Ratios from this run.
const find = (suite: string, scene: string, size: string, method: string): Row | undefined =>
  rows.find((r) => r.suite === suite && r.scene === scene && sizeText(r.size) === size && r.method === method && (r.gpuMs || r.wallMs));
const time = (r?: Row): number | undefined => r?.gpuMs?.median ?? r?.wallMs?.median;
const ratios: string[][] = [];
const seen = new Set<string>();
for (const r of rows) {
  const key = `${r.suite}|${r.scene}|${sizeText(r.size)}`;
  if (seen.has(key)) continue;
  seen.add(key);
  const size = sizeText(r.size);
  const grid = find(r.suite, r.scene, size, 'gpu-grid');
  if (r.suite === 'pairs' && r.scene !== 'crossover') {
    const js = find('pairs', r.scene, size, 'js-grid');
    const cpu = find('pairs', r.scene, size, 'cpu-grid');
    if (grid && js) ratios.push([r.scene, size, 'GPU grid (GPU time) / JS grid', (time(grid)! / time(js)!).toFixed(2)]);
    if (grid && cpu) ratios.push([r.scene, size, 'GPU grid (GPU time) / CPU reference grid', (time(grid)! / time(cpu)!).toFixed(2)]);
  }
  if (r.suite === 'particles') {
    const gpu = find('particles', r.scene, size, 'gpu-step');
    const cpu = find('particles', r.scene, size, 'cpu-step');
    if (gpu && cpu) ratios.push([r.scene, size, 'CPU twin step / GPU step (GPU time)', (time(cpu)! / time(gpu)!).toFixed(2)]);
  }
  if (r.suite === 'casts' || r.suite === 'boxes') {
    const brute = find(r.suite, r.scene, size, r.suite === 'casts' ? 'gpu-brute' : 'gpu-all-pairs');
    const walk = grid?.work;
    if (grid && walk) {
      const bruteTests = r.suite === 'casts' ? r.size.rays * r.size.spheres : r.size.spheres * r.size.boxes;
      ratios.push([r.scene, size, 'brute / grid: unit counts (tests ÷ rows + candidates)', (bruteTests / (walk.rows + walk.candidates)).toFixed(1)]);
      ratios.push([r.scene, size, 'brute / grid: weighted work (WORK_WEIGHTS)', (bruteTests / weighted(walk)).toFixed(1)]);
      if (brute) ratios.push([r.scene, size, 'brute / grid: GPU time, measured', (time(brute)! / time(grid)!).toFixed(1)]);
    }
    const cpu = find(r.suite, r.scene, size, r.suite === 'casts' ? 'cpu-walk' : 'cpu-grid');
    if (grid && cpu) ratios.push([r.scene, size, 'CPU twin / GPU grid (time)', (time(cpu)! / time(grid)!).toFixed(2)]);
  }
}
const growth = (scene: string): void => {
  const a = find('pairs', scene, sizeText({ spheres: 100_000 }), 'gpu-grid');
  const b = find('pairs', scene, sizeText({ spheres: 400_000 }), 'gpu-grid');
  if (a && b) ratios.push([scene, '400k / 100k', 'GPU grid (GPU time)', (time(b)! / time(a)!).toFixed(2)]);
};
growth('uniform');
growth('mixed');
if (args.crossover) {
  const cross = CROSSOVER_SIZES.find((n) => {
    const g = find('pairs', 'crossover', sizeText({ spheres: n }), 'gpu-grid');
    const a = find('pairs', 'crossover', sizeText({ spheres: n }), 'gpu-all-pairs');
    return g?.wallMs && a?.wallMs && g.wallMs.median < a.wallMs.median;
  });
  ratios.push(['uniform', '–', 'first N where the grid beats all-pairs (wall)', cross ? String(cross) : 'none measured']);
}
if (ratios.length) console.log(`\n## ratios\n\n${table(['scene', 'size', 'ratio', 'value'], ratios)}`);

mkdirSync(dirname(args.json), { recursive: true });
writeFileSync(args.json, JSON.stringify({ adapter: info, node: process.version, date: new Date().toISOString(), command, reps: ctx.reps, warmup: ctx.warmup, rows }, null, 2));
console.log(`\nJSON: ${args.json}`);
collider.destroy();
device.destroy();
