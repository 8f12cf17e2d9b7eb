/**
 * Seeded sphere scenes shared by tests and benchmarks. Every scene is a flat Float32Array
 * (x, y, z, r per sphere). Sizes are chosen by volume fraction: the box side L is set so that
 * the spheres' total volume is `fraction` of L³.
 */
import { mulberry32, gaussian } from './random.js';

export interface SceneOptions {
  seed?: number;
  /** Total sphere volume / box volume. Default 0.1. */
  fraction?: number;
  /** Added to every coordinate. */
  offset?: number;
}

const sphereVolume = (r: number): number => (4 / 3) * Math.PI * r * r * r;

function boxSide(totalVolume: number, fraction: number): number {
  return Math.cbrt(totalVolume / fraction);
}

/** Equal radii (1), uniform in a box. */
export function uniformScene(n: number, { seed = 1, fraction = 0.1, offset = 0 }: SceneOptions = {}): Float32Array {
  const rand = mulberry32(seed);
  const side = boxSide(n * sphereVolume(1), fraction);
  const out = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) {
    out[4 * i] = offset + rand() * side;
    out[4 * i + 1] = offset + rand() * side;
    out[4 * i + 2] = offset + rand() * side;
    out[4 * i + 3] = 1;
  }
  return out;
}

/** Radii log-uniform over [rMin, rMax] (1:100 by default), uniform positions. */
export function mixedRadiiScene(
  n: number,
  { seed = 1, fraction = 0.1, offset = 0 }: SceneOptions = {},
  rMin = 0.01,
  rMax = 1,
): Float32Array {
  const rand = mulberry32(seed);
  const radii = Array.from({ length: n }, () => rMin * (rMax / rMin) ** rand());
  const side = boxSide(
    radii.reduce((s, r) => s + sphereVolume(r), 0),
    fraction,
  );
  const out = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) {
    out[4 * i] = offset + rand() * side;
    out[4 * i + 1] = offset + rand() * side;
    out[4 * i + 2] = offset + rand() * side;
    out[4 * i + 3] = radii[i];
  }
  return out;
}

/** Gaussian clusters (a few tight blobs, and empty space between them), radius 1. */
export function clusteredScene(n: number, { seed = 1, offset = 0 }: SceneOptions = {}, clusters = 8): Float32Array {
  const rand = mulberry32(seed);
  const spread = Math.cbrt(n / clusters) * 1.2;
  const centres = Array.from({ length: clusters }, () => [rand(), rand(), rand()].map((c) => c * spread * 40));
  const out = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) {
    const c = centres[Math.floor(rand() * clusters)];
    for (let a = 0; a < 3; a++) out[4 * i + a] = offset + c[a] + gaussian(rand) * spread;
    out[4 * i + 3] = 1;
  }
  return out;
}

/** Many small spheres (r = 1) and a few giants (radius `giantRadius`, default a fifth of the box). */
export function giantsScene(
  n: number,
  giants: number,
  { seed = 1, fraction = 0.1, offset = 0 }: SceneOptions = {},
  giantRadius?: number,
): Float32Array {
  const rand = mulberry32(seed);
  const side = boxSide(n * sphereVolume(1), fraction);
  const big = giantRadius ?? side / 5;
  const out = new Float32Array(4 * (n + giants));
  for (let i = 0; i < n + giants; i++) {
    out[4 * i] = offset + rand() * side;
    out[4 * i + 1] = offset + rand() * side;
    out[4 * i + 2] = offset + rand() * side;
    out[4 * i + 3] = 1;
  }
  // Giants at random places among the small ones (not at the end), so indices interleave.
  for (let g = 0; g < giants; g++) out[4 * Math.floor(((g + rand()) * (n + giants)) / giants) + 3] = big;
  return out;
}

/** All spheres at one point. Every pair overlaps: n(n−1)/2 pairs. */
export function coincidentScene(n: number, { offset = 0 }: SceneOptions = {}, radius = 0.5): Float32Array {
  const out = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) out.set([offset + 1, offset + 2, offset + 3, radius], 4 * i);
  return out;
}

/** A jittered lattice with spacing 3 and radius 1: no two spheres overlap. */
export function separatedScene(n: number, { seed = 1, offset = 0 }: SceneOptions = {}): Float32Array {
  const rand = mulberry32(seed);
  const side = Math.ceil(Math.cbrt(n));
  const out = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) {
    const x = i % side,
      y = Math.floor(i / side) % side,
      z = Math.floor(i / (side * side));
    out[4 * i] = offset + 3 * x + (rand() - 0.5) * 0.9;
    out[4 * i + 1] = offset + 3 * y + (rand() - 0.5) * 0.9;
    out[4 * i + 2] = offset + 3 * z + (rand() - 0.5) * 0.9;
    out[4 * i + 3] = 1;
  }
  return out;
}

/** A dense cluster plus a few far outliers: the grid cannot be dense, so it hashes. */
export function outlierScene(n: number, { seed = 1, offset = 0 }: SceneOptions = {}, far = 1e6): Float32Array {
  const out = uniformScene(n, { seed, offset });
  const rand = mulberry32(seed + 1);
  for (let k = 0; k < 4; k++) {
    const i = Math.floor(rand() * n);
    out[4 * i] = offset + (rand() < 0.5 ? -far : far);
    out[4 * i + 1] = offset + (rand() - 0.5) * far;
  }
  return out;
}

/** The centres' bounds and the largest radius of a sphere array, by a plain pass (a scene to promise to the encode calls). */
export function sceneBoundsOf(spheres: Float32Array): {
  min: [number, number, number];
  max: [number, number, number];
  maxRadius: number;
} {
  const min: [number, number, number] = [Infinity, Infinity, Infinity];
  const max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  let maxRadius = 0;
  for (let i = 0; i < spheres.length; i += 4) {
    for (let a = 0; a < 3; a++) {
      min[a] = Math.min(min[a], spheres[i + a]);
      max[a] = Math.max(max[a], spheres[i + a]);
    }
    maxRadius = Math.max(maxRadius, spheres[i + 3]);
  }
  return { min, max, maxRadius };
}
