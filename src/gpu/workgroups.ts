/**
 * Every kernel's workgroup size, in one place. A pass creates its pipelines with its entry as
 * the `WG` (or `TILE`) override constant, which the shaders declare without a default, and sizes
 * its dispatches by the same number; the scan and the radix sort size their workgroup memory by
 * theirs, so their shader modules interpolate them as constants.
 *
 * Sized by what each kernel shares (on SwiftShader's 4-lane SIMD groups anything from 64 up
 * runs alike): one thread per sphere or box for builds and walks; 64 where a thread's work
 * varies most (casts, BVH walks), so that fewer threads wait on the slowest in their group.
 * Every size is within WebGPU's default limits (256 invocations, 256 on x).
 */
export const WORKGROUP_SIZE = {
  /** allPairs, boxAllPairs: one tile of spheres shared through workgroup memory. */
  allPairsTile: 64,
  /** gridCount, gridScatter. */
  gridBuild: 256,
  /** gridPairs: one thread per sphere walking its cells. */
  gridPairs: 256,
  /** boxGridPairs: one thread per box. */
  boxPairs: 128,
  /** castMain (nearest, count, write) over every broad phase but the BVH's walk. */
  casts: 64,
  /** bvhCodes, bvhCodesHi, bvhGather, bvhPyramid, bvhNodes. */
  bvhBuild: 256,
  /** bvhPairs, bvhBoxes: a stack walk per thread. */
  bvhQuery: 64,
  /** sweepKeys, sweepGather. */
  sweepBuild: 256,
  /** sweepPairs, sweepBoxes. */
  sweepQuery: 128,
  /** The particle step's kernels. */
  particles: 128,
  /** residentCheck. */
  residentCheck: 256,
  /** scanReduce, scanDownsweep, 'serial' variant: a chunk of 32 values a thread. */
  scan: 128,
  /** scanReduce, scanDownsweep, 'tiled' variant: a tile of 8 values a thread in workgroup memory; a multiple of 16. */
  scanTile: 256,
  /** The radix sort's workgroup strategy (its tile). */
  radix: 128,
  /** The radix sort's thread strategy. */
  radixThread: 64,
  /** The radix sort's subgroup strategy. */
  radixSubgroup: 64,
} as const;
