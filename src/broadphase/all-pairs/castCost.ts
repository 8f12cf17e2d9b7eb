/**
 * What a cast batch costs all-pairs, for 'auto' (its registry line's castCost): one test of each
 * cast against each sphere, brute force's unit, in which every phase's cost is counted.
 */
import type { CastCost } from '../types.js';

export const ALL_PAIRS_CAST_COST: CastCost = {
  terms: ({ stats, batch }) => ({ test: batch.count * stats.count }),
  constants: { test: 1 },
};
