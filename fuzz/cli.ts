/**
 * `npm run fuzz -- --scenes N --seed S [--queries spherePairs,raycast,...] [--out test/repro]`:
 * N random scenes per query (seeds S .. S+N−1), each checked against the CPU reference with the
 * tolerances of docs/TESTING.md. A failing scene is shrunk to a few records and written as
 * test/repro/<query>-seed<S>.json, which test/repro.test.ts replays as a test from then on.
 * Exits 1 if any scene failed, 2 on a bad command line (`--help` prints the usage).
 */
import { parseArgs } from 'node:util';
import { mkdirSync, writeFileSync } from 'node:fs';
import { requestNodeDevice, createCollider, describeDevice } from '../src/node.js';
import { FUZZ_QUERIES, generateCase, checkCase, shrinkCase, type FuzzQuery } from '../test/support/fuzz.js';

const USAGE = `Usage: npm run fuzz -- [--scenes N] [--seed S] [--queries q1,q2,...] [--out DIR]

Random scenes for every query and broad phase, checked against the CPU reference; a failing
scene is shrunk and written to DIR/<query>-seed<S>.json (replayed by test/repro.test.ts).

  --scenes N    scenes per query, a whole number >= 1 (default 1000)
  --seed S      first seed, a whole number >= 0 (default 1); scenes use S .. S+N-1
  --queries Q   comma-separated, from: ${FUZZ_QUERIES.join(', ')} (default: all)
  --out DIR     where failing scenes go (default test/repro)
  -h, --help    this text

Exits 0 when every scene agrees, 1 when one does not, 2 on a bad command line.`;

/** A command-line mistake: the message and the usage on stderr, exit status 2. */
function usageError(message: string): never {
  console.error(`fuzz: ${message}\n\n${USAGE}`);
  process.exit(2);
}

function parseCommandLine(): { scenes: number; first: number; queries: FuzzQuery[]; out: string } {
  const config = {
    options: {
      scenes: { type: 'string', default: '1000' },
      seed: { type: 'string', default: '1' },
      queries: { type: 'string', default: FUZZ_QUERIES.join(',') },
      out: { type: 'string', default: 'test/repro' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  } as const;
  let parsed: ReturnType<typeof parseArgs<typeof config>>;
  try {
    parsed = parseArgs(config);
  } catch (error) {
    usageError((error as Error).message);
  }
  const args = parsed.values;
  if (args.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const whole = (flag: string, text: string, min: number): number => {
    const value = Number(text);
    if (!/^\s*\d+\s*$/.test(text) || !Number.isSafeInteger(value) || value < min) {
      usageError(`--${flag} must be a whole number >= ${min}, got '${text}'`);
    }
    return value;
  };
  const scenes = whole('scenes', args.scenes, 1);
  const first = whole('seed', args.seed, 0);
  if (first + scenes > 2 ** 32)
    usageError(`--seed + --scenes must stay below 2^32 (seeds are 32-bit), got ${first} + ${scenes}`);
  const queries = args.queries
    .split(',')
    .map((q) => q.trim())
    .filter((q) => q !== '');
  if (queries.length === 0) usageError(`--queries names no query; valid: ${FUZZ_QUERIES.join(', ')}`);
  const unknown = queries.filter((q) => !(FUZZ_QUERIES as readonly string[]).includes(q));
  if (unknown.length > 0) {
    usageError(
      `unknown ${unknown.length === 1 ? 'query' : 'queries'} ${unknown.map((q) => `'${q}'`).join(', ')}; valid: ${FUZZ_QUERIES.join(', ')}`,
    );
  }
  if (args.out.trim() === '') usageError('--out must name a directory');
  return { scenes, first, queries: queries as FuzzQuery[], out: args.out };
}

const { scenes, first, queries, out } = parseCommandLine();
const device = await requestNodeDevice();
device.onuncapturederror = (event) => {
  console.error(`uncaptured WebGPU error: ${(event as GPUUncapturedErrorEvent).error.message}`);
  process.exitCode = 1;
};
const collider = await createCollider({ device });
console.log(
  `fuzzing ${queries.join(', ')}: ${scenes} scenes each from seed ${first} on ${describeDevice(device)?.description}`,
);
let failures = 0;
const started = performance.now();
for (const query of queries) {
  let passed = 0;
  const t = performance.now();
  let shown = t;
  for (let seed = first; seed < first + scenes; seed++) {
    // A progress line on stderr every 10 s of a long run (stdout keeps only the results).
    if (performance.now() - shown > 10_000) {
      shown = performance.now();
      const done = seed - first;
      console.error(
        `  ${query}: ${done} of ${scenes} scenes, ${done - passed} disagree (${((shown - t) / 1000).toFixed(0)} s)`,
      );
    }
    const c = generateCase(query, seed);
    let problems: string[];
    try {
      problems = await checkCase(collider, c);
    } catch (error) {
      problems = [`threw ${(error as Error).name}: ${(error as Error).message}`];
    }
    if (problems.length === 0) {
      passed++;
      continue;
    }
    failures++;
    console.log(`\n✗ ${query} seed ${seed} (${c.note}):\n  ${problems.slice(0, 3).join('\n  ')}`);
    const small = problems[0].startsWith('threw') ? c : await shrinkCase(collider, c);
    mkdirSync(out, { recursive: true });
    const file = `${out}/${query}-seed${seed}.json`;
    writeFileSync(
      file,
      JSON.stringify(
        { ...small, problems: (await checkCase(collider, small).catch((e) => [String(e)])).slice(0, 5) },
        null,
        1,
      ),
    );
    console.log(`  shrunk to ${small.spheres.length / 4} spheres and ${small.others.length} other values: ${file}`);
  }
  console.log(
    `${query}: ${passed} of ${scenes} scenes agree with the reference (${((performance.now() - t) / 1000).toFixed(0)} s)`,
  );
}
console.log(
  `\n${failures === 0 ? 'clean' : `${failures} failing scenes`}: ${queries.length * scenes} scenes in ${((performance.now() - started) / 1000).toFixed(0)} s`,
);
collider.destroy();
device.destroy();
if (failures > 0) process.exitCode = 1;
