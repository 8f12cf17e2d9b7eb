/**
 * The portable GPU tests on Deno's built-in WebGPU (wgpu; no addon), with Vitest's own runner
 * (@vitest/runner) and `expect`: the same test modules as the browser projects, each test
 * reported as it ends, then `N passed, N failed, N skipped`. Fails on any failure, on an error
 * outside a test, and when no test ran.
 *
 *   deno run -A --unstable-sloppy-imports scripts/deno-tests.ts [--engine wgpu]
 *     [--driver swiftshader|lavapipe|system] [files...]
 *
 * With no files, test/engine.test.ts and the `portable` list of vitest.config.ts (the Chromium
 * project's files), less the tests test/support/wgpuRuns.ts leaves out on wgpu and on Deno.
 * `--unstable-sloppy-imports` lets the sources' `./x.js` imports find `./x.ts`, as TypeScript
 * and Vite resolve them. `--driver` picks the Vulkan driver (its ICD file); `system` (the
 * default) leaves it to the Vulkan loader: a GPU, else lavapipe when Mesa's drivers are installed.
 * TEST_NAME_PATTERN (a regular expression) runs only the tests whose names match.
 * `--engine` makes the run fail unless describeDevice reports that engine for the test device.
 */
import { startTests, type File, type Task, type VitestRunner, type VitestRunnerConfig } from '@vitest/runner';
import { SLOW_ON_WGPU, DENO_DIFFERS, allBut } from '../test/support/wgpuRuns.js';

declare const Deno: {
  args: string[];
  cwd(): string;
  exit(code: number): never;
  readTextFileSync(path: string): string;
  version: { deno: string };
  env: { get(name: string): string | undefined; set(name: string, value: string): void };
  statSync(path: string): unknown;
  dlopen(
    path: string,
    symbols: { _exit: { parameters: ['i32']; result: 'void' } },
  ): { symbols: { _exit(code: number): void } };
};

/**
 * Exits with `code` without running the process's exit handlers and static destructors. The
 * Vulkan drivers' teardown under wgpu has corrupted the heap after every test had passed and the
 * summary was printed ("corrupted size vs. prev_size in fastbins", exit 134: seen with lavapipe
 * and, once in a fresh-clone CI run on 2026-11-24, with SwiftShader), which would fail a run whose
 * tests all passed. glibc's `_exit` ends the process at once (the summary is already written:
 * Deno's console writes synchronously); elsewhere, the normal exit.
 */
function exitNow(code: number): never {
  try {
    Deno.dlopen('libc.so.6', { _exit: { parameters: ['i32'], result: 'void' } }).symbols._exit(code);
  } catch {
    // not glibc, or no FFI permission: exit normally
  }
  Deno.exit(code);
}

const root = Deno.cwd();
const args = [...Deno.args];
const engineAt = args.indexOf('--engine');
const expectEngine = engineAt >= 0 ? args.splice(engineAt, 2)[1] : undefined;
// `--driver` may come twice (a package script's, then the command line's): the last one wins.
let driver = 'system';
for (let at = args.indexOf('--driver'); at >= 0; at = args.indexOf('--driver')) driver = args.splice(at, 2)[1];

/** Vulkan drivers by name: their ICD files on Debian (SwiftShader comes with Chromium, lavapipe with mesa-vulkan-drivers). */
const ICDS: Record<string, string> = {
  swiftshader: '/usr/lib/chromium/vk_swiftshader_icd.json',
  lavapipe: '/usr/share/vulkan/icd.d/lvp_icd.x86_64.json',
};
if (driver !== 'system') {
  const icd = ICDS[driver];
  if (!icd) throw new Error(`--driver ${driver}: one of system, ${Object.keys(ICDS).join(', ')}`);
  Deno.statSync(icd); // throws NotFound, naming the file, when the driver is not installed
  // Read by the Vulkan loader when Deno makes its WebGPU instance, at the first requestAdapter.
  Deno.env.set('VK_ICD_FILENAMES', icd);
}
// The Vulkan loader prints an error on every instance when this is unset; it only needs a directory.
if (!Deno.env.get('XDG_RUNTIME_DIR')) Deno.env.set('XDG_RUNTIME_DIR', '/tmp');

function portableFiles(): string[] {
  const config = Deno.readTextFileSync(`${root}/vitest.config.ts`);
  const list = /const portable = \[([^\]]*)\]/.exec(config);
  if (!list) throw new Error('scripts/deno-tests.ts: no `const portable = [...]` list in vitest.config.ts');
  return [...list[1].matchAll(/'([^']+)'/g)].map((m) => `test/${m[1]}.test.ts`);
}

const files = args.length > 0 ? args : ['test/engine.test.ts', ...portableFiles()];
const only = Deno.env.get('TEST_NAME_PATTERN');

const outside: string[] = [];
globalThis.addEventListener('unhandledrejection', (event: Event) => {
  event.preventDefault();
  const reason = (event as PromiseRejectionEvent).reason as Error;
  outside.push(`unhandled rejection: ${reason?.stack ?? reason}`);
  console.error(outside[outside.length - 1]);
});
globalThis.addEventListener('error', (event: Event) => {
  event.preventDefault();
  const error = (event as ErrorEvent).error as Error;
  outside.push(`uncaught error: ${error?.stack ?? error}`);
  console.error(outside[outside.length - 1]);
});

const config: VitestRunnerConfig = {
  root,
  setupFiles: [],
  name: 'deno',
  passWithNoTests: false,
  // Left out unless TEST_NAME_PATTERN names tests: see test/support/wgpuRuns.ts.
  testNamePattern: only ? new RegExp(only) : allBut([...SLOW_ON_WGPU, ...DENO_DIFFERS]),
  allowOnly: false,
  sequence: { seed: 0, hooks: 'stack', setupFiles: 'list' },
  chaiConfig: undefined,
  maxConcurrency: 1,
  // As vitest.config.ts.
  testTimeout: 120_000,
  hookTimeout: 120_000,
  retry: 0,
  includeTaskLocation: false,
  tags: [],
  tagsFilter: undefined,
  strictTags: false,
};

const path = (task: Task): string => {
  const names: string[] = [];
  for (let t: Task | undefined = task; t && t !== task.file; t = t.suite) names.unshift(t.name);
  return `${task.file.name} > ${names.join(' > ')}`;
};

const runner: VitestRunner = {
  config,
  async importFile(filepath) {
    await import(new URL(filepath, `file://${root}/`).href);
  },
  onAfterRunTask(test) {
    const result = test.result;
    const ms = result?.duration === undefined ? '' : ` ${Math.round(result.duration)} ms`;
    if (result?.state === 'pass') console.log(`  ✓ ${path(test)}${ms}`);
    else if (result?.state === 'fail') {
      console.log(`  ✗ ${path(test)}${ms}`);
      for (const error of result.errors ?? [])
        console.log(`      ${(error.stack ?? error.message ?? String(error)).split('\n').join('\n      ')}`);
      if (result.errors?.some((e) => e.diff))
        for (const e of result.errors) if (e.diff) console.log(`      ${e.diff.split('\n').join('\n      ')}`);
    } else console.log(`  - ${path(test)} (skipped)`);
  },
};

function* tests(task: Task): Generator<Task> {
  if (task.type === 'test') yield task;
  else for (const child of task.tasks) yield* tests(child);
}

// What ran it: the engine and driver of a device like the tests' own.
const { requestBrowserDevice, describeDevice } = await import('../src/index.js');
const probe = await requestBrowserDevice();
const adapter = describeDevice(probe)!;
probe.destroy();
console.log(`deno ${Deno.version.deno}: ${adapter.label}`);
console.log(`running ${files.length} files: ${files.join(', ')}`);
if (!only)
  console.log(
    `left out (test/support/wgpuRuns.ts): ${[...SLOW_ON_WGPU, ...DENO_DIFFERS].map((n) => `"${n}..."`).join(', ')}`,
  );
if (expectEngine && adapter.engine !== expectEngine) {
  console.error(`expected engine ${expectEngine}, got ${adapter.engine}`);
  Deno.exit(1);
}

const started = performance.now();
const done: File[] = await startTests(
  files.map((f) => `${root}/${f}`),
  runner,
);
let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of done) {
  const all = [...tests(file)];
  if (file.result?.state === 'fail' && (file.result.errors?.length ?? 0) > 0) {
    failed++;
    console.log(`  ✗ ${file.name}: ${file.result.errors!.map((e) => e.stack ?? e.message).join('\n')}`);
  }
  for (const test of all) {
    if (test.result?.state === 'pass') passed++;
    else if (test.result?.state === 'fail') failed++;
    else skipped++;
  }
}
failed += outside.length;
console.log(
  `\ndeno (${adapter.engine}, ${adapter.driver || 'unnamed driver'}): ${done.length} files in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
if (passed === 0) console.error('no test passed: nothing ran?');
exitNow(failed > 0 || passed === 0 ? 1 : 0);
