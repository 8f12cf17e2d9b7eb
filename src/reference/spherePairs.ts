/**
 * The oracle for sphere–sphere pairs: every pair tested, in double precision.
 *
 *   overlap iff |cA − cB|² ≤ (rA + rB)²        (touching counts)
 *
 * Inputs are f32, so the differences and squares here are exact or within 1e-16 relative:
 * this is the exact answer the GPU's f32 result is compared against (docs/CONTRACT.md's band).
 */

/** The WGSL `spheresOverlap` twin, for spheres i and j of a flat array. */
export function spheresOverlap(spheres: Float32Array, i: number, j: number): boolean {
  const a = 4 * i;
  const b = 4 * j;
  const dx = spheres[b] - spheres[a];
  const dy = spheres[b + 1] - spheres[a + 1];
  const dz = spheres[b + 2] - spheres[a + 2];
  const s = spheres[a + 3] + spheres[b + 3];
  return dx * dx + dy * dy + dz * dz <= s * s;
}

/**
 * How far from touching a pair is, relative to (rA + rB)²: (|d|² − (rA + rB)²) / (rA + rB)².
 * Negative overlaps, positive separates; pairs with |margin| ≤ 1e-5 may fall either way on the
 * GPU (docs/CONTRACT.md). Coincident points (both radii 0) give 0 when equal and +Infinity otherwise.
 */
export function pairMargin(spheres: Float32Array, i: number, j: number): number {
  const a = 4 * i;
  const b = 4 * j;
  const dx = spheres[b] - spheres[a];
  const dy = spheres[b + 1] - spheres[a + 1];
  const dz = spheres[b + 2] - spheres[a + 2];
  const s = spheres[a + 3] + spheres[b + 3];
  const d2 = dx * dx + dy * dy + dz * dz;
  if (s === 0) return d2 === 0 ? 0 : Infinity;
  return (d2 - s * s) / (s * s);
}

/** Every overlapping pair (i < j), in lexicographic order, by testing all N(N−1)/2 pairs. */
export function bruteForceSpherePairs(spheres: Float32Array): Uint32Array {
  const n = spheres.length / 4;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const ax = spheres[4 * i],
      ay = spheres[4 * i + 1],
      az = spheres[4 * i + 2],
      ar = spheres[4 * i + 3];
    for (let j = i + 1; j < n; j++) {
      const dx = spheres[4 * j] - ax;
      const dy = spheres[4 * j + 1] - ay;
      const dz = spheres[4 * j + 2] - az;
      const s = ar + spheres[4 * j + 3];
      if (dx * dx + dy * dy + dz * dz <= s * s) out.push(i, j);
    }
  }
  return Uint32Array.from(out);
}

/** Pairs sorted lexicographically (i, then j), as a new array: the canonical form to compare. */
export function sortPairs(pairs: Uint32Array): Uint32Array {
  const n = pairs.length / 2;
  const keys = new Float64Array(n);
  for (let k = 0; k < n; k++) keys[k] = pairs[2 * k] * 2 ** 32 + pairs[2 * k + 1];
  keys.sort();
  const out = new Uint32Array(2 * n);
  for (let k = 0; k < n; k++) {
    out[2 * k] = Math.floor(keys[k] / 2 ** 32);
    out[2 * k + 1] = keys[k] % 2 ** 32;
  }
  return out;
}
