/**
 * The particle world among static oriented boxes (`npm run bench -- --suites colliders`): the
 * collider scene of bench/colliderScene.ts (n particles of radius 0.5 in a lattice above a field
 * of m tilted tiles, ramps and blocks; default 100,000 × 1,000) stepped by
 *
 * - 'gpu': our world with the boxes (`world.setColliders({ boxes })`),
 * - 'gpu-no-boxes': the same world and particles, `setColliders` never called (the particles fall
 *   through where the field would be, to the world's floor),
 * - 'rapier': Rapier's world (bench/peers/rapierWorld.ts) with the boxes as fixed cuboid
 *   colliders with their rotations,
 *
 * all with gravity −9.8, restitution 0.2, friction 0.5 and dt 1/60 (the pile suite's settings),
 * in the same world box. Each engine takes `warmup` steps untimed, then `steps` timed (the
 * median is the row's time; ours: the step and the queue's onSubmittedWorkDone, as in the pile
 * suite; Rapier's: `world.step()`), the engines' steps interleaved frame by frame so that each
 * meets the same load of the machine; then each state is read and measured: the pile suite's numbers
 * (test/support/pile.ts: particles through the walls, overlaps, kinetic energy, height) and the
 * particles' penetration of the boxes, particles whose centre is inside a box, and how many rest.
 * The boxed world's step over the boxless one's is the cost of the colliders (goal ≤ 1.25).
 *
 * `scene: 'pegs'` steps issue 47's pour instead (bench/colliderScene.ts, `pegsScene`: balls of
 * radius 0.1–0.2 through thin tilted pegs; default 30,000 × 400), with friction 0.3 and
 * restitution 0.2 (the issue's), where the question is how deep the balls sink into the pegs
 * beside Rapier, and at what step time. `scene: 'drum'` steps issue 47's drum (`drumScene`: 12
 * planks turning at 1.5 rad/s about a horizontal axis, posed before every step; 1,500 balls of
 * radius 0.14–0.22; `boxes` is ignored), friction 0.5, restitution 0.1; Rapier's planks are
 * kinematic position-based bodies given each step's end pose. The penetration is measured against
 * the planks where each engine left them (ours move along their velocities within a step, up to
 * 0.002 off the circle; Rapier's reach the pose given).
 *
 * `scene: 'terrain'` pours issue 50's balls onto a static triangle mesh (bench/terrainScene.ts: a
 * seeded heightfield of about `triangles` triangles; `boxes` is ignored), ours through
 * `world.setMeshes`, Rapier's a trimesh collider, each beside its control on the same balls, one
 * flat slab at the terrain's mean height (rows '… flat box'), interleaved; `'terrain-flat'` steps
 * the control alone (bench/suites/terrain.ts). Their penetration columns are the balls' depth in
 * the mesh (or the slab), measured against its triangles.
 */
import { SLEEP_SPEED_OF_RADIUS, type ParticleWorld } from '../../src/index.js';
import { pileStats } from '../../test/support/pile.js';
import {
  colliderScene,
  colliderSceneName,
  pegsScene,
  pegsSceneName,
  drumScene,
  hopperScene,
  paddleScene,
  boxPenetration,
  BoxGrid,
  type BoxPenetration,
  PARTICLE_RADIUS,
  type ColliderScene,
} from '../colliderScene.js';
import { gpuEngine, rapierEngine, short, statsWork, type Engine, type Physics } from './pile.js';
import { terrainScene, terrainSceneName, type TerrainScene } from '../terrainScene.js';
import { terrainEngines, TERRAIN_PHYSICS, FLAT_SUFFIX, type MeasuredEngine } from './terrain.js';
import { summarize, table, wrap, TABLE_WIDTH } from '../stats.js';
import type { Context, Row } from '../harness.js';

export const COLLIDER_METHODS = ['gpu', 'gpu-no-boxes', 'rapier'];
const METHOD_NAMES: Record<string, string> = {
  gpu: 'gpu-world-step',
  'gpu-no-boxes': 'gpu-world-step no boxes',
  rapier: 'rapier-world-step',
};
/** The quality table's method column: --collider-methods' names, and the terrain's flat controls. */
const SHORT_NAMES: Record<string, string> = {
  ...Object.fromEntries(Object.entries(METHOD_NAMES).map(([k, v]) => [v, k])),
  [`gpu-world-step${FLAT_SUFFIX}`]: 'gpu flat',
  [`rapier-world-step${FLAT_SUFFIX}`]: 'rapier flat',
};

export interface CollidersSuiteOptions {
  /** Particle counts (default [100000]). */
  sizes?: number[];
  /** Boxes in the field (default 1000). */
  boxes?: number;
  /** Timed steps (default 60). */
  steps?: number;
  /** Untimed steps before them (default 30). */
  warmup?: number;
  /** The scene's seed (default 1). */
  seed?: number;
  /** Which engines run, their steps interleaved (default all: 'gpu', 'gpu-no-boxes', 'rapier'). */
  methods?: string[];
  /** The field of tiles, ramps and blocks (default), or one of issue 47's loaded scenes, or issue 50's terrain. */
  scene?: ColliderSceneKind;
  /** The terrain scenes: the mesh's triangles asked (default 100,000; bench/terrainScene.ts). */
  triangles?: number;
}

/** Each scene: how it is made from (n, m, seed, triangles), its name, its physics and its largest radius. */
const SCENES = {
  field: {
    make: (n: number, m: number, seed: number) => colliderScene({ n, m, seed }),
    name: colliderSceneName,
    physics: () => PHYSICS,
    maxRadius: PARTICLE_RADIUS,
  },
  pegs: {
    make: (n: number, m: number, seed: number) => pegsScene({ n, m, seed }),
    name: pegsSceneName,
    physics: () => PEGS_PHYSICS,
    maxRadius: 0.2,
  },
  drum: {
    make: (n: number, _m: number, seed: number) => drumScene({ n, seed }),
    name: () => 'drum of 12 planks, 1.5 rad/s',
    physics: () => DRUM_PHYSICS,
    maxRadius: 0.22,
  },
  hopper: {
    make: (n: number, _m: number, seed: number) => hopperScene({ n, seed }),
    name: () => 'hopper of two plates at 40°',
    physics: () => HOPPER_PHYSICS,
    maxRadius: 0.2,
  },
  paddle: {
    make: (n: number, _m: number, seed: number) => paddleScene({ n, seed }),
    name: () => 'paddle at 10 m/s through a layer',
    physics: () => PHYSICS,
    maxRadius: 0.2,
  },
  terrain: {
    make: (n: number, _m: number, seed: number, triangles: number) => terrainScene({ n, seed, triangles }),
    name: (scene: ColliderScene) => terrainSceneName(scene),
    physics: () => TERRAIN_PHYSICS,
    maxRadius: 0.2,
  },
  'terrain-flat': {
    make: (n: number, _m: number, seed: number, triangles: number) => terrainScene({ n, seed, triangles }),
    name: (scene: ColliderScene) => terrainSceneName(scene, true),
    physics: () => TERRAIN_PHYSICS,
    maxRadius: 0.2,
  },
} as const;
const TERRAIN_SCENES: readonly string[] = ['terrain', 'terrain-flat'];
export type ColliderSceneKind = keyof typeof SCENES;
export const COLLIDER_SCENES = Object.keys(SCENES) as ColliderSceneKind[];
/** Frames between the samples whose worst penetration and overlap a row reports (and its last). */
const SAMPLE_EVERY = 10;

const PHYSICS: Physics = { gravity: [0, -9.8, 0], restitution: 0.2, friction: 0.5 };
/** The pour's (issue 47). */
const PEGS_PHYSICS: Physics = { gravity: [0, -9.8, 0], restitution: 0.2, friction: 0.3 };
/** The drum's (issue 47). */
const DRUM_PHYSICS: Physics = { gravity: [0, -9.8, 0], restitution: 0.1, friction: 0.5 };
/** The hopper's (issue 47). */
const HOPPER_PHYSICS: Physics = { gravity: [0, -9.8, 0], restitution: 0.2, friction: 0.4 };
const SETTINGS = 'gravity −9.8, restitution 0.2, friction 0.5 (all engines), dt 1/60';
/** A particle slower than this is resting: the world's default sleep speed (0.05 for radius 0.5). */
const RESTING_SPEED = SLEEP_SPEED_OF_RADIUS * PARTICLE_RADIUS;
/** The boxed world with more centres than this share inside boxes is flagged: are the boxes acting? */
const INSIDE_ALARM = 0.01;

/** Hands the boxes to our world. */
function setBoxes(boxes: Float32Array): (world: ParticleWorld) => void {
  return (world) => world.setColliders({ boxes });
}

async function makeEngine(ctx: Context, method: string, scene: ColliderScene, physics: Physics): Promise<Engine> {
  if (method === 'rapier') return rapierEngine(scene, physics, scene.boxes, scene.pose !== undefined);
  if (method === 'gpu') return gpuEngine(ctx, scene, physics, setBoxes(scene.boxes));
  return { ...(await gpuEngine(ctx, scene, physics)), method: METHOD_NAMES[method] };
}

/**
 * The engines of `method` with their penetration measures: one engine measured against the boxes
 * (where they are at the time: `boxesNow`) for the box scenes; on the terrain scenes, the mesh's
 * and its flat control's (bench/suites/terrain.ts).
 */
async function makeEngines(
  ctx: Context,
  method: string,
  scene: ColliderScene,
  physics: Physics,
  kind: ColliderSceneKind,
  grid: BoxGrid,
  maxRadius: number,
): Promise<MeasuredEngine[]> {
  if (TERRAIN_SCENES.includes(kind))
    return terrainEngines(ctx, method, scene as TerrainScene, physics, kind === 'terrain-flat');
  const engine = await makeEngine(ctx, method, scene, physics);
  // Moving boxes are measured where they are at the time, static ones with the one grid.
  const measure = (spheres: Float32Array, boxes = scene.boxes): BoxPenetration =>
    boxPenetration(spheres, boxes, scene.pose ? new BoxGrid(boxes, 2 * maxRadius) : grid);
  return [{ method, engine, measure: method === 'gpu-no-boxes' ? null : measure }];
}

/** The quality numbers of a state: the pile suite's, the colliders' penetration (`penetration`, where the engine has them), resting and moving. */
function qualityOf(
  state: { spheres: Float32Array; velocities: Float32Array; inverseMasses?: Float32Array },
  bounds: number[],
  penetration: ((spheres: Float32Array) => BoxPenetration) | null,
): Record<string, number> {
  const out: Record<string, number> = {
    ...pileStats(state.spheres, state.velocities, bounds, state.inverseMasses),
  };
  if (penetration) {
    const p = penetration(state.spheres);
    Object.assign(out, {
      maxBoxPenetration: p.maxPenetration,
      meanBoxPenetration: p.meanPenetration,
      boxTouching: p.boxTouching,
      insideBox: p.insideBox,
    });
  }
  let resting = 0;
  const n = state.spheres.length / 4;
  for (let i = 0; i < n; i++) {
    const v = state.velocities;
    if (Math.hypot(v[3 * i], v[3 * i + 1], v[3 * i + 2]) < RESTING_SPEED) resting++;
  }
  return { ...out, resting, moving: n - resting };
}

/**
 * Steps every engine of `methods` on the scene, interleaved: frame by frame, each engine one step,
 * the order turned by one each frame, so that all of them meet the same machine load (a shared
 * machine's other work moves a step's time by 2× on SwiftShader; one engine after another would
 * put it into the ratio). Then each state is read and measured, and one step of ours profiled.
 */
async function runColliders(
  ctx: Context,
  methods: string[],
  scene: ColliderScene,
  sceneName: string,
  kind: ColliderSceneKind,
  size: Record<string, number>,
  warmup: number,
  steps: number,
  grid: BoxGrid,
  physics: Physics,
  endBoxes: Float32Array,
  maxRadius: number,
): Promise<Row[]> {
  const n = scene.spheres.length / 4;
  /** The size in the progress lines: particles × boxes (or × triangles). */
  const label = Object.values(size).join('×');
  const measured: MeasuredEngine[] = [];
  const engines: Engine[] = [];
  const rows: Row[] = [];
  try {
    // The boxed world first.
    for (const method of methods) {
      for (const entry of await makeEngines(ctx, method, scene, physics, kind, grid, maxRadius)) {
        measured.push(entry);
        engines.push(entry.engine);
      }
    }
    const times: number[][] = engines.map(() => []);
    // The worst of every sampled frame: each engine's deepest particle in a box, largest overlap,
    // particles through the walls and non-finite ones (the boxes where that engine has them then).
    const worst = engines.map(() => ({ worstBoxPenetration: 0, worstOverlap: 0, worstSunk: 0, worstNonFinite: 0 }));
    const sample = async (frame: number): Promise<void> => {
      for (let k = 0; k < engines.length; k++) {
        const measure = measured[k].measure;
        const boxed = measure !== null;
        const boxes = scene.pose ? ((await engines[k].readBoxes?.()) ?? scene.pose(frame).next) : scene.boxes;
        const q = qualityOf(await engines[k].read(), scene.bounds, measure && ((s) => measure(s, boxes)));
        const w = worst[k];
        w.worstBoxPenetration = Math.max(w.worstBoxPenetration, boxed ? q.maxBoxPenetration : 0);
        w.worstOverlap = Math.max(w.worstOverlap, q.maxOverlap);
        w.worstSunk = Math.max(w.worstSunk, q.sunk);
        w.worstNonFinite = Math.max(w.worstNonFinite, q.nonFinite);
      }
    };
    for (let frame = 1; frame <= warmup + steps; frame++) {
      const pose = scene.pose?.(frame);
      for (let k = 0; k < engines.length; k++) {
        const e = (k + frame) % engines.length;
        if (pose && measured[e].method !== 'gpu-no-boxes') engines[e].poseBoxes?.(pose);
        const t = await engines[e].step();
        if (frame > warmup) times[e].push(t);
      }
      if (frame % SAMPLE_EVERY === 0 || frame === warmup + steps) await sample(frame);
      if (frame % 10 === 0 || frame === warmup + steps) {
        const sofar = times[0].length
          ? `, median timed step so far ${engines.map((e, k) => `${e.method} ${short(summarize(times[k]).median)} ms`).join(', ')}`
          : '';
        process.stderr.write(`colliders ${label}: frame ${frame} of ${warmup + steps}${sofar}\n`);
      }
    }
    for (let k = 0; k < engines.length; k++) {
      const { engine, method, measure } = measured[k];
      const work: Record<string, number> = { frames: warmup + steps };
      // Moving boxes: where this engine left them (ours move along their velocities within a step).
      const boxes = scene.pose && engine.readBoxes ? await engine.readBoxes() : endBoxes;
      const quality = qualityOf(await engine.read(), scene.bounds, measure && ((s) => measure(s, boxes)));
      Object.assign(work, statsWork(warmup + steps, quality), worst[k]);
      const counts = await engine.searches?.();
      if (counts) Object.assign(work, { steps: counts.steps, searches: counts.searches });
      const profile = (await engine.profile?.()) ?? null;
      const alarm =
        method === 'gpu' && quality.insideBox > INSIDE_ALARM * n
          ? `WARNING: ${quality.insideBox} centres inside boxes${TERRAIN_SCENES.includes(kind) ? ' (or under the mesh)' : ''} (over ${100 * INSIDE_ALARM}% of the particles): are the colliders acting?`
          : '';
      if (alarm) process.stderr.write(`colliders ${label} ${engine.method}: ${alarm}\n`);
      const row: Row = {
        suite: 'colliders',
        scene: sceneName,
        size,
        method: engine.method,
        wallMs: summarize(times[k]),
        work,
        note: [
          ...(alarm ? [alarm] : []),
          `median of ${times[k].length} steps after ${warmup} untimed`,
          ...(work.searches !== undefined ? [`${work.searches} of ${work.steps} steps searched for contacts`] : []),
          `setup ${short(engine.setupMs)} ms`,
          ...(method.startsWith('rapier') ? [engine.settings] : []),
        ].join('; '),
      };
      if (profile) {
        row.gpuMs = summarize([profile.totalMs]);
        row.stagesMs = profile.stages;
      }
      process.stderr.write(`colliders ${label} ${engine.method}: median step ${short(row.wallMs!.median)} ms\n`);
      rows.push(row);
    }
  } finally {
    for (const engine of engines) engine.free();
  }
  return rows;
}

export async function collidersSuite(ctx: Context, options: CollidersSuiteOptions = {}): Promise<Row[]> {
  const sizes = options.sizes ?? [100_000];
  const m = options.boxes ?? 1000;
  const steps = options.steps ?? 60;
  const warmup = options.warmup ?? 30;
  const seed = options.seed ?? 1;
  const methods = options.methods ?? COLLIDER_METHODS;
  if (!(Number.isInteger(steps) && steps >= 1))
    throw new Error(`colliders: steps must be a positive integer, got ${steps}`);
  if (!(Number.isInteger(warmup) && warmup >= 0))
    throw new Error(`colliders: warm-up must be a whole number, got ${warmup}`);
  for (const method of methods)
    if (!(method in METHOD_NAMES))
      throw new Error(`colliders: unknown method ${method} (expected ${COLLIDER_METHODS.join(', ')})`);
  const kind = options.scene ?? 'field';
  if (!(kind in SCENES)) throw new Error(`colliders: unknown scene ${kind} (expected ${COLLIDER_SCENES.join(', ')})`);
  const triangles = options.triangles ?? 100_000;
  const terrain = TERRAIN_SCENES.includes(kind);
  if (terrain && !(Number.isInteger(triangles) && triangles >= 2))
    throw new Error(`colliders: the terrain's triangles must be a whole number ≥ 2, got ${triangles}`);
  const rows: Row[] = [];
  for (const n of [...sizes].sort((a, b) => a - b)) {
    const made = SCENES[kind];
    const scene = made.make(n, m, seed, triangles);
    const sceneName = made.name(scene);
    // The penetration measure's grid (boxes listed where a particle of the largest radius may
    // touch them), over the boxes where the run leaves them.
    const end = scene.pose ? scene.pose(warmup + steps).next : scene.boxes;
    const grid = new BoxGrid(end, 2 * made.maxRadius);
    const tris = terrain ? (scene as TerrainScene).terrain.indices.length / 3 : 0;
    process.stderr.write(
      terrain
        ? `colliders: ${sceneName}, ${n} particles, ${tris} triangles (heights up to ${short(scene.fieldTop)}, ` +
            `mean ${short((scene as TerrainScene).meanHeight)}: the flat slab's top)\n`
        : `colliders: ${sceneName}, ${n} particles, ${m} boxes (${scene.kinds.tiles} tiles, ${scene.kinds.ramps} ramps, ` +
            `${scene.kinds.blocks} blocks; field top ${short(scene.fieldTop)})\n`,
    );
    const physics = made.physics();
    rows.push(
      ...(await runColliders(
        ctx,
        COLLIDER_METHODS.filter((x) => methods.includes(x)),
        scene,
        sceneName,
        kind,
        terrain ? { particles: n, triangles: tris } : { particles: n, boxes: scene.boxes.length / 10 },
        warmup,
        steps,
        grid,
        physics,
        end,
        made.maxRadius,
      )),
    );
  }
  return rows;
}

/** The scene's settings, for the table's footnotes. */
export const COLLIDERS_FOOTNOTE =
  `wall ms: median of the timed steps after the untimed ones, the engines' steps interleaved (Rapier: world.step(); ours: world.step and the queue's ` +
  `onSubmittedWorkDone after it); GPU ms: one profiled step after the last. gpu-world-step: our world with the boxes ` +
  `(setColliders); gpu-world-step no boxes: the same world and particles without them (setColliders never called: the ` +
  `particles fall through where the field would be, to the floor). The scene (particles of radius 0.5 over the boxes in a world box, its size in the name): bench/colliderScene.ts; ${SETTINGS}; ` +
  'the pour through pegs (--collider-scene pegs): balls of radius 0.1–0.2, friction 0.3. ' +
  'The terrain (--collider-scene terrain; bench/terrainScene.ts): the same balls and friction poured onto a heightfield mesh ' +
  "(ours: setMeshes; Rapier: a trimesh collider), each engine beside its control on one flat box at the mesh's mean height " +
  "('… flat box', interleaved; --collider-scene terrain-flat: the control alone). " +
  'Quality numbers: the next table.';

/** The quality table: one line per collider row with numbers, and its footnote. Empty without such rows. */
export function collidersQualityText(rows: Row[], sizeText: (size: Record<string, number>) => string): string {
  const g = (v: number): string => (Number.isFinite(v) ? Number(v.toPrecision(3)).toString() : String(v));
  const lines: string[][] = [];
  const frames = new Set<number>();
  for (const r of rows.filter((row) => row.suite === 'colliders' && row.work)) {
    const frame = [
      ...new Set(
        Object.keys(r.work!)
          .filter((k) => k.includes('@'))
          .map((k) => Number(k.split('@')[1])),
      ),
    ].pop();
    if (frame === undefined) continue;
    frames.add(frame);
    const q = (name: string): number => r.work![`${name}@${frame}`];
    const boxed = q('insideBox') !== undefined;
    // The method as --collider-methods names it: the table stays within 120 columns.
    const method = SHORT_NAMES[r.method] ?? r.method;
    lines.push([
      sizeText(r.size).replace(' particles', '').replace(' boxes', '').replace(' triangles', ' tris'),
      method,
      String(q('sunk')),
      boxed ? String(q('insideBox')) : '–',
      `${q('touching')}/${boxed ? q('boxTouching') : '–'}`,
      `${g(100 * q('maxOverlap'))} / ${g(100 * q('meanOverlap'))}`,
      boxed ? `${g(100 * q('maxBoxPenetration'))} / ${g(100 * q('meanBoxPenetration'))}` : '–',
      `${boxed ? g(100 * r.work!.worstBoxPenetration) : '–'} / ${g(100 * r.work!.worstOverlap)} / ${r.work!.worstSunk} / ${r.work!.worstNonFinite}`,
      `${q('resting')}/${q('moving')}`,
      g(q('kineticPerParticle')),
    ]);
  }
  if (!lines.length) return '';
  return [
    `## colliders: quality (after the last step: frame ${[...frames].join(', ')})\n`,
    table(
      [
        'size',
        'method',
        'sunk',
        'in box',
        'contacts',
        'p–p % max/mean',
        'p–box % max/mean',
        'worst box/p–p/sunk/NaN',
        'rest/moving',
        'KE',
      ],
      lines,
    ),
    '',
    wrap(
      'size: particles × boxes; method: as --collider-methods names it (gpu: ours with the boxes). sunk: particles more ' +
        'than 0.05 beyond a wall of the world box (the floor included) or not finite; in box: particles whose centre is inside ' +
        'a box; contacts: touching particle pairs / particle–box pairs in contact; p–p: overlap of touching pairs, ' +
        '(rA + rB − distance) / min(rA, rB), in percent of a radius; p–box: penetration of particle–box contacts, (r − signed ' +
        'distance from the centre to the box) / r, in percent (over 100: the centre inside); –: the engine has no boxes; ' +
        `worst: the deepest p–box penetration and the largest p–p overlap (in percent), the most particles sunk and the most ` +
        `not finite, over every ${SAMPLE_EVERY}th frame and the last. The terrain scenes (tris: the mesh's triangles): ` +
        `in box: centres below the mesh (flat: below the slab's top); contacts' second number: balls touching it, each once; ` +
        `p–box: against the mesh's triangles (flat rows: the slab's top), each ball against the cells under it ` +
        `(issue 50's goal: worst ≤ 25 on the mesh); rest: particles slower than ${RESTING_SPEED} (the world's default sleep speed); KE: mean ½mv² per particle (density 1).`,
      TABLE_WIDTH,
    ),
  ].join('\n');
}
