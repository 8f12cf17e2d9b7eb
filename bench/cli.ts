/**
 * `npm run bench`: every query on the GPU beside the CPU references and the libraries people
 * would use instead (a plain JS grid, Rapier, three.js), on the same scenes in the same run.
 * Prints Markdown tables and writes JSON; `npm run bench:plot` turns the JSON into plots.
 *
 *   npm run bench -- [--suites pairs,casts,boxes,particles]
 *     [--sizes 1000,4000,16000,64000,256000,1000000] [--scenes uniform,clustered,mixed,dense]
 *     [--cast-sizes 1000x1000,...] [--box-sizes 100000x10000] [--particle-sizes 100000,1000000]
 *     [--crossover] [--reps 5] [--warmup 1] [--budget 90] [--json bench/results/bench.json]
 *
 * GPU time is the sum of the stages' timestamp-query times (median over reps, after warm-up);
 * wall time is the whole call, validation, upload and readback included; a peer's time is its
 * query (world construction noted beside it). A method whose estimated time for all its
 * repetitions exceeds the budget (seconds) is skipped and said so; one that would take more
 * than a tenth of it runs once. Every method's answer is checked against the reference before
 * its time counts.
 */
import { mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { requestNodeDevice, createCollider, describeDevice } from '../src/node.js';
import { ms, table } from './stats.js';
import type { Context, Row } from './harness.js';
import { pairsSuite, CROSSOVER_SIZES } from './suites/pairs.js';
import { castsSuite } from './suites/casts.js';
import { boxesSuite } from './suites/boxes.js';
import { particlesSuite } from './suites/particles.js';
import { rapierVersion, initRapier } from './peers/rapier.js';
import { threeVersion } from './peers/three.js';

const SIZES = '1000,4000,16000,64000,256000,1000000';
const { values: args } = parseArgs({
  options: {
    suites: { type: 'string', default: 'pairs,casts,boxes,particles' },
    sizes: { type: 'string', default: SIZES },
    scenes: { type: 'string', default: 'uniform,clustered,mixed,dense' },
    'cast-sizes': { type: 'string', default: SIZES.split(',').map((n) => `${n}x${n}`).join(',') },
    'box-sizes': { type: 'string', default: '100000x10000' },
    'particle-sizes': { type: 'string', default: '100000,1000000' },
    reps: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    budget: { type: 'string', default: '90' },
    crossover: { type: 'boolean', default: false },
    json: { type: 'string', default: 'bench/results/bench.json' },
  },
});

const pairsOf = (list: string): [number, number][] => list.split(',').filter(Boolean).map((s) => s.split('x').map(Number) as [number, number]);
const numbers = (list: string): number[] => list.split(',').filter(Boolean).map(Number);

const device = await requestNodeDevice();
const info = describeDevice(device);
const collider = await createCollider({ device });
await initRapier();
const ctx: Context = { collider, reps: Number(args.reps), warmup: Number(args.warmup), budgetMs: Number(args.budget) * 1000, large: false };
const suites = args.suites.split(',');
const command = `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim();
const packageVersion = (name: string): string => JSON.parse(readFileSync(new URL(`../node_modules/${name}/package.json`, import.meta.url), 'utf8')).version;
const versions = {
  'webgpu-collide': JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version,
  'webgpu (dawn.node)': packageVersion('webgpu'),
  '@dimforge/rapier3d-compat': rapierVersion(),
  three: threeVersion(),
  node: process.version,
};
console.log(`# webgpu-collide bench\n\nadapter: ${info?.description} (${info?.vendor}/${info?.architecture})${info?.isFallbackAdapter ? ', software' : ''}\nversions: ${Object.entries(versions).map(([k, v]) => `${k} ${v}`).join(', ')}\ndate: ${new Date().toISOString()}\ncommand: ${command}\n`);

const rows: Row[] = [];
if (suites.includes('pairs')) rows.push(...(await pairsSuite(ctx, numbers(args.sizes), args.scenes.split(','), args.crossover)));
if (suites.includes('casts')) rows.push(...(await castsSuite(ctx, pairsOf(args['cast-sizes']))));
if (suites.includes('boxes')) rows.push(...(await boxesSuite(ctx, pairsOf(args['box-sizes']))));
if (suites.includes('particles')) rows.push(...(await particlesSuite(ctx, numbers(args['particle-sizes']))));

export const sizeText = (size: Record<string, number>): string =>
  Object.entries(size).map(([k, v]) => `${v >= 1e6 ? `${v / 1e6}M` : v >= 1000 ? `${v / 1000}k` : v} ${k}`).join(' × ');
const workText = (work?: Record<string, number>): string => (work ? Object.entries(work).map(([k, v]) => `${k} ${v.toExponential(2)}`).join(', ') : '');
for (const suite of ['pairs', 'casts', 'boxes', 'particles']) {
  const mine = rows.filter((r) => r.suite === suite);
  if (!mine.length) continue;
  console.log(`\n## ${suite}\n`);
  console.log(table(
    ['scene', 'size', 'method', 'answer', 'GPU ms', 'time ms (min–max)', 'rate', 'work', 'GPU stages (ms), notes'],
    mine.map((r) => [
      r.scene,
      sizeText(r.size),
      r.method,
      r.answer === undefined ? '–' : String(r.answer),
      r.gpuMs ? ms(r.gpuMs.median) : '–',
      r.wallMs ? `${ms(r.wallMs.median)} (${ms(r.wallMs.min)}–${ms(r.wallMs.max)})` : r.skipped ?? '–',
      r.rate ? `${r.rate.value.toExponential(2)} ${r.rate.unit}` : '',
      workText(r.work),
      [r.stagesMs ? Object.entries(r.stagesMs).map(([k, v]) => `${k} ${ms(v)}`).join(', ') : '', r.note ?? ''].filter(Boolean).join('; '),
    ]),
  ));
}

// Ratios from this run.
const find = (suite: string, scene: string, size: string, method: string): Row | undefined =>
  rows.find((r) => r.suite === suite && r.scene === scene && sizeText(r.size) === size && r.method === method && (r.gpuMs || r.wallMs));
const time = (r?: Row): number | undefined => r?.gpuMs?.median ?? r?.wallMs?.median;
const WORK_WEIGHTS = { candidates: 4, rows: 4, slabs: 8 };
const weighted = (work: Record<string, number>): number => Object.entries(WORK_WEIGHTS).reduce((sum, [k, w]) => sum + w * (work[k] ?? 0), 0);
const ratios: string[][] = [];
const seen = new Set<string>();
for (const r of rows) {
  const size = sizeText(r.size);
  const key = `${r.suite}|${r.scene}|${size}`;
  if (seen.has(key)) continue;
  seen.add(key);
  const grid = find(r.suite, r.scene, size, 'gpu-grid');
  const ratio = (label: string, a?: Row, b?: Row): void => {
    if (a && b && time(a) && time(b)) ratios.push([r.scene, size, label, (time(a)! / time(b)!).toFixed(2)]);
  };
  if (r.suite === 'pairs' && r.scene !== 'crossover') {
    ratio('JS grid / GPU grid', find('pairs', r.scene, size, 'js-grid'), grid);
    ratio('Rapier / GPU grid', find('pairs', r.scene, size, 'rapier'), grid);
    ratio('CPU reference grid / GPU grid', find('pairs', r.scene, size, 'cpu-grid'), grid);
  }
  if (r.suite === 'casts') {
    ratio('Rapier / GPU grid', find('casts', r.scene, size, 'rapier'), grid);
    ratio('three.js / GPU grid', find('casts', r.scene, size, 'three'), grid);
  }
  if (r.suite === 'casts' || r.suite === 'boxes') {
    const brute = find(r.suite, r.scene, size, r.suite === 'casts' ? 'gpu-brute' : 'gpu-all-pairs');
    if (grid?.work) {
      const tests = r.suite === 'casts' ? r.size.rays * r.size.spheres : r.size.spheres * r.size.boxes;
      ratios.push([r.scene, size, 'brute / grid: work (tests ÷ weighted rows, candidates, slabs)', (tests / weighted(grid.work)).toFixed(1)]);
      ratio('brute / grid: GPU time, measured', brute, grid);
    }
    ratio('CPU twin / GPU grid', find(r.suite, r.scene, size, r.suite === 'casts' ? 'cpu-walk' : 'cpu-grid'), grid);
  }
  if (r.suite === 'particles') ratio('CPU twin step / GPU step', find('particles', r.scene, size, 'cpu-step'), find('particles', r.scene, size, 'gpu-step'));
}
for (const scene of ['uniform', 'mixed']) {
  const a = find('pairs', scene, sizeText({ spheres: 100_000 }), 'gpu-grid') ?? find('pairs', scene, sizeText({ spheres: 64_000 }), 'gpu-grid');
  const b = find('pairs', scene, sizeText({ spheres: 400_000 }), 'gpu-grid') ?? find('pairs', scene, sizeText({ spheres: 256_000 }), 'gpu-grid');
  if (a && b) ratios.push([scene, `${sizeText(b.size)} / ${sizeText(a.size)}`, 'GPU grid time growth', (time(b)! / time(a)!).toFixed(2)]);
}
if (args.crossover) {
  const cross = CROSSOVER_SIZES.find((n) => {
    const g = find('pairs', 'crossover', sizeText({ spheres: n }), 'gpu-grid');
    const a = find('pairs', 'crossover', sizeText({ spheres: n }), 'gpu-all-pairs');
    return g?.wallMs && a?.wallMs && g.wallMs.median < a.wallMs.median;
  });
  ratios.push(['uniform', '–', 'first N where the grid beats all-pairs (wall)', cross ? String(cross) : 'none measured']);
}
if (ratios.length) console.log(`\n## ratios (from this run)\n\n${table(['scene', 'size', 'ratio', 'value'], ratios)}`);

mkdirSync(dirname(args.json), { recursive: true });
writeFileSync(args.json, JSON.stringify({ adapter: info, versions, date: new Date().toISOString(), command, reps: ctx.reps, warmup: ctx.warmup, budgetS: Number(args.budget), rows, ratios }, null, 2));
console.log(`\nJSON: ${args.json}`);
collider.destroy();
device.destroy();
