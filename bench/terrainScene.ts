/**
 * Issue 50's terrain (`npm run bench -- --suites colliders --collider-scene terrain`): `n` balls
 * of radius 0.1–0.2 (uniform, as the pour through pegs) in a lattice 0.42 apart, each position
 * jittered by up to ±0.01 across, poured from above onto a static triangle mesh: a seeded smooth
 * heightfield over a square patch of side S = max(√(n / 20), 2) (about two layers of settled
 * balls: 0.1 of floor a ball a layer), a g×g grid of quads of two triangles each, g =
 * max(1, round(√(T / 2))) for T asked triangles (default 100,000: g = 224, 100,352 triangles).
 * The heights: 0.5 plus five gaussian hills of amplitude 0.3–0.6 (one to two diameters of a mean
 * ball) and width σ = 0.08–0.18·S, centred anywhere on the patch. Both triangles of a quad face
 * up (+y, by their winding: three.js's and Rapier's `ORIENTED` meshes). The lowest layer of
 * balls starts 0.5 above the highest vertex; the world box is the patch in x and z (its walls
 * close the mesh's edges), from y = 0 (under the mesh: a ball that falls through lands there)
 * to 1 above the lattice. The same for the same arguments on every machine (seeded).
 *
 * The control (`terrain-flat`, and the flat rows of `terrain`): one static box in place of the
 * mesh, a slab 0.1 thick over the whole patch whose top lies at the terrain's mean height (the
 * area mean of its surface), the same balls above it.
 *
 * The measure (`heightfieldPenetration`): each ball against the triangles of the grid cells
 * under it (the cells its x–z footprint covers), the closest point on each triangle in double
 * precision (src/reference/triangle.ts); a centre below the surface (the interpolated height
 * under it) counts as inside, its distance negative. The flat control is measured the same way
 * against a flat heightfield at the slab's top, so that both rows count alike.
 */
import { mulberry32 } from '../test/support/random.js';
import { closestPointPacked, packTriangle, TRIANGLE_STRIDE } from '../src/reference/triangle.js';
import type { BoxPenetration, ColliderScene } from './colliderScene.js';

/** A heightfield as a triangle mesh over a square patch, with what the measure needs. */
export interface Heightfield {
  /** Quads per side. */
  g: number;
  /** The patch's least x and z corner, and its side. */
  x0: number;
  z0: number;
  side: number;
  /** x, y, z per vertex: vertex (i, j) at index i·(g + 1) + j, x = x0 + i·side/g, z = z0 + j·side/g. */
  positions: Float32Array;
  /** Three vertex indices a triangle: quad (i, j) holds triangles 2(i·g + j) and 2(i·g + j) + 1. */
  indices: Uint32Array;
  /** Every triangle packed for `closestPointPacked` (from the f32 positions, as the GPU has them). */
  packed: Float64Array;
}

export interface TerrainScene extends ColliderScene {
  /** The mesh. */
  terrain: Heightfield;
  /** The control's surface: a flat heightfield at the slab's top, for the same measure. */
  flat: Heightfield;
  /** The control's one box (10 floats, as `setColliders` takes them). */
  slab: Float32Array;
  /** The terrain's area-mean height (the slab's top), and its highest vertex. */
  meanHeight: number;
  maxHeight: number;
}

const SPACING = 0.42;
const SLAB_HALF_THICKNESS = 0.05;
const HILLS = 5;
const BASE = 0.5;

/** Quads per side for `triangles` asked (two a quad). */
export function terrainGrid(triangles: number): number {
  return Math.max(1, Math.round(Math.sqrt(triangles / 2)));
}

/** The patch's side for n balls (see the file's comment). */
export function terrainSide(n: number): number {
  return Math.max(Math.sqrt(n / 20), 2);
}

/** A heightfield of g×g quads over the patch, heights from `height(x, z)`. */
export function heightfield(g: number, x0: number, z0: number, side: number, height: (x: number, z: number) => number) {
  const c = side / g;
  const v = g + 1;
  const positions = new Float32Array(3 * v * v);
  for (let i = 0; i <= g; i++)
    for (let j = 0; j <= g; j++) {
      const x = x0 + i * c,
        z = z0 + j * c;
      positions.set([x, height(x, z), z], 3 * (i * v + j));
    }
  const indices = new Uint32Array(6 * g * g);
  const packed = new Float64Array(TRIANGLE_STRIDE * 2 * g * g);
  const p = (k: number) => positions.subarray(3 * k, 3 * k + 3);
  for (let i = 0; i < g; i++)
    for (let j = 0; j < g; j++) {
      const a = i * v + j,
        b = a + v,
        cc = a + 1,
        d = b + 1;
      // (a, cc, b) and (b, cc, d): (P1 − P0) × (P2 − P0) points up; the diagonal runs b–cc.
      const t = 2 * (i * g + j);
      indices.set([a, cc, b, b, cc, d], 3 * t);
      packTriangle(packed, TRIANGLE_STRIDE * t, p(a), p(cc), p(b));
      packTriangle(packed, TRIANGLE_STRIDE * (t + 1), p(b), p(cc), p(d));
    }
  return { g, x0, z0, side, positions, indices, packed } satisfies Heightfield;
}

/** The surface's height under (x, z) (clamped into the patch): the triangle there, interpolated. */
export function heightAt(hf: Heightfield, x: number, z: number): number {
  const c = hf.side / hf.g;
  const fx = Math.min(Math.max((x - hf.x0) / c, 0), hf.g),
    fz = Math.min(Math.max((z - hf.z0) / c, 0), hf.g);
  const i = Math.min(Math.floor(fx), hf.g - 1),
    j = Math.min(Math.floor(fz), hf.g - 1);
  const u = fx - i,
    w = fz - j;
  const v = hf.g + 1;
  const y = (k: number): number => hf.positions[3 * k + 1];
  const a = i * v + j,
    b = a + v,
    cc = a + 1,
    d = b + 1;
  return u + w <= 1
    ? y(a) + u * (y(b) - y(a)) + w * (y(cc) - y(a))
    : y(d) + (1 - u) * (y(cc) - y(d)) + (1 - w) * (y(b) - y(d));
}

/**
 * How deep the balls are in the heightfield: for each ball, the least distance from its centre
 * to the triangles of the cells its footprint covers, negative when the centre lies below the
 * surface; a ball whose signed distance is under its radius touches, at depth (r − distance) / r
 * (over 1: the centre below the surface). `boxTouching` counts touching balls (each once, however
 * many triangles it touches); `insideBox`, centres below the surface (or not finite).
 */
export function heightfieldPenetration(spheres: Float32Array, hf: Heightfield): BoxPenetration {
  const n = spheres.length / 4;
  const c = hf.side / hf.g;
  const cell = (t: number): number => Math.min(hf.g - 1, Math.max(0, Math.floor(t / c)));
  const out = new Float64Array(5);
  let max = 0,
    sum = 0,
    touching = 0,
    inside = 0;
  for (let s = 0; s < n; s++) {
    const x = spheres[4 * s],
      y = spheres[4 * s + 1],
      z = spheres[4 * s + 2],
      r = spheres[4 * s + 3];
    if (![x, y, z, r].every(Number.isFinite)) {
      inside++;
      continue;
    }
    let best = Infinity;
    const [i0, i1] = [cell(x - r - hf.x0), cell(x + r - hf.x0)];
    const [j0, j1] = [cell(z - r - hf.z0), cell(z + r - hf.z0)];
    for (let i = i0; i <= i1; i++)
      for (let j = j0; j <= j1; j++)
        for (let t = 2 * (i * hf.g + j); t <= 2 * (i * hf.g + j) + 1; t++)
          best = Math.min(best, closestPointPacked(hf.packed, TRIANGLE_STRIDE * t, x, y, z, out));
    const below = y < heightAt(hf, x, z);
    const distance = below ? -Math.sqrt(best) : Math.sqrt(best);
    if (below) inside++;
    if (distance >= r) continue;
    const p = r > 0 ? (r - distance) / r : 0;
    touching++;
    sum += p;
    max = Math.max(max, p);
  }
  return {
    maxPenetration: max,
    meanPenetration: touching ? sum / touching : 0,
    boxTouching: touching,
    insideBox: inside,
  };
}

/** The terrain scene (see the file's comment): n balls over a heightfield of about `triangles` triangles. */
export function terrainScene({
  n = 30_000,
  triangles = 100_000,
  seed = 1,
}: {
  n?: number;
  triangles?: number;
  seed?: number;
} = {}): TerrainScene {
  if (!(Number.isInteger(n) && n >= 1 && Number.isInteger(triangles) && triangles >= 2))
    throw new Error(`terrainScene: n ≥ 1 and triangles ≥ 2 whole numbers, got n ${n}, triangles ${triangles}`);
  const rand = mulberry32(seed);
  const between = (a: number, b: number): number => a + (b - a) * rand();
  const side = terrainSide(n);
  const x0 = -side / 2,
    z0 = -side / 2;
  const hills = Array.from({ length: HILLS }, () => ({
    x: between(x0, x0 + side),
    z: between(z0, z0 + side),
    amplitude: between(0.3, 0.6),
    sigma: between(0.08, 0.18) * side,
  }));
  const height = (x: number, z: number): number =>
    BASE +
    hills.reduce((h, k) => h + k.amplitude * Math.exp(-((x - k.x) ** 2 + (z - k.z) ** 2) / (2 * k.sigma * k.sigma)), 0);
  const g = terrainGrid(triangles);
  const terrain = heightfield(g, x0, z0, side, height);
  // The area mean of the surface (each quad's two triangles: the mean of their corners), and the top.
  let area = 0,
    maxHeight = -Infinity;
  const v = g + 1;
  const y = (i: number, j: number): number => terrain.positions[3 * (i * v + j) + 1];
  for (let i = 0; i < g; i++)
    for (let j = 0; j < g; j++) area += (y(i, j) + 2 * y(i + 1, j) + 2 * y(i, j + 1) + y(i + 1, j + 1)) / 6;
  for (let k = 1; k < terrain.positions.length; k += 3) maxHeight = Math.max(maxHeight, terrain.positions[k]);
  const meanHeight = area / (g * g);
  const flat = heightfield(1, x0, z0, side, () => meanHeight);
  const slab = new Float32Array([
    0,
    meanHeight - SLAB_HALF_THICKNESS,
    0,
    side / 2,
    SLAB_HALF_THICKNESS,
    side / 2,
    0,
    0,
    0,
    1,
  ]);

  const per = Math.max(1, Math.floor((side - 0.6) / SPACING) + 1);
  const start = maxHeight + 0.5;
  const spheres = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) {
    const j = i % (per * per);
    spheres.set(
      [
        x0 + 0.3 + SPACING * (j % per) + 0.02 * (rand() - 0.5),
        start + SPACING * Math.floor(i / (per * per)),
        z0 + 0.3 + SPACING * Math.floor(j / per) + 0.02 * (rand() - 0.5),
        0.1 + 0.1 * rand(),
      ],
      4 * i,
    );
  }
  const top = start + SPACING * Math.ceil(n / (per * per)) + 1;
  return {
    spheres,
    velocities: new Float32Array(3 * n),
    bounds: [x0, 0, z0, x0 + side, top, z0 + side],
    boxes: new Float32Array(0),
    kinds: { tiles: 0, ramps: 0, blocks: 0 },
    fieldTop: maxHeight,
    terrain,
    flat,
    slab,
    meanHeight,
    maxHeight,
  };
}

/** The terrain's name in the tables: its triangles and world box. */
export function terrainSceneName(scene: ColliderScene, flatOnly = false): string {
  const t = (v: number): string => String(Number(v.toFixed(1)));
  const b = scene.bounds;
  const box = `${t(b[3] - b[0])}×${t(b[4] - b[1])}×${t(b[5] - b[2])}`;
  if (flatOnly) return `terrain's flat slab ${box}`;
  const tris = (scene as TerrainScene).terrain.indices.length / 3;
  return `terrain of ${tris >= 1000 ? `${Number((tris / 1000).toFixed(1))}k` : tris} triangles ${box}`;
}
