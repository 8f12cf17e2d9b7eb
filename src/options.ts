/**
 * The options the query calls share (the Collider's and the ParticleWorld's), and the sizes at
 * which 'auto' switches broad phase.
 */

import { BROADPHASE_NAMES, type BroadphaseName } from './broadphase/registry.js';

/**
 * How candidates are found: 'all-pairs' tests everything; 'grid' bins the spheres in a
 * multi-level grid; 'sweep' sorts them along one axis and sweeps (pairs and box pairs only);
 * 'bvh' builds a linear BVH over Morton-sorted spheres; 'auto' picks by the scene
 * (src/broadphase/index.ts). The names are the registry's (src/broadphase/registry.ts):
 * `NamesAgree` below fails to compile when they differ.
 *
 * @category Collider
 */
export type Broadphase = 'auto' | 'all-pairs' | 'grid' | 'sweep' | 'bvh';
/**
 * Every {@link Broadphase} name, e.g. to validate a user's choice or loop over them in tests:
 * 'auto', then the broad phases of the registry (src/broadphase/registry.ts) in its order.
 *
 * @category Collider
 */
export const BROADPHASES: readonly Broadphase[] = ['auto', ...BROADPHASE_NAMES];

/** The registry's names are the `Broadphase` option's, no more, no fewer: a compile error otherwise. */
export type NamesAgree = Assert<
  [BroadphaseName] extends [Exclude<Broadphase, 'auto'>]
    ? [Exclude<Broadphase, 'auto'>] extends [BroadphaseName]
      ? true
      : false
    : false
>;
type Assert<T extends true> = T;

/**
 * 'auto' uses all-pairs below this many spheres and the grid from here on. Measured with
 * `npm run bench -- --crossover` (docs/PERFORMANCE.md): on SwiftShader the grid's wall time
 * beats all-pairs between 128 and 256 spheres. On a GPU both cost less than the readback there.
 *
 * @category Collider
 */
export const AUTO_GRID_MIN_SPHERES = 256;
/**
 * Sphere–box pairs: 'auto' bins the spheres when there are at least AUTO_GRID_MIN_SPHERES of
 * them and at least this many boxes. With fewer boxes all-pairs is N·M tests spread over N
 * threads, which costs less than building the grid.
 *
 * @category Collider
 */
export const AUTO_GRID_MIN_BOXES = 32;

/**
 * Options of the pair calls: `spherePairs`, `sphereBoxPairs`, `sphereOrientedBoxPairs`.
 *
 * @category Collider
 */
export interface PairOptions {
  /** How candidates are found (see {@link Broadphase}); every choice gives the same pairs. Default 'auto'. */
  broadphase?: Broadphase;
  /** Most pairs the caller accepts; more throws CapacityError with the true count. */
  maxPairs?: number;
  /** Time every GPU stage with timestamp queries; the result is in `collider.lastProfile`. */
  profile?: boolean;
  /**
   * An array to write the pairs into: when it holds them (2 words a pair), the call returns
   * `out.subarray(0, 2 × count)`, a view of it; when it does not, a new array (so the answer is
   * always whole). Pass the same array every frame and no result array is allocated. The
   * caller must not read it until the call's promise resolves.
   */
  out?: Uint32Array;
}

/**
 * Options of `raycast` and `sphereCast` (the Collider's and the ParticleWorld's).
 *
 * @category Collider
 */
export interface CastOptions {
  /** 'all-pairs' tests every ray against every sphere; 'grid' walks the sphere grid. */
  broadphase?: Broadphase;
  /** Return every hit of every ray (by distance, then index) instead of the nearest. */
  allHits?: boolean;
  /** With allHits: the most hits the caller accepts; more throws CapacityError with the true count. */
  maxHits?: number;
  /** Time every GPU stage with timestamp queries; the result is in `collider.lastProfile`. */
  profile?: boolean;
  /**
   * Arrays to write the result into, any of them: each one long enough for its field is filled
   * and the result holds its prefix (`subarray`), a view of it; a field not given or too short
   * gets a new array (so the answer is always whole). Pass the same arrays every frame and no
   * result array is allocated. The caller must not read them until the call's promise resolves.
   */
  out?: CastOut;
}

/**
 * Arrays a cast call writes its result into ({@link CastOptions.out}): the fields of the result
 * the call returns. A raycast returns index, distance and point; a sphere cast index, distance,
 * center and contact; with allHits both also return offsets. A field the call does not return is
 * an InvalidInputError.
 *
 * @category Collider
 */
export interface CastOut {
  /** The sphere hit, −1 for a miss: one per cast, or per hit with allHits. */
  index?: Int32Array;
  /** The distance travelled to the hit. */
  distance?: Float32Array;
  /** Raycasts: the hit points, xyz each. */
  point?: Float32Array;
  /** Sphere casts: the cast sphere's centre at contact, xyz each. */
  center?: Float32Array;
  /** Sphere casts: the contact points, xyz each. */
  contact?: Float32Array;
  /** allHits: the per-cast offsets into the hits (casts + 1 words). */
  offsets?: Uint32Array;
}
