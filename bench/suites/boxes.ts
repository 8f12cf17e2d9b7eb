/** Sphere–box pairs: GPU all-pairs and grid beside the CPU twin of the grid kernel and CPU brute force. */
import { reference } from '../../src/index.js';
import { uniformScene } from '../../test/support/scenes.js';
import { mulberry32, gaussian } from '../../test/support/random.js';
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
  const rate = { gpu: 0, cpu: 0 };
  for (const kind of ['aabb', 'obb'] as const) {
    for (const [n, m] of sizes) {
      const { spheres, boxes } = boxScene(n, m, kind);
      const scene = kind === 'aabb' ? 'sphere-AABB' : 'sphere-OBB';
      const size = { spheres: n, boxes: m };
      const expected: { answer?: number } = {};
      const plan = collider.planFor(spheres);
      const stats = { rows: 0, candidates: 0 };
      (kind === 'aabb' ? reference.gridSphereAabbPairs : reference.gridSphereObbPairs)(spheres, boxes, plan, stats);
      const call = (broadphase: 'grid' | 'all-pairs') => async () => {
        const pairs = kind === 'aabb'
          ? await collider.sphereBoxPairs(spheres, boxes, { broadphase, profile: true })
          : await collider.sphereOrientedBoxPairs(spheres, boxes, { broadphase, profile: true });
        return { answer: pairs.length / 2, ...profileOf(collider) };
      };
      // OBB pairs within float rounding of touching may differ between methods.
      const tolerance = kind === 'obb' ? 1e-4 : 0;
      rows.push(await measureChecked(ctx, { suite: 'boxes', scene, size, method: 'gpu-grid', work: { ...stats } }, call('grid'), undefined, expected, tolerance));
      const all = await measureChecked(ctx, { suite: 'boxes', scene, size, method: 'gpu-all-pairs', work: { tests: n * m } }, call('all-pairs'), rate.gpu ? (n * m) / rate.gpu : undefined, expected, tolerance);
      if (all.gpuMs) rate.gpu = (n * m) / all.gpuMs.median;
      rows.push(all);
      rows.push(await measureChecked(ctx, { suite: 'boxes', scene, size, method: 'cpu-grid', work: { ...stats } }, async () => ({
        answer: (kind === 'aabb' ? reference.gridSphereAabbPairs : reference.gridSphereObbPairs)(spheres, boxes, plan).length / 2,
      }), undefined, expected, tolerance));
      const cpu = await measureChecked(ctx, { suite: 'boxes', scene, size, method: 'cpu-brute', work: { tests: n * m } }, async () => ({
        answer: (kind === 'aabb' ? reference.bruteForceSphereAabbPairs : reference.bruteForceSphereObbPairs)(spheres, boxes).length / 2,
      }), rate.cpu ? (n * m) / rate.cpu : undefined, expected, tolerance);
      if (cpu.wallMs) rate.cpu = (n * m) / cpu.wallMs.median;
      rows.push(cpu);
    }
  }
  return rows;
}
