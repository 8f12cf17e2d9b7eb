/** The LBVH's structs: its parameters, its levels and its nodes. Each is interpolated into the shaders that use it as `${Struct.wgsl}` (src/layout.ts). */
import { defineStruct } from '../../src/layout.js';

/** The LBVH kernels' parameters (uniform): the Morton grid over the centres' bounds, counts, slack. */
export const BvhParams = defineStruct('BvhParams', {
  /** The centres' lower bound: Morton cell 0. */
  origin: 'vec3f',
  /** The leaves: spheres (broad phase 'bvh') or a mesh's triangles (src/mesh/). */
  sphereCount: 'u32',
  /** 2^20 / extent per axis (0 for an axis of zero extent: every code has 0 there). */
  scale: 'vec3f',
  boxCount: 'u32',
  /** Unused, written 0: leaf boxes grow by their own radius (paddedRadius, ./bvh.wgsl.ts), not by a slack of the coordinates. */
  slack: 'f32',
});

/** One level of the LBVH's box pyramid (uniform, one per level): blocks of 2^level sorted leaves. */
export const BvhLevel = defineStruct('BvhLevel', {
  level: 'u32',
  /** Full blocks in this level: sphereCount >> level. */
  count: 'u32',
  /** Where the level below (level − 1 ≥ 1) and this level start in the pyramid, in blocks. */
  srcBase: 'u32',
  dstBase: 'u32',
});

/**
 * An internal node of the LBVH (storage): its box (the union of its leaves' boxes) and its two
 * children, internal node indices or sorted leaf positions with BVH_LEAF (bit 31) set.
 */
export const BvhNode = defineStruct('BvhNode', {
  lo: 'vec3f',
  left: 'u32',
  hi: 'vec3f',
  right: 'u32',
});

/**
 * An internal node as a mesh's walks read it (storage): its two children's boxes beside their
 * indices (BvhNode's `left` and `right`), so that one 64-byte read a step tests both children,
 * with no second read that waits on the first, and a leaf child is tested by its triangle's box
 * before the triangle itself (Aila and Laine's layout). Written by the boxes pass of the mesh's
 * build and refit from the BvhNode tree (shaders/mesh/build.wgsl.ts).
 */
export const BvhChildBoxes = defineStruct('BvhChildBoxes', {
  leftLo: 'vec3f',
  left: 'u32',
  leftHi: 'vec3f',
  right: 'u32',
  rightLo: 'vec3f',
  /** The internal nodes on the longest path down from this one, itself included (its leaves 0): the root's sizes the walks' stack (walkStackFor). */
  height: 'u32',
  rightHi: 'vec3f',
});
