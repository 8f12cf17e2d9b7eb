/**
 * Sort and sweep (the seeds' sorted list; Bullet3's GPU sweep is the model): the spheres sorted
 * by the lower end of their interval along one axis (the axis of greatest variance), then each
 * interval swept forward until the next lower end passes its upper end. The CPU twin is in
 * src/reference/sweep.ts.
 *
 *   sweepKeys    key = the interval's lower end x − r as an order-preserving u32, value = index
 *   (radix sort of the keys, src/passes/radixSort.ts)
 *   sweepGather  the spheres copied into sorted order (so the sweep reads contiguous memory)
 *   sweepPairs   one thread per sorted sphere: every later sphere whose lower end is within its
 *                upper end + slack, tested with the same overlap test as every broad phase
 *   sweepBoxes   one thread per box: a binary search for the first sphere whose interval can
 *                reach the box (lower end ≥ box min − 2·maxRadius − slack), then forward while
 *                lower ends are within the box's max + slack, with the same box tests as the grid
 *
 * Work: n log-free passes for keys and gather, the sort, and for the sweep the number of
 * interval overlaps along the axis: n·(mean interval length)·(density along the axis). That is
 * small for spheres spread along one long axis and large for a cube of spheres, where the grid
 * tests only the neighbouring cells.
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { SweepParams } from './layout.js';
import { flatWorkgroup, spheresOverlap, pairAppend, PAIR_OUTPUT } from '../../common.wgsl.js';
import { bindings, uniform, readOnly, readWrite, entry, WG } from '../../../src/gpu/kernel.js';
import { boxMath, boxTest, boxBounds } from '../../boxes.wgsl.js';
import type { BoxKind } from '../../../src/queryKinds.js';

/**
 * f32 → u32 keeping the order: positive floats get the sign bit set, negative ones are
 * inverted. (−0 sorts just before +0; both are ≤ and ≥ each other, which is all a sweep needs.)
 */
const orderKey = /* wgsl */ `
fn orderKey(f: f32) -> u32 {
  let b = bitcast<u32>(f);
  return select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);
}
`;

/** The lower end of a sphere's interval along the sweep axis: the value its key encodes. */
const lowerEnd = /* wgsl */ `
fn lowerEnd(s: vec4f) -> f32 {
  return s[params.axis] - s.w;
}
`;

export const sweepKeysBindings = bindings({
  params: uniform('SweepParams'),
  spheres: readOnly('array<vec4f>'),
  keys: readWrite('array<u32>'),
  ids: readWrite('array<u32>'),
});
export const sweepKeysEntry = entry({ name: 'sweepKeys', index: 'i', bound: 'params.sphereCount' });
export const sweepKeysShader = () => wgsl`
${SweepParams.wgsl}
${sweepKeysBindings.wgsl}
${flatWorkgroup}
${orderKey}
${lowerEnd}
${WG.wgsl}

${sweepKeysEntry.wgsl}
  keys[i] = orderKey(lowerEnd(spheres[i]));
  ids[i] = i;
}
`;

export const sweepGatherBindings = bindings({
  params: uniform('SweepParams'),
  spheres: readOnly('array<vec4f>'),
  ids: readOnly('array<u32>'),
  sorted: readWrite('array<vec4f>'),
});
export const sweepGatherEntry = entry({ name: 'sweepGather', index: 'k', bound: 'params.sphereCount' });
export const sweepGatherShader = () => wgsl`
${SweepParams.wgsl}
${sweepGatherBindings.wgsl}
${flatWorkgroup}
${WG.wgsl}

${sweepGatherEntry.wgsl}
  sorted[k] = spheres[ids[k]];
}
`;

export const sweepPairsBindings = bindings({
  params: uniform('SweepParams'),
  sorted: readOnly('array<vec4f>'),
  ids: readOnly('array<u32>'),
  ...PAIR_OUTPUT,
});
export const sweepPairsEntry = entry({ name: 'sweepPairs', index: 'k', bound: 'params.sphereCount' });
export const sweepPairsShader = () => wgsl`
${SweepParams.wgsl}
${sweepPairsBindings.wgsl}
${pairAppend}
${flatWorkgroup}
${spheresOverlap}
${lowerEnd}
${WG.wgsl}

${sweepPairsEntry.wgsl}
  let s = sorted[k];
  let id = ids[k];
  let upper = s[params.axis] + s.w + params.slack;
  { // for (var u = k + 1u; u < params.sphereCount; u++), tested at the bottom (forLoop, common.wgsl.ts)
    var u = k + 1u;
    if (u < params.sphereCount) {
      loop {
        let q = sorted[u];
        if (lowerEnd(q) > upper) {
          break;
        }
        if (spheresOverlap(s, q)) {
          let other = ids[u];
          appendPair(min(id, other), max(id, other));
        }
        continuing {
          u++;
          break if !(u < params.sphereCount);
        }
      }
    }
  }
}
`;

export const sweepBoxesBindings = bindings({
  params: uniform('SweepParams'),
  sorted: readOnly('array<vec4f>'),
  ids: readOnly('array<u32>'),
  boxes: readOnly('array<vec4f>'),
  ...PAIR_OUTPUT,
});
export const sweepBoxesEntry = entry({ name: 'sweepBoxes', index: 'k', bound: 'params.boxCount' });
export const sweepBoxesShader = ({ kind }: { kind: BoxKind }) => wgsl`
${SweepParams.wgsl}
${sweepBoxesBindings.wgsl}
${pairAppend}
${flatWorkgroup}
${boxMath}
${lowerEnd}
${WG.wgsl}

${sweepBoxesEntry.wgsl}
  ${boxBounds(kind, 'k')}
  let axis = params.axis;
  let lowest = boxMin[axis] - 2.0 * params.maxRadius - params.slack;
  let highest = boxMax[axis] + params.slack;
  // The first sorted sphere whose lower end is ≥ lowest (lower ends are sorted).
  var lo = 0u;
  var hi = params.sphereCount;
  while (lo < hi) {
    let mid = (lo + hi) / 2u;
    if (lowerEnd(sorted[mid]) < lowest) {
      lo = mid + 1u;
    } else {
      hi = mid;
    }
  }
  { // for (var u = lo; u < params.sphereCount; u++), tested at the bottom (forLoop, common.wgsl.ts)
    var u = lo;
    if (u < params.sphereCount) {
      loop {
        let s = sorted[u];
        if (lowerEnd(s) > highest) {
          break;
        }
        if (${boxTest(kind, 'k')}) {
          appendPair(ids[u], k);
        }
        continuing {
          u++;
          break if !(u < params.sphereCount);
        }
      }
    }
  }
}
`;
