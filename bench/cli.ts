/**
 * Over 500 lines: the command line, its help, and every closing summary table's text (goals,
 * ratios, footnotes), so that what the output says is found in one file.
 *
 * `npm run bench`: every query on the GPU beside the CPU references and the libraries people
 * would use instead (a careful JS grid and a naive one, Rapier, three.js), on the same scenes in
 * the same run. Prints Markdown tables and writes JSON; `npm run bench:plot` turns the JSON into plots.
 * Pair scene kinds (bench/scenes.ts): uniform, clustered, mixed, dense, tiny-blob, radii1000, far,
 * slab, coincident, points.
 *
 *   npm run bench -- [options]     (`--help`: every option under its suite, with its default)
 *   npm run bench -- --quick       (small sizes, 2 reps, no brute force beyond 4e6 tests: under a minute here)
 *   npm run bench -- --suites pairs --sizes 100000 --pair-methods gpu-auto,gpu-grid,js-grid [--stages]
 *
 * Each suite prints one Markdown table that fits 120 columns: columns empty in every row are left
 * out, long notes become numbered lines under the table, and footnotes say where each time comes
 * from. Per-stage GPU times and work counts are in the JSON, and printed with `--stages`.
 *
 * Wall time is the whole call, validation, upload and readback included, from calls without a
 * profile (median over reps, after warm-up); GPU time is the sum of the stages' timestamp-query
 * times, from as many profiled calls after them (so it can exceed the wall time: the footnote
 * under each table says so); a peer's time is its query (world construction noted beside it). A method whose estimated time for all its
 * repetitions exceeds the budget (seconds) is skipped and said so; one that would take more
 * than a tenth of it runs once. Every method's answer is checked against the reference before
 * its time counts.
 *
 * The pile suite (not run by default) steps the particle world beside a Rapier world on the same
 * scenes (a pile dropped under gravity, a gas) and reports each engine's median step time and
 * how physical its state is: particles through the walls, overlaps, kinetic energy, height.
 *
 * The colliders suite (not run by default; bench/suites/colliders.ts) steps the particle world
 * on particles poured over a field of static oriented boxes (bench/colliderScene.ts: 100k
 * particles over 1,000 tilted tiles, ramps and blocks) with the boxes (`setColliders`) and
 * without them, and Rapier's world on the same scene; it prints the boxed / boxless ratio of our
 * step (goal ≤ 1.25) and the pile suite's quality numbers with the particles' penetration of the
 * boxes. `npm run bench -- --suites colliders [--quick]`. `--collider-scene terrain` pours balls
 * onto a heightfield mesh (`--mesh-triangles`) beside the same pour onto one flat box, and prints
 * our mesh step over our flat-box step (goal ≤ 1.5).
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
import { ms, table, compactTable, wrap, TABLE_WIDTH } from './stats.js';
import { pickedBroadphase, type Context, type Row } from './harness.js';
import { gpuMethod, BRUTE_FORCE_METHODS } from './methods.js';
import { pairsSuite, CROSSOVER_SIZES, PAIR_METHODS } from './suites/pairs.js';
import { PAIR_SCENES } from './scenes.js';
import { castsSuite, CAST_METHODS, CAST_SCENES } from './suites/casts.js';
import { boxesSuite, BOX_METHODS } from './suites/boxes.js';
import { particlesSuite } from './suites/particles.js';
import { pileSuite } from './suites/pile.js';
import {
  collidersSuite,
  collidersQualityText,
  COLLIDER_METHODS,
  COLLIDER_SCENES,
  type ColliderSceneKind,
  COLLIDERS_FOOTNOTE,
} from './suites/colliders.js';
import { sortSuite } from './suites/sort.js';
import { residentSuite } from './suites/resident.js';
import { meshesSuite } from './suites/meshes.js';
import { rapierVersion, initRapier } from './peers/rapier.js';
import { threeVersion } from './peers/three.js';

/** The device's limits that decide what sizes run, printed in the header (all of them go to the JSON). */
const KEY_LIMITS = [
  'maxBufferSize',
  'maxStorageBufferBindingSize',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupsPerDimension',
  'maxStorageBuffersPerShaderStage',
  'minSubgroupSize',
  'maxSubgroupSize',
];
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
const SUITES = ['pairs', 'casts', 'boxes', 'particles', 'sort', 'pile', 'colliders', 'resident', 'meshes'];
const DEFAULT_SUITES = 'pairs,casts,boxes,particles';
const PILE_METHODS = ['rapier', 'gpu', 'gpu-light', 'gpu-awake'];

/** Every option: its default, what `--quick` puts in its place (a flag given still wins), and its line of `--help`. */
interface Option {
  type: 'string' | 'boolean';
  default: string | boolean;
  quick?: string;
  arg?: string;
  help: string;
}
const OPTIONS: Record<string, Record<string, Option>> = {
  general: {
    suites: { type: 'string', default: DEFAULT_SUITES, arg: 'S,...', help: `which suites: ${SUITES.join(', ')}` },
    quick: {
      type: 'boolean',
      default: false,
      help: 'small sizes, 2 reps, budget 10 s, no brute force beyond 4e6 tests (all-pairs beyond ~2,800 spheres), no Rapier pairs beyond 2,000 spheres (its world build); any flag given still wins',
    },
    reps: { type: 'string', default: '5', quick: '2', arg: 'N', help: 'timed calls per method (short methods: 3×)' },
    warmup: { type: 'string', default: '1', arg: 'N', help: 'untimed calls first' },
    budget: {
      type: 'string',
      default: '90',
      quick: '10',
      arg: 'SECONDS',
      help: "skip a method whose calls' estimated time exceeds this",
    },
    stages: {
      type: 'boolean',
      default: false,
      help: "print each row's GPU stage times and work counts under its table (always in the JSON)",
    },
    json: { type: 'string', default: 'bench/results/bench.json', arg: 'FILE', help: 'where the JSON goes' },
    'require-hardware': {
      type: 'boolean',
      default: false,
      help: 'exit 3 before any suite if the adapter is a software one (SwiftShader)',
    },
    help: { type: 'boolean', default: false, help: 'this text' },
  },
  pairs: {
    sizes: { type: 'string', default: SIZES, quick: '1000,4000', arg: 'N,...', help: 'sphere counts' },
    scenes: {
      type: 'string',
      default: 'uniform,clustered,mixed,dense',
      quick: 'uniform,mixed',
      arg: 'KIND,...',
      help: `scene kinds: ${Object.keys(PAIR_SCENES).join(', ')}`,
    },
    'pair-methods': { type: 'string', default: PAIR_METHODS.join(','), arg: 'M,...', help: 'methods to run' },
    crossover: {
      type: 'boolean',
      default: false,
      help: `also gpu-grid against gpu-all-pairs at ${CROSSOVER_SIZES[0]}–${CROSSOVER_SIZES[CROSSOVER_SIZES.length - 1]} spheres`,
    },
  },
  casts: {
    'cast-sizes': {
      type: 'string',
      default: SIZES.split(',')
        .map((n) => `${n}x${n}`)
        .join(','),
      quick: '2000x1000',
      arg: 'SxR,...',
      help: 'spheres x rays',
    },
    'cast-scenes': {
      type: 'string',
      default: 'coherent,incoherent',
      arg: 'KIND,...',
      help: "coherent, incoherent (the uniform scene's rays), or any pair scene kind (mixed rays over its spheres)",
    },
    'cast-methods': { type: 'string', default: CAST_METHODS.join(','), arg: 'M,...', help: 'methods to run' },
  },
  boxes: {
    'box-sizes': {
      type: 'string',
      default: '100000x10000',
      quick: '2000x1000',
      arg: 'SxB,...',
      help: 'spheres x boxes (each as AABBs, then OBBs)',
    },
    'box-scenes': {
      type: 'string',
      default: 'uniform',
      arg: 'KIND,...',
      help: 'pair scene kinds, boxes on their spheres',
    },
    'box-methods': { type: 'string', default: BOX_METHODS.join(','), arg: 'M,...', help: 'methods to run' },
  },
  particles: {
    'particle-sizes': {
      type: 'string',
      default: '100000,1000000',
      quick: '4000',
      arg: 'N,...',
      help: 'particle counts',
    },
  },
  sort: {
    'sort-sizes': { type: 'string', default: '1000000,16000000', quick: '100000', arg: 'N,...', help: 'key counts' },
  },
  resident: {
    'resident-sizes': { type: 'string', default: '100000', quick: '10000', arg: 'N,...', help: 'sphere counts' },
  },
  meshes: {
    'mesh-sizes': {
      type: 'string',
      default: '10000,100000,1000000',
      quick: '10000',
      arg: 'N,...',
      help: 'triangles of the torus knot',
    },
    'mesh-rays': {
      type: 'string',
      default: '100000',
      quick: '10000',
      arg: 'N',
      help: 'rays (and sphere casts) a batch',
    },
    'mesh-methods': {
      type: 'string',
      default: 'gpu,three-mesh-bvh',
      arg: 'M,...',
      help: 'gpu, three-mesh-bvh (the CPU peer; leave it out on a lent GPU)',
    },
  },
  pile: {
    'pile-frames': { type: 'string', default: '600', quick: '60', arg: 'N', help: 'steps of the pile' },
    'pile-sizes': {
      type: 'string',
      default: '8000,64000',
      quick: '1000',
      arg: 'N,...',
      help: 'balls in the pile (the larger pile: does the worst overlap grow with the pile? issue 37)',
    },
    'gas-sizes': {
      type: 'string',
      default: '100000',
      quick: '4000',
      arg: 'N,...',
      help: "particles in the gas ('' for none)",
    },
    'gas-steps': { type: 'string', default: '10', quick: '4', arg: 'N', help: 'timed gas steps' },
    'gas-fractions': { type: 'string', default: '0.2', arg: 'F,...', help: 'volume fractions of the gas, in (0, 0.5]' },
    'pile-methods': {
      type: 'string',
      default: 'rapier,gpu,gpu-light',
      arg: 'M,...',
      help: `engines to run, of ${PILE_METHODS.join(', ')} (gpu-awake: sleep off)`,
    },
  },
  colliders: {
    'collider-sizes': {
      type: 'string',
      default: '100000',
      quick: '8000',
      arg: 'N,...',
      help: 'particles poured over the boxes',
    },
    'collider-boxes': {
      type: 'string',
      default: '1000',
      arg: 'M',
      help: 'static oriented boxes in the field (tiles, ramps, blocks)',
    },
    'collider-steps': {
      type: 'string',
      default: '60',
      quick: '20',
      arg: 'N',
      help: 'timed steps per engine (the median is its time)',
    },
    'collider-warmup': { type: 'string', default: '30', quick: '10', arg: 'N', help: 'untimed steps before them' },
    'collider-seed': { type: 'string', default: '1', arg: 'N', help: "the scene's seed" },
    'collider-methods': {
      type: 'string',
      default: COLLIDER_METHODS.join(','),
      arg: 'M,...',
      help: 'engines: gpu (with the boxes), gpu-no-boxes (the same world without them), rapier',
    },
    'collider-scene': {
      type: 'string',
      default: 'field',
      arg: 'S',
      help: `the scene: ${COLLIDER_SCENES.join(', ')} (issue 47's: the pour through pegs with --collider-sizes 30000 --collider-boxes 400; the drum 1500, the hopper 1000, the paddle 400 balls; issue 50's terrain: balls poured onto a heightfield mesh, each engine beside its control on one flat box; terrain-flat: the control alone)`,
    },
    'mesh-triangles': {
      type: 'string',
      default: '100000',
      arg: 'T',
      help: 'the terrain scenes: triangles of the heightfield mesh (a G×G grid of quads, G = round(√(T/2)))',
    },
  },
};
const SUITE_METHODS: Record<string, string> = {
  pairs: PAIR_METHODS.join(', '),
  casts: CAST_METHODS.join(', '),
  boxes: BOX_METHODS.join(', '),
};
const ALL_OPTIONS: Record<string, Option> = Object.assign({}, ...Object.values(OPTIONS));

/** `--help`: the options grouped by the suite they belong to, each with its default (and its `--quick` value). */
function usage(): string {
  const out = [
    'usage: npm run bench -- [options]            (lists are comma-separated; defaults in brackets)',
    `Suites run by default: ${DEFAULT_SUITES}; add sort, pile, colliders, resident or meshes with --suites.`,
    '',
  ];
  for (const [group, options] of Object.entries(OPTIONS)) {
    out.push(
      group === 'general'
        ? 'general:'
        : wrap(`${group} suite:${SUITE_METHODS[group] ? ` (methods: ${SUITE_METHODS[group]})` : ''}`, 110, '', '    '),
    );
    for (const [name, o] of Object.entries(options)) {
      const flag = `  --${name}${o.arg ? ` ${o.arg}` : ''}`;
      const shown = name.endsWith('-methods') && SUITE_METHODS[group] ? 'all' : o.default === '' ? "''" : o.default;
      const value = o.type === 'boolean' ? '' : ` [${shown}]${o.quick ? ` (--quick: ${o.quick})` : ''}`;
      out.push(wrap(`${o.help}${value}`, 110, flag.padEnd(30), ' '.repeat(30)));
    }
    out.push('');
  }
  out.push(
    'To skip a method, list the others: e.g. --pair-methods gpu-auto,gpu-grid,js-grid,cpu-bvh leaves out all-pairs',
    '(quadratic: most of a run at 10,000 spheres), Rapier and the rest; --quick for a run of under a minute.',
    'Output: one Markdown table per suite (wall and GPU ms, medians; footnotes say what each column is), ratios,',
    "'auto' against the CPU BVH, and the JSON (every row, stages and work included) for `npm run bench:plot`.",
  );
  return out.join('\n');
}

/** A bad flag: the message and the usage on stderr, exit 2. */
function fail(message: string): never {
  console.error(`bench: ${message}\n\n${usage()}`);
  process.exit(2);
}

let parsed: ReturnType<typeof parse>;
function parse() {
  // No defaults here: a flag's absence is seen, so that --quick fills it (resolve, below).
  return parseArgs({
    options: Object.fromEntries(Object.entries(ALL_OPTIONS).map(([name, o]) => [name, { type: o.type }])),
  });
}
try {
  parsed = parse();
} catch (error) {
  fail((error as Error).message);
}
const given = parsed.values as Record<string, string | boolean | undefined>;
const quick = given.quick === true;
const resolve = (name: string): string | boolean =>
  given[name] ?? (quick ? ALL_OPTIONS[name].quick : undefined) ?? ALL_OPTIONS[name].default;
const args = Object.fromEntries(Object.keys(ALL_OPTIONS).map((name) => [name, resolve(name)])) as Record<
  | 'suites'
  | 'sizes'
  | 'scenes'
  | 'pair-methods'
  | 'cast-sizes'
  | 'cast-scenes'
  | 'cast-methods'
  | 'box-sizes'
  | 'box-scenes'
  | 'box-methods'
  | 'particle-sizes'
  | 'sort-sizes'
  | 'resident-sizes'
  | 'mesh-sizes'
  | 'mesh-rays'
  | 'mesh-methods'
  | 'pile-frames'
  | 'pile-sizes'
  | 'gas-sizes'
  | 'gas-steps'
  | 'gas-fractions'
  | 'pile-methods'
  | 'collider-sizes'
  | 'collider-boxes'
  | 'collider-steps'
  | 'collider-warmup'
  | 'collider-seed'
  | 'collider-methods'
  | 'collider-scene'
  | 'mesh-triangles'
  | 'reps'
  | 'warmup'
  | 'budget'
  | 'json',
  string
> &
  Record<'quick' | 'stages' | 'crossover' | 'require-hardware' | 'help', boolean>;
if (args.help) {
  console.log(usage());
  process.exit(0);
}

/** A whole number ≥ min from a flag, or exit 2 naming the flag. */
function whole(flag: string, text: string, min = 1): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < min)
    fail(`--${flag} must be a whole number ≥ ${min}, got "${text}"`);
  return n;
}
function oneOf(flag: string, list: string, allowed: readonly string[]): string[] {
  const items = list.split(',').filter(Boolean);
  for (const item of items)
    if (!allowed.includes(item)) fail(`--${flag}: unknown "${item}"; the choices are ${allowed.join(', ')}`);
  if (items.length === 0) fail(`--${flag} is empty`);
  return items;
}
const checkedNumbers = (flag: string, list: string): number[] =>
  list
    .split(',')
    .filter(Boolean)
    .map((s) => whole(flag, s));
const checkedPairs = (flag: string, list: string): [number, number][] =>
  list
    .split(',')
    .filter(Boolean)
    .map((s) => {
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
oneOf('collider-methods', args['collider-methods'], COLLIDER_METHODS);
oneOf('mesh-methods', args['mesh-methods'], ['gpu', 'three-mesh-bvh']);
oneOf('collider-scene', args['collider-scene'], COLLIDER_SCENES);
if (args['collider-scene'].includes(',')) fail('--collider-scene takes one scene');
for (const flag of [
  'sizes',
  'particle-sizes',
  'sort-sizes',
  'gas-sizes',
  'resident-sizes',
  'mesh-sizes',
  'pile-sizes',
  'collider-sizes',
] as const)
  checkedNumbers(flag, args[flag]);
for (const flag of ['cast-sizes', 'box-sizes'] as const) checkedPairs(flag, args[flag]);
whole('reps', args.reps);
whole('warmup', args.warmup, 0);
whole('budget', args.budget);
whole('pile-frames', args['pile-frames']);
whole('gas-steps', args['gas-steps']);
whole('collider-boxes', args['collider-boxes']);
whole('collider-steps', args['collider-steps']);
whole('collider-warmup', args['collider-warmup'], 0);
whole('collider-seed', args['collider-seed'], 0);
whole('mesh-triangles', args['mesh-triangles'], 2);
const gasFractions = args['gas-fractions']
  .split(',')
  .filter(Boolean)
  .map((text) => {
    const f = Number(text);
    if (!(f > 0 && f <= 0.5)) fail(`--gas-fractions takes volume fractions in (0, 0.5], got "${text}"`);
    return f;
  });
if (gasFractions.length === 0) fail('--gas-fractions is empty');

const pairsOf = (list: string): [number, number][] =>
  list
    .split(',')
    .filter(Boolean)
    .map((s) => s.split('x').map(Number) as [number, number]);
const numbers = (list: string): number[] => list.split(',').filter(Boolean).map(Number);

const device = await requestNodeDevice();
const info = describeDevice(device);
const software =
  Boolean(info?.isFallbackAdapter) ||
  /swiftshader|llvmpipe/i.test(`${info?.description} ${info?.vendor} ${info?.architecture}`);
if (args['require-hardware'] && software) {
  console.error(
    `bench: --require-hardware, but the adapter is a software one: ${info?.description} (${info?.vendor}/${info?.architecture})`,
  );
  process.exit(3);
}
const collider = await createCollider({ device });
await initRapier();
/**
 * What `--quick` leaves out: brute force beyond QUICK_TESTS tests (all-pairs beyond ~2,800
 * spheres: quadratic, most of a small run's time) and Rapier's pairs beyond QUICK_RAPIER spheres
 * (it builds a world per call: 270 ms at 4,000 here). Without --quick, every method listed runs.
 */
const QUICK_TESTS = 4e6;
const QUICK_RAPIER = 2000;
const quickSkip = (row: Pick<Row, 'suite' | 'method' | 'size'>): string | undefined => {
  const { spheres = 0, rays = 0, boxes = 0 } = row.size;
  const tests = row.suite === 'pairs' ? (spheres * (spheres - 1)) / 2 : spheres * (rays || boxes);
  if (BRUTE_FORCE_METHODS.has(row.method) && tests > QUICK_TESTS)
    return `--quick: brute force over ${tests.toExponential(1)} tests (> ${QUICK_TESTS.toExponential(0)})`;
  if (row.suite === 'pairs' && row.method === 'rapier' && spheres > QUICK_RAPIER)
    return `--quick: Rapier's world build, over ${QUICK_RAPIER} spheres`;
  return undefined;
};
const ctx: Context = {
  collider,
  reps: Number(args.reps),
  warmup: Number(args.warmup),
  budgetMs: Number(args.budget) * 1000,
  large: false,
  profiling: false,
  spentS: {},
  ...(quick ? { skip: quickSkip } : {}),
};
const runStarted = performance.now();
const suites = args.suites.split(',');
const command = `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim();
// Resolved as Node resolves the import, so that the bench bundled for a GPU machine finds it too.
const packageVersion = (name: string): string =>
  JSON.parse(readFileSync(createRequire(import.meta.url).resolve(`${name}/package.json`), 'utf8')).version;
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
console.log(
  `# webgpu-collide bench\n\nadapter: ${info?.description} (${info?.vendor}/${info?.architecture})${software ? ', software' : ''}\nwaiting: ${waiting}\nfeatures: ${features.join(', ')}\nlimits: ${Object.entries(
    limits,
  )
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}\nversions: ${Object.entries(versions)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}\ndate: ${new Date().toISOString()}\ncommand: ${command}\n`,
);

const rows: Row[] = [];
if (suites.includes('pairs'))
  rows.push(
    ...(await pairsSuite(
      ctx,
      numbers(args.sizes),
      args.scenes.split(','),
      args.crossover,
      args['pair-methods'].split(',').filter(Boolean),
    )),
  );
if (suites.includes('casts'))
  rows.push(
    ...(await castsSuite(
      ctx,
      pairsOf(args['cast-sizes']),
      args['cast-methods'].split(',').filter(Boolean),
      args['cast-scenes'].split(',').filter(Boolean),
    )),
  );
if (suites.includes('boxes'))
  rows.push(
    ...(await boxesSuite(
      ctx,
      pairsOf(args['box-sizes']),
      args['box-scenes'].split(',').filter(Boolean),
      args['box-methods'].split(',').filter(Boolean),
    )),
  );
if (suites.includes('particles')) rows.push(...(await particlesSuite(ctx, numbers(args['particle-sizes']))));
if (suites.includes('sort')) rows.push(...(await sortSuite(ctx, numbers(args['sort-sizes']))));
if (suites.includes('resident')) rows.push(...(await residentSuite(ctx, numbers(args['resident-sizes']))));
if (suites.includes('meshes'))
  rows.push(
    ...(await meshesSuite(
      ctx,
      numbers(args['mesh-sizes']),
      Number(args['mesh-rays']),
      args['mesh-methods'].split(',').filter(Boolean),
    )),
  );
if (suites.includes('pile')) {
  rows.push(
    ...(await pileSuite(ctx, {
      frames: Number(args['pile-frames']),
      pileSizes: numbers(args['pile-sizes']),
      gasSizes: numbers(args['gas-sizes']),
      gasSteps: Number(args['gas-steps']),
      gasFractions,
      methods: args['pile-methods'].split(',').filter(Boolean),
    })),
  );
}
if (suites.includes('colliders')) {
  rows.push(
    ...(await collidersSuite(ctx, {
      sizes: numbers(args['collider-sizes']),
      boxes: Number(args['collider-boxes']),
      steps: Number(args['collider-steps']),
      warmup: Number(args['collider-warmup']),
      seed: Number(args['collider-seed']),
      methods: args['collider-methods'].split(',').filter(Boolean),
      scene: args['collider-scene'] as ColliderSceneKind,
      triangles: Number(args['mesh-triangles']),
    })),
  );
}

export const sizeText = (size: Record<string, number>): string =>
  Object.entries(size)
    .map(([k, v]) => `${v >= 1e6 ? `${v / 1e6}M` : v >= 1000 ? `${v / 1000}k` : v} ${k}`)
    .join(' × ');
/** A count or a measure, short: whole numbers below 10^6 as they are, others to 3 significant digits. */
const num = (v: number): string =>
  Number.isInteger(v) && Math.abs(v) < 1e6
    ? String(v)
    : Math.abs(v) >= 1e6 || (v !== 0 && Math.abs(v) < 1e-3)
      ? v.toExponential(2)
      : String(Number(v.toPrecision(3)));
// Entries named `name@frame` are the pile suite's quality numbers, printed in their own table.
const workText = (work?: Record<string, number>): string =>
  work
    ? Object.entries(work)
        .filter(([k]) => !k.includes('@'))
        .map(([k, v]) => `${k} ${num(v)}`)
        .join(', ')
    : '';

/** What each suite's answer column counts. */
const ANSWER: Record<string, string> = {
  pairs: 'pairs',
  boxes: 'pairs',
  casts: 'hits',
  particles: 'contacts',
  sort: 'keys',
  resident: 'pairs',
  meshes: 'hits',
};
const WALL_GPU =
  'wall ms: median (min–max) of the timed calls, made without a profile: the whole call (validation, upload, ' +
  "every pass, read-back); a CPU method's or a peer's: its query, its own build included where it builds per call. " +
  "GPU ms: the sum of the passes' timestamp queries, median of as many profiled calls made after those. A profile " +
  'adds timestamp writes and a read-back, and the calls differ, so GPU can exceed wall (marked *): compare GPU with GPU, ' +
  "wall with wall (the profiled calls' own wall: --stages, or profiledWallMs in the JSON).";
/** Work entries printed as columns of their own, by suite: key → column title. */
const WORK_COLUMNS: Record<string, Record<string, string>> = {
  resident: { 'sync ms': 'sync ms', 'bytes read back': 'read back B', 'bytes uploaded': 'uploaded B' },
};
/** Each suite's footnotes: where its time columns come from, and its other columns. */
const PEERS =
  "cpu-bvh's 'build … of it': the part of its time spent building its BVH (last call). rapier's time is its " +
  "query; '+ world build': building its world, besides. Skipped rows say why in their notes.";
const FOOTNOTES: Record<string, string[]> = {
  pairs: [WALL_GPU, PEERS],
  boxes: [WALL_GPU, PEERS],
  casts: [
    WALL_GPU,
    PEERS,
    'rays/s: rays (or sphere casts) per second, from GPU ms where the row has it, else from wall ms.',
  ],
  particles: [
    'gpu-step: one step from the same start (wall: until the queue is done; GPU: timestamp sum of as many profiled steps after). ' +
      "gpu-10-steps-per-submit: 10 steps in one submission and a read-back, wall; ms/step is that ÷ 10. cpu-step: the CPU twin's step.",
  ],
  sort: [
    "GPU ms: the timestamp queries of the sort's (or scan's) passes; a copy's, between two empty passes. wall ms: the " +
      'submission until the queue is done, the upload before it excluded. keys/s: from GPU ms where the row has it, else wall.',
  ],
  resident: [
    "wall ms: per frame, the call until its work is done (median of 20 frames); sync ms: the main thread's time " +
      'inside the call before it returns; read back B, uploaded B: bytes per frame.',
  ],
  pile: [
    "wall ms: median step (Rapier: world.step(); ours: world.step and the queue's onSubmittedWorkDone after it); " +
      'GPU ms: one profiled step after the last frame. Quality numbers: the next table.',
  ],
  colliders: [COLLIDERS_FOOTNOTE],
  meshes: [
    'wall ms: median (min–max). build: createMesh until the queue is done (upload included) against new MeshBVH(geometry) from the same index order (rebuild: again on the order its last build left); refit: ' +
      'encodeRefit from positions on the GPU until the queue is done, against bvh.refit(); rays: raycastMesh (upload, walk, ' +
      "read-back) against three-mesh-bvh's raycastFirst per ray, double-sided. hits: rays that hit (three-mesh-bvh's count). " +
      'GPU ms: timestamp queries of the build, a refit and an encoded batch (encodeRaycastMesh on rays already on the GPU); rays/s from it where the row has it.',
  ],
};

/** A row's GPU stage times (and work counts) on indented lines: the `--stages` block under a table. */
function stagesBlock(rows: Row[]): string {
  const lines: string[] = [];
  for (const r of rows) {
    const stages = r.stagesMs
      ? Object.entries(r.stagesMs)
          .map(([k, v]) => `${k} ${ms(v)}`)
          .join(', ')
      : '';
    const work = workText(r.work);
    if (!stages && !work) continue;
    const head = `${r.scene}, ${sizeText(r.size)}, ${r.method}${r.profiledWallMs ? ` (profiled calls: GPU ${ms(r.gpuMs!.median)}, wall ${ms(r.profiledWallMs.median)})` : ''}:`;
    lines.push(
      wrap(
        [stages && `stages ${stages}`, work && `work ${work}`].filter(Boolean).join('; '),
        TABLE_WIDTH,
        `    ${head} `,
        '        ',
      ),
    );
  }
  return lines.length
    ? `\nGPU stage times (ms, median of the profiled calls) and work counts, per row:\n\n${lines.join('\n')}\n`
    : '';
}

for (const suite of ['pairs', 'casts', 'boxes', 'particles', 'sort', 'resident', 'meshes', 'pile', 'colliders']) {
  const mine = rows.filter((r) => r.suite === suite);
  if (!mine.length) continue;
  // One rate unit in the table: in the header, the cells bare.
  const units = [...new Set(mine.filter((r) => r.rate).map((r) => r.rate!.unit))];
  // A suite's work entries that are its point get columns of their own (named as printed).
  const workColumns = Object.entries(WORK_COLUMNS[suite] ?? {});
  const header = [
    'scene',
    'size',
    'method',
    ANSWER[suite] ?? 'answer',
    'GPU ms',
    'wall ms (min–max)',
    units.length === 1 ? units[0].replace(/ \(.*\)$/, '') : 'rate',
    ...workColumns.map(([, title]) => title),
    'work',
    'notes',
  ];
  const cells = (withWork: boolean): string[][] =>
    mine.map((r) => [
      r.scene,
      sizeText(r.size),
      r.method,
      r.answer === undefined || suite === 'sort' ? '–' : String(r.answer), // a sort's answer is its size
      r.gpuMs ? `${ms(r.gpuMs.median)}${r.wallMs && r.gpuMs.median > r.wallMs.median ? '*' : ''}` : '–',
      r.wallMs ? `${ms(r.wallMs.median)} (${ms(r.wallMs.min)}–${ms(r.wallMs.max)})` : r.skipped ? 'skipped' : '–',
      r.rate ? (units.length === 1 ? num(r.rate.value) : `${num(r.rate.value)} ${r.rate.unit}`) : '',
      ...workColumns.map(([key]) => (r.work?.[key] === undefined ? '–' : num(r.work[key]))),
      withWork
        ? workText(Object.fromEntries(Object.entries(r.work ?? {}).filter(([k]) => !WORK_COLUMNS[suite]?.[k])))
        : '',
      [r.skipped ?? '', r.note ?? ''].filter(Boolean).join('; '),
    ]);
  // The work column where the table still fits a terminal with it; else under --stages (and in the JSON).
  let printed = compactTable(header, cells(true), 'notes');
  const workHidden =
    Math.max(...printed.text.split('\n').map((l) => l.length)) > TABLE_WIDTH && mine.some((r) => workText(r.work));
  if (workHidden) printed = compactTable(header, cells(false), 'notes');
  const foot = [...(FOOTNOTES[suite] ?? [])];
  if (mine.some((r) => r.stagesMs) || workHidden) {
    foot.push(
      args.stages
        ? 'Per-stage GPU times and work counts: the block below.'
        : 'Per-stage GPU times and work counts: add --stages, or see stagesMs and work in the JSON.',
    );
  }
  console.log(`\n## ${suite}\n\n${printed.text}\n`);
  for (const note of printed.notes) console.log(note);
  if (printed.notes.length) console.log('');
  for (const f of foot) console.log(wrap(f));
  if (args.stages) console.log(stagesBlock(mine));
}

// The pile suite's quality at each frame read: one line per engine, scene and frame.
const quality: string[][] = [];
const round = (v: number): string => (Number.isFinite(v) ? Number(v.toPrecision(3)).toString() : String(v));
for (const r of rows.filter((row) => row.suite === 'pile' && row.work)) {
  const frames = [
    ...new Set(
      Object.keys(r.work!)
        .filter((k) => k.includes('@'))
        .map((k) => Number(k.split('@')[1])),
    ),
  ];
  for (const f of frames) {
    const q = (name: string): number => r.work![`${name}@${f}`];
    quality.push([
      r.scene,
      sizeText(r.size),
      r.method,
      String(f),
      String(q('sunk')),
      `${round(100 * q('maxOverlap'))} / ${round(100 * q('meanOverlap'))}`,
      String(q('touching')),
      round(q('kineticPerParticle')),
      round(q('top')),
      round(q('lowestCentre')),
    ]);
  }
}
if (quality.length) {
  console.log(
    `\n## pile: quality\n\n${table(['scene', 'size', 'method', 'frame', 'sunk', 'overlap % max/mean', 'touching', 'KE', 'top', 'lowest'], quality)}\n`,
  );
  console.log(
    wrap(
      'sunk: spheres more than 0.05 beyond a wall (or not finite); overlap: (rA + rB − distance) / min(rA, rB) over touching ' +
        'pairs, in percent of a radius; touching: pairs in contact; KE: mean ½mv² per particle (density 1); top, lowest: the highest ' +
        'sphere top and the lowest centre.',
    ),
  );
}

const collidersQuality = collidersQualityText(rows, sizeText);
if (collidersQuality) console.log(`\n${collidersQuality}`);

// Ratios from this run.
const find = (suite: string, scene: string, size: string, method: string): Row | undefined =>
  rows.find(
    (r) =>
      r.suite === suite &&
      r.scene === scene &&
      sizeText(r.size) === size &&
      r.method === method &&
      (r.gpuMs || r.wallMs),
  );
const time = (r?: Row): number | undefined => r?.gpuMs?.median ?? r?.wallMs?.median;
const WORK_WEIGHTS = { candidates: 4, rows: 4, slabs: 8 };
const weighted = (work: Record<string, number>): number =>
  Object.entries(WORK_WEIGHTS).reduce((sum, [k, w]) => sum + w * (work[k] ?? 0), 0);
/** The ratios as the JSON has always had them: [scene, size, label, value]. */
const ratios: string[][] = [];
/** The same as printed: the label with each side's time basis, and the goal where a ratio has one. */
const shownRatios: string[][] = [];
const basis = (r: Row): string => (r.gpuMs ? 'GPU' : 'wall');
/** A ratio: `label` as the JSON has it, `shown` as printed (default the same), `goal` the most it should be. */
const addRatio = (scene: string, size: string, label: string, value: string, shown = label, goal?: number): void => {
  ratios.push([scene, size, label, value]);
  shownRatios.push([
    scene,
    size,
    shown,
    value,
    goal === undefined ? '' : `≤ ${goal}: ${Number(value) <= goal ? 'met' : 'not met'}`,
  ]);
};
const seen = new Set<string>();
for (const r of rows) {
  const size = sizeText(r.size);
  const key = `${r.suite}|${r.scene}|${size}`;
  if (seen.has(key)) continue;
  seen.add(key);
  const grid = find(r.suite, r.scene, size, 'gpu-grid');
  const ratio = (label: string, a?: Row, b?: Row): void => {
    if (a && b && time(a) && time(b))
      addRatio(r.scene, size, label, (time(a)! / time(b)!).toFixed(2), `${label} (${basis(a)} / ${basis(b)})`);
  };
  if (r.suite === 'pairs' && r.scene !== 'crossover') {
    ratio('JS grid / GPU grid', find('pairs', r.scene, size, 'js-grid'), grid);
    const js = find('pairs', r.scene, size, 'js-grid');
    if (js?.wallMs && grid?.wallMs)
      addRatio(r.scene, size, 'JS grid / GPU grid (wall / wall)', (js.wallMs.median / grid.wallMs.median).toFixed(2));
    // The no-cliffs rule: 'auto' within 3× of the competent CPU grid on every scene kind.
    const auto = find('pairs', r.scene, size, 'gpu-auto');
    if (js?.wallMs && auto?.wallMs)
      addRatio(
        r.scene,
        size,
        "GPU 'auto' / JS grid (wall / wall; goal ≤ 3)",
        (auto.wallMs.median / js.wallMs.median).toFixed(2),
        "GPU 'auto' / JS grid (wall / wall)",
        3,
      );
    ratio('naive JS grid / GPU grid', find('pairs', r.scene, size, 'js-grid-naive'), grid);
    ratio('Rapier / GPU grid', find('pairs', r.scene, size, 'rapier'), grid);
    ratio('CPU reference grid / GPU grid', find('pairs', r.scene, size, 'cpu-grid'), grid);
  }
  if (r.suite === 'casts') {
    ratio('Rapier / GPU grid', find('casts', r.scene, size, 'rapier'), grid);
    ratio('three.js / GPU grid', find('casts', r.scene, size, 'three'), grid);
  }
  if (r.suite === 'casts' || r.suite === 'boxes') {
    const brute = find(r.suite, r.scene, size, gpuMethod('all-pairs'));
    if (grid?.work) {
      const tests = r.suite === 'casts' ? r.size.rays * r.size.spheres : r.size.spheres * r.size.boxes;
      addRatio(
        r.scene,
        size,
        'brute / grid: work (tests ÷ weighted rows, candidates, slabs)',
        (tests / weighted(grid.work)).toFixed(1),
        'brute / grid: work (tests ÷ walk steps)',
      );
      if (brute && grid && time(brute) && time(grid))
        addRatio(
          r.scene,
          size,
          'brute / grid: GPU time, measured',
          (time(brute)! / time(grid)!).toFixed(2),
          `brute / grid: time (${basis(brute)} / ${basis(grid)})`,
        );
    }
    ratio('CPU twin / GPU grid', find(r.suite, r.scene, size, r.suite === 'casts' ? 'cpu-walk' : 'cpu-grid'), grid);
  }
  if (r.suite === 'boxes') {
    // The no-cliffs rule for sphere–box pairs too: 'auto' within 3× of the careful JS grid.
    const js = find('boxes', r.scene, size, 'js-grid');
    const auto = find('boxes', r.scene, size, 'gpu-auto');
    if (js?.wallMs && auto?.wallMs)
      addRatio(
        r.scene,
        size,
        "GPU 'auto' / JS grid (wall / wall; goal ≤ 3)",
        (auto.wallMs.median / js.wallMs.median).toFixed(2),
        "GPU 'auto' / JS grid (wall / wall)",
        3,
      );
    if (js?.wallMs && grid?.wallMs)
      addRatio(r.scene, size, 'JS grid / GPU grid (wall / wall)', (js.wallMs.median / grid.wallMs.median).toFixed(2));
  }
  if (r.suite === 'particles')
    ratio(
      'CPU twin step / GPU step',
      find('particles', r.scene, size, 'cpu-step'),
      find('particles', r.scene, size, 'gpu-step'),
    );
  if (r.suite === 'colliders') {
    // What the boxes cost our step: the same world and particles with them and without (wall against wall).
    const boxed = find('colliders', r.scene, size, 'gpu-world-step');
    const bare = find('colliders', r.scene, size, 'gpu-world-step no boxes');
    const rapier = find('colliders', r.scene, size, 'rapier-world-step');
    if (boxed?.wallMs && bare?.wallMs) {
      addRatio(
        r.scene,
        size,
        'our step with boxes / without (median wall; goal ≤ 1.25)',
        (boxed.wallMs.median / bare.wallMs.median).toFixed(2),
        'ours with boxes / without (wall / wall)',
        1.25,
      );
    }
    if (boxed?.wallMs && rapier?.wallMs)
      addRatio(
        r.scene,
        size,
        'Rapier / gpu-world-step, with boxes (median wall)',
        (rapier.wallMs.median / boxed.wallMs.median).toFixed(2),
        'Rapier / ours, with boxes (wall / wall)',
      );
    // The terrain: each engine on the mesh against itself on one flat box (bench/suites/terrain.ts).
    const flat = find('colliders', r.scene, size, 'gpu-world-step flat box');
    if (boxed?.wallMs && flat?.wallMs)
      addRatio(
        r.scene,
        size,
        'our step on the mesh / on a flat box (median wall; goal ≤ 1.5)',
        (boxed.wallMs.median / flat.wallMs.median).toFixed(2),
        'ours on the mesh / on a flat box (wall / wall)',
        1.5,
      );
    const rapierFlat = find('colliders', r.scene, size, 'rapier-world-step flat box');
    if (rapier?.wallMs && rapierFlat?.wallMs)
      addRatio(
        r.scene,
        size,
        "Rapier's step on the trimesh / on a flat box (median wall)",
        (rapier.wallMs.median / rapierFlat.wallMs.median).toFixed(2),
        'Rapier on the trimesh / on a flat box (wall / wall)',
      );
  }
  if (r.suite === 'meshes' && r.scene === 'torus knot') {
    // Issue 49's goals: on SwiftShader, the build and first-hit rays within 2× three-mesh-bvh's
    // wall time; on a GPU, at 1M triangles, the build ≤ 5 GPU ms, a refit ≤ 1, coherent rays ≥
    // 0.5 G/s and incoherent ≥ 0.1 G/s (as GPU ms per million rays: ≤ 2 and ≤ 10).
    const wallRatio = (label: string, scene: string, rowSize: string, gpu: string, peer: string): void => {
      const a = find('meshes', scene, rowSize, gpu);
      const b = find('meshes', scene, rowSize, peer);
      if (a?.wallMs && b?.wallMs)
        addRatio(
          scene,
          rowSize,
          `${label} (median wall; goal ≤ 2)`,
          (a.wallMs.median / b.wallMs.median).toFixed(2),
          `${label} (wall / wall)`,
          2,
        );
    };
    wallRatio('GPU build / three-mesh-bvh build', r.scene, size, 'gpu build', 'three-mesh-bvh build');
    for (const kind of ['coherent', 'incoherent']) {
      const scene = `${r.scene}, ${kind} rays`;
      const rays = rows.find((x) => x.suite === 'meshes' && x.scene === scene && x.size.triangles === r.size.triangles);
      if (rays)
        wallRatio(
          `GPU rays / three-mesh-bvh's`,
          scene,
          sizeText(rays.size),
          'gpu raycastMesh',
          'three-mesh-bvh raycastFirst',
        );
      if (!software && rays?.gpuMs && r.size.triangles >= 999_000) {
        const goal = kind === 'coherent' ? 2 : 10;
        addRatio(
          scene,
          sizeText(rays.size),
          `GPU ms per million rays (goal ≤ ${goal}: ≥ ${1 / goal} G rays/s)`,
          ((rays.gpuMs.median * 1e6) / rays.size.rays).toPrecision(3),
          'GPU ms per million rays',
          goal,
        );
      }
    }
    if (!software && r.size.triangles >= 999_000)
      for (const [method, goal] of [
        ['gpu build', 5],
        ['gpu refit', 1],
      ] as const) {
        const row = find('meshes', r.scene, size, method);
        if (row?.gpuMs)
          addRatio(
            r.scene,
            size,
            `${method} (GPU ms; goal ≤ ${goal})`,
            row.gpuMs.median.toPrecision(3),
            `${method} (GPU ms)`,
            goal,
          );
      }
  }
  if (r.suite === 'pile') {
    // Wall time against wall time: Rapier's world.step() against our awaited step.
    const rapier = find('pile', r.scene, size, 'rapier-world-step');
    for (const method of ['gpu-world-step', 'gpu-world-step 1×2']) {
      const gpu = find('pile', r.scene, size, method);
      if (rapier?.wallMs && gpu?.wallMs)
        addRatio(
          r.scene,
          size,
          `Rapier step / ${method} (median wall)`,
          (rapier.wallMs.median / gpu.wallMs.median).toFixed(2),
          `Rapier / ${method} (wall / wall)`,
        );
    }
  }
}
for (const scene of ['uniform', 'mixed']) {
  const a =
    find('pairs', scene, sizeText({ spheres: 100_000 }), 'gpu-grid') ??
    find('pairs', scene, sizeText({ spheres: 64_000 }), 'gpu-grid');
  const b =
    find('pairs', scene, sizeText({ spheres: 400_000 }), 'gpu-grid') ??
    find('pairs', scene, sizeText({ spheres: 256_000 }), 'gpu-grid');
  if (a && b)
    addRatio(
      scene,
      `${sizeText(b.size)} / ${sizeText(a.size)}`,
      'GPU grid time growth',
      (time(b)! / time(a)!).toFixed(2),
      `GPU grid time growth (${basis(b)} / ${basis(a)})`,
    );
}
if (args.crossover) {
  const cross = CROSSOVER_SIZES.find((n) => {
    const g = find('pairs', 'crossover', sizeText({ spheres: n }), 'gpu-grid');
    const a = find('pairs', 'crossover', sizeText({ spheres: n }), 'gpu-all-pairs');
    return g?.wallMs && a?.wallMs && g.wallMs.median < a.wallMs.median;
  });
  addRatio(
    'uniform',
    '–',
    'first N where the grid beats all-pairs (wall)',
    cross ? String(cross) : 'none measured',
    'first N: grid beats all-pairs (wall)',
  );
}
if (ratios.length) {
  const printed = compactTable(['scene', 'size', 'ratio', 'value', 'goal'], shownRatios);
  console.log(`\n## ratios (from this run)\n\n${printed.text}\n`);
  console.log(
    wrap(
      "A / B: A's median time over B's (> 1: B is faster). In brackets, which time of each: wall (the whole call, " +
        'unprofiled) or GPU (timestamp sum of the profiled calls, no validation, upload or read-back): a (wall / GPU) ratio ' +
        'sets a whole CPU call against GPU work alone; (wall / wall) sets call against call.' +
        (shownRatios.some((r) => r[2].includes('walk steps'))
          ? " Walk steps: 4 × rows + 4 × candidates + 8 × slabs of the grid walk (its CPU twin's counts)."
          : ''),
    ),
  );
  if (shownRatios.some((r) => r[4].startsWith('≤ 1.25:'))) {
    console.log(
      wrap(
        "goal ≤ 1.25: the colliders goal: our step with the scene's static boxes takes at most 1.25× the same world's " +
          'step without them (bench/suites/colliders.ts), set at 100k particles over 1,000 boxes; at other sizes it is indicative only.',
      ),
    );
  }
  if (shownRatios.some((r) => r[4].startsWith('≤ 1.5:'))) {
    console.log(
      wrap(
        "goal ≤ 1.5: the terrain goal (issue 50): our step on the terrain's mesh takes at most 1.5× the same world's " +
          "step on one flat box at the mesh's mean height (bench/suites/terrain.ts), with the balls' worst penetration " +
          'into the mesh ≤ 25% of a radius (the quality table).',
      ),
    );
  }
  if (shownRatios.some((r) => r[0].startsWith('torus knot') && r[4] !== '')) {
    console.log(
      wrap(
        'The meshes goals (issue 49): on SwiftShader, the GPU build of 1M triangles and its first-hit rays, coherent ' +
          "and incoherent, within 2× three-mesh-bvh's wall time (goal ≤ 2); on a GPU, at 1M triangles, the build in " +
          '≤ 5 GPU ms, a refit in ≤ 1, and ≥ 0.5 G coherent and ≥ 0.1 G incoherent first-hit rays/s (≤ 2 and ≤ 10 GPU ' +
          'ms per million rays).',
      ),
    );
  }
  if (shownRatios.some((r) => r[4].startsWith('≤ 3:'))) {
    console.log(
      wrap(
        "goal ≤ 3: the no-cliffs goal: the default broad phase ('auto') takes at most 3× the wall time of the careful " +
          'single-threaded JS grid (bench/peers/jsGrid.ts) on every scene kind, set at 100k spheres for sphere pairs and ' +
          'sphere–box pairs (docs/PERFORMANCE.md, "No cliffs"); at other sizes it is indicative only.',
      ),
    );
  }
}

// 'auto' against the competent CPU BVH (and the GPU BVH against it), per suite, scene and size: wall against wall.
const autoVsCpuBvh: {
  suite: string;
  scene: string;
  size: Record<string, number>;
  autoMs: number;
  picked?: string;
  cpuBvhMs: number;
  autoOverCpuBvh: number;
  gpuBvhMs?: number;
  gpuBvhOverCpuBvh?: number;
}[] = [];
const summarySeen = new Set<string>();
for (const r of rows) {
  if (!['pairs', 'boxes', 'casts'].includes(r.suite) || r.scene === 'crossover') continue;
  const size = sizeText(r.size);
  const key = `${r.suite}|${r.scene}|${size}`;
  if (summarySeen.has(key)) continue;
  summarySeen.add(key);
  const auto = find(r.suite, r.scene, size, 'gpu-auto'),
    cpu = find(r.suite, r.scene, size, 'cpu-bvh'),
    gpuBvh = find(r.suite, r.scene, size, 'gpu-bvh');
  if (!auto?.wallMs || !cpu?.wallMs) continue;
  const autoMs = auto.wallMs.median,
    cpuBvhMs = cpu.wallMs.median,
    gpuBvhMs = gpuBvh?.wallMs?.median;
  autoVsCpuBvh.push({
    suite: r.suite,
    scene: r.scene,
    size: r.size,
    autoMs,
    picked: pickedBroadphase(auto),
    cpuBvhMs,
    autoOverCpuBvh: autoMs / cpuBvhMs,
    ...(gpuBvhMs !== undefined ? { gpuBvhMs, gpuBvhOverCpuBvh: gpuBvhMs / cpuBvhMs } : {}),
  });
}
if (autoVsCpuBvh.length) {
  const short = (size: Record<string, number>): string =>
    Object.values(size)
      .map((v) => (v >= 1e6 ? `${v / 1e6}M` : v >= 1000 ? `${v / 1000}k` : String(v)))
      .join('×');
  console.log(`\n## 'auto' against the CPU BVH (wall ms, median; ratio < 1: the GPU is faster)\n`);
  console.log(
    table(
      ['suite', 'scene', 'size', 'auto', 'picked', 'cpu-bvh', 'auto/cpu', 'gpu-bvh', 'gbvh/cpu'],
      autoVsCpuBvh.map((s) => [
        s.suite,
        s.scene,
        short(s.size),
        ms(s.autoMs),
        s.picked ?? '–',
        ms(s.cpuBvhMs),
        s.autoOverCpuBvh.toFixed(2),
        s.gpuBvhMs !== undefined ? ms(s.gpuBvhMs) : '–',
        s.gpuBvhOverCpuBvh !== undefined ? s.gpuBvhOverCpuBvh.toFixed(2) : '–',
      ]),
    ),
  );
  console.log(
    `\n${wrap(
      "auto, cpu-bvh, gpu-bvh: median wall ms of each method's unprofiled calls, the whole call (the CPU BVH " +
        "built in each; bench/peers/cpuBvh.ts). picked: the broad phase 'auto' ran, told by its profiled stages' names. " +
        "auto/cpu, gbvh/cpu: those wall times over the CPU BVH's.",
    )}`,
  );
}

// Where this run's time went, and how to spend less of it.
const runS = (performance.now() - runStarted) / 1000;
const spent = Object.entries(ctx.spentS ?? {}).sort((a, b) => b[1] - a[1]);
if (spent.length) {
  const flagOf: Record<string, 'pair-methods' | 'cast-methods' | 'box-methods'> = {
    pairs: 'pair-methods',
    casts: 'cast-methods',
    boxes: 'box-methods',
  };
  const top = spent
    .slice(0, 4)
    .map(([k, v]) => `${k} ${v.toFixed(1)} s`)
    .join(', ');
  const [worst] = spent;
  const [worstSuite, worstMethod] = worst[0].split(' ');
  const rest = flagOf[worstSuite] ? args[flagOf[worstSuite]].split(',').filter((m) => m && m !== worstMethod) : [];
  const hint =
    flagOf[worstSuite] && worst[1] > 0.25 * runS && rest.length
      ? ` To leave ${worstMethod} out: --${flagOf[worstSuite]} ${rest.join(',')}.`
      : '';
  console.log(
    `\n${wrap(`Measuring took ${runS.toFixed(0)} s; the slowest methods: ${top}.${hint} ${quick ? '' : 'Smaller runs: --quick. '}Methods and defaults: --help.`)}`,
  );
}

mkdirSync(dirname(args.json), { recursive: true });
writeFileSync(
  args.json,
  JSON.stringify(
    {
      adapter: info,
      waiting,
      features,
      limits: adapterLimitsOf(device),
      versions,
      date: new Date().toISOString(),
      command,
      reps: ctx.reps,
      warmup: ctx.warmup,
      budgetS: Number(args.budget),
      quick,
      rows,
      ratios,
      autoVsCpuBvh,
      methodSeconds: ctx.spentS,
      runSeconds: runS,
    },
    null,
    2,
  ),
);
console.log(`\nJSON: ${args.json}`);
collider.destroy();
device.destroy();
