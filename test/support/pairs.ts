/**
 * Comparing a GPU pair list with the oracle, within docs/CONTRACT.md's band: a pair may be
 * missing or extra only if it is within float rounding of touching, |margin| ≤ 1e-5 of (rA + rB)².
 */
import { sortPairs, pairMargin } from '../../src/reference/spherePairs.js';

export const BAND = 1e-5;

export interface PairDiff {
  /** Pairs the oracle has and the GPU lacks, with their margins. */
  missing: { i: number; j: number; margin: number }[];
  /** Pairs the GPU has and the oracle lacks. */
  extra: { i: number; j: number; margin: number }[];
  /** Problems with the list itself: i ≥ j, duplicates, indices out of range. */
  malformed: string[];
}

/**
 * Differences between a GPU list (any order) and the oracle's (any order). `ordered` pairs
 * (sphere–sphere) must have i < j; sphere–box pairs are (sphere, box) and need not.
 */
export function diffPairs(
  spheres: Float32Array,
  gpu: Uint32Array,
  oracle: Uint32Array,
  marginOf = pairMargin,
  ordered = true,
): PairDiff {
  const n = spheres.length / 4;
  const malformed: string[] = [];
  for (let k = 0; k < gpu.length; k += 2) {
    if (ordered && gpu[k] >= gpu[k + 1]) malformed.push(`pair ${k / 2} is (${gpu[k]}, ${gpu[k + 1]}): i must be < j`);
    if ((ordered ? gpu[k + 1] : gpu[k]) >= n)
      malformed.push(`pair ${k / 2} is (${gpu[k]}, ${gpu[k + 1]}): index out of range`);
    if (malformed.length > 10) break;
  }
  const a = sortPairs(gpu);
  const b = sortPairs(oracle);
  for (let k = 2; k < a.length; k += 2) {
    if (a[k] === a[k - 2] && a[k + 1] === a[k - 1]) {
      malformed.push(`pair (${a[k]}, ${a[k + 1]}) appears more than once`);
      if (malformed.length > 10) break;
    }
  }
  const missing: PairDiff['missing'] = [];
  const extra: PairDiff['extra'] = [];
  let x = 0;
  let y = 0;
  const key = (p: Uint32Array, k: number): number => p[k] * 2 ** 32 + p[k + 1];
  while (x < a.length || y < b.length) {
    if (y >= b.length || (x < a.length && key(a, x) < key(b, y))) {
      extra.push({ i: a[x], j: a[x + 1], margin: marginOf(spheres, a[x], a[x + 1]) });
      x += 2;
    } else if (x >= a.length || key(b, y) < key(a, x)) {
      missing.push({ i: b[y], j: b[y + 1], margin: marginOf(spheres, b[y], b[y + 1]) });
      y += 2;
    } else {
      x += 2;
      y += 2;
    }
  }
  return { missing, extra, malformed };
}

/** The differences that the band does not allow (empty when the lists agree within the band). */
export function bandViolations(diff: PairDiff, band = BAND): string[] {
  const out = [...diff.malformed];
  for (const p of diff.missing)
    if (!(Math.abs(p.margin) <= band)) out.push(`missing (${p.i}, ${p.j}), margin ${p.margin}`);
  for (const p of diff.extra) if (!(Math.abs(p.margin) <= band)) out.push(`extra (${p.i}, ${p.j}), margin ${p.margin}`);
  return out.slice(0, 20);
}
