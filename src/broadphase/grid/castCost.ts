/**
 * What a cast batch costs the grid, for 'auto' (its registry line's castCost), in brute force's
 * unit (one cast tested against one sphere): its passes and their submission, its build a
 * sphere, and a slab, row or candidate of its walk (src/spatial/castWork.ts estimates them), in a
 * dense grid and in a hashed one (a hash and a random read a row). The constants are fitted by
 * least relative squares to calls measured on SwiftShader (bench/probes/castFitSolve.ts;
 * docs/PERFORMANCE.md, "Casts: 'auto'").
 */
import type { CastCost } from '../types.js';

export const GRID_CAST_COST: CastCost = {
  terms: ({ plan, stats, work }) => {
    const walk = work.slabs + work.rows + work.candidates;
    return { fixed: 1, build: stats.count, dense: plan.dense ? walk : 0, hashed: plan.dense ? 0 : walk };
  },
  constants: { fixed: 3.9e5, build: 3.6, dense: 1.6, hashed: 4.2 },
};
