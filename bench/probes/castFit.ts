/**
 * The data behind 'auto''s choice for casts (castCosts, src/broadphase/index.ts): for each scene
 * kind of bench/scenes.ts, the wall time of one nearest-hit raycast call of `rays` mixed casts
 * (mixedCasts) on each broad phase (median of 3; a phase past 5 s is timed once), the costs the
 * model estimates, and the phase 'auto' picks against the fastest measured. One JSON line a scene.
 *
 *   npx tsx bench/probes/castFit.ts [spheres=16000] [kinds=all] [phases=every phase that serves casts] [rays=2000]
 *
 * docs/results/casts-auto-fit-swiftshader.jsonl holds the run the constants were fitted to.
 */
import { requestNodeDevice, createCollider } from '../../src/node.js';
import { PAIR_SCENES, mixedCasts } from '../scenes.js';
import { validateSpheres, validateCasts } from '../../src/validate.js';
import { planGrid } from '../../src/broadphase/grid/plan.js';
import { castCosts, chooseBroadphase, phasesServing, type CastPhaseName } from '../../src/broadphase/index.js';

const n = Number(process.argv[2] || 16000);
const kinds = process.argv[3] ? process.argv[3].split(',') : Object.keys(PAIR_SCENES);
const phases = process.argv[4] ? (process.argv[4].split(',') as CastPhaseName[]) : (phasesServing('casts') as CastPhaseName[]);
const rays = Number(process.argv[5] || 2000);

const device = await requestNodeDevice();
const collider = await createCollider({ device });
// Compile every phase's pipelines before anything is timed.
{
  const spheres = PAIR_SCENES.uniform.make(2000);
  for (const broadphase of phases) await collider.raycast(mixedCasts(spheres, 100).casts, spheres, { broadphase });
}
for (const kind of kinds) {
  const spheres = PAIR_SCENES[kind].make(n);
  const { casts } = mixedCasts(spheres, rays);
  const stats = validateSpheres('spheres', spheres);
  const plan = planGrid(stats);
  const batch = validateCasts('rays', casts, 6);
  const estimate = castCosts(plan, stats, batch);
  const pick = chooseBroadphase('auto', { query: 'casts', sphereCount: n, casts: batch, stats, gridPlan: () => plan });
  const measured: Record<string, number> = {};
  for (const broadphase of phases) {
    const times: number[] = [];
    for (let r = 0; r < 3; r++) {
      const t0 = performance.now();
      await collider.raycast(casts, spheres, { broadphase });
      times.push(performance.now() - t0);
      if (times[0] > 5000) break;
    }
    times.sort((a, b) => a - b);
    measured[broadphase] = +times[times.length >> 1].toFixed(1);
  }
  const best = Math.min(...Object.values(measured));
  console.log(JSON.stringify({ kind, n, rays, ...measured, estimate: Object.fromEntries(Object.entries(estimate).map(([k, v]) => [k, Math.round(v)])), pick, pickOverBest: measured[pick] !== undefined ? +(measured[pick] / best).toFixed(2) : null }));
}
device.destroy();
