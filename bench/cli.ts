/**
 * `npm run bench`: every query on the GPU beside the CPU references and the libraries people
 * would use instead (a careful JS grid and a naive one, Rapier, three.js), on the same scenes in
 * the same run. Prints Markdown tables and writes JSON; `npm run bench:plot` turns the JSON into plots.
 * Pair scene kinds (bench/scenes.ts): uniform, clustered, mixed, dense, tiny-blob, radii1000, far,
 * slab, coincident, points.
 *
 *   npm run bench -- [--suites pairs,casts,boxes,particles]
 *     [--sizes 1000,4000,16000,64000,256000,1000000] [--scenes uniform,clustered,mixed,dense]
 *     [--pair-methods gpu-grid,gpu-sweep,gpu-all-pairs,cpu-grid,js-grid,js-grid-naive,rapier]
 *     [--cast-sizes 1000x1000,...] [--box-sizes 100000x10000] [--particle-sizes 100000,1000000]
 *     [--box-scenes uniform,clustered,...] [--box-methods gpu-auto,gpu-grid,js-grid,cpu-bvh,cpu-brute,...]
 *     [--cast-scenes coherent,incoherent,blobs,lattice,...] [--cast-methods gpu-auto,gpu-bvh,cpu-bvh,...]
 *     [--crossover] [--reps 5] [--warmup 1] [--budget 90] [--json bench/results/bench.json]
 *   npm run bench -- --suites sort [--sort-sizes 1000000,16000000]
 *   npm run bench -- --suites pile [--pile-frames 600] [--pile-sizes 8000,1000000] [--gas-sizes 100000,1000000] [--gas-steps 10] [--gas-fractions 0.2,0.02] [--pile-methods rapier,gpu,gpu-light]
 *
 * GPU time is the sum of the stages' timestamp-query times (median over reps, after warm-up);
 * wall time is the whole call, validation, upload and readback included; a peer's time is its
 * query (world construction noted beside it). A method whose estimated time for all its
 * repetitions exceeds the budget (seconds) is skipped and said so; one that would take more
 * than a tenth of it runs once. Every method's answer is checked against the reference before
 * its time counts.
 *
 * The pile suite (not run by default) steps the particle world beside a Rapier world on the same
 * scenes (a pile dropped under gravity, a gas) and reports each engine's median step time and
 * how physical its state is: particles through the walls, overlaps, kinetic energy, height.
 *
 * When a run has both 'gpu-auto' and 'cpu-bvh' (bench/peers/cpuBvh.ts, a float64 binned-SAH BVH
 * built per call: the strongest CPU peer) on a scene, a last table sets them side by side (wall
 * time against wall time), with the broad phase 'auto' picked and 'gpu-bvh' beside them; the
 * JSON has it as `autoVsCpuBvh`.
 */
import { mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { requestNodeDevice, createCollider, describeDevice } from '../src/node.js';
import { hasDeviceWaiter } from '../src/gpu/wait.js';
import { ms, table } from './stats.js';
import { pickedBroadphase, type Context, type Row } from './harness.js';
import { pairsSuite, CROSSOVER_SIZES, PAIR_METHODS } from './suites/pairs.js';
import { PAIR_SCENES } from './scenes.js';
import { castsSuite, CAST_METHODS, CAST_SCENES } from './suites/casts.js';
import { boxesSuite, BOX_METHODS } from './suites/boxes.js';
import { particlesSuite } from './suites/particles.js';
import { pileSuite } from './suites/pile.js';
import { sortSuite } from './suites/sort.js';
import { residentSuite } from './suites/resident.js';
import { rapierVersion, initRapier } from './peers/rapier.js';
import { threeVersion } from './peers/three.js';

/** The device's limits that decide what sizes run, printed in the header (all of them go to the JSON). */
const KEY_LIMITS = ['maxBufferSize', 'maxStorageBufferBindingSize', 'maxComputeWorkgroupStorageSize', 'maxComputeInvocationsPerWorkgroup', 'maxComputeWorkgroupsPerDimension', 'maxStorageBuffersPerShaderStage', 'minSubgroupSize', 'maxSubgroupSize'];
/** Every numeric limit of the device. */
function adapterLimitsOf(d: GPUDevice): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key in d.limits) {
    const value = (d.limits as unknown as Record<string, unknown>)[key];
    if (typeof value === 'number') out[key] = value;
  }
  return out;
}

const SIZES = '1000,4000,16000,64000,256000,1000000';
const SUITES = ['pairs', 'casts', 'boxes', 'particles', 'sort', 'pile', 'resident'];
const PILE_METHODS = ['rapier', 'gpu', 'gpu-light'];
const USAGE = `usage: npm run bench -- [options]   (each list is comma-separated)
  --suites ${SUITES.join(',')}   (default pairs,casts,boxes,particles)
  --sizes N,...            sphere counts of the pairs suite
  --scenes KIND,...        pair scenes: ${Object.keys(PAIR_SCENES).join(', ')}
  --pair-methods M,...     ${PAIR_METHODS.join(', ')}
  --box-scenes KIND,...    sphere–box scenes (the pair kinds, with boxes on their spheres; default uniform)
  --box-methods M,...      ${BOX_METHODS.join(', ')}
  --cast-methods M,...     ${CAST_METHODS.join(', ')}
  --cast-scenes KIND,...   coherent, incoherent (the uniform cast scene's rays; default both), or any pair
                           scene kind (mixed rays over its spheres: half aimed at spheres, half incoherent)
  --cast-sizes SxR,...     spheres x rays      --box-sizes SxB,...   spheres x boxes
  --particle-sizes N,...   --sort-sizes N,...  --resident-sizes N,...  --pile-frames N  --pile-sizes N,...  --gas-sizes N,...  --gas-steps N  --gas-fractions F,...
  --pile-methods M,...     ${PILE_METHODS.join(', ')}
  --reps N  --warmup N  --budget SECONDS  --crossover  --json FILE  --help
  --require-hardware       exit 3 before any suite if the adapter is a software one (SwiftShader)`;

/** A bad flag: the message and the usage on stderr, exit 2. */
function fail(message: string): never {
  console.error(`bench: ${message}\n\n${USAGE}`);
  process.exit(2);
}

let parsed: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
  options: {
    suites: { type: 'string', default: 'pairs,casts,boxes,particles' },
    sizes: { type: 'string', default: SIZES },
    scenes: { type: 'string', default: 'uniform,clustered,mixed,dense' },
    'cast-sizes': { type: 'string', default: SIZES.split(',').map((n) => `${n}x${n}`).join(',') },
    'cast-scenes': { type: 'string', default: 'coherent,incoherent' },
    'box-sizes': { type: 'string', default: '100000x10000' },
    'box-scenes': { type: 'string', default: 'uniform' },
    'box-methods': { type: 'string', default: BOX_METHODS.join(',') },
    'particle-sizes': { type: 'string', default: '100000,1000000' },
    'sort-sizes': { type: 'string', default: '1000000,16000000' },
    'resident-sizes': { type: 'string', default: '100000' },
    'pile-frames': { type: 'string', default: '600' },
    'pile-sizes': { type: 'string', default: '8000' },
    'gas-sizes': { type: 'string', default: '100000' },
    'gas-steps': { type: 'string', default: '10' },
    'gas-fractions': { type: 'string', default: '0.2' },
    'pile-methods': { type: 'string', default: 'rapier,gpu,gpu-light' },
    'pair-methods': { type: 'string', default: PAIR_METHODS.join(',') },
    'cast-methods': { type: 'string', default: CAST_METHODS.join(',') },
    reps: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    budget: { type: 'string', default: '90' },
    crossover: { type: 'boolean', default: false },
    json: { type: 'string', default: 'bench/results/bench.json' },
    'require-hardware': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
  });
}
try {
  parsed = parse();
} catch (error) {
  fail((error as Error).message);
}
const args = parsed.values;
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}

/** A whole number ≥ min from a flag, or exit 2 naming the flag. */
function whole(flag: string, text: string, min = 1): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < min) fail(`--${flag} must be a whole number ≥ ${min}, got "${text}"`);
  return n;
}
function oneOf(flag: string, list: string, allowed: readonly string[]): string[] {
  const items = list.split(',').filter(Boolean);
  for (const item of items) if (!allowed.includes(item)) fail(`--${flag}: unknown "${item}"; the choices are ${allowed.join(', ')}`);
  if (items.length === 0) fail(`--${flag} is empty`);
  return items;
}
const checkedNumbers = (flag: string, list: string): number[] => list.split(',').filter(Boolean).map((s) => whole(flag, s));
const checkedPairs = (flag: string, list: string): [number, number][] =>
  list.split(',').filter(Boolean).map((s) => {
    const parts = s.split('x');
    if (parts.length !== 2) fail(`--${flag} takes AxB pairs, got "${s}"`);
    return [whole(flag, parts[0]), whole(flag, parts[1])] as [number, number];
  });
oneOf('suites', args.suites, SUITES);
oneOf('scenes', args.scenes, Object.keys(PAIR_SCENES));
oneOf('box-scenes', args['box-scenes'], Object.keys(PAIR_SCENES));
oneOf('pair-methods', args['pair-methods'], PAIR_METHODS);
oneOf('box-methods', args['box-methods'], BOX_METHODS);
oneOf('cast-methods', args['cast-methods'], CAST_METHODS);
oneOf('cast-scenes', args['cast-scenes'], CAST_SCENES);
oneOf('pile-methods', args['pile-methods'], PILE_METHODS);
for (const flag of ['sizes', 'particle-sizes', 'sort-sizes', 'gas-sizes', 'resident-sizes', 'pile-sizes'] as const) checkedNumbers(flag, args[flag]);
for (const flag of ['cast-sizes', 'box-sizes'] as const) checkedPairs(flag, args[flag]);
whole('reps', args.reps);
whole('warmup', args.warmup, 0);
whole('budget', args.budget);
whole('pile-frames', args['pile-frames']);
whole('gas-steps', args['gas-steps']);
const gasFractions = args['gas-fractions'].split(',').filter(Boolean).map((text) => {
  const f = Number(text);
  if (!(f > 0 && f <= 0.5)) fail(`--gas-fractions takes volume fractions in (0, 0.5], got "${text}"`);
  return f;
});
if (gasFractions.length === 0) fail('--gas-fractions is empty');

const pairsOf = (list: string): [number, number][] => list.split(',').filter(Boolean).map((s) => s.split('x').map(Number) as [number, number]);
const numbers = (list: string): number[] => list.split(',').filter(Boolean).map(Number);

const device = await requestNodeDevice();
const info = describeDevice(device);
const software = Boolean(info?.isFallbackAdapter) || /swiftshader|llvmpipe/i.test(`${info?.description} ${info?.vendor} ${info?.architecture}`);
if (args['require-hardware'] && software) {
  console.error(`bench: --require-hardware, but the adapter is a software one: ${info?.description} (${info?.vendor}/${info?.architecture})`);
  process.exit(3);
}
const collider = await createCollider({ device });
await initRapier();
const ctx: Context = { collider, reps: Number(args.reps), warmup: Number(args.warmup), budgetMs: Number(args.budget) * 1000, large: false, profiling: false };
const suites = args.suites.split(',');
const command = `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim();
// Resolved as Node resolves the import, so that the bench bundled for a GPU machine finds it too.
const packageVersion = (name: string): string => JSON.parse(readFileSync(createRequire(import.meta.url).resolve(`${name}/package.json`), 'utf8')).version;
const versions = {
  'webgpu-collide': JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version,
  'webgpu (dawn.node)': packageVersion('webgpu'),
  '@dimforge/rapier3d-compat': rapierVersion(),
  three: threeVersion(),
  node: process.version,
};
const features = [...device.features].sort();
const limits = Object.fromEntries(Object.entries(adapterLimitsOf(device)).filter(([k]) => KEY_LIMITS.includes(k)));
// How the library waits for the device (node.ts): asleep between dawn.node's polls, or spinning a core.
const waiting = hasDeviceWaiter(device) ? 'asleep between polls (yield)' : "dawn.node's busy poll (spin)";
console.log(`# webgpu-collide bench\n\nadapter: ${info?.description} (${info?.vendor}/${info?.architecture})${software ? ', software' : ''}\nwaiting: ${waiting}\nfeatures: ${features.join(', ')}\nlimits: ${Object.entries(limits).map(([k, v]) => `${k} ${v}`).join(', ')}\nversions: ${Object.entries(versions).map(([k, v]) => `${k} ${v}`).join(', ')}\ndate: ${new Date().toISOString()}\ncommand: ${command}\n`);

const rows: Row[] = [];
if (suites.includes('pairs')) rows.push(...(await pairsSuite(ctx, numbers(args.sizes), args.scenes.split(','), args.crossover, args['pair-methods'].split(',').filter(Boolean))));
if (suites.includes('casts')) rows.push(...(await castsSuite(ctx, pairsOf(args['cast-sizes']), args['cast-methods'].split(',').filter(Boolean), args['cast-scenes'].split(',').filter(Boolean))));
if (suites.includes('boxes')) rows.push(...(await boxesSuite(ctx, pairsOf(args['box-sizes']), args['box-scenes'].split(',').filter(Boolean), args['box-methods'].split(',').filter(Boolean))));
if (suites.includes('particles')) rows.push(...(await particlesSuite(ctx, numbers(args['particle-sizes']))));
if (suites.includes('sort')) rows.push(...(await sortSuite(ctx, numbers(args['sort-sizes']))));
if (suites.includes('resident')) rows.push(...(await residentSuite(ctx, numbers(args['resident-sizes']))));
if (suites.includes('pile')) {
  rows.push(...(await pileSuite(ctx, { frames: Number(args['pile-frames']), pileSizes: numbers(args['pile-sizes']), gasSizes: numbers(args['gas-sizes']), gasSteps: Number(args['gas-steps']), gasFractions, methods: args['pile-methods'].split(',').filter(Boolean) })));
}

export const sizeText = (size: Record<string, number>): string =>
  Object.entries(size).map(([k, v]) => `${v >= 1e6 ? `${v / 1e6}M` : v >= 1000 ? `${v / 1000}k` : v} ${k}`).join(' × ');
// Entries named `name@frame` are the pile suite's quality numbers, printed in their own table.
const workText = (work?: Record<string, number>): string =>
  (work ? Object.entries(work).filter(([k]) => !k.includes('@')).map(([k, v]) => `${k} ${v.toExponential(2)}`).join(', ') : '');
for (const suite of ['pairs', 'casts', 'boxes', 'particles', 'sort', 'pile']) {
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

// The pile suite's quality at each frame read: one line per engine, scene and frame.
const quality: string[][] = [];
const round = (v: number): string => (Number.isFinite(v) ? Number(v.toPrecision(3)).toString() : String(v));
for (const r of rows.filter((row) => row.suite === 'pile' && row.work)) {
  const frames = [...new Set(Object.keys(r.work!).filter((k) => k.includes('@')).map((k) => Number(k.split('@')[1])))];
  for (const f of frames) {
    const q = (name: string): number => r.work![`${name}@${f}`];
    quality.push([
      r.scene, sizeText(r.size), r.method, String(f), String(q('sunk')), `${round(100 * q('maxOverlap'))} / ${round(100 * q('meanOverlap'))}`,
      String(q('touching')), round(q('kineticPerParticle')), round(q('top')), round(q('lowestCentre')),
    ]);
  }
}
if (quality.length) {
  console.log(`\n## pile: quality\n\nsunk: spheres more than 0.05 beyond a wall (or not finite); overlap: (rA + rB − distance) / min(rA, rB) over touching pairs, in percent; KE: mean ½mv² per particle (density 1).\n`);
  console.log(table(['scene', 'size', 'method', 'frame', 'sunk', 'overlap % r (max / mean)', 'touching pairs', 'KE/particle', 'top', 'lowest centre'], quality));
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
    const js = find('pairs', r.scene, size, 'js-grid');
    if (js?.wallMs && grid?.wallMs) ratios.push([r.scene, size, 'JS grid / GPU grid (wall / wall)', (js.wallMs.median / grid.wallMs.median).toFixed(2)]);
    // The no-cliffs rule: 'auto' within 3× of the competent CPU grid on every scene kind.
    const auto = find('pairs', r.scene, size, 'gpu-auto');
    if (js?.wallMs && auto?.wallMs) ratios.push([r.scene, size, "GPU 'auto' / JS grid (wall / wall; goal ≤ 3)", (auto.wallMs.median / js.wallMs.median).toFixed(2)]);
    ratio('naive JS grid / GPU grid', find('pairs', r.scene, size, 'js-grid-naive'), grid);
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
  if (r.suite === 'boxes') {
    // The no-cliffs rule for sphere–box pairs too: 'auto' within 3× of the careful JS grid.
    const js = find('boxes', r.scene, size, 'js-grid');
    const auto = find('boxes', r.scene, size, 'gpu-auto');
    if (js?.wallMs && auto?.wallMs) ratios.push([r.scene, size, "GPU 'auto' / JS grid (wall / wall; goal ≤ 3)", (auto.wallMs.median / js.wallMs.median).toFixed(2)]);
    if (js?.wallMs && grid?.wallMs) ratios.push([r.scene, size, 'JS grid / GPU grid (wall / wall)', (js.wallMs.median / grid.wallMs.median).toFixed(2)]);
  }
  if (r.suite === 'particles') ratio('CPU twin step / GPU step', find('particles', r.scene, size, 'cpu-step'), find('particles', r.scene, size, 'gpu-step'));
  if (r.suite === 'pile') {
    // Wall time against wall time: Rapier's world.step() against our awaited step.
    const rapier = find('pile', r.scene, size, 'rapier-world-step');
    for (const method of ['gpu-world-step', 'gpu-world-step 1×2']) {
      const gpu = find('pile', r.scene, size, method);
      if (rapier?.wallMs && gpu?.wallMs) ratios.push([r.scene, size, `Rapier step / ${method} (median wall)`, (rapier.wallMs.median / gpu.wallMs.median).toFixed(2)]);
    }
  }
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

// 'auto' against the competent CPU BVH (and the GPU BVH against it), per suite, scene and size: wall against wall.
const autoVsCpuBvh: { suite: string; scene: string; size: Record<string, number>; autoMs: number; picked?: string; cpuBvhMs: number; autoOverCpuBvh: number; gpuBvhMs?: number; gpuBvhOverCpuBvh?: number }[] = [];
const summarySeen = new Set<string>();
for (const r of rows) {
  if (!['pairs', 'boxes', 'casts'].includes(r.suite) || r.scene === 'crossover') continue;
  const size = sizeText(r.size);
  const key = `${r.suite}|${r.scene}|${size}`;
  if (summarySeen.has(key)) continue;
  summarySeen.add(key);
  const auto = find(r.suite, r.scene, size, 'gpu-auto'), cpu = find(r.suite, r.scene, size, 'cpu-bvh'), gpuBvh = find(r.suite, r.scene, size, 'gpu-bvh');
  if (!auto?.wallMs || !cpu?.wallMs) continue;
  const autoMs = auto.wallMs.median, cpuBvhMs = cpu.wallMs.median, gpuBvhMs = gpuBvh?.wallMs?.median;
  autoVsCpuBvh.push({
    suite: r.suite, scene: r.scene, size: r.size, autoMs, picked: pickedBroadphase(auto), cpuBvhMs, autoOverCpuBvh: autoMs / cpuBvhMs,
    ...(gpuBvhMs !== undefined ? { gpuBvhMs, gpuBvhOverCpuBvh: gpuBvhMs / cpuBvhMs } : {}),
  });
}
if (autoVsCpuBvh.length) {
  const short = (size: Record<string, number>): string => Object.values(size).map((v) => (v >= 1e6 ? `${v / 1e6}M` : v >= 1000 ? `${v / 1000}k` : String(v))).join('×');
  console.log(`\n## 'auto' against the CPU BVH (wall ms, median; ratio < 1: the GPU is faster)\n`);
  console.log(table(['suite', 'scene', 'size', 'auto', 'picked', 'cpu-bvh', 'auto/cpu', 'gpu-bvh', 'gbvh/cpu'], autoVsCpuBvh.map((s) => [
    s.suite, s.scene, short(s.size), ms(s.autoMs), s.picked ?? '–', ms(s.cpuBvhMs), s.autoOverCpuBvh.toFixed(2),
    s.gpuBvhMs !== undefined ? ms(s.gpuBvhMs) : '–', s.gpuBvhOverCpuBvh !== undefined ? s.gpuBvhOverCpuBvh.toFixed(2) : '–',
  ])));
}

mkdirSync(dirname(args.json), { recursive: true });
writeFileSync(args.json, JSON.stringify({ adapter: info, waiting, features, limits: adapterLimitsOf(device), versions, date: new Date().toISOString(), command, reps: ctx.reps, warmup: ctx.warmup, budgetS: Number(args.budget), rows, ratios, autoVsCpuBvh }, null, 2));
console.log(`\nJSON: ${args.json}`);
collider.destroy();
device.destroy();
