/**
 * The work of a batch of casts over the scene, by estimate, for 'auto' (chooseBroadphase weighs
 * each phase's cast cost from it: src/broadphase/<name>/castCost.ts).
 *
 * The grid walks each cast's slabs of cells along its dominant axis, in every level its path
 * meets, over the stretch within twice the reach of the level's bounds, until the nearest hit
 * (src/reference/gridQueries.ts gridCasts is its twin). What decides
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
import { SLAB_X, EXT_SCALE, LOG2_BIAS } from './level.js';
import { levelOfLog2, type GridPlan } from './plan.js';
import { SAMPLE_MIN } from './spacing.js';
import { gridWalkSlack, type CastReach } from './reach.js';
import type { SphereStats } from './stats.js';

/** What 'auto' knows of a cast batch: how many, their total length, and on the CPU (one-shot calls) the packed records, (A, radius), (B, 0). */
export interface CastShapeWithRecords {
  count: number;
  totalLength: number;
  /** Longest cast and largest |coordinate| (the GPU's slack grows with them), when known. */
  maxLength?: number;
  maxAbs?: number;
  packed?: Float32Array;
}

/** Bounds at or below this are a level's "no bounds" (−F32_MAX): nothing to clip to. */
const F32_MAX_BOUND = 3e38;

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
 * Where each octave's spheres can be met along a cast: each sampled centre stands for a ball of
 * its octave's sample spacing (plus the cast's radius) holding its octave's spheres at their
 * density, and an octave's balls give merged stretches [lo, hi] of the cast. A dense blob of
 * tiny spheres then counts inside the blob only, and large spheres around it where they are.
 */
function stretchesAlong(
  cast: SampledCast,
  centres: Float64Array,
  reach: Float64Array,
): Map<number, [number, number][]> {
  const byBin = new Map<number, [number, number][]>();
  for (let o = 0; o < centres.length; o += 4) {
    const bin = centres[o + 3];
    const R = reach[bin] + cast.radius;
    const p = [centres[o] - cast.a[0], centres[o + 1] - cast.a[1], centres[o + 2] - cast.a[2]];
    const t = p[0] * cast.n[0] + p[1] * cast.n[1] + p[2] * cast.n[2];
    const d2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2] - t * t;
    if (d2 >= R * R) continue;
    const w = Math.sqrt(R * R - d2);
    const lo = Math.max(t - w, 0),
      hi = Math.min(t + w, cast.length);
    if (lo < hi) {
      let list = byBin.get(bin);
      if (!list) byBin.set(bin, (list = []));
      list.push([lo, hi]);
    }
  }
  for (const [bin, list] of byBin) {
    list.sort((p, q) => p[0] - q[0]);
    const merged: [number, number][] = [];
    for (const [lo, hi] of list) {
      const last = merged[merged.length - 1];
      if (last && lo <= last[1]) last[1] = Math.max(last[1], hi);
      else merged.push([lo, hi]);
    }
    byBin.set(bin, merged);
  }
  return byBin;
}

/**
 * How far a walk goes before its nearest hit, by estimate: it crosses the empty stretches whole
 * and hits where the collisions met along it (each octave's `rate` a unit of length inside its
 * stretches: density × cross section) sum to 1. The cast's length when they never do.
 */
function walkUntilHit(
  stretches: Map<number, [number, number][]>,
  rate: (bin: number) => number,
  length: number,
): number {
  const events: [number, number][] = [];
  for (const [bin, list] of stretches) {
    const k = rate(bin);
    if (k > 0) for (const [lo, hi] of list) events.push([lo, k], [hi, -k]);
  }
  events.sort((p, q) => p[0] - q[0]);
  let depth = 0,
    current = 0,
    t = 0;
  for (const [at, change] of events) {
    if (current > 0 && depth + current * (at - t) >= 1) return t + (1 - depth) / current;
    depth += current * (at - t);
    current = Math.max(current + change, 0);
    t = at;
  }
  return length;
}

/** The length of the stretches before `t`. */
function coveredBefore(list: [number, number][] | undefined, t: number): number {
  let sum = 0;
  for (const [lo, hi] of list ?? []) if (lo < t) sum += Math.min(hi, t) - lo;
  return sum;
}

/**
 * The grid walk's slabs, rows and candidates for these casts over `plan`, by estimate (see the
 * module's comment). Rows: each slab's cells across the cast (its travel across the slab plus
 * the reach on each side), within the level's cells; candidates: the spheres in the tube the walk
 * sweeps through populated space.
 */
export function estimateGridCastWork(
  plan: GridPlan,
  stats: SphereStats,
  shape: CastShapeWithRecords,
  nearSlack: (reach: CastReach) => number,
): GridCastWork {
  const work: GridCastWork = { slabs: 0, rows: 0, candidates: 0, near: 0 };
  if (shape.count === 0) return work;
  // Each octave's density where it lies, its reach (its sample spacing: the spacing times
  // (count / sampled)^⅓), and each level's density and collision cross-section (radius about ¾
  // of the octave's largest).
  const reach = new Float64Array(stats.log2Hist.length);
  const density0 = new Float64Array(stats.log2Hist.length); // each octave's density where it lies
  const cross = new Float64Array(stats.log2Hist.length); // and its radius, for the cross section
  const levelDensity = plan.levels.map(() => 0);
  const levelOfBin = Array.from(stats.log2Hist, (_, bin) =>
    levelOfLog2(bin - LOG2_BIAS, plan.levelBias, plan.levelStep, plan.levels.length),
  );
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
    density0[bin] = rho;
    cross[bin] = r;
    levelDensity[levelOfLog2(bin - LOG2_BIAS, plan.levelBias, plan.levelStep, plan.levels.length)] += rho;
    density += rho;
    radial += rho * 2 * Math.PI * r;
    collision += rho * Math.PI * r * r;
  });
  // Each walk widens every cast's reach by its rounding slack: a descent's by `nearSlack` (the
  // BVH's: ulps of the coordinates), the grid's by ulps of the cast's offset from each level's origin
  // (gridWalkSlack, below; the scene's extent there for casts not sampled).
  let extent = 0;
  for (let a = 0; a < 3; a++) extent = Math.max(extent, Math.abs(stats.min[a]), Math.abs(stats.max[a]));
  const castReach = {
    maxAbs: Math.max(extent, shape.maxAbs ?? 0),
    maxLength: shape.maxLength ?? shape.totalLength / shape.count,
    maxRadius: stats.maxRadius,
  };
  const descentSlack = nearSlack(castReach);
  const localExtent = plan.levels.map((level) => {
    let e = 0;
    for (let a = 0; a < 3; a++)
      e = Math.max(e, Math.abs(stats.min[a] - level.origin[a]), Math.abs(stats.max[a] - level.origin[a]));
    return e;
  });

  const sampled =
    shape.packed && stats.binBounds && stats.sampleCentres && stats.sampleCentres.length > 0
      ? sampleCasts(shape.packed, shape.count)
      : [];
  // Without sampled casts: one cast of the mean length, walking it whole through spheres spread over the bounds.
  const casts: SampledCast[] =
    sampled.length > 0
      ? sampled
      : [
          {
            a: [0, 0, 0],
            n: [1 / Math.sqrt(3), 1 / Math.sqrt(3), 1 / Math.sqrt(3)],
            length: shape.totalLength / shape.count,
            radius: 0,
          },
        ];
  const scale = shape.count / casts.length;
  const spread = shape.count > 0 && sampled.length === 0;
  for (const cast of casts) {
    const rc = cast.radius;
    const tube = collision + radial * rc + Math.PI * rc * rc * density;
    const freePath = tube > 0 ? 1 / tube : Infinity;
    const rate = density0.map((rho, bin) => rho * Math.PI * (cross[bin] + rc) ** 2);
    const stretches = spread ? undefined : stretchesAlong(cast, stats.sampleCentres!, reach);
    const an = cast.n.map(Math.abs);
    const axis = an[0] >= an[1] && an[0] >= an[2] ? 0 : an[1] >= an[2] ? 1 : 2;
    plan.levels.forEach((level, b) => {
      if (level.count === 0) return;
      // The kernel walks the levels coarsest first, each up to the best hit so far: level b's
      // walk stops at the first hit among the octaves of levels from b up. Its candidates come
      // from its own octaves, along the length of their stretches it walks.
      const walkedBefore = (bin: number): boolean => levelOfBin[bin] >= b;
      const walk = spread
        ? cast.length
        : walkUntilHit(stretches!, (bin) => (walkedBefore(bin) ? rate[bin] : 0), cast.length);
      let met = 0;
      for (let bin = 0; bin < rate.length; bin++) {
        if (levelOfBin[bin] !== b || density0[bin] === 0) continue;
        met += density0[bin] * (spread ? Math.min(walk, freePath) : coveredBefore(stretches!.get(bin), walk));
      }
      const c = level.cellSize;
      let offset = localExtent[b];
      if (!spread)
        offset = Math.max(
          Math.abs(cast.a[0] - level.origin[0]),
          Math.abs(cast.a[1] - level.origin[1]),
          Math.abs(cast.a[2] - level.origin[2]),
        );
      const h = level.maxRadius * EXT_SCALE + rc + gridWalkSlack(offset, cast.length, rc, level.maxRadius, c);
      const thickness = axis === 0 ? SLAB_X : 1;
      // The stretch the kernel walks: the cast, up to its hit, clipped to where it is within
      // twice the reach of the level's bounds (a sampled cast's; the spread one walks it whole).
      let from = 0;
      let to = walk;
      if (!spread) {
        for (let o = 0; o < 3; o++) {
          if (!(Math.abs(cast.n[o]) >= 2 ** -20) || !(level.lower[o] > -F32_MAX_BOUND)) continue;
          const ta = (level.lower[o] - 2 * h - cast.a[o]) / cast.n[o];
          const tb = (level.upper[o] + 2 * h - cast.a[o]) / cast.n[o];
          from = Math.max(from, Math.min(ta, tb));
          to = Math.min(to, Math.max(ta, tb));
        }
        if (from > to) return;
      }
      // The cells the walk spans on each axis, clamped to the level's as the kernel clamps them
      // (a sampled cast knows where it starts; the spread one only the level's size).
      const span = (o: number): number => {
        const lo = Math.min(cast.a[o] + cast.n[o] * from, cast.a[o] + cast.n[o] * to) - h;
        const hi = Math.max(cast.a[o] + cast.n[o] * from, cast.a[o] + cast.n[o] * to) + h;
        if (spread) return Math.min((hi - lo) / c + 1, level.dims[o]);
        const cell = (x: number): number =>
          Math.min(Math.max(Math.floor((x - level.origin[o]) / c), 0), level.dims[o] - 1);
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
      work.candidates += scale * Math.min(level.count, (met + 2 * h * levelDensity[b]) * (2 * h + c) * (2 * h + c));
      const hb = level.maxRadius * EXT_SCALE + rc + descentSlack;
      // The BVH's descent, nearer child first and pruned by the best hit, reaches the spheres
      // whose grown boxes the cast enters before its hit: along the walked stretches, and when
      // it hits, those up to hb past the hit (their boxes, grown by hb, begin before it: a
      // sphere cast into a touching lattice enters the boxes of the whole layer it meets, some
      // 80 spheres for a radius 8 times theirs, where its mean free path holds one).
      const ahead = walk < cast.length ? hb * levelDensity[b] : 0;
      work.near += scale * Math.min(level.count, (met + ahead) * 4 * hb * hb);
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
