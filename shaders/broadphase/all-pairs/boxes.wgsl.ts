/**
 * Sphere–box pairs by all-pairs: rectangular tiles (64 spheres × 64 boxes); each thread one
 * sphere of the tile's sphere block against the tile's box block. N·M tests. The box math is
 * shared (shaders/boxes.wgsl.ts).
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { BoxParams } from '../../../src/layout.js';
import { flatWorkgroup, pairAppend, PAIR_OUTPUT } from '../../common.wgsl.js';
import { boxMath, boxTest } from '../../boxes.wgsl.js';
import { bindings, uniform, readOnly, entry, TILE } from '../../../src/gpu/kernel.js';

import type { BoxKind } from '../../../src/queryKinds.js';

export const boxAllPairsBindings = bindings({
  params: uniform('BoxParams'),
  spheres: readOnly('array<vec4f>'),
  boxes: readOnly('array<vec4f>'),
  ...PAIR_OUTPUT,
});

/** One workgroup a tile, its threads the tile's spheres (lid); a whole workgroup past the tiles returns. */
export const boxAllPairsEntry = entry({
  name: 'boxAllPairs',
  size: TILE,
  index: 'tile',
  per: 'workgroup',
  bound: 'params.tileCount',
});

export const boxAllPairsShader = ({ kind }: { kind: BoxKind }) => wgsl`
${BoxParams.wgsl}
${boxAllPairsBindings.wgsl}
${pairAppend}
${flatWorkgroup}
${boxMath}

${TILE.wgsl}

${boxAllPairsEntry.wgsl}
  let i = (tile % params.sphereBlocks) * TILE + lid;
  if (i >= params.sphereCount) {
    return;
  }
  let s = spheres[i];
  let k0 = (tile / params.sphereBlocks) * TILE;
  let k1 = min(k0 + TILE, params.boxCount);
  { // for (var k = k0; k < k1; k++), tested at the bottom (forLoop, common.wgsl.ts)
    var k = k0;
    if (k < k1) {
      loop {
        if (${boxTest(kind, 'k')}) {
          appendPair(i, k);
        }
        continuing {
          k++;
          break if !(k < k1);
        }
      }
    }
  }
}
`;
