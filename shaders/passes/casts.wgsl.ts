/**
 * Raycasts and sphere casts against spheres (a ray is a cast of radius 0): the frame every cast
 * kernel shares. The CPU twins are in src/reference/casts.ts. On the GPU a cast is two vec4:
 * (A, radius), (B, 0).
 *
 * One thread per cast. A broad phase that serves casts supplies its walk over its structure
 * (`CastWalk`: its bindings, its declarations and the loop that visits candidates; the
 * all-pairs, grid and BVH walks are in shaders/broadphase/<name>/casts.wgsl.ts) and `castKernel`
 * wraps it in what every walk shares: the cast's set-up, the hit test (`castMath`), and the mode,
 * chosen when the pipeline is made:
 *   'nearest' the first hit (ties to the lowest sphere index) → hits[cast]
 *   'count'   the number of hits → counts[cast]
 *   'write'   every hit → hits[offsets[cast] ..], sorted by (distance, index)
 * A walk visits a candidate sphere `q` (vec4f) with `onCandidate(mode, id)`, and may stop at
 * `castStop(mode)`, the distance beyond which nothing can still count.
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { CastParams, CastHitRecord } from './layout.js';
import { EXT_SCALE, SLAB_X } from '../../src/spatial/level.js';
import { uniform, readOnly, readWrite, entry, WG, type Bindings } from '../../src/gpu/kernel.js';
import { flatWorkgroup, tinyGuards } from '../common.wgsl.js';

import type { CastMode } from '../../src/queryKinds.js';

export { SLAB_X } from '../../src/spatial/level.js';

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

/** What every cast kernel reads and writes besides its broad phase's structure: spread into its bindings. */
export const CAST_INPUT = { params: uniform('CastParams'), casts: readOnly('array<vec4f>') } as const;
export const CAST_OUTPUT = { hits: readWrite('array<CastHitRecord>'), counts: readWrite('array<u32>') } as const;

/** What to do with candidate `q` (vec4f) whose index is the u32 expression `id`. */
export function onCandidate(mode: CastMode, id: string): string {
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

/**
 * Sorts one query's run of hits, \`hits[first .. first + found)\`, by (distance, \`index\`):
 * insertion sort of a short run, in place, when the whole run fit. Shared by the sphere casts
 * (\`index\`, the sphere) and the mesh queries (\`triangle\`: shaders/mesh/queries.wgsl.ts).
 */
export const sortHitRun = (
  index: string,
): string => `// This query's hits by (distance, ${index}): insertion sort of a short run, in place.
  if (first + found <= arrayLength(&hits)) {
    for (var i = first + 1u; i < first + found; i++) {
      let h = hits[i];
      var j = i;
      while (j > first && (hits[j - 1u].distance > h.distance || (hits[j - 1u].distance == h.distance && hits[j - 1u].${index} > h.${index}))) {
        hits[j] = hits[j - 1u];
        j -= 1u;
      }
      hits[j] = h;
    }
  }`;

/** What can still count along the ray: up to B, and in nearest mode the best hit so far. */
export const castStop = (mode: CastMode): string => (mode === 'nearest' ? 'min(len, bestT)' : 'len');

/**
 * A broad phase's walk over its structure, for `castKernel`. The walk runs in `castMain` after
 * the cast's set-up (a, n, len, r1, `live`, `moving`, and the mode's best hit or count) and
 * visits candidates with `onCandidate`; threads past the last cast run it too (`live` false).
 */
export interface CastWalk {
  /** The kernel's bindings: CAST_INPUT and CAST_OUTPUT with the structure's. */
  bindings: Bindings<string>;
  /** Declarations before the cast math: the structure's types and functions. */
  helpers?: string;
  /** Declarations after the cast math. */
  lateHelpers?: string;
  /** Module-scope variables (workgroup memory), after the constants. */
  workgroup?: string;
  /** The walk's statements in castMain. */
  walk: string;
}

/**
 * Every cast kernel's entry: one thread a cast, and no bounds check, since the threads past the
 * last cast still help the walk (the all-pairs walk stages spheres in workgroup memory between
 * barriers); they stop after it (`live`).
 */
export const castMainEntry = entry({ name: 'castMain', index: 'k' });

/** The cast kernel `castMain` of one mode over one broad phase's walk. */
export const castKernel = (mode: CastMode, walk: CastWalk): string => wgsl`
${CastParams.wgsl}
${CastHitRecord.wgsl}
${walk.bindings.wgsl}
#if ${walk.helpers !== undefined}
${walk.helpers}
#endif
${flatWorkgroup}
${castMath}
#if ${walk.lateHelpers !== undefined}
${walk.lateHelpers}
#endif

${WG.wgsl}
const FAR: f32 = 3.0e38;
const SLAB_X: i32 = ${SLAB_X};
const EXT_SCALE: f32 = ${EXT_SCALE};
#if ${walk.workgroup !== undefined}
${walk.workgroup}
#endif

${castMainEntry.wgsl}
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


${walk.walk}


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
  ${sortHitRun('index')}
#endif
}
`;

/** One broad phase's cast kernel: its bindings and its WGSL by mode. */
export interface CastKernel<N extends string> {
  /** Its phase's name: the stage's is `cast <name> <mode>` (and its bind group layout's, `cast <name>`). */
  name: string;
  /** The pipeline's key within its phase (a grid layout), when it has variants. */
  variant?: string;
  bindings: Bindings<N>;
  shader(mode: CastMode): string;
}
