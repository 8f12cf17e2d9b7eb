/**
 * Raycasts and sphere casts against spheres: every GPU broad phase serving casts (all-pairs is
 * brute force, `gpu-all-pairs`) and 'auto' beside the CPU
 * twin of the walk, the CPU brute force, Rapier (`castRay`) and three.js (`Ray.intersectSphere`,
 * brute force), on coherent rays (parallel, camera-like, crossing the whole scene) and
 * incoherent ones (from random points outside the scene to random points inside it); and on
 * any pair scene kind (bench/scenes.ts, `--cast-scenes`), mixed rays over that kind's spheres
 * (`castSceneOf`: half aimed at random spheres, half incoherent). `cpu-bvh` is the float64
 * binned-SAH BVH of bench/peers/cpuBvh.ts, built per call and timed with its casts. Every ray
 * starts outside every sphere, where all peers agree on what a hit is.
 *
 * Before a method's time counts, its nearest hits for a sample of the rays (1000, fewer where
 * that would take more than 1e8 ray–sphere classifications) are checked against the
 * double-precision reference with the tolerances of docs/TESTING.md; the reference's nearest
 * hits are found once per scene. Work counts: brute
 * force tests rays × spheres; the walk's slabs, rows and candidates are counted by its CPU twin
 * on a sample of the rays and scaled.
 */
import { reference } from '../../src/index.js';
import { uniformScene } from '../../test/support/scenes.js';
import { mulberry32 } from '../../test/support/random.js';
import { nearestTruth, nearestViolations, type NearestTruth } from '../../test/support/casts.js';
import { initRapier, rapierRaycast } from '../peers/rapier.js';
import { threeRaycast } from '../peers/three.js';
import { cpuBvhCasts, warmCpuBvh, type CpuBvhStats } from '../peers/cpuBvh.js';
import { castSceneOf, PAIR_SCENES } from '../scenes.js';
import { measureChecked, profileOf, type Context, type Row } from '../harness.js';
import { gpuMethods, broadphaseOf, BRUTE_FORCE_METHODS } from '../methods.js';

export function castScene(
  n: number,
  rays: number,
  kind: 'coherent' | 'incoherent',
  radius: number,
  seed = 11,
): { spheres: Float32Array; casts: Float32Array; stride: 6 | 7 } {
  const spheres = uniformScene(n, { seed, fraction: 0.1 });
  const side = Math.cbrt((n * 4.19) / 0.1);
  const rand = mulberry32(seed + 1);
  const stride = radius > 0 ? 7 : 6;
  const casts = new Float32Array(stride * rays);
  const margin = 1 + radius + 0.1 * side;
  for (let k = 0; k < rays; k++) {
    let a: number[];
    let b: number[];
    if (kind === 'coherent') {
      // Parallel rays along +x through the whole scene, like a camera's: origins on a regular
      // lattice beyond the -x face, in scanline order, so neighbouring rays are neighbours.
      const across = Math.ceil(Math.sqrt(rays));
      const y = ((k % across) + 0.5) * (side / across);
      const z = (Math.floor(k / across) + 0.5) * (side / across);
      a = [-margin, y, z];
      b = [side + margin, y, z];
    } else {
      // From a random point on a face of the scene's box grown by the margin, to a random point
      // inside: random directions, origins outside every sphere.
      const face = Math.floor(rand() * 6);
      a = [rand() * side, rand() * side, rand() * side];
      a[face % 3] = face < 3 ? -margin : side + margin;
      b = [rand() * side, rand() * side, rand() * side];
    }
    casts.set(stride === 7 ? [...a, ...b, radius] : [...a, ...b], stride * k);
  }
  return { spheres, casts, stride };
}

const SAMPLE = 1000;
const CHECKS = 1e8;
/** The GPU methods (bench/methods.ts: 'auto' and each phase serving casts, from the registry), then the peers. */
export const CAST_METHODS = [...gpuMethods('casts'), 'cpu-walk', 'cpu-bvh', 'cpu-brute', 'rapier', 'three'];
/** The ray kinds of the uniform cast scene; every other `--cast-scenes` entry is a pair scene kind, with mixed rays. */
export const CAST_RAY_KINDS = ['coherent', 'incoherent'];
export const CAST_SCENES = [...CAST_RAY_KINDS, ...Object.keys(PAIR_SCENES)];

/**
 * `sizes` are [spheres, rays]; `kinds` are 'coherent' and 'incoherent' (the uniform scene of
 * castScene) or pair scene kinds (castSceneOf: mixed rays over that kind's spheres).
 */
export async function castsSuite(
  ctx: Context,
  sizes: [number, number][],
  methods = CAST_METHODS,
  kinds: string[] = CAST_RAY_KINDS,
  radii: number[] = [0, 0.5],
): Promise<Row[]> {
  const rows: Row[] = [];
  const { collider } = ctx;
  await initRapier();
  if (methods.includes('cpu-bvh')) warmCpuBvh(); // V8 optimises the peer before it is timed
  const rate: Record<string, number> = {};
  for (const radius of radii) {
    const what = radius > 0 ? 'sphereCast' : 'raycast';
    for (const kind of kinds) {
      for (const [n, r] of sizes) {
        const { spheres, casts, stride } =
          kind === 'coherent' || kind === 'incoherent'
            ? castScene(n, r, kind, radius)
            : castSceneOf(kind, n, r, radius);
        const plan = collider.planFor(spheres);
        // Rays checked against every sphere: at most SAMPLE, and at most CHECKS classifications.
        const sample = Math.max(1, Math.min(r, SAMPLE, Math.floor(CHECKS / n)));
        const stats = { rows: 0, candidates: 0, slabs: 0 };
        reference.gridCasts(casts.subarray(0, sample * stride), stride, spheres, plan, false, stats);
        const scale = r / sample;
        const walkWork = {
          slabs: Math.round(stats.slabs * scale),
          rows: Math.round(stats.rows * scale),
          candidates: Math.round(stats.candidates * scale),
        };
        const bruteWork = { tests: r * n };
        const scene = `${what} ${kind}`;
        const size = { spheres: n, rays: r };
        const sampled = casts.subarray(0, sample * stride);
        let truth: NearestTruth | undefined;
        const check = (res: { index: Int32Array; distance: Float32Array }): string | null => {
          truth ??= nearestTruth(sampled, stride, spheres);
          const problems = nearestViolations(
            sampled,
            stride,
            spheres,
            { index: res.index.subarray(0, sample), distance: res.distance.subarray(0, sample) },
            3,
            truth,
          );
          return problems.length ? problems.join('; ') : null;
        };
        const hits = (index: Int32Array): number => index.reduce((sum, i) => sum + (i >= 0 ? 1 : 0), 0);
        const estimate = (method: string): number | undefined => {
          const per = rate[`${scene} ${method}`];
          if (!per) return undefined;
          return BRUTE_FORCE_METHODS.has(method) ? per * r * n : per * r;
        };
        const learn = (row: Row): Row => {
          const t = row.gpuMs?.median ?? row.wallMs?.median;
          if (t) rate[`${scene} ${row.method}`] = BRUTE_FORCE_METHODS.has(row.method) ? t / (r * n) : t / r;
          const ms = row.gpuMs?.median ?? row.wallMs?.median;
          return ms ? { ...row, rate: { unit: 'rays/s', value: (r / ms) * 1000 } } : row;
        };
        for (const method of methods) {
          if (radius > 0 && (method === 'rapier' || method === 'three')) continue; // ray peers only
          const base = { suite: 'casts', scene, size, method };
          let row: Row;
          const broadphase = broadphaseOf(method);
          if (broadphase) {
            const work =
              broadphase === 'grid' ? { work: walkWork } : BRUTE_FORCE_METHODS.has(method) ? { work: bruteWork } : {};
            row = await measureChecked(
              ctx,
              { ...base, ...work },
              async () => {
                const res =
                  radius > 0
                    ? await collider.sphereCast(casts, spheres, { broadphase, profile: ctx.profiling })
                    : await collider.raycast(casts, spheres, { broadphase, profile: ctx.profiling });
                return { answer: hits(res.index), output: res, ...(ctx.profiling ? profileOf(collider) : {}) };
              },
              estimate(method),
              check,
            );
          } else if (method === 'cpu-walk' || method === 'cpu-brute') {
            row = await measureChecked(
              ctx,
              { ...base, work: method === 'cpu-walk' ? walkWork : bruteWork },
              async () => {
                const res =
                  method === 'cpu-walk'
                    ? reference.gridCasts(casts, stride, spheres, plan)
                    : reference.bruteForceNearestCasts(casts, stride, spheres);
                const out = { index: res.index, distance: Float32Array.from(res.distance) };
                return { answer: hits(out.index), output: out };
              },
              estimate(method),
              check,
            );
          } else if (method === 'cpu-bvh') {
            const bvh: CpuBvhStats = {};
            row = await measureChecked(
              ctx,
              base,
              async () => {
                const res = cpuBvhCasts(casts, stride, spheres, bvh);
                return { answer: hits(res.index), output: res };
              },
              estimate(method),
              check,
            );
            if (bvh.buildMs !== undefined)
              row = {
                ...row,
                note: `build ${bvh.buildMs.toFixed(1)} ms of it; ${bvh.leaves} leaves, depth ${bvh.depth}`,
              };
          } else if (method === 'rapier') {
            let setup = 0;
            row = await measureChecked(
              ctx,
              base,
              async () => {
                const res = rapierRaycast(casts, spheres);
                setup = res.setupMs;
                return { answer: hits(res.result.index), output: res.result, timeMs: res.queryMs };
              },
              estimate(method),
              check,
            );
            row = { ...row, note: `+ world build ${setup.toFixed(0)} ms` };
          } else {
            row = await measureChecked(
              ctx,
              { ...base, work: bruteWork },
              async () => {
                const res = threeRaycast(casts, spheres);
                return { answer: hits(res.index), output: res };
              },
              estimate(method),
              check,
            );
          }
          rows.push(learn(row));
        }
      }
    }
  }
  return rows;
}
