/**
 * Sphere–box pairs: GPU all-pairs and grid beside the CPU twin of the grid kernel and CPU brute
 * force. Each method's pairs are checked against the twin's (exact in double precision) within
 * the band of docs/TESTING.md before its time counts.
 */
import { reference } from '../../src/index.js';
import { uniformScene } from '../../test/support/scenes.js';
import { mulberry32, gaussian } from '../../test/support/random.js';
import { diffPairs, bandViolations } from '../../test/support/pairs.js';
import { aabbMargin, obbMargin } from '../../test/support/boxes.js';
import { measureChecked, profileOf, type Context, type Row } from '../harness.js';

function boxScene(n: number, m: number, kind: 'aabb' | 'obb', seed = 21): { spheres: Float32Array; boxes: Float32Array } {
  const spheres = uniformScene(n, { seed, fraction: 0.1 });
  const side = Math.cbrt((n * 4.19) / 0.1);
  const rand = mulberry32(seed + 1);
  const stride = kind === 'aabb' ? 6 : 10;
  const boxes = new Float32Array(stride * m);
  for (let k = 0; k < m; k++) {
    const c = [rand() * side, rand() * side, rand() * side];
    const h = [0.5 + 2 * rand(), 0.5 + 2 * rand(), 0.5 + 2 * rand()];
    boxes.set(kind === 'aabb' ? [c[0] - h[0], c[1] - h[1], c[2] - h[2], c[0] + h[0], c[1] + h[1], c[2] + h[2]] : [...c, ...h, gaussian(rand), gaussian(rand), gaussian(rand), gaussian(rand)], stride * k);
  }
  return { spheres, boxes };
}

export async function boxesSuite(ctx: Context, sizes: [number, number][]): Promise<Row[]> {
  const rows: Row[] = [];
  const { collider } = ctx;
  const rate: Record<string, number> = {};
  for (const kind of ['aabb', 'obb'] as const) {
    for (const [n, m] of sizes) {
      const { spheres, boxes } = boxScene(n, m, kind);
      const scene = kind === 'aabb' ? 'sphere-AABB' : 'sphere-OBB';
      const size = { spheres: n, boxes: m };
      const plan = collider.planFor(spheres);
      const stats = { rows: 0, candidates: 0 };
      const twin = kind === 'aabb' ? reference.gridSphereAabbPairs : reference.gridSphereObbPairs;
      const expected = twin(spheres, boxes, plan, stats);
      const margin = kind === 'aabb' ? aabbMargin(boxes) : obbMargin(boxes);
      const check = (pairs: Uint32Array): string | null => {
        const problems = bandViolations(diffPairs(spheres, pairs, expected, margin, false), 1);
        return problems.length ? problems.slice(0, 3).join('; ') : null;
      };
      const estimate = (method: string): number | undefined => (rate[`${scene} ${method}`] ? rate[`${scene} ${method}`] * n * m : undefined);
      const learn = (row: Row): Row => {
        const t = row.gpuMs?.median ?? row.wallMs?.median;
        if (t && (row.method === 'gpu-all-pairs' || row.method === 'cpu-brute')) rate[`${scene} ${row.method}`] = t / (n * m);
        return row;
      };
      const call = (broadphase: 'grid' | 'all-pairs') => async () => {
        const pairs = kind === 'aabb'
          ? await collider.sphereBoxPairs(spheres, boxes, { broadphase, profile: true })
          : await collider.sphereOrientedBoxPairs(spheres, boxes, { broadphase, profile: true });
        return { answer: pairs.length / 2, output: pairs, ...profileOf(collider) };
      };
      rows.push(learn(await measureChecked(ctx, { suite: 'boxes', scene, size, method: 'gpu-grid', work: { ...stats } }, call('grid'), undefined, check)));
      rows.push(learn(await measureChecked(ctx, { suite: 'boxes', scene, size, method: 'gpu-all-pairs', work: { tests: n * m } }, call('all-pairs'), estimate('gpu-all-pairs'), check)));
      rows.push(learn(await measureChecked(ctx, { suite: 'boxes', scene, size, method: 'cpu-grid', work: { ...stats } }, async () => {
        const pairs = twin(spheres, boxes, plan);
        return { answer: pairs.length / 2, output: pairs };
      }, undefined, check)));
      rows.push(learn(await measureChecked(ctx, { suite: 'boxes', scene, size, method: 'cpu-brute', work: { tests: n * m } }, async () => {
        const pairs = (kind === 'aabb' ? reference.bruteForceSphereAabbPairs : reference.bruteForceSphereObbPairs)(spheres, boxes);
        return { answer: pairs.length / 2, output: pairs };
      }, estimate('cpu-brute'), check)));
    }
  }
  return rows;
}
