/**
 * Which edges of a mesh's triangles a particle may touch as edges (the particle world's mesh
 * colliders: shaders/particles/meshes.wgsl.ts). An edge shared by exactly two triangles that lie
 * in one plane, or nearly (their normals within ACTIVE_EDGE_COS, windings made to agree), is
 * inactive: a sphere that touches it is pushed along the face's normal, as by the neighbouring
 * face it also touches, and not along the direction from the edge to its centre. So a ball
 * rolling across a flat tessellated floor meets no seam (the "internal edge" problem; Jolt's
 * active edges, Bullet's btAdjustInternalEdgeContacts). Boundary edges, edges of three or more
 * triangles and creases stay active. Vertices are welded by position, so a mesh without indices
 * (every three vertices a triangle) finds its neighbours too.
 */

import { EDGE_AB, EDGE_BC, EDGE_CA } from '../../shaders/mesh/triangle.wgsl.js';

export { EDGE_AB, EDGE_BC, EDGE_CA };

/**
 * Two faces whose normals are closer than this (cos of 5°, Jolt's default) meet at an inactive
 * edge.
 */
export const ACTIVE_EDGE_COS = Math.cos((5 * Math.PI) / 180);

/** The unit normal of triangle k (0 for a degenerate one). */
function normalOf(positions: Float32Array, indices: Uint32Array, k: number): [number, number, number] {
  const p = (j: number, a: number) => positions[3 * indices[3 * k + j] + a];
  const e1 = [p(1, 0) - p(0, 0), p(1, 1) - p(0, 1), p(1, 2) - p(0, 2)];
  const e2 = [p(2, 0) - p(0, 0), p(2, 1) - p(0, 1), p(2, 2) - p(0, 2)];
  const n: [number, number, number] = [
    e1[1] * e2[2] - e1[2] * e2[1],
    e1[2] * e2[0] - e1[0] * e2[2],
    e1[0] * e2[1] - e1[1] * e2[0],
  ];
  const len = Math.hypot(n[0], n[1], n[2]);
  return len > 0 ? [n[0] / len, n[1] / len, n[2] / len] : [0, 0, 0];
}

/** Each vertex's welded index: the first vertex at the same position. */
function weld(positions: Float32Array): Uint32Array {
  const bits = new Uint32Array(positions.buffer, positions.byteOffset, positions.length);
  const first = new Map<string, number>();
  const out = new Uint32Array(positions.length / 3);
  for (let v = 0; v < out.length; v++) {
    // +0 and −0 are one position.
    const key = `${bits[3 * v] & 0x7fffffff ? bits[3 * v] : 0},${bits[3 * v + 1] & 0x7fffffff ? bits[3 * v + 1] : 0},${bits[3 * v + 2] & 0x7fffffff ? bits[3 * v + 2] : 0}`;
    const seen = first.get(key);
    if (seen === undefined) {
      first.set(key, v);
      out[v] = v;
    } else out[v] = seen;
  }
  return out;
}

/**
 * The flags of each triangle (by triangle index): EDGE_AB, EDGE_BC and EDGE_CA set for its
 * active edges. `positions` x, y, z a vertex; `indices` three a triangle.
 */
export function activeEdges(positions: Float32Array, indices: Uint32Array, cosLimit = ACTIVE_EDGE_COS): Uint8Array {
  const count = indices.length / 3;
  const welded = weld(positions);
  const vertices = welded.length;
  // Each undirected edge: the first and second triangle sides (3k + j) that have it, and how many do.
  const firstSide = new Map<number, number>();
  const secondSide = new Map<number, number>();
  const uses = new Map<number, number>();
  const keyOf = (k: number, j: number): number => {
    const a = welded[indices[3 * k + j]];
    const b = welded[indices[3 * k + ((j + 1) % 3)]];
    return Math.min(a, b) * vertices + Math.max(a, b);
  };
  for (let k = 0; k < count; k++)
    for (let j = 0; j < 3; j++) {
      const key = keyOf(k, j);
      const used = uses.get(key) ?? 0;
      if (used === 0) firstSide.set(key, 3 * k + j);
      else if (used === 1) secondSide.set(key, 3 * k + j);
      uses.set(key, used + 1);
    }
  const flags = new Uint8Array(count).fill(EDGE_AB | EDGE_BC | EDGE_CA);
  for (let k = 0; k < count; k++) {
    const n = normalOf(positions, indices, k);
    if (n[0] === 0 && n[1] === 0 && n[2] === 0) continue;
    for (let j = 0; j < 3; j++) {
      const key = keyOf(k, j);
      if (uses.get(key) !== 2) continue;
      const first = firstSide.get(key)!;
      const side = first === 3 * k + j ? secondSide.get(key)! : first;
      const o = Math.floor(side / 3);
      if (o === k) continue; // a triangle that has one edge twice (degenerate)
      const m = normalOf(positions, indices, o);
      // Windings that agree run the shared edge in opposite directions.
      const sameWay = welded[indices[3 * k + j]] === welded[indices[3 * o + (side % 3)]];
      const cos = (n[0] * m[0] + n[1] * m[1] + n[2] * m[2]) * (sameWay ? -1 : 1);
      if (cos >= cosLimit) flags[k] &= ~(1 << j);
    }
  }
  return flags;
}
