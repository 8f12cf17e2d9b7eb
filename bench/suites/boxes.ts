/**
 * Sphere–box pairs (AABBs and oriented boxes) on the pair scene kinds (bench/scenes.ts's
 * `boxScene`; `--box-scenes`): every GPU broad phase and 'auto' beside the CPU twin of the grid
 * kernel, `js-grid` (bench/peers/jsGrid.ts: the careful single-threaded JS grid, spheres copied
 * into cell order, each box walking its rows of cells), `cpu-bvh` (bench/peers/cpuBvh.ts: a float64
 * binned-SAH BVH over the spheres, built per call and timed with it, each box walking it) and CPU
 * brute force. Each method's pairs
 * are checked against the twin's (exact in double precision) within the band of docs/TESTING.md
 * before its time counts.
 */
import { reference } from '../../src/index.js';
import { diffPairs, bandViolations } from '../../test/support/pairs.js';
import { aabbMargin, obbMargin } from '../../test/support/boxes.js';
import { jsGridSphereBoxPairs } from '../peers/jsGrid.js';
import { cpuBvhSphereBoxPairs, warmCpuBvh, type CpuBvhStats } from '../peers/cpuBvh.js';
import { boxScene, type BoxShape } from '../scenes.js';
import { gpuMethod, gpuMethods, broadphaseOf, BRUTE_FORCE_METHODS } from '../methods.js';
import { measureChecked, profileOf, type Context, type Row, type Sample } from '../harness.js';

/** The GPU methods (bench/methods.ts: 'auto' and each phase serving boxes, from the registry), then the peers. */
export const BOX_METHODS = [...gpuMethods('boxes'), 'cpu-grid', 'js-grid', 'cpu-bvh', 'cpu-brute'];

export async function boxesSuite(
  ctx: Context,
  sizes: [number, number][],
  scenes: string[] = ['uniform'],
  methods = BOX_METHODS,
  shapes: BoxShape[] = ['aabb', 'obb'],
): Promise<Row[]> {
  const rows: Row[] = [];
  const { collider } = ctx;
  const rate: Record<string, number> = {};
  if (methods.includes('cpu-bvh')) warmCpuBvh(); // V8 optimises the peer before it is timed
  for (const shape of shapes) {
    for (const kind of scenes) {
      for (const [n, m] of sizes) {
        const { spheres, boxes } = boxScene(kind, n, m, shape);
        const scene = `${kind} (${shape === 'aabb' ? 'AABB' : 'OBB'})`;
        const size = { spheres: n, boxes: m };
        // The plan the query's grid uses (planned for its boxes: src/spatial/plan.ts).
        const plan = collider.planFor(spheres, { kind: shape, boxes });
        const stats = { rows: 0, candidates: 0 };
        const twin = shape === 'aabb' ? reference.gridSphereAabbPairs : reference.gridSphereObbPairs;
        const expected = twin(spheres, boxes, plan, stats);
        const margin = shape === 'aabb' ? aabbMargin(boxes) : obbMargin(boxes);
        const check = (pairs: Uint32Array): string | null => {
          const problems = bandViolations(diffPairs(spheres, pairs, expected, margin, false), 1);
          return problems.length ? problems.slice(0, 3).join('; ') : null;
        };
        const bvh: CpuBvhStats = {};
        const run = async (method: string): Promise<Sample> => {
          const broadphase = broadphaseOf(method);
          if (broadphase) {
            const pairs =
              shape === 'aabb'
                ? await collider.sphereBoxPairs(spheres, boxes, { broadphase, profile: ctx.profiling })
                : await collider.sphereOrientedBoxPairs(spheres, boxes, { broadphase, profile: ctx.profiling });
            return { answer: pairs.length / 2, output: pairs, ...(ctx.profiling ? profileOf(collider) : {}) };
          }
          let pairs: Uint32Array;
          if (method === 'cpu-grid') pairs = twin(spheres, boxes, plan);
          else if (method === 'js-grid') pairs = jsGridSphereBoxPairs(spheres, boxes, shape);
          else if (method === 'cpu-bvh') pairs = cpuBvhSphereBoxPairs(spheres, boxes, shape, bvh);
          else if (method === 'cpu-brute')
            pairs = (shape === 'aabb' ? reference.bruteForceSphereAabbPairs : reference.bruteForceSphereObbPairs)(
              spheres,
              boxes,
            );
          else throw new Error(`unknown box method "${method}": the methods are ${BOX_METHODS.join(', ')}`);
          return { answer: pairs.length / 2, output: pairs };
        };
        for (const method of methods) {
          const key = `${shape} ${method}`;
          const work: Record<string, number> | undefined =
            method === gpuMethod('grid') || method === 'cpu-grid'
              ? { ...stats }
              : BRUTE_FORCE_METHODS.has(method)
                ? { tests: n * m }
                : undefined;
          let row = await measureChecked(
            ctx,
            { suite: 'boxes', scene, size, method, ...(work ? { work } : {}) },
            () => run(method),
            BRUTE_FORCE_METHODS.has(method) && rate[key] ? rate[key] * n * m : undefined,
            check,
          );
          if (method === 'cpu-bvh' && bvh.buildMs !== undefined)
            row = {
              ...row,
              note: `build ${bvh.buildMs.toFixed(1)} ms of it; ${bvh.leaves} leaves, depth ${bvh.depth}`,
            };
          const t = row.gpuMs?.median ?? row.wallMs?.median;
          if (t && BRUTE_FORCE_METHODS.has(method)) rate[key] = t / (n * m);
          rows.push(row);
        }
      }
    }
  }
  return rows;
}
