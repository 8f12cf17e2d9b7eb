/**
 * Raycasts and sphere casts against spheres (a ray is a cast of radius 0). The CPU twins are
 * in src/reference/casts.ts. On the GPU a cast is two vec4: (A, radius), (B, 0).
 *
 * Kernels (one thread per cast), chosen when the pipeline is made:
 *   broad phase  'brute'  every sphere, staged a workgroup's worth at a time in workgroup memory
 *                'grid'   the spheres of a built grid, walked in slabs along the ray (below)
 *                'bvh'    the nodes of a built LBVH (shaders/bvh.wgsl.ts) whose box, grown by the
 *                         cast's radius and the slack, the ray enters before the best hit so far
 *                         (nearest) or before B; nearer child first
 *   mode         'nearest' the first hit (ties to the lowest sphere index) → hits[cast]
 *                'count'   the number of hits → counts[cast]
 *                'write'   every hit → hits[offsets[cast] ..], sorted by (distance, index)
 *
 * The grid walk, per level: cells are cubes of side s and hold spheres of radius ≤ maxRadius;
 * with h = maxRadius + cast radius (+ slack for rounding), a sphere centred in cell c can only
 * touch the ray where the ray is within h of c. Along the ray's dominant axis the grid is a
 * stack of slabs (one cell thick, SLAB_X along x); a slab is visited over the stretch of the ray
 * whose dominant coordinate lies in [slab start − h, slab end + h], and of that slab only the
 * cells within h of that stretch. Every cell belongs to one slab, so no sphere is tested twice. Slabs come in ray
 * order, and a hit from slab k lies at t ≥ the stretch's entry, so the walk stops at the first
 * slab that starts beyond the best hit so far (nearest mode) or beyond B.
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { CastParams, CastHitRecord } from '../src/layout.js';
import { EXT_SCALE } from '../src/grid/level.js';
import { gridHelpers, compiledFor, GRID_PARAMS, GRID_READ } from './grid.wgsl.js';
import { bindings, uniform, readOnly, readWrite } from '../src/gpu/kernel.js';
import { walkRows, visitLevel, inRowFunction } from './gridWalk.wgsl.js';
import { flatWorkgroup, levelLoop, tinyGuards } from './common.wgsl.js';
import { bvhWalk, rayBoxEntry } from './bvh.wgsl.js';
import { BvhNode } from '../src/layout.js';

import type { CastMode } from '../src/queryKinds.js';

export { SLAB_X } from '../src/grid/level.js';
import { SLAB_X } from '../src/grid/level.js';

export interface CastShaderOptions {
  broadphase: 'brute' | 'grid' | 'bvh';
  mode: CastMode;
  /** Grid only: the plan's layout (default dense). */
  dense?: boolean;
  /** Grid only: the plan has one level (GridLayout, shaders/grid.wgsl.ts). */
  oneLevel?: boolean;
}

/**
 * The first touch of a cast (origin a, unit direction n, length len, radius r1) with sphere s,
 * as a distance along the ray, or −1. |CS|² is taken from the cross product (S − A) × n rather
 * than |AS|² − |AC|², which loses the precision of a far sphere to cancellation.
 */
export const castMath = /* wgsl */ `
${tinyGuards}
fn castHit(a: vec3f, n: vec3f, len: f32, r1: f32, s: vec4f) -> f32 {
  let reach = r1 + s.w;
  // A reach below TINY_REACH (points included) is tested with d and the reach scaled by 2^64,
  // exactly, so that no square that decides the test is a subnormal a GPU may flush (tinyGuards).
  // Scaled, the squares are taken of offsets clamped to where the answer is already a miss
  // (past 2^-39 from the sphere, or 2^25 from the line after scaling), so that none overflows.
  let tiny = reach < TINY_REACH;
  let k = select(1.0, TINY_SCALE, tiny);
  let d = (s.xyz - a) * k;
  let rk = reach * k;
  let limit = select(TINY_UNCLAMPED, TINY_CLAMP * TINY_SCALE, tiny);
  let near = clamp(d, vec3f(-limit), vec3f(limit));
  if (dot(near, near) < rk * rk) {
    return -1.0; // starts inside (ray) or overlapping (cast): ignored
  }
  let c = clamp(cross(d, n), vec3f(-limit), vec3f(limit));
  let disc = rk * rk - dot(c, c);
  // A ray against a point (reach 0) hits only through it: the square of a tiny offset underflows.
  if (disc < 0.0 || (reach == 0.0 && any(c != vec3f(0.0)))) {
    return -1.0;
  }
  let t = (dot(d, n) - sqrt(disc)) * select(1.0, TINY_UNSCALE, tiny);
  if (t < 0.0 || t > len) {
    return -1.0;
  }
  return t;
}

// The hit record: point D (ray) or centre at contact C (cast), and contact E = C + (S − C)·r1/R.
fn castRecord(a: vec3f, n: vec3f, r1: f32, t: f32, s: vec4f, index: u32) -> CastHitRecord {
  let c = a + n * t;
  let reach = r1 + s.w;
  let e = select(c, c + (s.xyz - c) * (r1 / reach), reach > 0.0);
  return CastHitRecord(c, t, e, i32(index));
}
`;

/** What every cast kernel reads and writes besides its broad phase's structure. */
const CAST_INPUT = { params: uniform('CastParams'), casts: readOnly('array<vec4f>') } as const;
const CAST_OUTPUT = { hits: readWrite('array<CastHitRecord>'), counts: readWrite('array<u32>') } as const;

/** The brute-force kernels: every sphere. */
export const castBruteBindings = bindings({ ...CAST_INPUT, spheres: readOnly('array<vec4f>'), ...CAST_OUTPUT });
/** The grid kernels: the grid's uniform first, then its buckets. */
export const castGridBindings = bindings({ ...GRID_PARAMS, ...CAST_INPUT, ...GRID_READ, ...CAST_OUTPUT });
/** The LBVH kernels: its nodes, the sorted spheres and their indices. */
export const castBvhBindings = bindings({
  ...CAST_INPUT,
  nodes: readOnly('array<BvhNode>'),
  sorted: readOnly('array<vec4f>'),
  sortedId: readOnly('array<u32>'),
  ...CAST_OUTPUT,
});

/** What to do with candidate `q` (vec4f) whose index is the u32 expression `id`. */
function onCandidate(mode: CastMode, id: string): string {
  if (mode === 'nearest') {
    return `let t = castHit(a, n, len, r1, q);
          if (t >= 0.0 && t <= bestT) {
            let index = ${id};
            if (t < bestT || index < bestIndex) {
              bestT = t;
              bestIndex = index;
              bestSphere = q;
            }
          }`;
  }
  if (mode === 'count') {
    return `if (castHit(a, n, len, r1, q) >= 0.0) {
            found += 1u;
          }`;
  }
  return `let t = castHit(a, n, len, r1, q);
          if (t >= 0.0) {
            let slot = first + found;
            found += 1u;
            if (slot < arrayLength(&hits)) {
              hits[slot] = castRecord(a, n, r1, t, q, ${id});
            }
          }`;
}

export const castShader = (options: CastShaderOptions) =>
  compiledFor(castCode(options), { dense: options.dense ?? true, oneLevel: options.broadphase === 'grid' && options.oneLevel });

const castCode = ({ broadphase, mode, dense = true }: CastShaderOptions) => {
  // What can still count along the ray: up to B, and in nearest mode the best hit so far.
  const tStop = mode === 'nearest' ? 'min(len, bestT)' : 'len';
  const grid = broadphase === 'grid';
  const bvh = broadphase === 'bvh';
  const brute = broadphase === 'brute';
  return wgsl`
${CastParams.wgsl}
${CastHitRecord.wgsl}
${(grid ? castGridBindings : bvh ? castBvhBindings : castBruteBindings).wgsl}
#if ${grid}
${gridHelpers(dense)}
#elif ${bvh}
${BvhNode.wgsl}
${rayBoxEntry}
#endif
${flatWorkgroup}
${castMath}
#if ${grid && !dense}
${inRowFunction}
#endif

override WG: u32; // src/gpu/workgroups.ts
const FAR: f32 = 3.0e38;
const SLAB_X: i32 = ${SLAB_X};
const EXT_SCALE: f32 = ${EXT_SCALE};
#if ${brute}
var<workgroup> staged: array<vec4f, WG>;
#endif

@compute @workgroup_size(WG)
fn castMain(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
            @builtin(local_invocation_index) lid: u32) {
  let k = flatWorkgroup(wid, nwg) * WG + lid;
  // Threads past the last cast still help stage spheres (brute force), so no early return.
  let live = k < params.castCount;
  let kk = min(k, max(params.castCount, 1u) - 1u);
  let a = casts[2u * kk].xyz;
  let r1 = casts[2u * kk].w;
  let ab = casts[2u * kk + 1u].xyz - a;
  let len = length(ab);
  let n = ab / max(len, 1e-38);
  let moving = live && len > 0.0; // a zero-length ray hits nothing
#if ${mode === 'nearest'}
  var bestT = FAR;
  var bestIndex = 0xffffffffu;
  var bestSphere = vec4f(0.0);
#else
  var found = 0u;
#endif
#if ${mode === 'write'}
  let first = counts[kk];
#endif

#if ${brute}
  for (var base = 0u; base < params.sphereCount; base += WG) {
    let j = base + lid;
    staged[lid] = spheres[min(j, params.sphereCount - 1u)];
    workgroupBarrier();
    if (moving) {
      let count = min(WG, params.sphereCount - base);
      for (var i = 0u; i < count; i++) {
        let q = staged[i];
        ${onCandidate(mode, 'base + i')}
      }
    }
    workgroupBarrier();
  }
#elif ${bvh}
  if (moving && params.sphereCount > 0u) {
    // Node boxes hold their spheres but for half an ulp of their coordinates; grown by the cast's
    // radius and the slack (bvhCastSlack) they hold every point where the cast can touch.
    let grow = vec3f(r1 * EXT_SCALE + params.slack);
    ${bvhWalk({
      test: `let key = rayBoxEntry(a, n, ${mode === 'nearest' ? 'min(len, bestT)' : 'len'}, nodes[c].lo - grow, nodes[c].hi + grow);`,
      visit: onCandidate(mode, 'sortedId[u]'),
      skip: mode === 'nearest' ? 'key > bestT' : undefined,
    }, 'params.sphereCount')}
  }
#else
  if (moving) {
    // Walk along the dominant axis of the ray.
    let an = abs(n);
    let axis = select(select(2u, 1u, an.y >= an.z), 0u, an.x >= an.y && an.x >= an.z);
    let na = n[axis];
    let dir = select(-1, 1, na > 0.0);
    ${levelLoop('level', 'grid.firstLevel', `
      let cellSize = grid.levels[level].cellSize;
      let lastSlab = i32(grid.levels[level].dims[axis]) - 1;
      let h = (grid.levels[level].maxRadius + r1) * EXT_SCALE + params.slack;
      let tEnd = ${tStop};
      let rayEnd = a + n * tEnd;
      if (!levelTouches(level, min(a, rayEnd) - vec3f(h), max(a, rayEnd) + vec3f(h))) {
        continue;
      }
      // From the slab whose reach covers A to the one whose reach covers the end. Along x, a
      // slab is SLAB_X cells thick: the buckets of a row are consecutive in x, so a thick slab
      // costs the rows of a thin one (along y or z every row already spans the walk's x range).
      let thickness = select(1, SLAB_X, axis == 0u);
      let slabFirst = i32(cellOf(a - vec3f(f32(dir) * h), level)[axis]);
      let slabLast = i32(cellOf(a + n * tEnd + vec3f(f32(dir) * h), level)[axis]);
      // A ray much longer than the level's cells (more slabs than spheres in the level): test
      // the level's spheres directly instead of walking slabs that are almost all empty.
      if (f32(abs(slabLast - slabFirst) / thickness + 1) > f32(grid.levels[level].count)) {
        ${visitLevel({ dense, level: 'level', box: false, visit: onCandidate(mode, 'sortedId[u]') })}
        continue;
      }
      var slab = slabFirst;
      loop {
        // Cells [slabLo, slabHi] along the axis, and the stretch of the ray their spheres can touch.
        let slabLo = select(max(slab - thickness + 1, 0), slab, dir > 0);
        let slabHi = select(slab, min(slab + thickness - 1, lastSlab), dir > 0);
        let x0 = select(grid.levels[level].origin[axis] + f32(slabLo) * cellSize - h, -FAR, slabLo == 0);
        let x1 = select(grid.levels[level].origin[axis] + f32(slabHi + 1) * cellSize + h, FAR, slabHi == lastSlab);
        var tIn = (select(x1, x0, dir > 0) - a[axis]) / na;
        var tOut = (select(x0, x1, dir > 0) - a[axis]) / na;
        let tStop = ${tStop};
        tIn = max(tIn, 0.0);
        if (tIn > tStop) {
          break; // this slab, and every later one, starts beyond what can still count
        }
        tOut = min(tOut, tStop);
        if (tIn <= tOut) {
          let p0 = a + n * tIn;
          let p1 = a + n * tOut;
          var lo = cellOf(min(p0, p1) - vec3f(h), level);
          var hi = cellOf(max(p0, p1) + vec3f(h), level);
          lo[axis] = u32(slabLo);
          hi[axis] = u32(slabHi);
          ${walkRows({ dense, level: 'level', lo: 'lo', hi: 'hi', levelScan: true, flat: true, visit: onCandidate(mode, 'sortedId[u]') })}
        }
        if (slabLast >= slabLo && slabLast <= slabHi) {
          break;
        }
        slab += dir * thickness;
      }`)}
  }
#endif

  if (!live) {
    return;
  }
#if ${mode === 'nearest'}
  if (bestIndex == 0xffffffffu) {
    hits[k] = CastHitRecord(vec3f(0.0), -1.0, vec3f(0.0), -1);
  } else {
    hits[k] = castRecord(a, n, r1, bestT, bestSphere, bestIndex);
  }
#elif ${mode === 'count'}
  counts[k] = found;
#else
  // Sort this cast's hits by (distance, index): insertion sort of a short run, in place.
  if (first + found <= arrayLength(&hits)) {
    for (var i = first + 1u; i < first + found; i++) {
      let h = hits[i];
      var j = i;
      while (j > first && (hits[j - 1u].distance > h.distance || (hits[j - 1u].distance == h.distance && hits[j - 1u].index > h.index))) {
        hits[j] = hits[j - 1u];
        j -= 1u;
      }
      hits[j] = h;
    }
  }
#endif
}
`;
};
