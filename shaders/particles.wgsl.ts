/**
 * The particle world's step (src/particles.ts), after the grid's count and scan:
 *
 *   particleScatterIds  every particle's index into its bucket, in arrival order (racy)
 *   particleStable      each particle's rank in its bucket by index (stable, so that neighbours
 *                       are always visited in one order), and the sorted copies the contact
 *                       passes read: position + radius, and velocity after gravity + inverse mass
 *   particleCount       per particle, its approaching contacts and its contacts deeper than slop
 *   particleRespond     per particle, the sum of its contacts' impulses and corrections, each
 *                       weighted 1 / max(the pair's counts); the new velocity and position
 *
 * The response (DESIGN.md), for a touching pair with normal n from A to B (a deterministic
 * one when the centres coincide), approach speed v = (vB − vA)·n < 0 and inverse masses wA, wB:
 *   impulse      j = −(1 + e) v / (wA + wB),   ΔvA = −ω j wA n,   ΔvB = +ω j wB n
 *   correction   c = max(depth − slop, 0)·percent,   ΔxA = −ω' c wA/(wA + wB) n, ΔxB = +ω' c wB/(wA + wB) n
 * Walls are static contacts (w = 0) with the same restitution. Both particles of a pair compute
 * the same numbers (the one sign flip is exact), so contributions are equal and opposite.
 *
 * Why ω = 1 / max(nA, nB), with n the particle's number of approaching contacts: each
 * particle's weights then sum to at most 1, so its new velocity is a convex combination of the
 * velocities each contact alone would give it; each contact alone does not raise the kinetic
 * energy (e ≤ 1), and the energy is convex, so the step does not either. Plain Jacobi (ω = 1)
 * lets a particle hit by two neighbours at once gain energy.
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { ParticleParams } from '../src/layout.js';
import { gridFunctions } from './grid.wgsl.js';
import { walkRows, inRowFunction } from './gridWalk.wgsl.js';
import { flatWorkgroup } from './common.wgsl.js';
import { EXT_SCALE } from '../src/grid/level.js';

export const particleBindings = {
  scatterIds: ['uniform', 'read-only-storage', 'read-only-storage', 'storage'],
  stable: ['uniform', 'uniform', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'storage', 'storage', 'storage'],
  count: ['uniform', 'uniform', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'storage', 'storage'],
  respond: ['uniform', 'uniform', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'storage', 'storage'],
} as const;

/**
 * The contact of particle A (position p, velocity v with inverse mass in w, index i) with B.
 * For a pair the normal points from A to B; coincident centres take a unit vector hashed from
 * the pair's indices, pointing from the lower index to the higher. Needs gridFunctions (hashRow).
 */
export const contactMath = /* wgsl */ `
struct Contact {
  n: vec3f,
  depth: f32,
  vrel: f32,
  touching: bool,
}

fn coincidentNormal(i: u32, j: u32) -> vec3f {
  let lo = min(i, j);
  let hi = max(i, j);
  // The grid's row hash (gridFunctions) mixes any three u32s: here the pair and an axis.
  let raw = vec3f(f32(hashRow(lo, hi, 1u) >> 16u), f32(hashRow(lo, hi, 2u) >> 16u), f32(hashRow(lo, hi, 3u) >> 16u)) / 32767.5 - 1.0;
  var u = vec3f(1.0, 0.0, 0.0);
  if (dot(raw, raw) > 1e-6) {
    u = raw / sqrt(dot(raw, raw));
  }
  return select(-u, u, i < j);
}

fn pairContact(pa: vec4f, va: vec4f, ia: u32, pb: vec4f, vb: vec4f, ib: u32) -> Contact {
  let d = pb.xyz - pa.xyz;
  let dist2 = dot(d, d);
  let reach = pa.w + pb.w;
  var c: Contact;
  c.touching = dist2 <= reach * reach;
  let dist = sqrt(dist2);
  if (dist2 > 0.0) {
    c.n = d / dist;
  } else {
    c.n = coincidentNormal(ia, ib);
  }
  c.depth = reach - dist;
  c.vrel = dot(vb.xyz - va.xyz, c.n);
  return c;
}
`;

const header = () => /* wgsl */ `
${gridFunctions(0, 0)}
${ParticleParams.wgsl}
@group(0) @binding(1) var<uniform> params: ParticleParams;
${flatWorkgroup}
override WG: u32 = 128u;
`;

export const particleScatterIdsShader = () => wgsl`
${gridFunctions(0, 0)}
@group(0) @binding(1) var<storage, read> keys: array<vec2u>;
@group(0) @binding(2) var<storage, read> cellStart: array<u32>;
@group(0) @binding(3) var<storage, read_write> scratchId: array<u32>;
${flatWorkgroup}
override WG: u32 = 128u;

@compute @workgroup_size(WG)
fn particleScatterIds(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
                      @builtin(local_invocation_index) lid: u32) {
  let i = flatWorkgroup(wid, nwg) * WG + lid;
  if (i >= grid.sphereCount) {
    return;
  }
  let key = keys[i];
  scratchId[cellStart[key.x] + key.y] = i;
}
`;

export const particleStableShader = () => wgsl`
${header()}
@group(0) @binding(2) var<storage, read> keys: array<vec2u>;
@group(0) @binding(3) var<storage, read> cellStart: array<u32>;
@group(0) @binding(4) var<storage, read> scratchId: array<u32>;
@group(0) @binding(5) var<storage, read> spheres: array<vec4f>;
@group(0) @binding(6) var<storage, read> velocities: array<vec4f>;
@group(0) @binding(7) var<storage, read_write> sorted: array<vec4f>;
@group(0) @binding(8) var<storage, read_write> sortedVel: array<vec4f>;
@group(0) @binding(9) var<storage, read_write> sortedId: array<u32>;

@compute @workgroup_size(WG)
fn particleStable(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
                  @builtin(local_invocation_index) lid: u32) {
  let i = flatWorkgroup(wid, nwg) * WG + lid;
  if (i >= grid.sphereCount) {
    return;
  }
  // Rank in the bucket by index: the bucket's members with a lower index come first.
  let bucket = keys[i].x;
  let start = cellStart[bucket];
  let end = cellStart[bucket + 1u];
  var rank = 0u;
  for (var u = start; u < end; u++) {
    rank += select(0u, 1u, scratchId[u] < i);
  }
  let at = start + rank;
  sorted[at] = spheres[i];
  var v = velocities[i];
  if (v.w > 0.0) {
    v = vec4f(v.xyz + params.gravity * params.dt, v.w);
  }
  sortedVel[at] = v;
  sortedId[at] = i;
}
`;

/** The statements visiting every other particle within reach of particle t (all levels). */
function neighbours(dense: boolean, visit: string): string {
  return /* wgsl */ `
  for (var b = 0u; b < grid.levelCount; b++) {
    if (grid.levels[b].count == 0u) {
      continue;
    }
    let ext = (s.w + grid.levels[b].maxRadius) * EXT_SCALE;
    let lo = cellOf(s.xyz - vec3f(ext), b);
    let hi = cellOf(s.xyz + vec3f(ext), b);
    ${walkRows({ dense, level: 'b', lo: 'lo', hi: 'hi', visit: `if (u != t) {
            ${visit}
          }` })}
  }`;
}

/** Walls as contacts: per axis the lower wall (normal −e_a) and the upper (+e_a). */
function walls(visit: string): string {
  return /* wgsl */ `
  if (params.bounded != 0u) {
    for (var axis = 0u; axis < 3u; axis++) {
      for (var side = 0u; side < 2u; side++) {
        var wall: Contact;
        var n = vec3f(0.0);
        if (side == 0u) {
          n[axis] = -1.0;
          wall.depth = params.boundsMin[axis] + s.w - s[axis];
          wall.vrel = v[axis];
        } else {
          n[axis] = 1.0;
          wall.depth = s[axis] + s.w - params.boundsMax[axis];
          wall.vrel = -v[axis];
        }
        wall.n = n;
        wall.touching = wall.depth >= 0.0;
        ${visit}
      }
    }
  }`;
}

export const particleCountShader = ({ dense }: { dense: boolean }) => wgsl`
${header()}
@group(0) @binding(2) var<storage, read> cellStart: array<u32>;
@group(0) @binding(3) var<storage, read> sorted: array<vec4f>;
@group(0) @binding(4) var<storage, read> sortedVel: array<vec4f>;
@group(0) @binding(5) var<storage, read> sortedId: array<u32>;
@group(0) @binding(6) var<storage, read_write> contactCounts: array<vec2u>;
@group(0) @binding(7) var<storage, read_write> touchingPairs: array<atomic<u32>>;
${contactMath}
#if ${!dense}
${inRowFunction}
#endif
const EXT_SCALE: f32 = ${EXT_SCALE};

@compute @workgroup_size(WG)
fn particleCount(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
                 @builtin(local_invocation_index) lid: u32) {
  let t = flatWorkgroup(wid, nwg) * WG + lid;
  if (t >= grid.sphereCount) {
    return;
  }
  let s = sorted[t];
  let v = sortedVel[t];
  let id = sortedId[t];
  var approaching = 0u;
  var deep = 0u;
  var touching = 0u;
  ${neighbours(dense, `let qv = sortedVel[u];
            let c = pairContact(s, v, id, q, qv, sortedId[u]);
            if (c.touching) {
              touching += 1u;
              if (v.w + qv.w > 0.0) {
                approaching += select(0u, 1u, c.vrel < 0.0);
                deep += select(0u, 1u, c.depth > params.slop);
              }
            }`)}
  ${walls(`if (wall.touching && v.w > 0.0) {
          approaching += select(0u, 1u, wall.vrel < 0.0);
          deep += select(0u, 1u, wall.depth > params.slop);
        }`)}
  contactCounts[t] = vec2u(approaching, deep);
  if (touching > 0u) {
    atomicAdd(&touchingPairs[0], touching);
  }
}
`;

export const particleRespondShader = ({ dense }: { dense: boolean }) => wgsl`
${header()}
@group(0) @binding(2) var<storage, read> cellStart: array<u32>;
@group(0) @binding(3) var<storage, read> sorted: array<vec4f>;
@group(0) @binding(4) var<storage, read> sortedVel: array<vec4f>;
@group(0) @binding(5) var<storage, read> sortedId: array<u32>;
@group(0) @binding(6) var<storage, read> contactCounts: array<vec2u>;
@group(0) @binding(7) var<storage, read_write> spheres: array<vec4f>;
@group(0) @binding(8) var<storage, read_write> velocities: array<vec4f>;
${contactMath}
#if ${!dense}
${inRowFunction}
#endif
const EXT_SCALE: f32 = ${EXT_SCALE};

@compute @workgroup_size(WG)
fn particleRespond(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
                   @builtin(local_invocation_index) lid: u32) {
  let t = flatWorkgroup(wid, nwg) * WG + lid;
  if (t >= grid.sphereCount) {
    return;
  }
  let s = sorted[t];
  let v = sortedVel[t];
  let id = sortedId[t];
  let mine = contactCounts[t];
  var dv = vec3f(0.0);
  var dx = vec3f(0.0);
  if (v.w > 0.0) {
    ${neighbours(dense, `let qv = sortedVel[u];
            let c = pairContact(s, v, id, q, qv, sortedId[u]);
            let wsum = v.w + qv.w;
            if (c.touching && wsum > 0.0) {
              let theirs = contactCounts[u];
              if (c.vrel < 0.0) {
                let j = -(1.0 + params.restitution) * c.vrel / wsum;
                dv -= (j * v.w / f32(max(mine.x, theirs.x))) * c.n;
              }
              if (c.depth > params.slop) {
                let correction = (c.depth - params.slop) * params.percent;
                dx -= (correction * v.w / wsum / f32(max(mine.y, theirs.y))) * c.n;
              }
            }`)}
    ${walls(`if (wall.touching) {
          if (wall.vrel < 0.0) {
            let j = -(1.0 + params.restitution) * wall.vrel / v.w;
            dv -= (j * v.w / f32(mine.x)) * wall.n;
          }
          if (wall.depth > params.slop) {
            dx -= ((wall.depth - params.slop) * params.percent / f32(mine.y)) * wall.n;
          }
        }`)}
  }
  let velocity = v.xyz + dv;
  var position = s.xyz + velocity * params.dt + dx;
  if (params.bounded != 0u) {
    position = clamp(position, params.boundsMin, params.boundsMax);
  }
  spheres[id] = vec4f(position, s.w);
  velocities[id] = vec4f(velocity, v.w);
}
`;
