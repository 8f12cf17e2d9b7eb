/**
 * Sphere–box pairs against the sphere grid: one thread per box visits, in every non-empty level,
 * the cells overlapping the box's bounds grown by the level's largest radius. Tests: the spheres
 * in those cells. The box math is shared (shaders/boxes.wgsl.ts).
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { BoxParams, PairCounter } from '../../../src/layout.js';
import { EXT_SCALE } from '../../../src/spatial/level.js';
import { gridHelpers, compiledFor, GRID_PARAMS, GRID_READ, type GridLayout } from '../../spatial/grid.wgsl.js';
import { walkRows, inRowFunction } from '../../spatial/walk.wgsl.js';
import { flatWorkgroup, PAIR_OUTPUT, levelLoop } from '../../common.wgsl.js';
import { boxMath, boxBounds } from '../../boxes.wgsl.js';
import { bindings, uniform, readOnly, readWrite, entry, WG, ONE_THREAD } from '../../../src/gpu/kernel.js';

import type { BoxKind } from '../../../src/queryKinds.js';

/**
 * The two ends' counters of the pair list, in one buffer: ends[0] and ends[END_STRIDE], 256 bytes
 * apart so that they never share a cache line (nor a pair of lines a CPU fetches together).
 */
export const END_STRIDE = 32;
export const PAIR_ENDS_BYTES = 2 * END_STRIDE * PairCounter.size;

export const boxGridPairsBindings = bindings({
  ...GRID_PARAMS,
  params: uniform('BoxParams'),
  boxes: readOnly('array<vec4f>'),
  ...GRID_READ,
  pairs: PAIR_OUTPUT.pairs,
  ends: readWrite('array<PairCounter>'),
});

/**
 * The pair list filled from both ends: the even workgroups append from the bottom (slots t of
 * ends[0]), the odd ones from the top (slots len − 1 − t of ends[END_STRIDE]), so that
 * SwiftShader's two threads, which take workgroups in turn, do not contend for one counter's
 * cache line (measured: docs/PERFORMANCE.md). The end is a lane's value, not a branch:
 * SwiftShader runs both arms of a branch under a lane mask, and with an append in each arm every
 * candidate would pay for two. pairMerge (below) makes the two one list, and writes its count to
 * the list's PairCounter.
 */
const appendPairEnd = /* wgsl */ `
const END_STRIDE: u32 = ${END_STRIDE}u;

fn appendPairAt(end: u32, i: u32, j: u32) {
  let slot = atomicAdd(&ends[end].count, 1u);
  if (slot == 0xffffffffu) {
    atomicAdd(&ends[end].countHi, 1u);
  }
  let len = arrayLength(&pairs);
  if (slot < len) {
    pairs[select(slot, len - 1u - slot, end != 0u)] = vec2u(i, j);
  }
}
`;

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
 * under a lane mask, and a short circuit is a branch, each of whose arms it would run.
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

export const boxGridPairsShader = (options: { kind: BoxKind } & GridLayout) =>
  compiledFor(boxGridPairsCode(options), options);

const boxGridPairsCode = ({ kind, dense }: { kind: BoxKind } & GridLayout) => wgsl`
${boxGridPairsBindings.wgsl}
${gridHelpers(dense)}
${BoxParams.wgsl}
${PairCounter.wgsl}
${appendPairEnd}
${flatWorkgroup}
${boxMath}
${boxObbFunction}
#if ${!dense}
${inRowFunction}
#endif

${WG.wgsl}
const EXT_SCALE: f32 = ${EXT_SCALE};

${boxGridPairsEntry.wgsl}
  let pairEnd = ((k / WG) & 1u) * END_STRIDE;
  ${boxBounds(kind, 'k')}
  ${boxOperands(kind, 'k')}
  ${levelLoop(
    'b',
    'grid.firstLevel',
    `
        let ext = grid.levels[b].maxRadius * EXT_SCALE;
        if (!levelTouches(b, boxMin - vec3f(ext), boxMax + vec3f(ext))) {
          continue;
        }
        ${
          kind === 'aabb'
            ? `let lo = cellOf(boxMin - vec3f(ext), b);
        let hi = cellOf(boxMax + vec3f(ext), b);`
            : `// The cells from the centre's offset from the level's origin (exact when the two are of a
        // size), grown by ulps of that offset and of the whole box (span: boxBounds says why),
        // not of the coordinates: 1e6 from the origin, ulps of the coordinates are half a cell of
        // a touching lattice of radius 1/16, and boxes grown by them would walk many times the
        // rows and candidates.
        let rel = center - grid.levels[b].origin;
        let reach = e + vec3f(ext) + span * (1.0 / 65536.0) + (abs(rel) + span + vec3f(ext)) * (1.0 / 1048576.0);
        let lo = cellOfOffset(rel - reach, b);
        let hi = cellOfOffset(rel + reach, b);`
        }
        ${walkRows({
          dense,
          level: 'b',
          lo: 'lo',
          hi: 'hi',
          levelScan: true,
          visit: `let s = q;
              if (${boxTestOf(kind)}) {
                appendPairAt(pairEnd, sortedId[u], k);
              }`,
        })}`,
  )}
}
`;

/**
 * The two ends made one list, [0, a + b): the top's b pairs (slots len − 1 − t) moved to a + t.
 * Where the moves' ranges overlap (a + t ≥ len − b), pair t's destination holds pair
 * t' = len − 1 − a − t and t''s holds t's, so the two are swapped by the lower of them; the
 * other moves read slots no one writes. When the two do not fit (a + b past len, or either
 * past 2^32) nothing moves: the count says so, and the list grows and runs again.
 */
export const pairMergeBindings = bindings({ ...PAIR_OUTPUT, ends: readWrite('array<PairCounter>') });
export const pairMergeMoveEntry = entry({ name: 'pairMergeMove', index: 'k' });
export const pairMergeCountEntry = entry({ name: 'pairMergeCount', size: ONE_THREAD });

export const pairMergeShader = () => wgsl`
${pairMergeBindings.wgsl}
${PairCounter.wgsl}
${flatWorkgroup}
${WG.wgsl}
const END_STRIDE: u32 = ${END_STRIDE}u;

${pairMergeMoveEntry.wgsl}
  let a = atomicLoad(&ends[0].count);
  let b = atomicLoad(&ends[END_STRIDE].count);
  let len = arrayLength(&pairs);
  if (atomicLoad(&ends[0].countHi) != 0u || atomicLoad(&ends[END_STRIDE].countHi) != 0u || a > len || b > len - a) {
    return;
  }
  let stride = nwg.x * nwg.y * WG;
  for (var t = k; t < b; t += stride) {
    if (a + t < len - b) {
      pairs[a + t] = pairs[len - 1u - t];
    } else {
      let partner = len - 1u - a - t;
      if (t < partner) {
        let here = pairs[a + t];
        pairs[a + t] = pairs[a + partner];
        pairs[a + partner] = here;
      }
    }
  }
}

${pairMergeCountEntry.wgsl}
  let a = atomicLoad(&ends[0].count);
  let b = atomicLoad(&ends[END_STRIDE].count);
  let total = a + b;
  atomicStore(&pairCounter.count, total);
  atomicStore(&pairCounter.countHi, atomicLoad(&ends[0].countHi) + atomicLoad(&ends[END_STRIDE].countHi) + select(0u, 1u, total < a));
}
`;
