/**
 * Sphere–box pairs: axis-aligned (AABB) and oriented boxes (OBB), all-pairs and against the
 * sphere grid. The CPU twins are in src/reference/sphereBox.ts.
 *
 * On the GPU, an AABB is two vec4 (min, max) and an oriented box three (centre, half extents,
 * unit quaternion): validation packs and normalises them.
 *
 *   all-pairs  rectangular tiles (64 spheres × 64 boxes); each thread one sphere of the tile's
 *              sphere block against the tile's box block. N·M tests.
 *   grid       the spheres binned in the multi-level grid; one thread per box visits, in every
 *              non-empty level, the cells overlapping the box's bounds grown by the level's
 *              largest radius. Tests: the spheres in those cells.
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { BoxParams } from '../src/layout.js';
import { EXT_SCALE } from '../src/grid/level.js';
import { gridHelpers, compiledFor, GRID_PARAMS, GRID_READ, type GridLayout } from './grid.wgsl.js';
import { walkRows, inRowFunction } from './gridWalk.wgsl.js';
import { flatWorkgroup, pairAppend, PAIR_OUTPUT, levelLoop, tinyGuards } from './common.wgsl.js';
import { bindings, uniform, readOnly } from '../src/gpu/kernel.js';

import type { BoxKind } from '../src/queryKinds.js';

/**
 * sphere–AABB: clamp the centre into the box (closest point C); overlap iff |C − S|² ≤ r².
 * sphere–oriented box: the same in box space, the centre rotated by the inverse rotation.
 */
export const boxMath = /* wgsl */ `
${tinyGuards}
// A point (r = 0) touches only when it lies in the box: a tiny distance's square underflows.
fn sphereAabbOverlap(s: vec4f, boxMin: vec3f, boxMax: vec3f) -> bool {
  let d = clamp(s.xyz, boxMin, boxMax) - s.xyz;
  return withinReach(d, s.w) && (s.w > 0.0 || pointInBox(s.xyz, boxMin, boxMax));
}

// v rotated by the inverse of unit quaternion q: v' = v + 2w (u × v) + 2 u × (u × v), u = −q.xyz.
fn rotateInverse(q: vec4f, v: vec3f) -> vec3f {
  let u = -q.xyz;
  let t = 2.0 * cross(u, v);
  return v + q.w * t + cross(u, t);
}

fn sphereObbOverlap(s: vec4f, center: vec3f, half: vec3f, q: vec4f) -> bool {
  let v = rotateInverse(q, s.xyz - center);
  let d = clamp(v, -half, half) - v;
  return withinReach(d, s.w) && (s.w > 0.0 || all(d == vec3f(0.0)));
}

// Half extents of an oriented box's world-space bounds: e_a = Σ_j |R_aj| h_j, R from q.
fn obbWorldHalfExtents(half: vec3f, q: vec4f) -> vec3f {
  let x = q.x; let y = q.y; let z = q.z; let w = q.w;
  let r0 = vec3f(1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - z * w), 2.0 * (x * z + y * w));
  let r1 = vec3f(2.0 * (x * y + z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - x * w));
  let r2 = vec3f(2.0 * (x * z - y * w), 2.0 * (y * z + x * w), 1.0 - 2.0 * (x * x + y * y));
  return vec3f(dot(abs(r0), half), dot(abs(r1), half), dot(abs(r2), half));
}
`;

export const boxAllPairsBindings = bindings({
  params: uniform('BoxParams'),
  spheres: readOnly('array<vec4f>'),
  boxes: readOnly('array<vec4f>'),
  ...PAIR_OUTPUT,
});



/** The overlap test of sphere `s` with box `k` (boxes bound as `boxes: array<vec4f>`). */
export const boxTest = (kind: BoxKind, k: string): string =>
  kind === 'aabb'
    ? `sphereAabbOverlap(s, boxes[2u * ${k}].xyz, boxes[2u * ${k} + 1u].xyz)`
    : `sphereObbOverlap(s, boxes[3u * ${k}].xyz, boxes[3u * ${k} + 1u].xyz, boxes[3u * ${k} + 2u])`;

/**
 * Declares `boxMin` and `boxMax`, the world bounds of box `k`: an AABB's own, an oriented box's
 * grown a little so that rounding cannot shrink them (the grid's cell range of an oriented box
 * is computed from its centre's offset from each level's origin instead, `center`, `e` and
 * `span` here, which the rounding grows far less). Every axis grows by 2^-16 + 2^-20 of `span`,
 * the sum of the world half extents: sphereObbOverlap rounds in the box's frame, by ulps of the
 * sphere's whole offset from the centre, so a box long on one axis and thin on a world axis (a
 * plank at an angle) accepts spheres past its thin extent by ulps of its long one (grown by ulps
 * of each axis' own extent, the grid missed such pairs that all-pairs reported: a box 2000 ×
 * 0.02 × 0.02 turned about two axes). And by 2^-22 of the centre's coordinates: the bounds'
 * own rounding (centre − e, then the growth: half an ulp each) and a BVH leaf's (half an ulp of
 * its sphere's centre), each covered twice over. Not 2^-20 of the coordinates: at 1e6 that is
 * about 1 unit, and the BVH's box walk through the touching lattice there reached 8× more
 * leaves on each axis than it needed (16,000 spheres × 20,000 boxes: 26 s, 100× a CPU BVH).
 */
export const boxBounds = (kind: BoxKind, k: string): string =>
  kind === 'aabb'
    ? `let boxMin = boxes[2u * ${k}].xyz;
  let boxMax = boxes[2u * ${k} + 1u].xyz;`
    : `let center = boxes[3u * ${k}].xyz;
  let e = obbWorldHalfExtents(boxes[3u * ${k} + 1u].xyz, boxes[3u * ${k} + 2u]);
  let span = vec3f(e.x + e.y + e.z);
  let grow = span * (1.0 / 65536.0 + 1.0 / 1048576.0) + abs(center) * (1.0 / 4194304.0);
  let boxMin = center - e - grow;
  let boxMax = center + e + grow;`;

export const boxAllPairsShader = ({ kind }: { kind: BoxKind }) => wgsl`
${BoxParams.wgsl}
${boxAllPairsBindings.wgsl}
${pairAppend}
${flatWorkgroup}
${boxMath}

override TILE: u32; // src/gpu/workgroups.ts

@compute @workgroup_size(TILE)
fn boxAllPairs(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
               @builtin(local_invocation_index) lid: u32) {
  let tile = flatWorkgroup(wid, nwg);
  if (tile >= params.tileCount) {
    return;
  }
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


