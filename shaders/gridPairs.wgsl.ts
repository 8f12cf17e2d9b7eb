/**
 * Sphere–sphere pairs from the built grid (shaders/grid.wgsl.ts, src/grid/plan.ts).
 *
 * One thread per sphere in cell order (neighbouring threads read neighbouring cells). Sphere t
 * of level a visits, in level a and every coarser non-empty level b, the cells overlapping its
 * box p ± (r + maxRadius_b)·EXT_SCALE, a row (fixed y, z) at a time: a row's cells are
 * consecutive buckets, so a row is one range of the sorted spheres. Reporting rules, each pair
 * once:
 *   b == a  report when the partner comes later in cell order (u > t: the earlier ones are
 *           skipped without reading them, halving the work);
 *   b >  a  always (the coarser sphere never looks at finer levels).
 *
 * Two variants, chosen by the plan when the pipeline is made (`dense`):
 *   dense   every bucket is one cell: a row is exactly the range [rowKey + lo.x, rowKey + hi.x],
 *           and the next row's key is this one's plus dims.x (plus dims.x·dims.y for the next z).
 *   hashed  rows are placed by a hash: a row's range may wrap past the last bucket (two ranges),
 *           and may hold spheres of other rows or levels, so candidates are filtered by their
 *           own level and cell.
 * They are separate pipelines, not a branch: on SwiftShader (CI) code in a loop costs its time
 * even when a uniform branch skips it.
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { EXT_SCALE } from '../src/grid/level.js';
import { gridFunctions } from './grid.wgsl.js';
import { flatWorkgroup, spheresOverlap, pairAppend } from './common.wgsl.js';

/** Bindings, in order: grid, cellStart, sorted, sortedId, pairs, pair counter. */
export const gridPairsBindings = ['uniform', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'storage', 'storage'] as const;

export interface GridPairsOptions {
  /** The plan's layout: dense (one bucket per cell) or hashed. */
  dense: boolean;
}

export const gridPairsShader = ({ dense }: GridPairsOptions) => wgsl`
${gridFunctions(0, 0)}
@group(0) @binding(1) var<storage, read> cellStart: array<u32>;
@group(0) @binding(2) var<storage, read> sorted: array<vec4f>;
@group(0) @binding(3) var<storage, read> sortedId: array<u32>;
${pairAppend(0, 4, 5)}
${flatWorkgroup}
${spheresOverlap}

override WG: u32 = 128u;
const EXT_SCALE: f32 = ${EXT_SCALE};

// Tests sphere s (sorted position t) against the sorted spheres [start, end), keeping those
// later than t when they share its level.
#if ${!dense}
// Is the candidate q in cell row (y, z) of level b, with x in [x0, x1]?
fn inRow(q: vec4f, b: u32, x0: u32, x1: u32, y: u32, z: u32) -> bool {
  if (sphereLevel(q.w) != b) {
    return false;
  }
  let c = cellOf(q.xyz, b);
  return c.y == y && c.z == z && c.x >= x0 && c.x <= x1;
}
#endif

@compute @workgroup_size(WG)
fn gridPairs(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
             @builtin(local_invocation_index) lid: u32) {
  let t = flatWorkgroup(wid, nwg) * WG + lid;
  if (t >= grid.sphereCount) {
    return;
  }
  let s = sorted[t];
  let id = sortedId[t];
  let a = sphereLevel(s.w);
  for (var b = a; b < grid.levelCount; b++) {
    if (grid.levels[b].count == 0u) {
      continue;
    }
    let ext = (s.w + grid.levels[b].maxRadius) * EXT_SCALE;
    let lo = cellOf(s.xyz - vec3f(ext), b);
    let hi = cellOf(s.xyz + vec3f(ext), b);
    let width = hi.x - lo.x + 1u;
    // Only partners later in cell order at the sphere's own level.
    let first = select(0u, t + 1u, b == a);
#if ${dense}
    // Buckets follow cell order (x fastest, then y, then z), so at its own level the sphere
    // skips the rows before its own: their spheres all come before it.
    var head = lo;
    if (b == a) {
      head = cellOf(s.xyz, a);
    }
    let dims = grid.levels[b].dims;
    var plane = rowKey(b, lo.y, head.z) + lo.x;
    for (var z = head.z; z <= hi.z; z++) {
      let y0 = select(lo.y, head.y, z == head.z);
      var k0 = plane + (y0 - lo.y) * dims.x;
      for (var y = y0; y <= hi.y; y++) {
        let end = cellStart[k0 + width];
        for (var u = max(cellStart[k0], first); u < end; u++) {
          let q = sorted[u];
          if (spheresOverlap(s, q)) {
            let other = sortedId[u];
            appendPair(min(id, other), max(id, other));
          }
        }
        k0 += dims.x;
      }
      plane += dims.x * dims.y;
    }
#else
    let bucketCount = grid.bucketMask + 1u;
    for (var z = lo.z; z <= hi.z; z++) {
      for (var y = lo.y; y <= hi.y; y++) {
        // The row's buckets: [k0, k1), and [0, wrapEnd) when it wraps past the last bucket.
        // A row as wide as the bucket array covers every bucket once.
        var k0 = 0u;
        var k1 = bucketCount;
        var wrapEnd = 0u;
        if (width < bucketCount) {
          k0 = (rowKey(b, y, z) + lo.x) & grid.bucketMask;
          k1 = k0 + width;
          if (k1 > bucketCount) {
            wrapEnd = k1 - bucketCount;
            k1 = bucketCount;
          }
        }
        loop {
          let end = cellStart[k1];
          for (var u = max(cellStart[k0], first); u < end; u++) {
            let q = sorted[u];
            if (inRow(q, b, lo.x, hi.x, y, z) && spheresOverlap(s, q)) {
              let other = sortedId[u];
              appendPair(min(id, other), max(id, other));
            }
          }
          if (wrapEnd == 0u) {
            break;
          }
          k0 = 0u;
          k1 = wrapEnd;
          wrapEnd = 0u;
        }
      }
    }
#endif
  }
}
`;
