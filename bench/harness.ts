/**
 * The benchmark harness: repeated measurement with warm-up, medians and spread, GPU time from
 * the collider's timestamp profile, wall time around the whole call, and a budget that skips a
 * method whose estimated time is too long (and says so). A GPU method's wall time is taken from
 * calls without a profile (a profile costs timestamp writes and one more read-back: 1.2–1.6 ms
 * of a 100k-sphere pair call on SwiftShader), its GPU time from as many profiled calls after.
 * Each method starts after a full garbage collection, so that it pays for its own garbage only.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import type { Collider } from '../src/collider.js';
import { BROADPHASE_NAMES } from '../src/broadphase/index.js';
import { summarize, type Summary } from './stats.js';

/**
 * A full garbage collection, run before each method is measured: otherwise what one method (a
 * JS peer's arrays, a reference's answer to check against) leaves behind is collected during
 * the next method's timed calls, and counted as its time. (`--expose-gc` set at run time, so
 * that the bundled bench of bench/device.sh needs no flag either.)
 */
const collectGarbage: () => void = (() => {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
})();

/** One run of a method: its wall time is measured around it; GPU time comes from the profile. */
export interface Sample {
  /** What the method found, counted (pairs, hits). */
  answer: number;
  /** What it found, for the check before its time counts. */
  output?: unknown;
  gpuMs?: number;
  stages?: Record<string, number>;
  /** The method's own timing of the part compared (else the wall time of the whole run). */
  timeMs?: number;
}

export interface Row {
  suite: string;
  scene: string;
  /** The sizes, e.g. { spheres: 100000, rays: 100000 }. */
  size: Record<string, number>;
  method: string;
  answer?: number;
  wallMs?: Summary;
  gpuMs?: Summary;
  /**
   * The wall time of the profiled calls that `gpuMs` comes from (GPU methods only): the calls
   * of `wallMs` ran without a profile, these with the timestamp passes and their read-back.
   */
  profiledWallMs?: Summary;
  stagesMs?: Record<string, number>;
  /** Work the method does, in named units (tests, rows, candidates, slabs, bytes). */
  work?: Record<string, number>;
  /** Derived throughput, e.g. rays per second. */
  rate?: { unit: string; value: number };
  skipped?: string;
  note?: string;
}

export interface Context {
  collider: Collider;
  reps: number;
  warmup: number;
  budgetMs: number;
  large: boolean;
  /**
   * Whether a GPU method's calls ask for a profile now (`profile: ctx.profiling`): measureChecked
   * sets it, false while it times the wall, true while it reads the GPU time.
   */
  profiling: boolean;
  /** A reason to skip a method before it runs (`--quick`: brute force beyond a few thousand spheres), else undefined. */
  skip?: (row: Omit<Row, 'answer' | 'wallMs' | 'gpuMs' | 'stagesMs'>) => string | undefined;
  /** Seconds each `suite method` took in this run (every call, warm-up and profiled ones too), added up by measureChecked. */
  spentS?: Record<string, number>;
}

/** Stage times of the collider's last profiled call, summed by stage name. */
export function profileOf(collider: Collider): Pick<Sample, 'gpuMs' | 'stages'> {
  const stages: Record<string, number> = {};
  for (const s of collider.lastProfile?.stages ?? []) stages[s.name] = (stages[s.name] ?? 0) + s.ms;
  return { gpuMs: collider.lastProfile?.totalMs, stages };
}

export async function measure(
  run: () => Promise<Sample>,
  reps: number,
  warmup: number,
): Promise<Pick<Row, 'answer' | 'wallMs' | 'gpuMs' | 'stagesMs'>> {
  let answer = 0;
  const wall: number[] = [];
  const gpu: number[] = [];
  const stageSamples: Record<string, number[]> = {};
  for (let r = 0; r < warmup + reps; r++) {
    const t = performance.now();
    const out = await run();
    const elapsed = out.timeMs ?? performance.now() - t;
    answer = out.answer;
    if (r < warmup) continue;
    wall.push(elapsed);
    if (out.gpuMs !== undefined) gpu.push(out.gpuMs);
    for (const [name, value] of Object.entries(out.stages ?? {})) (stageSamples[name] ??= []).push(value);
  }
  const stagesMs = Object.fromEntries(Object.entries(stageSamples).map(([k, v]) => [k, summarize(v).median]));
  return {
    answer,
    wallMs: summarize(wall),
    gpuMs: gpu.length ? summarize(gpu) : undefined,
    stagesMs: Object.keys(stagesMs).length ? stagesMs : undefined,
  };
}

/**
 * Measures `run` unless its estimated time for all repetitions exceeds the budget. `check`
 * (given the first run's output) must return null — the method agrees with the reference —
 * before the time counts; otherwise this throws.
 */
export async function measureChecked(
  ctx: Context,
  row: Omit<Row, 'answer' | 'wallMs' | 'gpuMs' | 'stagesMs'>,
  run: () => Promise<Sample>,
  estimateMs: number | undefined,
  check?: (output: never) => string | null,
): Promise<Row> {
  if (estimateMs !== undefined && estimateMs * (ctx.reps + ctx.warmup) > ctx.budgetMs) {
    return {
      ...row,
      skipped: `estimated ${((estimateMs * (ctx.reps + ctx.warmup)) / 1000).toFixed(0)} s > budget ${ctx.budgetMs / 1000} s`,
    };
  }
  const skipped = ctx.skip?.(row);
  if (skipped) {
    process.stderr.write(`${row.suite} ${row.scene} ${JSON.stringify(row.size)} ${row.method}: skipped, ${skipped}\n`);
    return { ...row, skipped };
  }
  const started = performance.now();
  collectGarbage();
  // Long runs once; short ones (where scheduling noise is large) three times as often.
  const reps =
    estimateMs !== undefined && estimateMs > ctx.budgetMs / 10
      ? 1
      : estimateMs !== undefined && estimateMs < 50
        ? 3 * ctx.reps
        : ctx.reps;
  const warmup = reps === 1 ? 0 : ctx.warmup;
  let checked = false;
  const checkedRun = async (): Promise<Sample> => {
    const out = await run();
    if (!checked && check) {
      const problem = check(out.output as never);
      if (problem)
        throw new Error(
          `${row.suite}/${row.scene} ${JSON.stringify(row.size)}: ${row.method} disagrees with the reference: ${problem}`,
        );
    }
    checked = true;
    return { ...out, output: undefined };
  };
  // The wall time without a profile; a GPU method's GPU time (and stages) from profiled calls after.
  ctx.profiling = false;
  const wall = await measure(checkedRun, reps, warmup);
  let m: Pick<Row, 'answer' | 'wallMs' | 'gpuMs' | 'profiledWallMs' | 'stagesMs'> = {
    answer: wall.answer,
    wallMs: wall.wallMs,
  };
  if (row.method.startsWith('gpu-')) {
    ctx.profiling = true;
    try {
      const profiled = await measure(checkedRun, reps, 0);
      m = { ...m, gpuMs: profiled.gpuMs, profiledWallMs: profiled.wallMs, stagesMs: profiled.stagesMs };
    } finally {
      ctx.profiling = false;
    }
  }
  if (ctx.spentS)
    ctx.spentS[`${row.suite} ${row.method}`] =
      (ctx.spentS[`${row.suite} ${row.method}`] ?? 0) + (performance.now() - started) / 1000;
  process.stderr.write(
    `${row.suite} ${row.scene} ${JSON.stringify(row.size)} ${row.method}: wall ${m.wallMs?.median.toFixed(2)} ms${m.gpuMs ? `, GPU ${m.gpuMs.median.toFixed(2)} ms` : ''}\n`,
  );
  return { ...row, ...m };
}

/**
 * The broad phase a GPU row ran, told by its profiled stages' names, each of which starts with
 * or holds its phase's name as a word ('grid count', 'sweep pairs', 'bvh nodes', 'all-pairs',
 * 'box all-pairs', 'cast all-pairs nearest'): what 'auto' picked. The names are the registry's.
 * Undefined when the row has no stages (no `timestamp-query` on the device).
 */
export function pickedBroadphase(row: Row): string | undefined {
  const names = Object.keys(row.stagesMs ?? {});
  if (!names.length) return undefined;
  const ran = BROADPHASE_NAMES.filter((phase) => names.some((name) => name.split(' ').includes(phase)));
  return ran.length ? ran.join('+') : names.join('+');
}
