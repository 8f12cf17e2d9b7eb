/**
 * What a cast batch costs the BVH, for 'auto' (its registry line's castCost), in brute force's
 * unit (one cast tested against one sphere): its build a sphere, a level of its descent a cast,
 * and a sphere it reaches along the walked stretches (src/spatial/castWork.ts, `near`). The
 * constants are fitted with the grid's (src/broadphase/grid/castCost.ts says how).
 */
import type { CastCost } from '../types.js';
import { bvhCastSlack } from './castSlack.js';

export const BVH_CAST_COST: CastCost = {
  terms: ({ stats, batch, work }) => ({
    fixed: 1,
    build: stats.count,
    descent: batch.count * Math.log2(Math.max(stats.count, 2)),
    near: work.near,
  }),
  constants: { fixed: 0, build: 25, descent: 31, near: 6.1 },
  reachSlack: bvhCastSlack,
};
