/**
 * Active edges (src/mesh/edges.ts): which triangle edges a particle may touch as edges. Seams
 * between coplanar triangles are inactive; boundaries, creases and edges of three triangles are
 * active; windings that disagree and meshes without indices (welded by position) give the same.
 */
import { describe, it, expect } from 'vitest';
import { activeEdges, EDGE_AB, EDGE_BC, EDGE_CA } from '../../src/mesh/edges.js';

const ALL = EDGE_AB | EDGE_BC | EDGE_CA;

/** Two triangles sharing edge 1–2 of a unit square, the second folded up about it by `angle`. */
function hinge(angle: number, flip = false): { positions: Float32Array; indices: Uint32Array } {
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  // Square (0,0,0), (1,0,0), (0,0,1), and a fourth vertex across the diagonal 1–2, turned about it.
  const mid = [0.5, 0, 0.5];
  const out = [0.5, 0, 0.5]; // from the diagonal's middle to (1, 0, 1)
  const p3 = [mid[0] + out[0] * c, s * Math.hypot(out[0], out[2]), mid[2] + out[2] * c];
  return {
    positions: new Float32Array([0, 0, 0, 1, 0, 0, 0, 0, 1, ...p3]),
    indices: new Uint32Array(flip ? [0, 2, 1, 1, 2, 3] : [0, 2, 1, 2, 3, 1]),
  };
}

describe('active edges', () => {
  it('the seam between two coplanar triangles is inactive on both; their other edges (the boundary) are active', () => {
    const { positions, indices } = hinge(0);
    const flags = activeEdges(positions, indices);
    // Triangle 0 (0, 2, 1): its edge 2→1 (BC) is the seam; triangle 1 (2, 3, 1): its edge 1→2 (CA).
    expect(flags[0]).toBe(ALL & ~EDGE_BC);
    expect(flags[1]).toBe(ALL & ~EDGE_CA);
  });

  it('a fold of 3° stays inactive, one of 10° (either way) is a crease: active', () => {
    expect(activeEdges(...args(hinge((3 * Math.PI) / 180)))[0]).toBe(ALL & ~EDGE_BC);
    expect(activeEdges(...args(hinge((10 * Math.PI) / 180)))[0]).toBe(ALL);
    expect(activeEdges(...args(hinge((-10 * Math.PI) / 180)))[0]).toBe(ALL);
  });

  it('windings that disagree give the same answer, and a fold over to the back (180°) is active', () => {
    const flags = activeEdges(...args(hinge(0, true)));
    expect(flags[0] & EDGE_BC).toBe(0);
    expect(activeEdges(...args(hinge(Math.PI)))[0]).toBe(ALL);
  });

  it('a mesh without shared indices (every three vertices a triangle) is welded by position', () => {
    const { positions, indices } = hinge(0);
    const loose = new Float32Array(
      Array.from(indices).flatMap((v) => Array.from(positions.subarray(3 * v, 3 * v + 3))),
    );
    const own = Uint32Array.from({ length: 6 }, (_, i) => i);
    expect(Array.from(activeEdges(loose, own))).toEqual(Array.from(activeEdges(positions, indices)));
  });

  it('an edge of three triangles, and every edge of a degenerate triangle, stay active', () => {
    const positions = new Float32Array([0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1, 0, 2, 0, 0]);
    const fan = activeEdges(positions, new Uint32Array([0, 2, 1, 1, 3, 0, 0, 1, 4]));
    expect(fan[0] & EDGE_CA).toBe(EDGE_CA); // edge 1→0 is shared by all three
    const flat = activeEdges(positions, new Uint32Array([0, 1, 5, 0, 2, 1]));
    expect(flat[0]).toBe(ALL);
  });
});

function args(m: { positions: Float32Array; indices: Uint32Array }): [Float32Array, Uint32Array] {
  return [m.positions, m.indices];
}
