/** The grid's structs: its levels and its parameters (src/spatial/plan.ts packs them). Each is interpolated into the shaders that use it as `${Struct.wgsl}` (src/layout.ts). */
import { defineStruct } from '../../src/layout.js';
import { MAX_LEVELS } from '../../src/spatial/level.js';

/** One level of the multi-level grid (see src/spatial/plan.ts). */
export const GridLevel = defineStruct('GridLevel', {
  dims: 'vec3u',
  keyBase: 'u32',
  /** Where the level's cell (0, 0, 0) starts. */
  origin: 'vec3f',
  cellSize: 'f32',
  /** Bounds of the level's centres: a query box outside them skips the level (∓f32 max: never). */
  lower: 'vec3f',
  invCellSize: 'f32',
  upper: 'vec3f',
  maxRadius: 'f32',
  count: 'u32',
  /** The next level after this one that holds spheres (levelCount when none): loops over levels skip the empty ones. */
  next: 'u32',
  /**
   * The radii the level holds, as the range [lo, hi] of ceil(log2 r) (the plan's levelOfLog2
   * read backwards): testing a sphere's level this way costs no division.
   */
  log2Range: 'vec2i',
});

/** The grid a broad phase was planned with (uniform). */
export const GridParams = defineStruct('GridParams', {
  sphereCount: 'u32',
  bucketMask: 'u32',
  levelBias: 'i32',
  levelStep: 'u32',
  levelCount: 'u32',
  dense: 'u32',
  /** Nonzero: the grid's count kernel returns at once (a gated caller copies its switch here on the GPU). */
  skip: 'u32',
  /** The first level that holds spheres (levelCount when none); each level's `next` leads on. */
  firstLevel: 'u32',
  levels: { array: GridLevel, length: MAX_LEVELS },
});
