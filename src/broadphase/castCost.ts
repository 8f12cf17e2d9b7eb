/**
 * What a batch of casts costs each broad phase, for 'auto' (chooseBroadphase): the grid's walk,
 * the BVH's descent and brute force, in one unit, brute force's test of one cast against one
 * sphere. The constants are fitted to times measured on SwiftShader (docs/PERFORMANCE.md,
 * "Casts: 'auto'"), over the bench's scene kinds with mixed casts.
 *
 * The grid walks each cast's slabs of cells along its dominant axis, in every level its path
 * meets, until the nearest hit (src/reference/gridQueries.ts gridCasts is its twin). What decides
 * the cost is how far a cast walks before it hits: through empty cells between far-apart blobs a
 * cast walks thousands of rows and meets nothing, where the BVH skips the empty space in a few
 * nodes. So for a sample of the casts (when the call has them on the CPU) the estimate finds where
 * the spheres lie along each one, from validation's sampled centres (SphereStats.sampleCentres,
 * each standing for a ball of its octave's sample spacing): the cast walks the empty stretches
 * whole and, inside the populated ones, about a mean free path (from the octaves' measured
 * spacings and radii) before it hits. Without sampled casts or centres (encoded calls, a
 * particle world) every cast is taken to walk its full length through spheres spread over the
 * scene's bounds.
 */
import { SLAB_X, EXT_SCALE, LOG2_BIAS } from '../grid/level.js';
import { levelOfLog2 } from '../grid/plan.js';
import { SAMPLE_MIN } from '../grid/spacing.js';
import type { GridPlan } from '../grid/plan.js';
import type { SphereStats } from '../validate.js';
import { gridCastSlack, bvhCastSlack } from '../castQueries.js';

/** What 'auto' knows of a cast batch: how many, their total length, and on the CPU (one-shot calls) the packed records, (A, radius), (B, 0). */
export interface CastShapeWithRecords {
  count: number;
  totalLength: number;
  /** Longest cast and largest |coordinate| (the GPU's slack grows with them), when known. */
  maxLength?: number;
  maxAbs?: number;
  packed?: Float32Array;
}

/** Casts sampled (evenly through the batch) to estimate the walk. */
export const CAST_SAMPLE = 64;

/** Work the grid's walk does, by estimate, and the spheres near the casts' paths. */
export interface GridCastWork {
  slabs: number;
  rows: number;
  candidates: number;
  /** Spheres whose bounds grown by the cast's reach and slack the walked paths cross (what a BVH's descent reaches besides its log n nodes). */
  near: number;
}

/** One sampled cast: origin, unit direction, length, radius. */
interface SampledCast {
  a: number[];
  n: number[];
  length: number;
  radius: number;
}

function sampleCasts(packed: Float32Array, count: number): SampledCast[] {
  const out: SampledCast[] = [];
  const step = Math.max(1, count / CAST_SAMPLE);
  for (let s = 0; s < Math.min(CAST_SAMPLE, count); s++) {
    const o = 8 * Math.floor(s * step);
    const a = [packed[o], packed[o + 1], packed[o + 2]];
    const d = [packed[o + 4] - a[0], packed[o + 5] - a[1], packed[o + 6] - a[2]];
    const length = Math.hypot(d[0], d[1], d[2]);
    if (!(length > 0)) continue;
    out.push({ a, n: d.map((v) => v / length), length, radius: packed[o + 3] });
  }
  return out;
}

/**
 * How far along a cast the walk goes before its nearest hit, by estimate: the stretches of the
 * cast farther than its octave's sample spacing from every sampled centre are empty and walked
 * whole; inside the covered stretches the cast hits after about `freePath`. Also returns the
 * length walked inside covered stretches (where candidates are met).
 */
function walkAlong(cast: SampledCast, centres: Float64Array, reach: Float64Array, freePath: number): { walk: number; populated: number } {
  const intervals: [number, number][] = [];
  for (let o = 0; o < centres.length; o += 4) {
    const R = reach[centres[o + 3]] + cast.radius;
    const p = [centres[o] - cast.a[0], centres[o + 1] - cast.a[1], centres[o + 2] - cast.a[2]];
    const t = p[0] * cast.n[0] + p[1] * cast.n[1] + p[2] * cast.n[2];
    const d2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2] - t * t;
    if (d2 >= R * R) continue;
    const w = Math.sqrt(R * R - d2);
    const lo = Math.max(t - w, 0), hi = Math.min(t + w, cast.length);
    if (lo < hi) intervals.push([lo, hi]);
  }
  intervals.sort((p, q) => p[0] - q[0]);
  let covered = 0;
  let end = 0;
  for (const [lo0, hi] of intervals) {
    const lo = Math.max(lo0, end);
    if (hi <= lo) continue;
    if (covered + (hi - lo) >= freePath) return { walk: lo + (freePath - covered), populated: freePath };
    covered += hi - lo;
    end = hi;
  }
  return { walk: cast.length, populated: covered };
}

/**
 * The grid walk's slabs, rows and candidates for these casts over `plan`, by estimate (see the
 * module's comment). Rows: each slab's cells across the cast (its travel across the slab plus
 * the reach on each side), within the level's cells; candidates: the spheres in the tube the walk
 * sweeps through populated space.
 */
export function estimateGridCastWork(plan: GridPlan, stats: SphereStats, shape: CastShapeWithRecords): GridCastWork {
  const work: GridCastWork = { slabs: 0, rows: 0, candidates: 0, near: 0 };
  if (shape.count === 0) return work;
  // Each octave's density where it lies, its reach (its sample spacing: the spacing times
  // (count / sampled)^⅓), and each level's density and collision cross-section (radius about ¾
  // of the octave's largest).
  const reach = new Float64Array(stats.log2Hist.length);
  const levelDensity = plan.levels.map(() => 0);
  let collision = 0; // Σ ρ π r²
  let radial = 0; // Σ ρ 2π r (times the cast's radius)
  let density = 0; // Σ ρ (times π rc²)
  stats.log2Hist.forEach((count, bin) => {
    if (count === 0) return;
    // Spacings and sampled centres describe where the spheres are now only with bounds per
    // octave (one-shot calls); a particle world's stats keep them from its last setParticles.
    const spacing = stats.binBounds ? stats.binSpacing?.[bin] : undefined;
    const sampled = Math.min(count, 2 * SAMPLE_MIN);
    reach[bin] = spacing !== undefined && spacing >= 0 ? spacing * Math.cbrt(count / sampled) : 0;
    // Its density where it lies: from the spacing, or its count over its bounds when that is
    // more (the spacing's 3D scaling underestimates the density of a line or a plane).
    const rho = Math.max(spacing !== undefined && spacing > 0 ? spacing ** -3 : 0, count / boundsVolume(stats, bin));
    const r = stats.log2MaxRadius[bin] * 0.75;
    levelDensity[levelOfLog2(bin - LOG2_BIAS, plan.levelBias, plan.levelStep, plan.levels.length)] += rho;
    density += rho;
    radial += rho * 2 * Math.PI * r;
    collision += rho * Math.PI * r * r;
  });
  // Each walk widens every cast's reach by its rounding slack (castQueries.ts).
  let extent = 0;
  for (let a = 0; a < 3; a++) extent = Math.max(extent, Math.abs(stats.min[a]), Math.abs(stats.max[a]));
  const castReach = { maxAbs: Math.max(extent, shape.maxAbs ?? 0), maxLength: shape.maxLength ?? shape.totalLength / shape.count, maxRadius: stats.maxRadius };
  const slack = gridCastSlack(castReach);
  const bvhSlack = bvhCastSlack(castReach);

  const sampled = shape.packed && stats.binBounds && stats.sampleCentres && stats.sampleCentres.length > 0 ? sampleCasts(shape.packed, shape.count) : [];
  // Without sampled casts: one cast of the mean length, walking it whole through spheres spread over the bounds.
  const casts: SampledCast[] = sampled.length > 0 ? sampled : [{ a: [0, 0, 0], n: [1 / Math.sqrt(3), 1 / Math.sqrt(3), 1 / Math.sqrt(3)], length: shape.totalLength / shape.count, radius: 0 }];
  const scale = shape.count / casts.length;
  const spread = shape.count > 0 && sampled.length === 0;
  for (const cast of casts) {
    const rc = cast.radius;
    const tube = collision + radial * rc + Math.PI * rc * rc * density;
    const freePath = tube > 0 ? 1 / tube : Infinity;
    const { walk, populated } = spread
      ? { walk: cast.length, populated: Math.min(cast.length, freePath) }
      : walkAlong(cast, stats.sampleCentres!, reach, freePath);
    const an = cast.n.map(Math.abs);
    const axis = an[0] >= an[1] && an[0] >= an[2] ? 0 : an[1] >= an[2] ? 1 : 2;
    plan.levels.forEach((level, b) => {
      if (level.count === 0) return;
      const c = level.cellSize;
      const h = level.maxRadius * EXT_SCALE + rc + slack;
      const thickness = axis === 0 ? SLAB_X : 1;
      // The cells the walk spans on each axis, clamped to the level's as the kernel clamps them
      // (a sampled cast knows where it starts; the spread one only the level's size).
      const span = (o: number): number => {
        const lo = Math.min(cast.a[o], cast.a[o] + cast.n[o] * walk) - h;
        const hi = Math.max(cast.a[o], cast.a[o] + cast.n[o] * walk) + h;
        if (spread) return Math.min((hi - lo) / c + 1, level.dims[o]);
        const cell = (x: number): number => Math.min(Math.max(Math.floor((x - level.origin[o]) / c), 0), level.dims[o] - 1);
        return cell(hi) - cell(lo) + 1;
      };
      const slabs = Math.floor((span(axis) - 1) / thickness) + 1;
      let rowsPerSlab = 1;
      for (let o = 0; o < 3; o++) {
        if (o === axis) continue;
        const across = (thickness * c * an[o]) / Math.max(an[axis], 1e-9) + 2 * h;
        rowsPerSlab *= Math.min(across / c + 1, span(o));
      }
      work.slabs += scale * slabs;
      work.rows += scale * slabs * rowsPerSlab;
      // Candidates: the level's spheres in the cells the walk sweeps through populated space.
      work.candidates += scale * Math.min(level.count, levelDensity[b] * (populated + 2 * h) * (2 * h + c) * (2 * h + c));
      const hb = level.maxRadius * EXT_SCALE + rc + bvhSlack;
      work.near += scale * Math.min(level.count, levelDensity[b] * (populated + 2 * hb) * 4 * hb * hb);
    });
  }
  return work;
}

/** The volume of a bin's centres' bounds (the scene's without bounds per bin), each side at least the bin's largest diameter. */
function boundsVolume(stats: SphereStats, bin: number): number {
  const b = stats.binBounds;
  let v = 1;
  for (let a = 0; a < 3; a++) {
    const extent = b ? b[6 * bin + 3 + a] - b[6 * bin + a] : stats.max[a] - stats.min[a];
    v *= Math.max(extent, 2 * stats.log2MaxRadius[bin], 1e-30);
  }
  return v;
}
