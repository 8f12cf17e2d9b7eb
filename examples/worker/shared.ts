/**
 * What the page (main.ts) and the worker (worker.ts) share: the seeded scene and the messages.
 * The scene is rebuilt from its seed on either side, so only numbers cross the thread boundary.
 */

/**
 * The page asks for a run: n spheres from `seed` for spherePairs, and a world of `particles`
 * stepped `steps` times. Without n and particles the worker picks them by its adapter
 * (WORKER_SIZES).
 */
export interface WorkerRequest {
  n?: number;
  seed: number;
  particles?: number;
  steps: number;
}

/** The sizes the worker picks when the page does not say: a software adapter runs the shaders on the CPU. */
export const WORKER_SIZES = {
  gpu: { n: 200_000, particles: 50_000 },
  software: { n: 20_000, particles: 2_000 },
};

/** The worker's answer (or `{ error }`). Typed arrays are transferred, not copied. */
export interface WorkerReply {
  /** describeDevice's one-line label of the worker's device. */
  device: string;
  /** Whether that is a software adapter, and the sizes the run used. */
  software: boolean;
  n: number;
  particles: number;
  /** Overlapping pairs as (i, j) index pairs, i < j. */
  pairs: Uint32Array;
  pairsMs: number;
  /** The world's spheres (x, y, z, r) before and after the steps. */
  before: Float32Array;
  after: Float32Array;
  stepMs: number;
}

/** n spheres of radius 0.5 to 1 in a cube, filling a tenth of its volume (a small LCG: the same seed, the same scene). */
export function seededSpheres(n: number, seed: number): Float32Array {
  let s = seed >>> 0;
  const random = (): number => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const side = Math.cbrt((n * (4 / 3) * Math.PI * 0.5) / 0.1);
  const spheres = new Float32Array(4 * n);
  for (let i = 0; i < n; i++)
    spheres.set([random() * side, random() * side, random() * side, 0.5 + 0.5 * random()], 4 * i);
  return spheres;
}
