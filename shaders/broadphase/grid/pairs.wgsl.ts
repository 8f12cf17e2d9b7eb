/**
 * Sphere–sphere pairs from the built grid (shaders/spatial/grid.wgsl.ts, src/spatial/plan.ts).
 *
 * One thread per sphere in bucket order (neighbouring threads read neighbouring cells). Sphere t
 * of level a visits, in level a and every coarser non-empty level b, the cells overlapping its
 * box p ± (r + maxRadius_b)·EXT_SCALE (shaders/spatial/walk.wgsl.ts walks them a row at a time).
 * Reporting rules, each pair once:
 *   b == a  report when the partner comes later in bucket order (u > t: the earlier ones are
 *           skipped without reading them, and in a dense grid so are the rows before its own,
 *           halving the work);
 *   b >  a  always (the coarser sphere never looks at finer levels).
 *
 * Dense and hashed grids are separate pipelines, not a branch: on SwiftShader (CI) code in a
 * loop costs its time even when a uniform branch skips it.
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { EXT_SCALE } from '../../../src/spatial/level.js';
import { gridHelpers, compiledFor, GRID_PARAMS, GRID_READ, type GridLayout } from '../../spatial/grid.wgsl.js';
import { walkRows, inRowFunction } from '../../spatial/walk.wgsl.js';
import { flatWorkgroup, spheresOverlap, pairAppend, PAIR_OUTPUT, levelLoop } from '../../common.wgsl.js';
import { bindings, entry, WG } from '../../../src/gpu/kernel.js';

export const gridPairsBindings = bindings({ ...GRID_PARAMS, ...GRID_READ, ...PAIR_OUTPUT });

export type GridPairsOptions = GridLayout;

export const gridPairsEntry = entry({ name: 'gridPairs', index: 't', bound: 'grid.sphereCount' });

export const gridPairsShader = (layout: GridPairsOptions) => compiledFor(gridPairsCode(layout), layout);

const gridPairsCode = ({ dense }: GridPairsOptions) => wgsl`
${gridPairsBindings.wgsl}
${gridHelpers(dense)}
${pairAppend}
${flatWorkgroup}
${spheresOverlap}
#if ${!dense}
${inRowFunction}
#endif

${WG.wgsl}
const EXT_SCALE: f32 = ${EXT_SCALE};

${gridPairsEntry.wgsl}
  let s = sorted[t];
  let id = sortedId[t];
  let a = sphereLevel(s.w);
  ${levelLoop(
    'b',
    'a',
    `
    let ext = (s.w + grid.levels[b].maxRadius) * EXT_SCALE;
    if (!levelTouches(b, s.xyz - vec3f(ext), s.xyz + vec3f(ext))) {
      continue;
    }
    let lo = cellOf(s.xyz - vec3f(ext), b);
    let hi = cellOf(s.xyz + vec3f(ext), b);
    // At its own level, only partners later in bucket order.
    let first = select(0u, t + 1u, b == a);
    ${
      dense
        ? `// Buckets follow cell order, so the rows before the sphere's own hold only earlier spheres.
    let head = select(lo, cellOf(s.xyz, a), b == a);`
        : ''
    }
    ${walkRows({
      dense,
      level: 'b',
      lo: 'lo',
      hi: 'hi',
      head: dense ? 'head' : undefined,
      first: 'first',
      flat: true,
      eagerRowMove: true,
      visit: `if (spheresOverlap(s, q)) {
            let other = sortedId[u];
            appendPair(min(id, other), max(id, other));
          }`,
    })}`,
  )}
}
`;
