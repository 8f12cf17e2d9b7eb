/**
 * Raycasts and sphere casts against spheres: GPU brute force and GPU grid walk beside the CPU
 * twin of the walk (and the CPU brute force where it fits the budget), coherent rays (all
 * parallel, crossing the whole scene) and incoherent ones (random segments inside it).
 *
 * Work counts: brute force tests every sphere (rays × spheres); the walk's rows and candidates
 * are counted by its CPU twin on a sample of the rays and scaled. The ratio of the two predicts
 * the walk's speed-up over brute force; the table shows it beside the measured one.
 */
import { reference } from '../../src/index.js';
import { uniformScene } from '../../test/support/scenes.js';
import { mulberry32 } from '../../test/support/random.js';
import { measureChecked, profileOf, type Context, type Row } from '../harness.js';

export function castScene(n: number, rays: number, kind: 'coherent' | 'incoherent', radius: number, seed = 11): { spheres: Float32Array; casts: Float32Array; stride: 6 | 7 } {
  const spheres = uniformScene(n, { seed, fraction: 0.1 });
  const side = Math.cbrt((n * 4.19) / 0.1);
  const rand = mulberry32(seed + 1);
  const stride = radius > 0 ? 7 : 6;
  const casts = new Float32Array(stride * rays);
  for (let k = 0; k < rays; k++) {
    let a: number[];
    let b: number[];
    if (kind === 'coherent') {
      // Parallel rays along +x through the whole scene, like a camera's: origins on a regular
      // lattice of the -x face, in scanline order, so neighbouring rays are neighbours in space.
      const across = Math.ceil(Math.sqrt(rays));
      const y = ((k % across) + 0.5) * (side / across);
      const z = (Math.floor(k / across) + 0.5) * (side / across);
      a = [-1, y, z];
      b = [side + 1, y, z];
    } else {
      a = [rand() * side, rand() * side, rand() * side];
      b = [rand() * side, rand() * side, rand() * side];
    }
    casts.set(stride === 7 ? [...a, ...b, radius] : [...a, ...b], stride * k);
  }
  return { spheres, casts, stride };
}

const SAMPLE = 2000;

export async function castsSuite(ctx: Context, sizes: [number, number][]): Promise<Row[]> {
  const rows: Row[] = [];
  const { collider } = ctx;
  const rate = { brute: 0, cpuBrute: 0 };
  // Per-ray times at the previous size, to estimate the next (walks grow with the ray count).
  const perRay: Record<string, number> = {};
  const estimate = (method: string, rays: number): number | undefined => (perRay[method] ? perRay[method] * rays : undefined);
  const learn = (row: Row, rays: number): Row => {
    const t = row.gpuMs?.median ?? row.wallMs?.median;
    if (t) perRay[`${row.scene} ${row.method}`] = t / rays;
    return row;
  };
  for (const [radius, what] of [[0, 'raycast'], [0.5, 'sphereCast']] as const) {
    for (const kind of ['coherent', 'incoherent'] as const) {
      for (const [n, r] of sizes) {
        const { spheres, casts, stride } = castScene(n, r, kind, radius);
        const plan = collider.planFor(spheres);
        // Walk work on a sample of the rays, scaled to all of them.
        const sample = Math.min(r, SAMPLE);
        const stats = { rows: 0, candidates: 0, slabs: 0 };
        reference.gridCasts(casts.subarray(0, sample * stride), stride, spheres, plan, false, stats);
        const scale = r / sample;
        const walkWork = { slabs: Math.round(stats.slabs * scale), rows: Math.round(stats.rows * scale), candidates: Math.round(stats.candidates * scale) };
        const bruteWork = { tests: r * n };
        const scene = `${what} ${kind}`;
        const size = { spheres: n, rays: r };
        const expected: { answer?: number } = {};
        const call = (broadphase: 'grid' | 'all-pairs') => async () => {
          const res = what === 'raycast'
            ? await collider.raycast(casts, spheres, { broadphase, profile: true })
            : await collider.sphereCast(casts, spheres, { broadphase, profile: true });
          return { answer: res.index.reduce((hits, i) => hits + (i >= 0 ? 1 : 0), 0), ...profileOf(collider) };
        };
        // Hits are compared as counts: a tangent or end-of-segment hit may fall either way in f32.
        const grid = await measureChecked(ctx, { suite: 'casts', scene, size, method: 'gpu-grid', work: walkWork }, call('grid'), estimate(`${scene} gpu-grid`, r), expected, 1e-3);
        rows.push(withRate(learn(grid, r), r));
        const brute = await measureChecked(ctx, { suite: 'casts', scene, size, method: 'gpu-brute', work: bruteWork }, call('all-pairs'), rate.brute ? (r * n) / rate.brute : undefined, expected, 1e-3);
        if (brute.gpuMs) rate.brute = (r * n) / brute.gpuMs.median;
        rows.push(withRate(brute, r));
        const cpuWalk = await measureChecked(ctx, { suite: 'casts', scene, size, method: 'cpu-walk', work: walkWork }, async () => {
          const res = reference.gridCasts(casts, stride, spheres, plan);
          return { answer: res.index.reduce((hits, i) => hits + (i >= 0 ? 1 : 0), 0) };
        }, estimate(`${scene} cpu-walk`, r), expected, 1e-3);
        rows.push(withRate(learn(cpuWalk, r), r));
        const cpuBrute = await measureChecked(ctx, { suite: 'casts', scene, size, method: 'cpu-brute', work: bruteWork }, async () => {
          const res = reference.bruteForceNearestCasts(casts, stride, spheres);
          return { answer: res.index.reduce((hits, i) => hits + (i >= 0 ? 1 : 0), 0) };
        }, rate.cpuBrute ? (r * n) / rate.cpuBrute : undefined, expected, 1e-3);
        if (cpuBrute.wallMs) rate.cpuBrute = (r * n) / cpuBrute.wallMs.median;
        rows.push(withRate(cpuBrute, r));
      }
    }
  }
  return rows;
}

function withRate(row: Row, rays: number): Row {
  const ms = row.gpuMs?.median ?? row.wallMs?.median;
  return ms ? { ...row, rate: { unit: 'rays/s', value: (rays / ms) * 1000 } } : row;
}
