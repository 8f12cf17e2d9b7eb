/**
 * How far apart the centres of one octave of radius lie where they are: the planner's measure of
 * density that a few far outliers or far-apart clusters do not fool.
 *
 * The bounds of an octave's centres say little about its density: five spheres 1e6 away from a
 * cube of 200,000 make the bounds 10^10 times the cube's volume, and a floor on the cell size
 * taken from those bounds (CELLS_PER_SPHERE cells a sphere over them, src/spatial/plan.ts) puts
 * all 200,000 in one cell. So validation keeps, for each octave, an evenly strided sample of its
 * members' indices (between SAMPLE_MIN and 2·SAMPLE_MIN of them once the octave has that many,
 * by index order: the k-th member is kept when k is a multiple of the stride, and the stride
 * doubles as the sample fills), and this module measures the sample's median nearest-neighbour
 * distance. For centres spread evenly in 3D at density ρ the median nearest-neighbour distance
 * is (ln 2 · 3 / 4π)^⅓ ρ^−⅓ ≈ 0.549 ρ^−⅓, and a sample of m of the count scales it by
 * (count / m)^⅓, so the octave's spacing ρ^−⅓ follows. Clusters and outliers do not move a
 * median: a blob's sample neighbours are in the blob. For centres on a plane or a line the 3D
 * scaling overestimates the spacing (by (count / m)^⅙ on a plane); the planner takes the finer
 * of this and the bounds' estimate, and finer cells never make a walk quadratic.
 */

/** An octave's sample keeps between SAMPLE_MIN and 2·SAMPLE_MIN members' indices (all of them below that). */
export const SAMPLE_MIN = 128;
/** Octaves with fewer sampled members than this get no spacing (NaN): the planner then sizes their cells by radius alone. */
export const SPACING_MIN_SAMPLES = 8;
/** The median nearest-neighbour distance of centres spread evenly in 3D, over ρ^−⅓: (3 ln 2 / 4π)^⅓. */
export const MEDIAN_NN = Math.cbrt((3 * Math.LN2) / (4 * Math.PI));

/**
 * Evenly strided samples of every octave's members, filled during validation's pass: octave b
 * keeps the k-th member (k from 0, in index order) when k is a multiple of `stride[b]` (a power
 * of two), in `indices[b·2·SAMPLE_MIN ...]`. The pass tests `(k & (stride[b] − 1)) === 0` itself
 * and calls `keep` only then: most spheres pay one mask and compare.
 */
export class OctaveSamples {
  readonly indices: Uint32Array;
  readonly length: Uint32Array;
  readonly stride: Uint32Array;

  constructor(bins: number) {
    this.indices = new Uint32Array(bins * 2 * SAMPLE_MIN);
    this.length = new Uint32Array(bins);
    this.stride = new Uint32Array(bins).fill(1);
  }

  /** Keeps octave `bin`'s k-th member, sphere `index` (k a multiple of the stride). */
  keep(bin: number, k: number, index: number): void {
    const base = bin * 2 * SAMPLE_MIN;
    if (this.length[bin] === 2 * SAMPLE_MIN) {
      // Full: keep every other one (the members at multiples of twice the stride) and double it.
      for (let j = 0; j < SAMPLE_MIN; j++) this.indices[base + j] = this.indices[base + 2 * j];
      this.length[bin] = SAMPLE_MIN;
      this.stride[bin] *= 2;
      if ((k & (this.stride[bin] - 1)) !== 0) return;
    }
    this.indices[base + this.length[bin]++] = index;
  }
}

/**
 * The spacing ρ^−⅓ of octave `bin`'s `count` centres estimated from its sample (x, y, z at 4·index
 * in `spheres`): 0 when most sampled centres coincide with another, NaN when the sample is too
 * small to say.
 */
export function sampleSpacing(spheres: Float32Array, samples: OctaveSamples, bin: number, count: number): number {
  const m = samples.length[bin];
  if (m < SPACING_MIN_SAMPLES) return NaN;
  const base = bin * 2 * SAMPLE_MIN;
  const xs = new Float64Array(3 * m);
  for (let j = 0; j < m; j++) for (let a = 0; a < 3; a++) xs[3 * j + a] = spheres[4 * samples.indices[base + j] + a];
  const nearest = new Float64Array(m).fill(Infinity);
  for (let i = 0; i < m; i++) {
    const x = xs[3 * i],
      y = xs[3 * i + 1],
      z = xs[3 * i + 2];
    let best = nearest[i];
    for (let j = i + 1; j < m; j++) {
      const dx = xs[3 * j] - x,
        dy = xs[3 * j + 1] - y,
        dz = xs[3 * j + 2] - z;
      const d = dx * dx + dy * dy + dz * dz;
      if (d < best) best = d;
      if (d < nearest[j]) nearest[j] = d;
    }
    nearest[i] = best;
  }
  nearest.sort();
  const median = Math.sqrt(nearest[m >> 1]);
  return (median / MEDIAN_NN) * Math.cbrt(m / count);
}

/** The octaves' spacings and their sampled centres, from validation's samples. */
export interface OctaveDensity {
  /** Spacing of each bin (sampleSpacing): NaN when unknown, 0 when the centres coincide. */
  binSpacing: Float64Array;
  /** The sampled centres of the bins with a spacing: x, y, z and the bin, four numbers each. */
  centres: Float64Array;
}

/** Each octave's spacing and its sampled centres (the octaves with a spacing only). */
export function octaveDensity(spheres: Float32Array, samples: OctaveSamples, counts: Uint32Array): OctaveDensity {
  const bins = counts.length;
  const binSpacing = new Float64Array(bins).fill(NaN);
  let kept = 0;
  for (let bin = 0; bin < bins; bin++) {
    if (counts[bin] === 0) continue;
    binSpacing[bin] = sampleSpacing(spheres, samples, bin, counts[bin]);
    if (binSpacing[bin] >= 0) kept += samples.length[bin];
  }
  const centres = new Float64Array(4 * kept);
  let o = 0;
  for (let bin = 0; bin < bins; bin++) {
    if (!(binSpacing[bin] >= 0)) continue;
    const base = bin * 2 * SAMPLE_MIN;
    for (let j = 0; j < samples.length[bin]; j++, o += 4) {
      const i = samples.indices[base + j];
      centres[o] = spheres[4 * i];
      centres[o + 1] = spheres[4 * i + 1];
      centres[o + 2] = spheres[4 * i + 2];
      centres[o + 3] = bin;
    }
  }
  return { binSpacing, centres };
}
