/**
 * The grid plan's shape (public: `collider.planFor` returns it, `reference.gridSpherePairs` takes
 * it): its levels, its buckets and its tuning. ./plan.ts makes it.
 */
/**
 * One level of a {@link GridPlan}: spheres of similar size, in cells about their diameter.
 *
 * @category Collider
 */
export interface GridLevelPlan {
  /**
   * Where the level's cell (0, 0, 0) starts: the minimum corner of its own spheres' centres when
   * the stats know them per octave (one-shot queries), else of all the centres (a world: its bounds).
   */
  origin: [number, number, number];
  /**
   * Bounds of the level's centres when the stats know them per octave: a query box that misses
   * them skips the level (its cells would clamp the box into edge cells that hold no partner).
   * ∓F32_MAX otherwise (a world's particles move: every level is walked).
   */
  lower: [number, number, number];
  /** The upper corner of those bounds (F32_MAX on every axis when `lower` is −F32_MAX). */
  upper: [number, number, number];
  /** Cell side, a power of two. */
  cellSize: number;
  /** 1 / cellSize (exact: a power of two). */
  invCellSize: number;
  /** Largest radius among the spheres of this level (0 when empty). */
  maxRadius: number;
  /** Spheres in this level. */
  count: number;
  /** Cells per axis (cell coordinates are clamped into [0, dims - 1]). */
  dims: [number, number, number];
  /** Dense mode: the bucket of this level's first cell. */
  keyBase: number;
}

/**
 * How the grid broad phase bins a set of spheres: levels by radius, cells, buckets
 * (`collider.planFor(spheres)`; `reference.gridSpherePairs` takes it too).
 *
 * @category Collider
 */
export interface GridPlan {
  /** Number of spheres planned for. */
  sphereCount: number;
  /** A sphere's level: 0 when ceilLog2(r) ≤ levelBias, else ceil((ceilLog2(r) − levelBias) / levelStep), at most the last. */
  levelBias: number;
  /** Octaves of radius per level. */
  levelStep: number;
  /** The levels, smallest spheres first. */
  levels: GridLevelPlan[];
  /** Number of buckets: the number of cells when dense, else a power of two. */
  bucketCount: number;
  /** Bucket of a cell = (rowKey + x) & bucketMask: all ones when dense, bucketCount − 1 when hashed. */
  bucketMask: number;
  /** True when every cell has its own bucket (no hashing, no collisions). */
  dense: boolean;
}

/**
 * Tuning of the grid plan (`options.grid` of a Collider or ParticleWorld); defaults are measured.
 *
 * @category Collider
 */
export interface PlanOptions {
  /** Use the dense layout while total cells ≤ denseFactor × sphere count. Default 8. */
  denseFactor?: number;
  /** Most buckets the device can hold (a power of two). */
  maxBuckets?: number;
  /** Octaves of radius per level (1–8); by default chosen by estimateCost. */
  levelStep?: number;
}
