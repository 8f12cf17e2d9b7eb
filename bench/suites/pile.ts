/**
 * The particle world's step beside Rapier's world step on the same scenes, with how physical
 * each engine's state is (test/support/pile.ts: particles through the walls, overlap of
 * touching pairs relative to the radius, kinetic energy, the pile's height):
 *
 * - "pile": 8000 balls of radius 0.5 at rest, scattered through a 20×60×20 box, dropped under
 *   gravity −9.8 for `frames` steps of 1/60 s (600: 10 s simulated), restitution 0.2 and
 *   friction 0.5 in both engines. Other sizes (`pileSizes`) keep the height and the density:
 *   the floor grows with the count (1M balls: a 223.6×60×223.6 box), so every ball falls as
 *   far and the pile settles as deep. A size whose estimated time exceeds the budget (from
 *   the smaller sizes' time per particle and frame) is skipped. Every step is timed; the state is read (untimed) at frames
 *   30, 120 and 600 (those not beyond the last) and the last.
 * - "gas": balls with gaussian velocities filling a cube at volume fraction 0.2 (or `gasFractions`), no gravity,
 *   restitution 1, friction 0; the median of 10 steps after 2 warm-up steps. Sizes whose
 *   estimated time (from the smaller sizes' time per particle) exceeds the budget are skipped.
 *
 * Rapier's time is `world.step()` alone; ours is the wall time of each `world.step` and the
 * queue's `onSubmittedWorkDone` after it (the step's promise resolves when the submission is
 * validated, before the GPU has run it). One extra step of ours is profiled for the GPU stages.
 */
import { createParticleWorld, workDone, type ParticleWorld, type ParticleWorldOptions } from '../../src/index.js';
import { readBuffer } from '../../src/gpu/buffers.js';
import {
  pileScene,
  gasScene,
  pileStats,
  pileStatsText,
  type ParticleScene,
  type PileStats,
} from '../../test/support/pile.js';
import { createRapierPile } from '../peers/rapierWorld.js';
import { summarize } from '../stats.js';
import type { Context, Row } from '../harness.js';

export interface PileSuiteOptions {
  /** Steps of the pile (default 600). */
  frames?: number;
  /** Particle counts of the pile scene (default [8000]). */
  pileSizes?: number[];
  /** Particle counts of the gas scene (default [100000]). */
  gasSizes?: number[];
  /** Timed gas steps per size, after the warm-up (default 10). */
  gasSteps?: number;
  /** Volume fractions of the gas scene (default [0.2]). */
  gasFractions?: number[];
  /** Which engines run: 'rapier', 'gpu' (default both). */
  methods?: string[];
}

const DT = 1 / 60;
const STATS_FRAMES = [30, 120, 600];
const GAS_WARMUP = 2;
/** Rapier's setup and 12 gas steps per particle before any is measured (ms; a guess on the high side). */
const RAPIER_GUESS_MS_PER_PARTICLE = 0.05;

const PILE_BASE = 8000;
/** The pile's box for `n` balls: 20×60×20 at 8000, the floor's area growing with n. */
export function pileBounds(n: number): number[] {
  const side = 20 * Math.sqrt(n / PILE_BASE);
  return [0, 0, 0, side, 60, side];
}
const sideText = (v: number): string => String(Number(v.toFixed(1)));
export const pileSceneName = (n: number): string => {
  const b = pileBounds(n);
  return `pile ${sideText(b[3])}×${b[4]}×${sideText(b[5])}, r 0.5`;
};
export const gasSceneName = (fraction: number): string => `gas, fraction ${fraction}, r 0.5`;
const PILE_SETTINGS = 'gravity −9.8, restitution 0.2, friction 0.5 (both engines), dt 1/60';
const GAS_SETTINGS = 'no gravity, restitution 1, friction 0 (both engines), dt 1/60';

/** The numbers of `pileStats` (or any named numbers) as work entries named `name@frame`, for the JSON and the quality table. */
export function statsWork(frame: number, s: PileStats | Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [`${k}@${frame}`, v]));
}

export const short = (v: number): string => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));

/** One engine behind the same small interface (the collider suite's too). */
export interface Engine {
  method: string;
  setupMs: number;
  settings: string;
  step(): Promise<number>;
  read(): Promise<{ spheres: Float32Array; velocities: Float32Array; inverseMasses?: Float32Array }>;
  /** Where the engine's moving boxes are now (10 floats a box), where they may differ from the scene's pose (ours). */
  readBoxes?(): Promise<Float32Array>;
  /** Stage times of one profiled step (ours only). */
  profile?(): Promise<{ totalMs: number; stages: Record<string, number> } | null>;
  /** Steps taken and those that searched for contacts (ours only: the others kept the lists). */
  searches?(): Promise<{ steps: number; searches: number }>;
  /** Poses moving boxes for the next step (ColliderScene.pose): where they start, their velocities, where they end. */
  poseBoxes?(pose: { boxes: Float32Array; velocities: Float32Array; next: Float32Array }): void;
  free(): void;
}

export interface Physics {
  gravity: number[];
  restitution: number;
  friction: number;
  /** Ours only: solver settings other than the defaults. */
  substeps?: number;
  iterations?: number;
  sleepTime?: number;
}

/** Our light setting, labelled in the method name: fewer solver passes, for scenes without stacks. */
const LIGHT = { substeps: 1, iterations: 2 };
const METHOD_NAMES: Record<string, string> = {
  rapier: 'rapier-world-step',
  gpu: 'gpu-world-step',
  'gpu-light': `gpu-world-step ${LIGHT.substeps}×${LIGHT.iterations}`,
  'gpu-awake': 'gpu-world-step, sleep off',
};
/** Sleep off (no particle ever rests long enough): what sleep adds to a pile's overlap (issue 47). */
const AWAKE = { sleepTime: 1e9 };

/** Rapier's world on `scene`; `boxes` (10 floats each) as fixed cuboid colliders besides the walls. */
export function rapierEngine(scene: ParticleScene, physics: Physics, boxes?: Float32Array, moving = false): Engine {
  const pile = createRapierPile(scene, { ...physics, dt: DT, boxes, moving });
  return {
    method: 'rapier-world-step',
    setupMs: pile.setupMs,
    settings: `Rapier defaults otherwise (${pile.settings.numSolverIterations} solver iterations, sleeping on, no CCD${moving ? '; the boxes kinematic position-based bodies' : ''})`,
    step: async () => pile.step(),
    read: async () => pile.read(),
    poseBoxes: moving ? (pose) => pile.poseBoxes(pose.next) : undefined,
    free: () => pile.free(),
  };
}

/** Our world on `scene`; `prepare` (the collider suite's boxes) runs after the particles are set, inside the setup time. */
export async function gpuEngine(
  ctx: Context,
  scene: ParticleScene,
  physics: Physics,
  prepare?: (world: ParticleWorld) => void,
): Promise<Engine> {
  const t0 = performance.now();
  const n = scene.spheres.length / 4;
  const options: ParticleWorldOptions = { device: ctx.collider.device, capacity: n, bounds: scene.bounds, ...physics };
  const world: ParticleWorld = await createParticleWorld(options);
  world.setParticles({ spheres: scene.spheres, velocities: scene.velocities });
  try {
    prepare?.(world);
  } catch (error) {
    world.destroy();
    throw error;
  }
  const setupMs = performance.now() - t0;
  return {
    method: 'gpu-world-step',
    setupMs,
    settings: 'one step per submission, timed until the queue is done',
    step: async () => {
      const t = performance.now();
      // step() waits for the GPU (it reads the step's counters back); the queue wait costs
      // nothing more, and keeps the timing honest should that change.
      await world.step(DT);
      await workDone(world.device);
      return performance.now() - t;
    },
    read: () => world.read(),
    searches: () => world.contactSearches(),
    poseBoxes: (pose) => world.setColliders({ boxes: pose.boxes, velocities: pose.velocities }),
    readBoxes: async () => {
      // The GPU poses (centre, half extents, quaternion: three vec4 a box) as box records.
      const count = world.colliderBuffers?.count ?? 0;
      const poses = new Float32Array(
        count ? await readBuffer(world.device, world.colliderBuffers!.poses, 0, 48 * count) : new ArrayBuffer(0),
      );
      const boxes = new Float32Array(10 * count);
      for (let k = 0; k < count; k++)
        boxes.set(
          [
            ...poses.subarray(12 * k, 12 * k + 3),
            ...poses.subarray(12 * k + 4, 12 * k + 7),
            ...poses.subarray(12 * k + 8, 12 * k + 12),
          ],
          10 * k,
        );
      return boxes;
    },
    profile: async () => {
      await world.step(DT, 1, { profile: true });
      const profile = world.lastProfile;
      if (!profile) return null;
      const stages: Record<string, number> = {};
      for (const s of profile.stages) stages[s.name] = (stages[s.name] ?? 0) + s.ms;
      return { totalMs: profile.totalMs, stages };
    },
    free: () => world.destroy(),
  };
}

async function makeEngine(ctx: Context, method: string, scene: ParticleScene, physics: Physics): Promise<Engine> {
  if (method === 'rapier') return rapierEngine(scene, physics);
  if (method === 'gpu-light')
    return { ...(await gpuEngine(ctx, scene, { ...physics, ...LIGHT })), method: METHOD_NAMES[method] };
  if (method === 'gpu-awake')
    return { ...(await gpuEngine(ctx, scene, { ...physics, ...AWAKE })), method: METHOD_NAMES[method] };
  return gpuEngine(ctx, scene, physics);
}

async function statsOf(engine: Engine, bounds: number[]): Promise<PileStats> {
  const state = await engine.read();
  return pileStats(state.spheres, state.velocities, bounds, state.inverseMasses);
}

/** Runs `engine` for `frames` steps, timing each, with the stats at `at`. */
async function runPile(ctx: Context, method: string, scene: ParticleScene, frames: number): Promise<Row> {
  const n = scene.spheres.length / 4;
  const physics = { gravity: [0, -9.8, 0], restitution: 0.2, friction: 0.5 };
  const engine = await makeEngine(ctx, method, scene, physics);
  const at = [...new Set([...STATS_FRAMES.filter((f) => f <= frames), frames])];
  const times: number[] = [];
  const work: Record<string, number> = { frames };
  const quality: string[] = [];
  let profile: Awaited<ReturnType<NonNullable<Engine['profile']>>> = null;
  try {
    for (let frame = 1; frame <= frames; frame++) {
      times.push(await engine.step());
      if (frame % 100 === 0 || frame === frames) {
        process.stderr.write(
          `pile ${n} ${engine.method}: frame ${frame} of ${frames}, median step so far ${short(summarize(times).median)} ms\n`,
        );
      }
      if (at.includes(frame)) {
        const s = await statsOf(engine, scene.bounds);
        Object.assign(work, statsWork(frame, s));
        quality.push(`frame ${frame}: ${pileStatsText(s)}`);
      }
    }
    const counts = await engine.searches?.();
    if (counts) Object.assign(work, { steps: counts.steps, searches: counts.searches });
    profile = (await engine.profile?.()) ?? null;
  } finally {
    engine.free();
  }
  const first = summarize(times.slice(0, 30));
  const last = summarize(times.slice(-100));
  work.firstFramesMedianMs = first.median;
  work.lastFramesMedianMs = last.median;
  const row: Row = {
    suite: 'pile',
    scene: pileSceneName(n),
    size: { particles: n },
    method: engine.method,
    wallMs: summarize(times),
    work,
    note: [
      `median step over ${times.length} frames; first ${first.n} frames ${short(first.median)} ms; last ${last.n} frames ${short(last.median)} ms`,
      ...(work.searches !== undefined ? [`${work.searches} of ${work.steps} steps searched for contacts`] : []),
      `${PILE_SETTINGS}; ${engine.settings}; setup ${short(engine.setupMs)} ms`,
      ...(profile ? [`stages from one profiled step after the last frame`] : []),
      ...quality,
    ].join('; '),
  };
  if (profile) {
    row.gpuMs = summarize([profile.totalMs]);
    row.stagesMs = profile.stages;
  }
  process.stderr.write(
    `pile ${n} ${engine.method}: median step ${short(row.wallMs!.median)} ms (first 30: ${short(first.median)} ms, last 100: ${short(last.median)} ms)\n`,
  );
  return row;
}

/** The gas at one size: 2 warm-up steps, then 10 timed, stats at the start and the end. */
async function runGas(
  ctx: Context,
  method: string,
  scene: ParticleScene,
  gasSteps: number,
  sceneName: string,
): Promise<Row> {
  const n = scene.spheres.length / 4;
  const engine = await makeEngine(ctx, method, scene, { gravity: [0, 0, 0], restitution: 1, friction: 0 });
  const times: number[] = [];
  const work: Record<string, number> = {};
  const quality: string[] = [];
  let profile: Awaited<ReturnType<NonNullable<Engine['profile']>>> = null;
  try {
    const start = await statsOf(engine, scene.bounds);
    Object.assign(work, statsWork(0, start));
    quality.push(`frame 0: ${pileStatsText(start)}`);
    for (let frame = 1; frame <= GAS_WARMUP + gasSteps; frame++) {
      const t = await engine.step();
      if (frame > GAS_WARMUP) times.push(t);
      process.stderr.write(`gas ${n} ${engine.method}: frame ${frame} of ${GAS_WARMUP + gasSteps}, ${short(t)} ms\n`);
    }
    const last = GAS_WARMUP + gasSteps;
    const end = await statsOf(engine, scene.bounds);
    Object.assign(work, statsWork(last, end));
    quality.push(`frame ${last}: ${pileStatsText(end)}`);
    const counts = await engine.searches?.();
    if (counts) Object.assign(work, { steps: counts.steps, searches: counts.searches });
    profile = (await engine.profile?.()) ?? null;
  } finally {
    engine.free();
  }
  const row: Row = {
    suite: 'pile',
    scene: sceneName,
    size: { particles: n },
    method: engine.method,
    wallMs: summarize(times),
    work,
    note: [
      `median of ${times.length} steps after ${GAS_WARMUP} warm-up steps`,
      ...(work.searches !== undefined ? [`${work.searches} of ${work.steps} steps searched for contacts`] : []),
      `${GAS_SETTINGS}; ${engine.settings}; setup ${short(engine.setupMs)} ms`,
      ...(profile ? [`stages from one profiled step after the last frame`] : []),
      ...quality,
    ].join('; '),
  };
  if (profile) {
    row.gpuMs = summarize([profile.totalMs]);
    row.stagesMs = profile.stages;
  }
  process.stderr.write(`gas ${n} ${engine.method}: median step ${short(row.wallMs!.median)} ms\n`);
  return row;
}

export async function pileSuite(ctx: Context, options: PileSuiteOptions = {}): Promise<Row[]> {
  const frames = options.frames ?? 600;
  const gasSizes = options.gasSizes ?? [100_000];
  const gasSteps = options.gasSteps ?? 10;
  if (!(Number.isInteger(gasSteps) && gasSteps >= 1))
    throw new Error(`pile: gas steps must be a positive integer, got ${gasSteps}`);
  const methods = options.methods ?? ['rapier', 'gpu', 'gpu-light'];
  if (!(Number.isInteger(frames) && frames >= 1))
    throw new Error(`pile: frames must be a positive integer, got ${frames}`);
  for (const m of methods)
    if (!(m in METHOD_NAMES))
      throw new Error(`pile: unknown method ${m} (expected ${Object.keys(METHOD_NAMES).join(', ')})`);
  const rows: Row[] = [];

  // Each engine's time per particle and frame of a whole pile run, from the largest size so far.
  const perParticleFrame: Record<string, number> = {};
  for (const n of [...(options.pileSizes ?? [PILE_BASE])].sort((a, b) => a - b)) {
    const pile = pileScene({ n, bounds: pileBounds(n) });
    for (const method of methods) {
      const estimateMs = perParticleFrame[method] !== undefined ? perParticleFrame[method] * n * frames : undefined;
      if (estimateMs !== undefined && estimateMs > ctx.budgetMs) {
        const skipped = `estimated ${(estimateMs / 1000).toFixed(0)} s > budget ${ctx.budgetMs / 1000} s`;
        process.stderr.write(`pile ${n} ${method}: skipped, ${skipped}\n`);
        rows.push({
          suite: 'pile',
          scene: pileSceneName(n),
          size: { particles: n },
          method: METHOD_NAMES[method],
          skipped,
        });
        continue;
      }
      const t = performance.now();
      rows.push(await runPile(ctx, method, pile, frames));
      perParticleFrame[method] = (performance.now() - t) / (n * frames);
    }
  }

  // Each engine's time per particle for a whole gas run (setup and every step), from the largest size measured so far.
  const perParticle: Record<string, number> = { rapier: RAPIER_GUESS_MS_PER_PARTICLE };
  const fractions = options.gasFractions ?? [0.2];
  for (const f of fractions)
    if (!(f > 0 && f <= 0.5)) throw new Error(`pile: gas fractions must be in (0, 0.5], got ${f}`);
  for (const fraction of fractions) {
    for (const n of [...gasSizes].sort((a, b) => a - b)) {
      const scene = gasScene(n, fraction);
      const sceneName = gasSceneName(fraction);
      for (const method of methods) {
        const estimateMs = perParticle[method] !== undefined ? perParticle[method] * n : undefined;
        if (estimateMs !== undefined && estimateMs > ctx.budgetMs) {
          const skipped = `estimated ${(estimateMs / 1000).toFixed(0)} s > budget ${ctx.budgetMs / 1000} s`;
          process.stderr.write(`gas ${n} ${method}: skipped, ${skipped}\n`);
          rows.push({ suite: 'pile', scene: sceneName, size: { particles: n }, method: METHOD_NAMES[method], skipped });
          continue;
        }
        const t = performance.now();
        rows.push(await runGas(ctx, method, scene, gasSteps, sceneName));
        perParticle[method] = (performance.now() - t) / n;
      }
    }
  }
  return rows;
}
