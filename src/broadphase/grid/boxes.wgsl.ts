/**
 * Sphere–box pairs against the sphere grid: one thread per box visits, in every non-empty level,
 * the cells overlapping the box's bounds grown by the level's largest radius. Tests: the spheres
 * in those cells. The box math is shared (shaders/boxes.wgsl.ts).
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { BoxParams } from '../../layout.js';
import { EXT_SCALE } from './level.js';
import { gridHelpers, compiledFor, GRID_PARAMS, GRID_READ, type GridLayout } from './grid.wgsl.js';
import { walkRows, inRowFunction } from './walk.wgsl.js';
import { flatWorkgroup, pairAppend, PAIR_OUTPUT, levelLoop } from '../../../shaders/common.wgsl.js';
import { boxMath, boxBounds } from '../../../shaders/boxes.wgsl.js';
import { bindings, uniform, readOnly, entry, WG } from '../../gpu/kernel.js';

import type { BoxKind } from '../../queryKinds.js';

export const boxGridPairsBindings = bindings({
  ...GRID_PARAMS,
  params: uniform('BoxParams'),
  boxes: readOnly('array<vec4f>'),
  ...GRID_READ,
  ...PAIR_OUTPUT,
});

/**
 * The box's operands of the overlap test, computed once before the walk: boxTest
 * (shaders/boxes.wgsl.ts) reads them from the storage buffer at every candidate and works out
 * per candidate what is the box's alone (an AABB's corners' float order for a point's test, an
 * oriented box's −half). An AABB's corners are boxBounds' boxMin and boxMax.
 */
const boxOperands = (kind: BoxKind, k: string): string =>
  kind === 'aabb'
    ? `let boxMinBits = orderedBits(boxMin);
  let boxMaxBits = orderedBits(boxMax);`
    : `let boxHalf = boxes[3u * ${k} + 1u].xyz;
  let boxLow = -boxHalf;
  let boxRotation = boxes[3u * ${k} + 2u];`;

/**
 * sphereAabbOverlap and sphereObbOverlap (shaders/boxes.wgsl.ts) over the operands computed once
 * (boxOperands): the same functions and arithmetic, so the same answers bit for bit, but with
 * their short-circuit `&&` and `||` as `&` and `|`. SwiftShader runs every arm of a branch
 * under a lane mask, and a short circuit is a branch: measured on the coincident scene's boxes
 * (16,000 spheres, 20,000 boxes) the test cost about twice the row walk around it.
 */
const boxTestOf = (kind: BoxKind): string =>
  kind === 'aabb'
    ? `withinReach(clamp(s.xyz, boxMin, boxMax) - s.xyz, s.w) & ((s.w > 0.0) | (all(boxMinBits <= orderedBits(s.xyz)) & all(orderedBits(s.xyz) <= boxMaxBits)))`
    : `boxObbTest(s, center, boxLow, boxHalf, boxRotation)`;

/** sphereObbOverlap with −half given and without its short circuits (boxTestOf). */
const boxObbFunction = /* wgsl */ `
fn boxObbTest(s: vec4f, center: vec3f, low: vec3f, half: vec3f, q: vec4f) -> bool {
  let v = rotateInverse(q, s.xyz - center);
  let d = clamp(v, low, half) - v;
  return withinReach(d, s.w) & ((s.w > 0.0) | all(d == vec3f(0.0)));
}
`;

/** Its entry: one thread a box. */
export const boxGridPairsEntry = entry({ name: 'boxGridPairs', index: 'k', bound: 'params.boxCount' });

export const boxGridPairsShader = (options: { kind: BoxKind } & GridLayout) => compiledFor(boxGridPairsCode(options), options);

const boxGridPairsCode = ({ kind, dense }: { kind: BoxKind } & GridLayout) => wgsl`
${boxGridPairsBindings.wgsl}
${gridHelpers(dense)}
${BoxParams.wgsl}
${pairAppend}
${flatWorkgroup}
${boxMath}
${boxObbFunction}
#if ${!dense}
${inRowFunction}
#endif

${WG.wgsl}
const EXT_SCALE: f32 = ${EXT_SCALE};

${boxGridPairsEntry.wgsl}
  ${boxBounds(kind, 'k')}
  ${boxOperands(kind, 'k')}
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
              if (${boxTestOf(kind)}) {
                appendPair(sortedId[u], k);
              }`,
        })}`)}
}
`;
