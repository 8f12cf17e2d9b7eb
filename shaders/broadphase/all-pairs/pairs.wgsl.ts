/**
 * All-pairs sphere–sphere overlap, in triangular tiles.
 *
 * The N spheres are cut into blocks of TILE. Workgroup `tile` takes one block pair (bi, bj) with
 * bi ≤ bj, enumerated as tile = bj·(bj+1)/2 + bi, so every pair of blocks is done exactly once
 * and every workgroup does the same work. Each thread holds one sphere of block bi and tests it
 * against block bj, keeping j > i. Tests: N(N−1)/2 plus at most TILE²/2 per diagonal tile.
 *
 * Every thread of a workgroup reads the same spheres[j] at the same step: one broadcast load
 * from cache on a GPU. Staging block bj in workgroup memory behind a barrier costs more on a CPU
 * driver such as SwiftShader, where a barrier is dear, and saves nothing a cache does not.
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { AllPairsParams } from './layout.js';
import { flatWorkgroup, spheresOverlap, pairAppend, PAIR_OUTPUT } from '../../common.wgsl.js';
import { bindings, uniform, readOnly, entry, TILE } from '../../../src/gpu/kernel.js';

export const allPairsBindings = bindings({
  params: uniform('AllPairsParams'),
  spheres: readOnly('array<vec4f>'),
  ...PAIR_OUTPUT,
});

/** One workgroup a tile, its threads the tile's spheres (lid); a whole workgroup past the tiles returns. */
export const allPairsEntry = entry({
  name: 'allPairs',
  size: TILE,
  index: 'tile',
  per: 'workgroup',
  bound: 'params.tileCount',
});

export const allPairsShader = () => wgsl`
${AllPairsParams.wgsl}
${allPairsBindings.wgsl}
${pairAppend}
${flatWorkgroup}
${spheresOverlap}

${TILE.wgsl}

${allPairsEntry.wgsl}
  // Invert tile = bj(bj+1)/2 + bi: an f32 estimate, then exact integer corrections.
  var bj = u32((sqrt(8.0 * f32(tile) + 1.0) - 1.0) * 0.5);
  while (bj * (bj + 1u) / 2u > tile) { bj -= 1u; }
  while ((bj + 1u) * (bj + 2u) / 2u <= tile) { bj += 1u; }
  let bi = tile - bj * (bj + 1u) / 2u;

  let n = params.sphereCount;
  let j0 = bj * TILE;

  let i = bi * TILE + lid;
  if (i >= n) {
    return;
  }
  let a = spheres[i];
  let count = min(TILE, n - j0);
  { // for (var k = 0u; k < count; k++), tested at the bottom (forLoop, common.wgsl.ts)
    var k = 0u;
    if (k < count) {
      loop {
        let j = j0 + k;
        if (j > i && spheresOverlap(a, spheres[j])) {
          appendPair(i, j);
        }
        continuing {
          k++;
          break if !(k < count);
        }
      }
    }
  }
}
`;
