/**
 * The LBVH's queries (its build: shaders/spatial/bvh.wgsl.ts; the walk itself: shaders/spatial/bvhWalk.wgsl.ts), one thread per query: walk the nodes whose box
 * passes the query's test, and run the same narrow test as every broad phase on each leaf reached.
 *
 * Why the pruning never drops a pair the narrow test keeps, with boxes grown only by their own
 * radius: a leaf box is [x − P(r), x + P(r)] per axis, each end one correctly rounded f32 add,
 * P(r) = r·(1 + 2^-18) + 2^-100 (`paddedRadius`); a sphere pair's query box is its own centre
 * ± P(r) the same way. When spheresOverlap accepts (i, j), per axis |xj − xi| ≤ (ri + rj)(1 + 8u)
 * + 2^-126 (u = 2^-24; the 2^-126 for a flushed subnormal difference), which is less than
 * P(ri) + P(rj), so xj − P(rj) ≤ xi + P(ri) exactly; rounding to nearest is monotone, so
 * fl(xj − P(rj)) ≤ fl(xi + P(ri)), the leaf's lower end against the query's upper end: the test
 * passes whatever the rounding of the positions. An AABB's bounds are the box's own f32 values
 * (an accepted sphere's centre lies within r(1 + 8u) + 2^-126 of them), an oriented box's are
 * its centre ± a reach grown for its rotation, each rounded once (bvhBoxBounds, which says why
 * that is enough). No term grows with |x|, so a scene far from the origin prunes as well as one
 * at it (a slack of 2^-20·|x|max would be eight spacings of a touching lattice at 1e6).
 * The node boxes hold their spheres but for the rounding of x ± P(r) (at most half an ulp of
 * x): the casts' slack (bvhCastSlack, src/broadphase/bvh/castSlack.ts: 2^-24 of the coordinates, and 2^-20 of
 * the casts' length and reach) covers that, as it covers the rest of the ray test's rounding,
 * which rayBoxEntry keeps relative to offsets from the cast's origin.
 *
 * The pair walk drops a left child whose leaves all come at or before the query's own sorted
 * position (bvhWalk's dropLeft): each pair is reported from its earlier sphere, so those leaves
 * would be skipped anyway, and the walk tests about half the nodes.
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { BvhParams, BvhNode } from '../../spatial/bvhLayout.js';
import { flatWorkgroup, spheresOverlap, pairAppend, PAIR_OUTPUT } from '../../common.wgsl.js';
import { bindings, uniform, readOnly, readWrite, entry, WG } from '../../../src/gpu/kernel.js';
import { boxMath, boxTest, boxBounds } from '../../boxes.wgsl.js';
import type { BoxKind } from '../../../src/queryKinds.js';
import { BVH_OBB_GROW } from '../../../src/spatial/bvhShape.js';
import { paddedRadius, morton } from '../../spatial/bvh.wgsl.js';
import { bvhWalk, WALK_DEFER } from '../../spatial/bvhWalk.wgsl.js';

/** The query kernels' entries (src/gpu/kernel.ts). */
export const bvhPairsEntry = entry({ name: 'bvhPairs', index: 'k', bound: 'params.sphereCount' });
export const bvhBoxCodesEntry = entry({ name: 'bvhBoxCodes', index: 'k', bound: 'params.boxCount' });
export const bvhBoxesEntry = entry({
  name: 'bvhBoxes',
  index: 't',
  exit: 'params.sphereCount == 0u',
  bound: 'params.boxCount',
});

/** The overlap of an internal node's box with the box [qLo, qHi] as a walk key: 0 or −1. */
const boxKey = (qLo: string, qHi: string): string =>
  `let key = select(-1.0, 0.0, all(nodes[c].lo <= ${qHi}) && all(nodes[c].hi >= ${qLo}));`;

export const bvhPairsBindings = bindings({
  params: uniform('BvhParams'),
  sorted: readOnly('array<vec4f>'),
  ids: readOnly('array<u32>'),
  nodes: readOnly('array<BvhNode>'),
  ...PAIR_OUTPUT,
});
export const bvhPairsShader = () => wgsl`
${BvhParams.wgsl}
${bvhPairsBindings.wgsl}
${BvhNode.wgsl}
${pairAppend}
${flatWorkgroup}
${spheresOverlap}
${paddedRadius}
${WG.wgsl}

${bvhPairsEntry.wgsl}
  let s = sorted[k];
  let id = ids[k];
  let qLo = s.xyz - vec3f(paddedRadius(s.w));
  let qHi = s.xyz + vec3f(paddedRadius(s.w));
  // Each pair once: from the earlier of its two sorted positions (so subtrees wholly at or
  // before k are dropped untested: dropLeft).
  ${bvhWalk(
    {
      test: boxKey('qLo', 'qHi'),
      dropLeft: 'child <= k',
      visit: `if (u > k && spheresOverlap(s, q)) {
            let other = ids[u];
            appendPair(min(id, other), max(id, other));
          }`,
      defer: WALK_DEFER.list,
    },
    'params.sphereCount',
  )}
}
`;

/**
 * Declares `boxMin` and `boxMax`, the bounds box `k` walks the tree with: an AABB's own values;
 * an oriented box's centre ± its reach, E = (e + 2^-16·span + 2^-20·span)·(1 + 2^-20) per axis
 * (e the world half extents, span their sum; BVH_OBB_GROW), each bound one rounding of the exact
 * c ± E. The span terms are the shared boxBounds' (shaders/boxes.wgsl.ts): the narrow test
 * rounds in the box's frame by ulps of the sphere's offset from the centre, so an accepted
 * sphere's centre s has s − P(r) ≤ c + e + 2^-16·span + 2^-20·span on each axis, in real numbers
 * (and the mirror below); the factor 1 + 2^-20 covers the rounding of E's own sum and product.
 * So s − P(r) ≤ c + E; rounding to nearest is monotone, so the leaf's lower end fl(s − P(r)) is
 * ≤ fl(c + E) = boxMax (and its upper end ≥ boxMin), whatever the size of the coordinates. The
 * shared bounds round twice (c − e, then − grow) and so grow by 2^-22 of the centre's
 * coordinates besides, to cover both roundings and the leaf's: about 0.24 at 1e6, two spacings of
 * the touching lattice there, so that each box would reach several times the leaves it reaches
 * at the origin. Here the only rounding is the one monotone step, and the work at 1e6, where f32
 * rounds the boxes' own ends to 1/16, stays near the work at 0 (test/broadphase/bvh/bvhCliff.test.ts).
 */
export function bvhBoxBounds(kind: BoxKind, k: string): string {
  if (kind === 'aabb') return boxBounds(kind, k);
  return `let center = boxes[3u * ${k}].xyz;
  let e = obbWorldHalfExtents(boxes[3u * ${k} + 1u].xyz, boxes[3u * ${k} + 2u]);
  let reach = (e + vec3f((e.x + e.y + e.z) * ${BVH_OBB_GROW})) * ${1 + 2 ** -20};
  let boxMin = center - reach;
  let boxMax = center + reach;`;
}

/**
 * The boxes in the order of their centres' Morton codes (the high 30 bits of the spheres' grid,
 * mortonWords: 10 bits an axis; a centre outside the spheres' bounds is clamped to them), for
 * the box walk to take them in: one thread a box, and on SwiftShader a 4-lane group walks as
 * long as its longest walk, so lanes whose boxes lie side by side walk much the same nodes. The
 * order is a permutation (the codes sorted with the box indices), so no box is dropped or taken
 * twice whatever the codes (measured: docs/PERFORMANCE.md, "What the design rests on").
 */
export const bvhBoxCodesBindings = bindings({
  params: uniform('BvhParams'),
  boxes: readOnly('array<vec4f>'),
  boxKeys: readWrite('array<u32>'),
  boxOrder: readWrite('array<u32>'),
});
export const bvhBoxCodesShader = ({ kind }: { kind: BoxKind }) => wgsl`
${BvhParams.wgsl}
${bvhBoxCodesBindings.wgsl}
${flatWorkgroup}
${morton}
${WG.wgsl}

${bvhBoxCodesEntry.wgsl}
  ${kind === 'aabb' ? `let boxCentre = 0.5 * boxes[2u * k].xyz + 0.5 * boxes[2u * k + 1u].xyz;` : `let boxCentre = boxes[3u * k].xyz;`}
  boxKeys[k] = mortonWords(boxCentre).x;
  boxOrder[k] = k;
}
`;

export const bvhBoxesBindings = bindings({
  params: uniform('BvhParams'),
  sorted: readOnly('array<vec4f>'),
  ids: readOnly('array<u32>'),
  nodes: readOnly('array<BvhNode>'),
  boxes: readOnly('array<vec4f>'),
  boxOrder: readOnly('array<u32>'),
  ...PAIR_OUTPUT,
});
export const bvhBoxesShader = ({ kind }: { kind: BoxKind }) => wgsl`
${BvhParams.wgsl}
${bvhBoxesBindings.wgsl}
${BvhNode.wgsl}
${pairAppend}
${flatWorkgroup}
${boxMath}
${WG.wgsl}

${bvhBoxesEntry.wgsl}
  let k = boxOrder[t];
  ${bvhBoxBounds(kind, 'k')}
  ${bvhWalk(
    {
      test: boxKey('boxMin', 'boxMax'),
      visit: `let s = q;
          if (${boxTest(kind, 'k')}) {
            appendPair(ids[u], k);
          }`,
      defer: WALK_DEFER.list,
    },
    'params.sphereCount',
  )}
}
`;
