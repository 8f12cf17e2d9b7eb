/**
 * The grid's build kernels (its host: src/passes/gridBuild.ts), as in the CUDA particles sample
 * (GPU Gems 3 ch. 32):
 *   gridCount   bucket of every sphere, counts[bucket] += 1 (atomic), the returned rank kept
 *   (scan)      exclusive prefix sum of counts → cellStart, with cellStart[M] = N
 *   gridScatter sorted[cellStart[bucket] + rank] = sphere, sortedId[...] = its index
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { GridLevel, GridParams } from '../spatial/layout.js';
import { flatWorkgroup } from '../common.wgsl.js';
import { bindings, readOnly, readWrite, entry, WG } from '../../src/gpu/kernel.js';
import { GRID_PARAMS, gridHelpers, compiledFor, type GridLayout } from '../spatial/grid.wgsl.js';

export const gridCountBindings = bindings({
  ...GRID_PARAMS,
  spheres: readOnly('array<vec4f>'),
  counts: readWrite('array<atomic<u32>>'),
  keys: readWrite('array<vec2u>'),
});

export const gridCountEntry = entry({
  name: 'gridCount',
  index: 'i',
  exit: 'grid.skip != 0u',
  bound: 'grid.sphereCount',
});

/** gridCount for a plan's layout (each sphere's cell and bucket read the plan's levels). */
export const gridCountShader = (layout: GridLayout = { dense: true }) => compiledFor(gridCountCode(layout), layout);

const gridCountCode = ({ dense }: GridLayout) => wgsl`
${gridCountBindings.wgsl}
${gridHelpers(dense)}
${flatWorkgroup}

${WG.wgsl}

${gridCountEntry.wgsl}
  let s = spheres[i];
  let level = sphereLevel(s.w);
  let bucket = bucketOf(level, cellOf(s.xyz, level));
  keys[i] = vec2u(bucket, atomicAdd(&counts[bucket], 1u));
}
`;

export const gridScatterBindings = bindings({
  ...GRID_PARAMS,
  spheres: readOnly('array<vec4f>'),
  keys: readOnly('array<vec2u>'),
  cellStart: readOnly('array<u32>'),
  sorted: readWrite('array<vec4f>'),
  sortedId: readWrite('array<u32>'),
});

export const gridScatterEntry = entry({ name: 'gridScatter', index: 'i', bound: 'grid.sphereCount' });

export const gridScatterShader = () => wgsl`
${GridLevel.wgsl}
${GridParams.wgsl}
${gridScatterBindings.wgsl}
${flatWorkgroup}

${WG.wgsl}

${gridScatterEntry.wgsl}
  let key = keys[i];
  let at = cellStart[key.x] + key.y;
  sorted[at] = spheres[i];
  sortedId[at] = i;
}
`;
