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
import { SweepParams } from '../src/layout.js';
import { flatWorkgroup, spheresOverlap, pairAppend } from './common.wgsl.js';
import { boxMath, boxTest, boxBounds } from './boxes.wgsl.js';
import type { BoxKind } from '../src/queryKinds.js';

const params = (binding: number): string => `
${SweepParams.wgsl}
@group(0) @binding(${binding}) var<uniform> params: SweepParams;
`;

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

/** Bindings of sweepKeys: params, spheres, keys, ids. */
export const sweepKeysBindings = ['uniform', 'read-only-storage', 'storage', 'storage'] as const;
export const sweepKeysShader = () => wgsl`
${params(0)}
@group(0) @binding(1) var<storage, read> spheres: array<vec4f>;
@group(0) @binding(2) var<storage, read_write> keys: array<u32>;
@group(0) @binding(3) var<storage, read_write> ids: array<u32>;
${flatWorkgroup}
${orderKey}
${lowerEnd}
override WG: u32; // src/gpu/workgroups.ts

@compute @workgroup_size(WG)
fn sweepKeys(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  let i = flatWorkgroup(wid, nwg) * WG + lid;
  if (i >= params.sphereCount) {
    return;
  }
  keys[i] = orderKey(lowerEnd(spheres[i]));
  ids[i] = i;
}
`;

/** Bindings of sweepGather: params, spheres, ids (sorted), sorted spheres. */
export const sweepGatherBindings = ['uniform', 'read-only-storage', 'read-only-storage', 'storage'] as const;
export const sweepGatherShader = () => wgsl`
${params(0)}
@group(0) @binding(1) var<storage, read> spheres: array<vec4f>;
@group(0) @binding(2) var<storage, read> ids: array<u32>;
@group(0) @binding(3) var<storage, read_write> sorted: array<vec4f>;
${flatWorkgroup}
override WG: u32; // src/gpu/workgroups.ts

@compute @workgroup_size(WG)
fn sweepGather(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  let k = flatWorkgroup(wid, nwg) * WG + lid;
  if (k >= params.sphereCount) {
    return;
  }
  sorted[k] = spheres[ids[k]];
}
`;

/** Bindings of sweepPairs: params, sorted spheres, ids, pairs, pair counter. */
export const sweepPairsBindings = ['uniform', 'read-only-storage', 'read-only-storage', 'storage', 'storage'] as const;
export const sweepPairsShader = () => wgsl`
${params(0)}
@group(0) @binding(1) var<storage, read> sorted: array<vec4f>;
@group(0) @binding(2) var<storage, read> ids: array<u32>;
${pairAppend(0, 3, 4)}
${flatWorkgroup}
${spheresOverlap}
${lowerEnd}
override WG: u32; // src/gpu/workgroups.ts

@compute @workgroup_size(WG)
fn sweepPairs(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  let k = flatWorkgroup(wid, nwg) * WG + lid;
  if (k >= params.sphereCount) {
    return;
  }
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

/** Bindings of sweepBoxes: params, sorted spheres, ids, boxes, pairs, pair counter. */
export const sweepBoxesBindings = ['uniform', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'storage', 'storage'] as const;
export const sweepBoxesShader = ({ kind }: { kind: BoxKind }) => wgsl`
${params(0)}
@group(0) @binding(1) var<storage, read> sorted: array<vec4f>;
@group(0) @binding(2) var<storage, read> ids: array<u32>;
@group(0) @binding(3) var<storage, read> boxes: array<vec4f>;
${pairAppend(0, 4, 5)}
${flatWorkgroup}
${boxMath}
${lowerEnd}
override WG: u32; // src/gpu/workgroups.ts

@compute @workgroup_size(WG)
fn sweepBoxes(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  let k = flatWorkgroup(wid, nwg) * WG + lid;
  if (k >= params.boxCount) {
    return;
  }
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
