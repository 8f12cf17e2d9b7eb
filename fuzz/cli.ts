/**
 * `npm run fuzz -- --scenes N --seed S [--queries spherePairs,raycast,...] [--out test/repro]`:
 * N random scenes per query (seeds S .. S+N−1), each checked against the CPU reference with the
 * tolerances of docs/TESTING.md. A failing scene is shrunk to a few records and written as
 * test/repro/<query>-seed<S>.json, which test/repro.test.ts replays as a test from then on.
 * Exits 1 if any scene failed.
 */
import { parseArgs } from 'node:util';
import { mkdirSync, writeFileSync } from 'node:fs';
import { requestNodeDevice, createCollider, describeDevice } from '../src/node.js';
import { FUZZ_QUERIES, generateCase, checkCase, shrinkCase, type FuzzQuery } from '../test/support/fuzz.js';

const { values: args } = parseArgs({
  options: {
    scenes: { type: 'string', default: '1000' },
    seed: { type: 'string', default: '1' },
    queries: { type: 'string', default: FUZZ_QUERIES.join(',') },
    out: { type: 'string', default: 'test/repro' },
  },
});

const device = await requestNodeDevice();
device.onuncapturederror = (event) => {
  console.error(`uncaptured WebGPU error: ${(event as GPUUncapturedErrorEvent).error.message}`);
  process.exitCode = 1;
};
const collider = await createCollider({ device });
const scenes = Number(args.scenes);
const first = Number(args.seed);
const queries = args.queries.split(',') as FuzzQuery[];
console.log(`fuzzing ${queries.join(', ')}: ${scenes} scenes each from seed ${first} on ${describeDevice(device)?.description}`);
let failures = 0;
const started = performance.now();
for (const query of queries) {
  let passed = 0;
  const t = performance.now();
  for (let seed = first; seed < first + scenes; seed++) {
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
    mkdirSync(args.out, { recursive: true });
    const file = `${args.out}/${query}-seed${seed}.json`;
    writeFileSync(file, JSON.stringify({ ...small, problems: (await checkCase(collider, small).catch((e) => [String(e)])).slice(0, 5) }, null, 1));
    console.log(`  shrunk to ${small.spheres.length / 4} spheres and ${small.others.length} other values: ${file}`);
  }
  console.log(`${query}: ${passed} of ${scenes} scenes agree with the reference (${((performance.now() - t) / 1000).toFixed(0)} s)`);
}
console.log(`\n${failures === 0 ? 'clean' : `${failures} failing scenes`}: ${queries.length * scenes} scenes in ${((performance.now() - started) / 1000).toFixed(0)} s`);
collider.destroy();
device.destroy();
if (failures > 0) process.exitCode = 1;
