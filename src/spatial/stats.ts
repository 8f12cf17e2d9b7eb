/**
 * What validation learns for the planners in its one pass over the records: the spheres'
 * statistics and a sample of a box query's boxes. Its own module so that validation (which
 * gathers them) and the grid planner (which reads them) import it, not each other.
 */

/**
 * What one pass over the spheres learns for the grid planner.
 *
 * @category Collider
 */
export interface SphereStats {
  /** Number of spheres. */
  count: number;
  /** Bounds of the centres (not of the spheres). Infinity/-Infinity when empty. */
  min: [number, number, number];
  /** Upper bounds of the centres, as `min`. */
  max: [number, number, number];
  /** The largest radius (0 when empty). */
  maxRadius: number;
  /** hist[c + LOG2_BIAS] = number of radii r with ceil(log2 r) = c (zero and subnormal radii count in the lowest bin). */
  log2Hist: Uint32Array;
  /** Largest radius in each histogram bin. */
  log2MaxRadius: Float32Array;
  /** Variance of the centres along each axis (0 when empty). */
  variance: [number, number, number];
  /**
   * Bounds of the centres in each histogram bin: binBounds[6·bin .. 6·bin + 5] = min x, y, z,
   * max x, y, z (±Infinity for an empty bin). Gathered for one-shot queries, whose grid levels
   * then cover only where their own spheres are; absent where the spheres will move (a particle
   * world plans over its bounds).
   */
  binBounds?: Float64Array;
  /**
   * The spacing ρ^−⅓ of each histogram bin's centres where they lie (src/spatial/spacing.ts): from
   * an evenly strided sample's median nearest-neighbour distance, so far outliers and far-apart
   * clusters do not inflate it as they inflate the bounds. 0 when most centres coincide, NaN when
   * the bin has too few members to say. Gathered with `binBounds`.
   */
  binSpacing?: Float64Array;
  /**
   * The sampled centres behind `binSpacing`: x, y, z and the histogram bin, four numbers each
   * (128–256 a bin). 'auto' finds from them where the spheres are along a cast
   * (src/spatial/castWork.ts).
   */
  sampleCentres?: Float64Array;
}

/** Boxes whose extents a box query's plan is estimated from (evenly spaced through the query's). */
export const BOX_SAMPLE = 64;

/** What the planner knows of a box query's boxes. */
export interface BoxSample {
  /** Boxes in the query. */
  count: number;
  /** The enclosing AABBs of up to BOX_SAMPLE of them: x, y, z of each one's lower corner. */
  lo: Float64Array;
  /** …and of its upper corner. */
  hi: Float64Array;
}
