/**
 * The data behind 'auto''s choice for casts (castCosts, src/broadphase/index.ts): for each scene
 * kind of bench/scenes.ts, the wall time of one nearest-hit call of `rays` casts on each broad
 * phase (median of 3; a phase past 5 s is timed once), what the cost model is made of for that
 * call (`terms`: each phase's cost before its constants, castCostTerms), the costs it estimates,
 * and the phase 'auto' picks against the fastest measured. One JSON line a scene.
 *
 *   npx tsx bench/probes/castFit.ts [spheres=16000] [kinds=all] [phases=every phase that serves casts] [rays=2000] [radius=0] [casts=mixed|outside]
 *
 * `mixed`: mixedCasts (from beside a sphere, half along a random direction, half to another
 * sphere); `outside`: castSceneOf, the bench's casts (from outside the bounds, half aimed at a
 * sphere). A radius over 0 makes them sphere casts. bench/probes/castFitSolve.ts fits the
 * constants (each phase's castCost.ts, gathered as CAST_COST in src/broadphase/index.ts) to such lines;
 * docs/results/swiftshader/casts-auto-fit.jsonl holds the run they were fitted to.
 */
import { requestNodeDevice, createCollider } from '../../src/node.js';
import { PAIR_SCENES, mixedCasts, castSceneOf } from '../scenes.js';
import { validateSpheres, validateCasts } from '../../src/validate.js';
import { planGrid } from '../../src/spatial/plan.js';
import {
  castCosts,
  castCostTerms,
  chooseBroadphase,
  phasesServing,
  type CastPhaseName,
} from '../../src/broadphase/index.js';

const n = Number(process.argv[2] || 16000);
const kinds = process.argv[3] ? process.argv[3].split(',') : Object.keys(PAIR_SCENES);
const phases = process.argv[4]
  ? (process.argv[4].split(',') as CastPhaseName[])
  : (phasesServing('casts') as CastPhaseName[]);
const rays = Number(process.argv[5] || 2000);
const radius = Number(process.argv[6] || 0);
const source = process.argv[7] || 'mixed';
if (source !== 'mixed' && source !== 'outside') throw new Error(`casts: 'mixed' or 'outside', not ${source}`);

const device = await requestNodeDevice();
const collider = await createCollider({ device });
const cast = (casts: Float32Array, spheres: Float32Array, broadphase: CastPhaseName) =>
  radius > 0 ? collider.sphereCast(casts, spheres, { broadphase }) : collider.raycast(casts, spheres, { broadphase });
// Compile every phase's pipelines before anything is timed.
{
  const spheres = PAIR_SCENES.uniform.make(2000);
  for (const broadphase of phases) await cast(mixedCasts(spheres, 100, radius).casts, spheres, broadphase);
}
for (const kind of kinds) {
  const scene = source === 'mixed' ? { spheres: PAIR_SCENES[kind].make(n), ...{} } : castSceneOf(kind, n, rays, radius);
  const spheres = scene.spheres;
  const { casts, stride } =
    source === 'mixed' ? mixedCasts(spheres, rays, radius) : (scene as ReturnType<typeof castSceneOf>);
  const stats = validateSpheres('spheres', spheres);
  const plan = planGrid(stats);
  const batch = validateCasts(stride === 7 ? 'casts' : 'rays', casts, stride);
  const terms = castCostTerms(plan, stats, batch);
  const estimate = castCosts(plan, stats, batch);
  const pick = chooseBroadphase('auto', { query: 'casts', sphereCount: n, casts: batch, stats, gridPlan: () => plan });
  const measured: Record<string, number> = {};
  for (const broadphase of phases) {
    const times: number[] = [];
    for (let r = 0; r < 3; r++) {
      const t0 = performance.now();
      await cast(casts, spheres, broadphase);
      times.push(performance.now() - t0);
      if (times[0] > 5000) break;
    }
    times.sort((a, b) => a - b);
    measured[broadphase] = +times[times.length >> 1].toFixed(1);
  }
  const best = Math.min(...Object.values(measured));
  console.log(
    JSON.stringify({
      kind,
      n,
      rays,
      radius,
      casts: source,
      ...measured,
      terms: Object.fromEntries(
        Object.entries(terms).map(([k, v]) => [
          k,
          Object.fromEntries(Object.entries(v).map(([t, x]) => [t, +x.toPrecision(4)])),
        ]),
      ),
      estimate: Object.fromEntries(Object.entries(estimate).map(([k, v]) => [k, Math.round(v)])),
      pick,
      pickOverBest: measured[pick] !== undefined ? +(measured[pick] / best).toFixed(2) : null,
    }),
  );
}
device.destroy();
