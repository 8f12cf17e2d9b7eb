/**
 * Sphere–box pairs against the sphere grid: one thread per box visits, in every non-empty level,
 * the cells overlapping the box's bounds grown by the level's largest radius. Tests: the spheres
 * in those cells. The box math is shared (shaders/boxes.wgsl.ts).
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { BoxParams } from '../../layout.js';
import { EXT_SCALE } from '../../grid/level.js';
import { gridHelpers, compiledFor, GRID_PARAMS, GRID_READ, type GridLayout } from '../../../shaders/grid.wgsl.js';
import { walkRows, inRowFunction } from '../../../shaders/gridWalk.wgsl.js';
import { flatWorkgroup, pairAppend, PAIR_OUTPUT, levelLoop } from '../../../shaders/common.wgsl.js';
import { boxMath, boxTest, boxBounds } from '../../../shaders/boxes.wgsl.js';
import { bindings, uniform, readOnly } from '../../gpu/kernel.js';

import type { BoxKind } from '../../queryKinds.js';

export const boxGridPairsBindings = bindings({
  ...GRID_PARAMS,
  params: uniform('BoxParams'),
  boxes: readOnly('array<vec4f>'),
  ...GRID_READ,
  ...PAIR_OUTPUT,
});

export const boxGridPairsShader = (options: { kind: BoxKind } & GridLayout) => compiledFor(boxGridPairsCode(options), options);

const boxGridPairsCode = ({ kind, dense }: { kind: BoxKind } & GridLayout) => wgsl`
${boxGridPairsBindings.wgsl}
${gridHelpers(dense)}
${BoxParams.wgsl}
${pairAppend}
${flatWorkgroup}
${boxMath}
#if ${!dense}
${inRowFunction}
#endif

override WG: u32; // src/gpu/workgroups.ts
const EXT_SCALE: f32 = ${EXT_SCALE};

@compute @workgroup_size(WG)
fn boxGridPairs(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
                @builtin(local_invocation_index) lid: u32) {
  let k = flatWorkgroup(wid, nwg) * WG + lid;
  if (k >= params.boxCount) {
    return;
  }
  ${boxBounds(kind, 'k')}
  ${levelLoop('b', 'grid.firstLevel', `
        let ext = grid.levels[b].maxRadius * EXT_SCALE;
        if (!levelTouches(b, boxMin - vec3f(ext), boxMax + vec3f(ext))) {
          continue;
        }
        ${kind === 'aabb' ? `let lo = cellOf(boxMin - vec3f(ext), b);
        let hi = cellOf(boxMax + vec3f(ext), b);` : `// The cells from the centre's offset from the level's origin (exact when the two are of a
        // size), grown by ulps of that offset and of the whole box (span: boxBounds says why),
        // not of the coordinates: 1e6 from the origin, ulps of the coordinates are half a cell of
        // a touching lattice of radius 1/16, and boxes grown by them walked 29× the rows and
        // candidates.
        let rel = center - grid.levels[b].origin;
        let reach = e + vec3f(ext) + span * (1.0 / 65536.0) + (abs(rel) + span + vec3f(ext)) * (1.0 / 1048576.0);
        let lo = cellOfOffset(rel - reach, b);
        let hi = cellOfOffset(rel + reach, b);`}
        ${walkRows({
          dense,
          level: 'b',
          lo: 'lo',
          hi: 'hi',
          levelScan: true,
          visit: `let s = q;
              if (${boxTest(kind, 'k')}) {
                appendPair(sortedId[u], k);
              }`,
        })}`)}
}
`;
