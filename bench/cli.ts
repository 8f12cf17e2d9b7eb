/**
 * `npm run bench`: sphere–sphere pairs, GPU (grid, all-pairs) beside the CPU reference grid, on
 * the same scenes in the same run. Prints Markdown tables and writes the full results as JSON.
 *
 *   npm run bench -- [--sizes 10000,100000,400000] [--scenes uniform,mixed] [--reps 7]
 *                    [--budget 60] [--crossover] [--json bench/results/pairs.json]
 *
 * GPU time is the sum of the stages' timestamp-query times (median over reps, after warm-up);
 * wall time is submit-to-readback around the whole call: validation, upload, every pass, the
 * count readback and the pair readback. A method whose estimated time for a size exceeds the
 * budget (seconds, from its smaller sizes) is skipped and said so.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { requestNodeDevice, createCollider, describeDevice, reference, type Collider } from '../src/node.js';
import { uniformScene, mixedRadiiScene } from '../test/support/scenes.js';
import { summarize, ms, table, type Summary } from './stats.js';
import { jsGridSpherePairs } from './peers/jsGrid.js';

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000,400000' },
    scenes: { type: 'string', default: 'uniform,mixed' },
    methods: { type: 'string', default: 'gpu-grid,gpu-all-pairs,cpu-grid,js-grid' },
    reps: { type: 'string', default: '7' },
    warmup: { type: 'string', default: '2' },
    budget: { type: 'string', default: '60' },
    crossover: { type: 'boolean', default: false },
    json: { type: 'string', default: 'bench/results/pairs.json' },
  },
});

const CROSSOVER_SIZES = [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384];

const SCENES: Record<string, (n: number) => Float32Array> = {
  uniform: (n) => uniformScene(n, { seed: 7, fraction: 0.1 }),
  mixed: (n) => mixedRadiiScene(n, { seed: 8, fraction: 0.1 }, 0.01, 1),
};

interface Result {
  scene: string;
  n: number;
  method: string;
  pairs?: number;
  wallMs?: Summary;
  gpuMs?: Summary;
  stagesMs?: Record<string, number>;
  skipped?: string;
}

type Method = (spheres: Float32Array) => Promise<{ pairs: number; gpuMs?: number; stages?: Record<string, number> }>;

function methods(collider: Collider): Record<string, Method> {
  const gpu = (broadphase: 'grid' | 'all-pairs'): Method => async (spheres) => {
    const pairs = await collider.spherePairs(spheres, { broadphase, profile: true });
    const stages: Record<string, number> = {};
    for (const s of collider.lastProfile?.stages ?? []) stages[s.name] = (stages[s.name] ?? 0) + s.ms;
    return { pairs: pairs.length / 2, gpuMs: collider.lastProfile?.totalMs, stages };
  };
  return {
    'gpu-grid': gpu('grid'),
    'gpu-all-pairs': gpu('all-pairs'),
    'cpu-grid': async (spheres) => ({ pairs: reference.gridSpherePairs(spheres, collider.planFor(spheres)).length / 2 }),
    'js-grid': async (spheres) => ({ pairs: jsGridSpherePairs(spheres).length / 2 }),
  };
}

async function measure(method: Method, spheres: Float32Array, reps: number, warmup: number): Promise<Omit<Result, 'scene' | 'n' | 'method'>> {
  let pairs = 0;
  const wall: number[] = [];
  const gpuTimes: number[] = [];
  const stageSamples: Record<string, number[]> = {};
  for (let r = 0; r < warmup + reps; r++) {
    const t = performance.now();
    const out = await method(spheres);
    const elapsed = performance.now() - t;
    pairs = out.pairs;
    if (r < warmup) continue;
    wall.push(elapsed);
    if (out.gpuMs !== undefined) gpuTimes.push(out.gpuMs);
    for (const [name, value] of Object.entries(out.stages ?? {})) (stageSamples[name] ??= []).push(value);
  }
  const stagesMs = Object.fromEntries(Object.entries(stageSamples).map(([k, v]) => [k, summarize(v).median]));
  return { pairs, wallMs: summarize(wall), gpuMs: gpuTimes.length ? summarize(gpuTimes) : undefined, stagesMs: Object.keys(stagesMs).length ? stagesMs : undefined };
}

const device = await requestNodeDevice();
const info = describeDevice(device);
const collider = await createCollider({ device });
const all = methods(collider);
const reps = Number(args.reps);
const warmup = Number(args.warmup);
const budgetMs = Number(args.budget) * 1000;
const results: Result[] = [];
console.log(`# webgpu-collide bench: sphere pairs\n\nadapter: ${info?.description} (${info?.vendor}/${info?.architecture})${info?.isFallbackAdapter ? ', software' : ''}; node ${process.version}; ${new Date().toISOString()}\ncommand: npm run bench -- ${process.argv.slice(2).join(' ')}\n`);

/** Estimated time at n from the last measured (n0, t0), with the method's growth exponent. */
function estimate(method: string, n: number, scene: string): number {
  const prior = results.filter((r) => r.scene === scene && r.method === method && r.wallMs).at(-1);
  if (!prior) return 0;
  const exponent = method === 'gpu-all-pairs' ? 2 : 1.1;
  return prior.wallMs!.median * (n / prior.n) ** exponent * (reps + warmup);
}

async function run(scene: string, sizes: number[], methodNames: string[]): Promise<void> {
  for (const n of sizes) {
    const spheres = SCENES[scene](n);
    let reference: number | undefined;
    for (const method of methodNames) {
      const guess = estimate(method, n, scene);
      if (guess > budgetMs) {
        results.push({ scene, n, method, skipped: `estimated ${(guess / 1000).toFixed(0)} s > budget ${budgetMs / 1000} s` });
        continue;
      }
      const r = await measure(all[method], spheres, reps, warmup);
      // Every method must find the same pairs before its time counts (equal radii: no ties).
      if (reference === undefined) reference = r.pairs;
      else if (r.pairs !== reference) throw new Error(`${scene} N=${n}: ${method} found ${r.pairs} pairs, expected ${reference}`);
      results.push({ scene, n, method, ...r });
      process.stderr.write(`${scene} ${n} ${method}: wall ${ms(r.wallMs!.median)} ms${r.gpuMs ? `, GPU ${ms(r.gpuMs.median)} ms` : ''}\n`);
    }
  }
}

const methodNames = args.methods.split(',');
const sizes = args.sizes.split(',').map(Number);
const sceneNames = args.scenes.split(',');
for (const scene of sceneNames) await run(scene, sizes, methodNames);
if (args.crossover) await run('uniform', CROSSOVER_SIZES, ['gpu-all-pairs', 'gpu-grid']);

const rows = results.map((r) => [
  r.scene,
  String(r.n),
  r.method,
  r.pairs === undefined ? '–' : String(r.pairs),
  r.gpuMs ? ms(r.gpuMs.median) : '–',
  r.wallMs ? `${ms(r.wallMs.median)} (${ms(r.wallMs.min)}–${ms(r.wallMs.max)})` : r.skipped ?? '–',
  r.stagesMs ? Object.entries(r.stagesMs).map(([k, v]) => `${k} ${ms(v)}`).join(', ') : '',
]);
console.log(table(['scene', 'N', 'method', 'pairs', 'GPU ms', 'wall ms (min–max)', 'GPU stages (ms, median)'], rows));

// Ratios the issues ask for: grid vs CPU grid at each size, and growth from 100k to 400k.
const find = (scene: string, n: number, method: string): Result | undefined => results.find((r) => r.scene === scene && r.n === n && r.method === method && r.wallMs);
const ratios: string[][] = [];
for (const scene of sceneNames) {
  for (const n of sizes) {
    const gpu = find(scene, n, 'gpu-grid');
    const cpu = find(scene, n, 'cpu-grid');
    if (gpu?.gpuMs && cpu?.wallMs) ratios.push([scene, String(n), 'GPU grid (GPU time) / CPU grid', (gpu.gpuMs.median / cpu.wallMs.median).toFixed(2)]);
    if (gpu?.wallMs && cpu?.wallMs) ratios.push([scene, String(n), 'GPU grid (wall) / CPU grid', (gpu.wallMs.median / cpu.wallMs.median).toFixed(2)]);
    const js = find(scene, n, 'js-grid');
    if (gpu?.gpuMs && js?.wallMs) ratios.push([scene, String(n), 'GPU grid (GPU time) / JS grid', (gpu.gpuMs.median / js.wallMs.median).toFixed(2)]);
  }
  const a = find(scene, 100_000, 'gpu-grid');
  const b = find(scene, 400_000, 'gpu-grid');
  if (a?.gpuMs && b?.gpuMs) ratios.push([scene, '400k/100k', 'GPU grid (GPU time)', (b.gpuMs.median / a.gpuMs.median).toFixed(2)]);
}
if (args.crossover) {
  const cross = CROSSOVER_SIZES.find((n) => {
    const g = find('uniform', n, 'gpu-grid');
    const a = find('uniform', n, 'gpu-all-pairs');
    return g && a && g.wallMs!.median < a.wallMs!.median;
  });
  ratios.push(['uniform', '–', 'all-pairs → grid crossover (wall), first N where grid wins', cross ? String(cross) : 'none measured']);
}
if (ratios.length) console.log(`\n${table(['scene', 'N', 'ratio', 'value'], ratios)}`);

mkdirSync(dirname(args.json), { recursive: true });
writeFileSync(args.json, JSON.stringify({ adapter: info, node: process.version, date: new Date().toISOString(), argv: process.argv.slice(2), reps, warmup, results }, null, 2));
console.log(`\nJSON: ${args.json}`);
collider.destroy();
device.destroy();
