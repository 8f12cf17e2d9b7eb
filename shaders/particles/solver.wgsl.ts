/**
 * The particle world's contact solver (src/particles/solver.ts drives it; docs/ARCHITECTURE.md
 * explains the math). The CPU twin, with the same names and the same order of operations, is
 * src/reference/particles.ts.
 *
 * Once per step:
 *   particleGather      the state in the order of the last search, and whether any particle has
 *                       moved more than half the skin since it (then its lists may miss a pair)
 *   particleDecide      search again if so (or if the host asks), else keep the lists: its choice
 *                       is copied on the GPU into the uniforms of the passes that run on one
 *                       outcome only (ParticleParams.searching; the grid's and the scans' skip),
 *                       which return at once on the other; with indirect dispatch (the world's
 *                       `dispatch` option) it also writes their indirect arguments, zero for the
 *                       passes of the other outcome (src/gpu/gate.ts)
 * Then, when searching (after the grid's count and scan):
 *   particleScatterIds  every particle's index into its bucket, in arrival order (racy), and the
 *                       largest speed (for the search margin)
 *   particleStable      each particle's rank in its bucket by index, so that the order is the
 *                       same every run; the sorted copies the solver works on (bucket order)
 *   particleCount       per particle, the partners within the search margin
 *   (scan)              the counts become each particle's first entry in the contact list
 *   particleFill        the contact list, each entry warm-started with the pair's impulse of the
 *                       previous step when the pair was listed then
 * or, when not:
 *   particleCarry       the previous step's lists, impulses and all, into this step's half
 * Searches list pairs within margin + skin; the step's first prepare marks an entry beyond the
 * margin (a pair a search without the skin would not list) dormant (DORMANT_BIT): the solve
 * skips it for the step.
 * Then:
 *   particleSleep       (unless sleep is off) a particle at rest for sleepTime whose listed
 *                       partners are all at rest that long, whose list lost no entry, and none
 *                       of whose contacts overlaps deeper than slop + SLEEP_OVERLAP·r, is
 *                       asleep: it stays where it is and is static (inverse mass 0, at rest) to
 *                       its partners for the step; one that slept in the last step and wakes
 *                       takes its partners' impulses for both entries of each of its pairs
 *   particleSplit       a particle with a list entry, or a wall within reach during the step, is
 *                       busy: appended to the busy list; any other (a sleeper aside) runs its
 *                       whole step here (the substeps' arithmetic with nothing to solve, so the
 *                       result is the same)
 *   particleBusyArgs    (indirect dispatch only) the solve's dispatch arguments, from the busy count
 * Then per substep of h = dt / substeps, over the busy particles only (a thread past the busy
 * count returns at once: a direct dispatch covers every particle):
 *   particlePrepare     gravity; each contact's target normal velocity from the velocities before
 *                       the solve (restitution, or the speculative gap); the warm start
 *   particleIterate     × iterations: one Jacobi sweep of accumulated, clamped impulses with mass
 *                       splitting, for the velocity (normal + Coulomb friction) and, separately,
 *                       for the pseudo-velocity of the position correction
 *                       the last of them also integrates: x += (v + pseudo-velocity)·h, the
 *                       sphere kept inside the bounds
 * Then:
 *   particleWriteBack   positions and velocities back to the world's state, by index; and each
 *                       particle's time at rest (slower than sleepSpeed at the end of a step)
 *
 * Every particle gathers over its own list and writes only itself: no float atomics, and both
 * particles of a pair compute bit-identical impulses (their inputs differ only by exact sign
 * flips), so the impulses are equal and opposite and two runs are bitwise identical.
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { ParticleParams, ParticleBody, ParticleContact, ParticleWalls, ParticleStats, ParticleReuse, ParticleRest, ParticleColliderContact } from '../../src/layout.js';
import { GATE_WGSL } from '../../src/gpu/gate.js';
import { gridFunctions, compiledFor, type GridLayout } from '../grid.wgsl.js';
import { walkRows, inRowFunction } from '../gridWalk.wgsl.js';
import { flatWorkgroup, levelLoop } from '../common.wgsl.js';
import { EXT_SCALE } from '../../src/grid/level.js';
import { formula } from './formula.js';
import { MOVE_ROUNDING, SLEEP_OVERLAP } from '../../src/particles/step.js';
import { iterateColliders, EMPTY_SLOT } from './colliders.wgsl.js';

/**
 * The top bit of a contact entry's `nbr`: set while the pair lies beyond what a search without
 * the skin would list (the solve skips such an entry). Positions are below 2^31.
 */
export const DORMANT_BIT = 0x80000000;



/** Partners the contact count keeps per particle for the fill (more: the fill walks again). */
export const PARTNERS_KEPT = 16;

/** Bind group layouts, in binding order (src/particles/solver.ts binds the same lists). */
export const solverBindings = {
  scatterIds: ['uniform', 'uniform', 'read-only-storage', 'read-only-storage', 'storage', 'read-only-storage', 'storage'],
  stable: ['uniform', 'uniform', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'storage', 'storage', 'storage'],
  gather: ['uniform', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'storage', 'storage', 'read-only-storage', 'storage', 'storage'],
  decide: ['uniform', 'storage', 'storage', 'read-only-storage', 'storage', 'read-only-storage'],
  count: ['uniform', 'uniform', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'storage', 'storage', 'storage'],
  carry: ['uniform', 'read-only-storage', 'read-only-storage', 'storage', 'storage'],
  fill: ['uniform', 'uniform', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'storage', 'storage', 'storage'],
  prepare: ['uniform', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'storage', 'storage', 'storage', 'storage'],
  iterate: ['uniform', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'storage', 'storage', 'storage'],
  iterateIntegrate: ['uniform', 'storage', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'storage', 'storage', 'storage'],
  iterateColliders: ['uniform', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'storage', 'storage', 'storage', 'storage'],
  iterateIntegrateColliders: ['uniform', 'storage', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'storage', 'storage', 'storage', 'storage'],
  sleep: ['uniform', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'storage', 'storage', 'storage', 'storage', 'storage'],
  split: ['uniform', 'storage', 'read-only-storage', 'storage', 'storage', 'storage', 'read-only-storage', 'read-only-storage'],
  busyArgs: ['uniform', 'read-only-storage', 'storage'],
  writeBack: ['uniform', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'storage', 'storage', 'storage'],
} as const;

/**
 * The contact geometry of particle A with B (entryGeometry, below): the unit normal from A to B
 * and the gap |AB| − rA − rB (negative when they overlap). Coincident centres take a unit
 * vector hashed from the pair's indices, pointing from the lower index to the higher. Swapping A
 * and B negates n exactly and leaves the gap bit for bit. Needs gridFunctions (hashRow).
 */
export const contactGeometry = /* wgsl */ `
struct Geometry {
  n: vec3f,
  gap: f32,
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
`;

const header = () => /* wgsl */ `
${ParticleParams.wgsl}
${ParticleBody.wgsl}
${ParticleContact.wgsl}
${ParticleWalls.wgsl}
${ParticleStats.wgsl}
${ParticleReuse.wgsl}
${ParticleRest.wgsl}
${ParticleColliderContact.wgsl}
${flatWorkgroup}
override WG: u32; // src/gpu/workgroups.ts
const EMPTY_SLOT: u32 = ${EMPTY_SLOT}u;
const EXT_SCALE: f32 = ${EXT_SCALE};
const PARTNERS_KEPT: u32 = ${PARTNERS_KEPT}u;
const DORMANT_BIT: u32 = ${DORMANT_BIT}u;
const MOVE_ROUNDING: f32 = ${MOVE_ROUNDING};
const SLEEP_OVERLAP: f32 = ${SLEEP_OVERLAP};
// The largest finite sleepTime (Infinity: sleep off).
const MAX_SLEEP_TIME: f32 = 3.4028234663852886e38;
`;

export const particleScatterIdsShader = () => wgsl`
${gridFunctions(0, 0)}
${header()}
@group(0) @binding(1) var<uniform> params: ParticleParams;
@group(0) @binding(2) var<storage, read> keys: array<vec2u>;
@group(0) @binding(3) var<storage, read> cellStart: array<u32>;
@group(0) @binding(4) var<storage, read_write> scratchId: array<u32>;
@group(0) @binding(5) var<storage, read> velocities: array<vec4f>;
@group(0) @binding(6) var<storage, read_write> stats: ParticleStats;

@compute @workgroup_size(WG)
fn particleScatterIds(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
                      @builtin(local_invocation_index) lid: u32) {
  let i = flatWorkgroup(wid, nwg) * WG + lid;
  if (params.searching == 0u || i >= grid.sphereCount) {
    return;
  }
  let key = keys[i];
  scratchId[cellStart[key.x] + key.y] = i;
  let v = velocities[i];
  if (v.w > 0.0) {
    // Non-negative floats order as their bits do.
    atomicMax(&stats.maxSpeedBits, bitcast<u32>(length(v.xyz)));
  }
}
`;

export const particleStableShader = () => wgsl`
${gridFunctions(0, 0)}
${header()}
@group(0) @binding(1) var<uniform> params: ParticleParams;
@group(0) @binding(2) var<storage, read> keys: array<vec2u>;
@group(0) @binding(3) var<storage, read> cellStart: array<u32>;
@group(0) @binding(4) var<storage, read> scratchId: array<u32>;
@group(0) @binding(5) var<storage, read> spheres: array<vec4f>;
@group(0) @binding(6) var<storage, read> velocities: array<vec4f>;
@group(0) @binding(7) var<storage, read_write> sorted: array<vec4f>;
@group(0) @binding(8) var<storage, read_write> bodies: array<ParticleBody>;
@group(0) @binding(9) var<storage, read_write> sortedId: array<u32>;

@compute @workgroup_size(WG)
fn particleStable(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
                  @builtin(local_invocation_index) lid: u32) {
  let i = flatWorkgroup(wid, nwg) * WG + lid;
  if (params.searching == 0u || i >= grid.sphereCount) {
    return;
  }
  // Rank in the bucket by index: the bucket's members with a lower index come first.
  let bucket = keys[i].x;
  let start = cellStart[bucket];
  let end = cellStart[bucket + 1u];
  var rank = 0u;
  { // for (var u = start; u < end; u++), tested at the bottom (forLoop, common.wgsl.ts)
    var u = start;
    if (u < end) {
      loop {
        rank += select(0u, 1u, scratchId[u] < i);
        continuing {
          u++;
          break if !(u < end);
        }
      }
    }
  }
  let at = start + rank;
  sorted[at] = spheres[i];
  let v = velocities[i];
  // A static particle (inverse mass 0) never moves, whatever velocity it was given.
  bodies[at] = ParticleBody(select(v, vec4f(0.0), v.w == 0.0), vec4f(0.0));
  sortedId[at] = i;
}
`;

/**
 * The statements visiting every other particle u that a search lists for particle t: within the
 * search margin plus the skin (gap ≤ margin + skin + both reaches), from the grid cells within
 * r + maxRadius + margin + skin + both reaches of its centre, on every level. The visit sees `q`
 * (u's sphere), `gap` and `pairReach` (both reaches).
 */
function partners(dense: boolean, visit: string): string {
  return /* wgsl */ `
  let vmaxReach = bitcast<f32>(atomicLoad(&stats.maxSpeedBits)) * params.frameDt;
  ${levelLoop('b', 'grid.firstLevel', `
        let maxR = grid.levels[b].maxRadius;
        let ext = (s.w + maxR + (params.margin + params.skin) + reach + min(vmaxReach, maxR)) * EXT_SCALE;
        let lo = cellOf(s.xyz - vec3f(ext), b);
        let hi = cellOf(s.xyz + vec3f(ext), b);
        ${walkRows({ dense, level: 'b', lo: 'lo', hi: 'hi', flat: true, eagerRowMove: true, visit: `if (u != t) {
                let ub = bodies[u].v;
                if (me.w + ub.w > 0.0) {
                  let d = q.xyz - s.xyz;
                  let gap = sqrt(dot(d, d)) - (s.w + q.w);
                  let pairReach = reach + ${formula.reach('q', 'ub')};
                  if (gap <= (params.margin + params.skin) + pairReach) {
                    ${visit}
                  }
                }
              }` })}`)}`;
}

/**
 * Whether a listed pair (gap, both reaches) takes part in this step's solve: what a search
 * without the skin would list. Both particles of a pair compute the same gap and sum, bit for bit.
 */
const active = (gap: string, pairReach: string): string => `(${gap} <= params.margin + ${pairReach})`;

/**
 * Every step starts here: the state as it is now (the host or a user's kernel may have changed
 * it since the last step) in the order of the last search, and whether the last search's lists
 * still hold every pair this step must solve. They do while no particle has moved, or gained
 * reach, by more than half the skin since that search (less the rounding allowance): a pair
 * unlisted then was more than margin + skin + both reaches apart, so now it is more than margin +
 * both reaches apart. A new radius, or a particle made static or dynamic (the anchor's reach is
 * −1 for a static particle), searches again. A particle moved or set moving since the last step
 * ended (by the host or a user's kernel), given a new radius, or made static or dynamic, is no
 * longer at rest: its time at rest starts again.
 */
export const particleGatherShader = () => wgsl`
${header()}
@group(0) @binding(0) var<uniform> params: ParticleParams;
@group(0) @binding(1) var<storage, read> spheres: array<vec4f>;
@group(0) @binding(2) var<storage, read> velocities: array<vec4f>;
@group(0) @binding(3) var<storage, read> sortedId: array<u32>;
@group(0) @binding(4) var<storage, read_write> sorted: array<vec4f>;
@group(0) @binding(5) var<storage, read_write> bodies: array<ParticleBody>;
@group(0) @binding(6) var<storage, read> anchors: array<vec4f>;
@group(0) @binding(7) var<storage, read_write> stats: ParticleStats;
@group(0) @binding(8) var<storage, read_write> rest: array<ParticleRest>;

@compute @workgroup_size(WG)
fn particleGather(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
                  @builtin(local_invocation_index) lid: u32) {
  let t = flatWorkgroup(wid, nwg) * WG + lid;
  if (t >= params.count) {
    return;
  }
  let id = sortedId[t];
  let s = spheres[id];
  let v = velocities[id];
  // A static particle (inverse mass 0) never moves, whatever velocity it was given.
  let me = select(v, vec4f(0.0), v.w == 0.0);
  let reach = ${formula.reach('s', 'me')};
  let a = anchors[t];
  let anchorReach = max(a.w, 0.0);
  let d = s.xyz - a.xyz;
  let moved = sqrt(dot(d, d)) + max(reach - anchorReach, 0.0);
  let allowance = MOVE_ROUNDING * (s.w + params.margin + params.skin + reach + anchorReach + moved);
  let changed = s.w != sorted[t].w || (me.w == 0.0) != (a.w < 0.0);
  if (changed || !(moved + allowance <= 0.5 * params.skin)) {
    // Non-negative floats order as their bits do; a change (or NaN) counts as infinity, and a
    // move of 0 that fails the test (skin 0) as the smallest nonzero bits.
    atomicMax(&stats.movedBits, select(max(bitcast<u32>(moved), 1u), 0x7f800000u, changed || !(moved >= 0.0)));
  }
  // (Only the time: the first step after new particles visits the ids of an older order, so a
  // position written here would depend on it; the write-back's move test measures from where
  // the last step ended, which a moved particle fails once more.)
  // A sleeper ended its last step at exactly 0: any other velocity was written since (even one
  // slower than sleepSpeed), and wakes it.
  if (changed || any(s.xyz != rest[id].position) || length(me.xyz) > params.sleepSpeed || (rest[id].slept != 0u && any(me.xyz != vec3f(0.0)))) {
    rest[id].time = 0.0;
  }
  if (params.boxCount > 0u && me.w > 0.0) {
    // The fastest particle's travel grows every box's search (colliderFind).
    atomicMax(&stats.fastestBits, bitcast<u32>(length(me.xyz)));
  }
  sorted[t] = s;
  bodies[t] = ParticleBody(me, vec4f(0.0));
}
`;

/** One thread: search again (the host forced it, a particle moved too far, or the last lists overflowed), or keep the lists. */
export const particleDecideShader = () => wgsl`
${header()}
@group(0) @binding(0) var<uniform> params: ParticleParams;
@group(0) @binding(1) var<storage, read_write> stats: ParticleStats;
@group(0) @binding(2) var<storage, read_write> reuse: ParticleReuse;
@group(0) @binding(3) var<storage, read> gateTemplate: array<vec4u>;
@group(0) @binding(4) var<storage, read_write> gateArgs: array<u32>;
@group(0) @binding(5) var<storage, read> start: array<u32>;
${GATE_WGSL}

@compute @workgroup_size(1)
fn particleDecide() {
  // Lists whose search overflowed them (encode() steps until the host grows them, or a step()
  // that ended in CapacityError) are never kept: the next step searches again rather than
  // carry truncated lists. The last search's scan total (start[count]) says so whatever the
  // host has cleared since.
  let truncated = start[params.count] > params.entryCapacity;
  let search = reuse.force != 0u || atomicLoad(&stats.movedBits) != 0u || truncated;
  reuse.force = 0u;
  reuse.steps += 1u;
  reuse.searches += select(0u, 1u, search);
  reuse.searching = select(0u, 1u, search);
  reuse.skipSearch = select(1u, 0u, search);
  writeGate(search);
}
`;

/**
 * The busy list (particleSplit) lives in the contact starts' scratch, which the search's count
 * and fill use before it: its length at start[count + 1], its particles from start[count + 2].
 * The solve's kernels (dispatched over every particle, or from particleBusyArgs) take their
 * particle t from it.
 */
const busyParticle = /* wgsl */ `
  let k = flatWorkgroup(wid, nwg) * WG + lid;
  if (k >= start[params.count + 1u]) {
    return;
  }
  let t = start[params.count + 2u + k];`;

/** The list of particle t: entries [first, last) of the contact buffer. */
const entriesOf = /* wgsl */ `
  let first = params.entryBase + min(start[t], params.entryCapacity);
  let last = params.entryBase + min(start[t + 1u], params.entryCapacity);
`;

/**
 * A step that keeps the lists: each particle's entries, impulses and all, move to this step's
 * half of the contact buffer (the first prepare decides again which are solved), and its range
 * there is noted for the warm start of the next search.
 */
export const particleCarryShader = () => wgsl`
${header()}
@group(0) @binding(0) var<uniform> params: ParticleParams;
@group(0) @binding(1) var<storage, read> sortedId: array<u32>;
@group(0) @binding(2) var<storage, read> start: array<u32>;
@group(0) @binding(3) var<storage, read_write> contacts: array<ParticleContact>;
@group(0) @binding(4) var<storage, read_write> ranges: array<vec2u>;

@compute @workgroup_size(WG)
fn particleCarry(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
                 @builtin(local_invocation_index) lid: u32) {
  let t = flatWorkgroup(wid, nwg) * WG + lid;
  if (params.searching != 0u || t >= params.count) {
    return;
  }
  ${entriesOf}
  ranges[params.rangeBase + sortedId[t]] = vec2u(first, last);
  { // for (var e = first; e < last; e++), tested at the bottom (forLoop, common.wgsl.ts)
    var e = first;
    if (e < last) {
      loop {
        contacts[e] = contacts[params.prevEntryBase + (e - params.entryBase)];
        continuing {
          e++;
          break if !(e < last);
        }
      }
    }
  }
}
`;

const searchBindings = /* wgsl */ `
@group(0) @binding(1) var<uniform> params: ParticleParams;
@group(0) @binding(2) var<storage, read> cellStart: array<u32>;
@group(0) @binding(3) var<storage, read> sorted: array<vec4f>;
@group(0) @binding(4) var<storage, read> bodies: array<ParticleBody>;
`;

export const particleCountShader = (layout: GridLayout) => compiledFor(particleCountCode(layout), layout);

const particleCountCode = ({ dense }: GridLayout) => wgsl`
${gridFunctions(0, 0, dense)}
${header()}
${searchBindings}
@group(0) @binding(5) var<storage, read_write> counts: array<u32>;
@group(0) @binding(6) var<storage, read_write> stats: ParticleStats;
@group(0) @binding(7) var<storage, read_write> anchors: array<vec4f>;
#if ${!dense}
${inRowFunction}
#endif

@compute @workgroup_size(WG)
fn particleCount(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
                 @builtin(local_invocation_index) lid: u32) {
  let t = flatWorkgroup(wid, nwg) * WG + lid;
  if (params.searching == 0u || t >= params.count) {
    return;
  }
  let s = sorted[t];
  let me = bodies[t].v;
  let reach = ${formula.reach('s', 'me')};
  // Where the lists are made, for particleGather to measure the moves from (reach −1: static).
  anchors[t] = vec4f(s.xyz, select(reach, -1.0, me.w == 0.0));
  var found = 0u;
  // The first PARTNERS_KEPT partners go to this particle's scratch row after the counts, so that
  // the fill need not walk the grid again.
  let row = params.count + 1u + t * PARTNERS_KEPT;
  ${partners(dense, `if (found < PARTNERS_KEPT) {
                counts[row + found] = u;
              }
              found += 1u;`)}
  counts[t] = found;
}
`;

/** Fill: appends partner u (gap, its slot) to particle t's list, warm-started. */
const addEntry = /* wgsl */ `if (slot < params.entryCapacity) {
        let other = sortedId[u];
        var impulse = vec4f(0.0);
        // Lists keep their walk order from step to step: search from after the last match, so
        // an unchanged list finds each partner at the first probe.
        { // for (var k = 0u; k < remembered; k++), tested at the bottom (forLoop, common.wgsl.ts)
          var k = 0u;
          if (k < remembered) {
            loop {
              var e = cursor + k;
              if (e >= previous.y) {
                e -= remembered;
              }
              if (contacts[e].id == other) {
                impulse = contacts[e].impulse;
                cursor = e + 1u;
                break;
              }
              continuing {
                k++;
                break if !(k < remembered);
              }
            }
          }
        }
        // The normal slot starts as the pair's hashed normal, for centres that coincide when the
        // prepare first sees them (the prepare then keeps the last normal it saw).
        contacts[params.entryBase + slot] = ParticleContact(impulse, vec4f(coincidentNormal(id, other), 0.0), u, other, 0.0, 0.0);
      }
      slot += 1u;`;

export const particleFillShader = (layout: GridLayout) => compiledFor(particleFillCode(layout), layout);

const particleFillCode = ({ dense }: GridLayout) => wgsl`
${gridFunctions(0, 0, dense)}
${header()}
${searchBindings}
${contactGeometry}
@group(0) @binding(5) var<storage, read> sortedId: array<u32>;
@group(0) @binding(6) var<storage, read> start: array<u32>;
@group(0) @binding(7) var<storage, read_write> contacts: array<ParticleContact>;
@group(0) @binding(8) var<storage, read_write> ranges: array<vec2u>;
@group(0) @binding(9) var<storage, read_write> stats: ParticleStats;
#if ${!dense}
${inRowFunction}
#endif

@compute @workgroup_size(WG)
fn particleFill(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
                @builtin(local_invocation_index) lid: u32) {
  let t = flatWorkgroup(wid, nwg) * WG + lid;
  if (params.searching == 0u || t >= params.count) {
    return;
  }
  if (t == params.count - 1u) {
    atomicMax(&stats.entriesNeeded, start[params.count]);
  }
  let s = sorted[t];
  let me = bodies[t].v;
  let reach = ${formula.reach('s', 'me')};
  let id = sortedId[t];
  // This particle's list of the previous step, for the warm start.
  let previous = ranges[params.prevRangeBase + id];
  let remembered = previous.y - previous.x;
  var cursor = previous.x;
  var slot = start[t];
  let found = start[t + 1u] - slot;
  // This step's list, for the warm start of the next search.
  ranges[params.rangeBase + id] = vec2u(params.entryBase + min(slot, params.entryCapacity), params.entryBase + min(start[t + 1u], params.entryCapacity));
  if (found <= PARTNERS_KEPT) {
    // The partners the count kept, in walk order.
    let row = params.count + 1u + t * PARTNERS_KEPT;
    { // for (var kept = 0u; kept < found; kept++), tested at the bottom (forLoop, common.wgsl.ts)
      var kept = 0u;
      if (kept < found) {
        loop {
          let u = start[row + kept];
          ${addEntry}
          continuing {
            kept++;
            break if !(kept < found);
          }
        }
      }
    }
  } else {
    ${partners(dense, addEntry)}
  }
}
`;

const stepBindings = (sortedAccess = 'read') => /* wgsl */ `
@group(0) @binding(0) var<uniform> params: ParticleParams;
@group(0) @binding(1) var<storage, ${sortedAccess}> sorted: array<vec4f>;
@group(0) @binding(2) var<storage, read> sortedId: array<u32>;
@group(0) @binding(3) var<storage, read> start: array<u32>;
@group(0) @binding(4) var<storage, read> bodiesIn: array<ParticleBody>;
@group(0) @binding(5) var<storage, read_write> bodiesOut: array<ParticleBody>;
@group(0) @binding(6) var<storage, read_write> contacts: array<ParticleContact>;
@group(0) @binding(7) var<storage, read_write> walls: array<ParticleWalls>;
`;

const AXES = [0, 1, 2] as const;
const X = 'xyz';
const FIELD = ['impulseX', 'impulseY', 'impulseZ'];

/**
 * The wall contact of one axis, written out per axis with literal components (on SwiftShader,
 * indexing a local array by a loop variable spills it to memory and costs more than the math).
 * `wall.impulseA` = (normal impulse, side: −1 lower, +1 upper, 0 none, friction impulse along
 * the next two axes); the normal n = side·e_a points from the particle to the wall, whose
 * velocity is 0, so the relative normal velocity is −v·n.
 */
function wallGap(axis: number, side: string): string {
  const a = X[axis];
  return `select(params.boundsMax.${a} - (s.${a} + s.w), (s.${a} - s.w) - params.boundsMin.${a}, ${side} < 0.0)`;
}

function prepareWall(axis: number): string {
  const [a, b, c] = [X[axis], X[(axis + 1) % 3], X[(axis + 2) % 3]];
  return /* wgsl */ `
  {
    var c = vec4f(0.0);
    if (walled) {
      let low = (s.${a} - s.w) - params.boundsMin.${a};
      let high = params.boundsMax.${a} - (s.${a} + s.w);
      let side = select(1.0, -1.0, low <= high);
      let gap = min(low, high);
      let vn0 = -v.${a} * side;
      if (gap + min(vn0, 0.0) * h <= params.margin) {
        c = wall.${FIELD[axis]};
        if (c.y != side || !${formula.keepsImpulse('gap', 'vn0')}) {
          c = vec4f(0.0, side, 0.0, 0.0);
        }
        aims.${a} = ${formula.aim('gap', 'vn0')};
        dv.${a} -= w * c.x * side;
        dv.${b} -= w * c.z;
        dv.${c} -= w * c.w;
        splits += 1u;
      }
    }
    wall.${FIELD[axis]} = c;
  }`;
}

function iterateWall(axis: number, friction: boolean): string {
  const [a, b, c] = [X[axis], X[(axis + 1) % 3], X[(axis + 2) % 3]];
  return /* wgsl */ `
    if (wall.${FIELD[axis]}.y != 0.0) {
      let c = wall.${FIELD[axis]};
      let side = c.y;
      let vn = -v.${a} * side;
      let normal = max(c.x + (wall.aim.${a} - vn) / wm, 0.0);
      var lt = vec2f(c.z, c.w);
      var dlt = vec2f(0.0);
      if (${friction ? 'params.friction > 0.0' : 'false' /* compiled out: particleIterateShader */}) {
        // Tangential velocity of the wall relative to the particle: −v along the other axes.
        var next = lt + vec2f(v.${b}, v.${c}) / wm;
        next = next * coneScale(dot(next, next), params.friction * normal);
        dlt = next - lt;
        lt = next;
      }
      dv.${a} -= w * (normal - c.x) * side;
      dv.${b} -= w * dlt.x;
      dv.${c} -= w * dlt.y;
      wall.${FIELD[axis]} = vec4f(normal, side, lt);
      let pushed = max(wall.pseudo.${a} + (${formula.push(wallGap(axis, 'side'))} + vp.${a} * side) / wm, 0.0);
      dvp.${a} -= w * (pushed - wall.pseudo.${a}) * side;
      wall.pseudo.${a} = pushed;
    }`;
}


/**
 * Statements binding `n` (the unit normal from particle s to its partner q, entry e) and `gap`
 * (|sq| − rs − rq) from the entry c: inlined, since on SwiftShader a function call per contact
 * costs more than its work. Coincident centres keep the entry's last normal: the fill's hashed
 * one (coincidentNormal), or the one of the substep before (a call to coincidentNormal here, in
 * the loop, made the prepare 25% slower on SwiftShader even though no pair took it).
 */
const entryGeometry = /* wgsl */ `
    let d = q.xyz - s.xyz;
    let dist2 = dot(d, d);
    let dist = sqrt(dist2);
    var n = d / dist;
    if (!(dist2 > 0.0)) {
      n = c.normal.xyz;
    }
    let gap = dist - (s.w + q.w);`;

/**
 * A substep's start; with `first` (the step's first substep), it also decides which entries the
 * step solves (what a search without the skin would list, from the positions and velocities the
 * step starts from: dormant entries get DORMANT_BIT and no impulse) and counts the touching pairs.
 */
export const particlePrepareShader = ({ first, colliders = false }: { first: boolean; colliders?: boolean }) => wgsl`
${gridFunctions(1, 0)}
${header()}
${stepBindings()}
@group(0) @binding(8) var<storage, read_write> stats: ParticleStats;

// Whether a wall contact of the sphere s moving at v may take part in this substep: prepareWall's
// test, with room to spare for rounding (prepareWall decides exactly).
fn nearWall(s: vec4f, v: vec3f, h: f32) -> bool {
  let low = (s.xyz - vec3f(s.w)) - params.boundsMin;
  let high = params.boundsMax - (s.xyz + vec3f(s.w));
  let gap = min(low, high);
  let vn0 = select(-v, v, low <= high);
  let spare = max(vec3f(params.margin), 1e-5 * (abs(gap) + abs(vn0 * h) + vec3f(s.w)));
  return any(gap + min(vn0, vec3f(0.0)) * h <= vec3f(params.margin) + spare);
}

@compute @workgroup_size(WG)
fn particlePrepare(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
                   @builtin(local_invocation_index) lid: u32) {
  ${busyParticle}
  let h = params.dt;
  let s = sorted[t];
  let id = sortedId[t];
  let w = bodiesIn[t].v.w;
  // Gravity first: the approach speeds below are those the solve starts from.
  let v = bodiesIn[t].v.xyz + select(vec3f(0.0), params.gravity * h, w > 0.0);
  ${entriesOf}
#if ${colliders}
  // colliderPrepare's warm start and contact count (it ran just before, over the same particles).
  var dv = bodiesIn[t].p.xyz;
  var splits = u32(bodiesIn[t].p.w);
#else
  var dv = vec3f(0.0);
  var splits = 0u;
#endif
#if ${first}
  let reach = ${formula.reach('s', 'bodiesIn[t].v')};
  var touching = 0u;
#endif
  { // for (var e = first; e < last; e++), tested at the bottom (forLoop, common.wgsl.ts)
    var e = first;
    if (e < last) {
      loop {
        // The entry read and written whole: one access each instead of one per field.
        let c = contacts[e];
#if ${!first}
        if (c.nbr >= DORMANT_BIT) {
          continue;
        }
#endif
        let u = c.nbr & ~DORMANT_BIT;
        let q = sorted[u];
        let qb = bodiesIn[u].v;
        ${entryGeometry}
#if ${first}
        if (gap <= 0.0 && t < u) {
          touching += 1u;
        }
        if (!${active('gap', `(reach + ${formula.reach('q', 'qb')})`)}) {
          // Out of this step's solve, with no impulse to carry into a later step.
          contacts[e].nbr = u | DORMANT_BIT;
          contacts[e].impulse = vec4f(0.0);
          continue;
        }
#endif
        let qv = qb.xyz + select(vec3f(0.0), params.gravity * h, qb.w > 0.0);
        let vn0 = dot(qv - v, n);
        let aim = ${formula.aim('gap', 'vn0')};
        var impulse = vec4f(0.0);
        if (${formula.keepsImpulse('gap', 'vn0')}) {
          // The warm start; the friction impulse stays in the tangent plane as the normal turns.
          let lt = c.impulse.yzw;
          impulse = vec4f(c.impulse.x, lt - dot(lt, n) * n);
        }
        // The sweeps of this substep reuse the geometry (normal, push aim): positions move only after them.
        contacts[e] = ParticleContact(impulse, vec4f(n, ${formula.push('gap')}), u, c.id, aim, 0.0);
        // The impulse on this particle is −(λn·n + λt): the partner's is its opposite.
        dv -= w * (impulse.x * n + impulse.yzw);
        splits += 1u;
        continuing {
          e++;
          break if !(e < last);
        }
      }
    }
  }
  let walled = params.bounded != 0u && w > 0.0;
  // A particle away from every wall, with no wall contact from before, skips its wall record.
  if (params.bounded != 0u && ((walled && nearWall(s, v, h)) || walls[id].impulseX.y != 0.0 || walls[id].impulseY.y != 0.0 || walls[id].impulseZ.y != 0.0)) {
    var wall = walls[id];
    var aims = vec4f(0.0);
    ${AXES.map(prepareWall).join('')}
    wall.aim = aims;
    wall.pseudo = vec4f(0.0);
    walls[id] = wall;
  }
#if ${first}
  if (touching > 0u) {
    atomicAdd(&stats.touching, touching);
  }
#endif
  bodiesOut[t] = ParticleBody(vec4f(v + dv, w), vec4f(0.0, 0.0, 0.0, f32(splits)));
}
`;

/**
 * The integration that ends a substep, folded into its last sweep (a sweep reads no partner's
 * position, so a particle may move its own): x += (v + p)·h, the sphere kept inside the bounds
 * (centred where they are narrower than it); a clamped axis loses its outward velocity, which
 * only lowers the kinetic energy.
 */
const integrateStatements = /* wgsl */ `
  var x = s.xyz + (v1 + vp1) * params.dt;
  if (params.bounded != 0u) {
    let lo0 = params.boundsMin + vec3f(s.w);
    let hi0 = params.boundsMax - vec3f(s.w);
    let narrow = lo0 > hi0;
    let middle = (params.boundsMin + params.boundsMax) * 0.5;
    let lo = select(lo0, middle, narrow);
    let hi = select(hi0, middle, narrow);
    v1 = select(v1, max(v1, vec3f(0.0)), x < lo);
    v1 = select(v1, min(v1, vec3f(0.0)), x > hi);
    x = clamp(x, lo, hi);
  }
  sorted[t] = vec4f(x, s.w);`;

/**
 * A sweep (and with `integrate`, the substep's integration). Without `friction` (a world whose
 * friction is 0) the friction code is left out: on SwiftShader a loop pays for a branch no lane
 * takes (docs/ARCHITECTURE.md, Passes), and the results are the same bit for bit.
 */
export const particleIterateShader = ({ integrate, friction = true, colliders = false }: { integrate: boolean; friction?: boolean; colliders?: boolean }) => wgsl`
${gridFunctions(1, 0)}
${header()}
${stepBindings(integrate ? 'read_write' : 'read')}
#if ${colliders}
@group(0) @binding(8) var<storage, read_write> slots: array<ParticleColliderContact>;
#endif

// Coulomb's cone: the factor that shortens a friction impulse of squared length len2 to at
// most limit (1 when it is within; exactly the impulse then).
fn coneScale(len2: f32, limit: f32) -> f32 {
  return select(1.0, limit / sqrt(len2), len2 > limit * limit);
}

@compute @workgroup_size(WG)
fn particleIterate(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
                   @builtin(local_invocation_index) lid: u32) {
  ${busyParticle}
  let body = bodiesIn[t];
  let w = body.v.w;
  let s = sorted[t];
  let id = sortedId[t];
  if (w == 0.0) {
    // A static particle never moves (its velocity is 0 from the stable sort).
    bodiesOut[t] = body;
    return;
  }
  let v = body.v.xyz;
  let vp = body.p.xyz;
  // Mass splitting: this particle's mass is shared among its 'splits' contacts.
  let wm = w * body.p.w;
  var dv = vec3f(0.0);
  var dvp = vec3f(0.0);
  ${entriesOf}
  { // for (var e = first; e < last; e++), tested at the bottom (forLoop, common.wgsl.ts)
    var e = first;
    if (e < last) {
      loop {
        let nbr = contacts[e].nbr;
        if (nbr >= DORMANT_BIT) {
          continue;
        }
        let impulse = contacts[e].impulse;
        let pseudo = contacts[e].pseudo;
        let geometry = contacts[e].normal;
        let n = geometry.xyz;
        let qb = bodiesIn[nbr];
        let k = wm + qb.v.w * qb.p.w;
        let rel = qb.v.xyz - v;
        let vn = dot(rel, n);
        let normal = max(impulse.x + (contacts[e].aim - vn) / k, 0.0);
        var lt = impulse.yzw;
        var dlt = vec3f(0.0);
#if ${friction}
        if (params.friction > 0.0) {
          // Coulomb's cone: the friction impulse lt − vt/k, shortened to at most friction·λn.
          var next = lt - (rel - vn * n) / k;
          next = next * coneScale(dot(next, next), params.friction * normal);
          dlt = next - lt;
          lt = next;
        }
#endif
        dv -= w * ((normal - impulse.x) * n + dlt);
        contacts[e].impulse = vec4f(normal, lt);
        // The position correction, on pseudo-velocities that never enter the velocity.
        let pushed = max(pseudo + (geometry.w - dot(qb.p.xyz - vp, n)) / k, 0.0);
        dvp -= w * (pushed - pseudo) * n;
        contacts[e].pseudo = pushed;
        continuing {
          e++;
          break if !(e < last);
        }
      }
    }
  }
  if (params.bounded != 0u && (walls[id].impulseX.y != 0.0 || walls[id].impulseY.y != 0.0 || walls[id].impulseZ.y != 0.0)) {
    var wall = walls[id];
    {
      ${AXES.map((axis) => iterateWall(axis, friction)).join('')}
      walls[id] = wall;
    }
  }
#if ${colliders}
  ${iterateColliders(friction)}
#endif
  var v1 = v + dv;
  let vp1 = vp + dvp;
#if ${integrate}
  ${integrateStatements}
#endif
  bodiesOut[t] = ParticleBody(vec4f(v1, w), vec4f(vp1, body.p.w));
}
`;

/**
 * Sleep, after the lists are made and before the split (the world leaves it out when sleep is
 * off). Particle t is asleep for this step when it moves (inverse mass > 0), the lists are whole,
 * it has been at rest for sleepTime (and at least one step), every listed partner has too, its
 * list lost no entry since the last step (a partner that left may have been its support), and
 * no contact of its overlaps by more than slop + SLEEP_OVERLAP × the smaller radius. Such a deep
 * contact (tested for every particle at rest so far, with sleep on) also makes the particle not
 * at rest: the write-back starts its time again (the pass notes it in ParticleRest.deep, which
 * only the write-back reads), so its partners stay awake, or wake, and it is corrected among
 * moving partners instead of against sleepers that hold it like static walls.
 * A sleeper's bodies, in both buffers, are at rest with inverse mass 0 (so its partners' prepare
 * and sweeps treat it as static) and p.w = −1 (the split and the write-back know it by that); it
 * counts its touching pairs, each by its first particle, as the prepare does for the others.
 * A particle that slept in the last step and is awake now makes each of its pairs' two entries
 * equal and opposite again (below), keeping the warm start: starting them cold instead made the
 * particles at the edge of a sleeping region sag at each wake and wake the next ones, and a pile
 * never slept.
 */
export const particleSleepShader = () => wgsl`
${header()}
@group(0) @binding(0) var<uniform> params: ParticleParams;
@group(0) @binding(1) var<storage, read> sorted: array<vec4f>;
@group(0) @binding(2) var<storage, read> sortedId: array<u32>;
@group(0) @binding(3) var<storage, read> start: array<u32>;
@group(0) @binding(4) var<storage, read_write> bodiesA: array<ParticleBody>;
@group(0) @binding(5) var<storage, read_write> bodiesB: array<ParticleBody>;
@group(0) @binding(6) var<storage, read_write> contacts: array<ParticleContact>;
@group(0) @binding(7) var<storage, read_write> rest: array<ParticleRest>;
@group(0) @binding(8) var<storage, read_write> stats: ParticleStats;

fn restedLongEnough(time: f32) -> bool {
  return time > 0.0 && time >= params.sleepTime;
}

@compute @workgroup_size(WG)
fn particleSleep(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
                 @builtin(local_invocation_index) lid: u32) {
  let t = flatWorkgroup(wid, nwg) * WG + lid;
  if (t >= params.count) {
    return;
  }
  let id = sortedId[t];
  ${entriesOf}
  let entries = last - first;
  let truncated = start[params.count] > params.entryCapacity;
  let moving = bodiesA[t].v.w > 0.0;
  var asleep = moving && !truncated && restedLongEnough(rest[id].time) && entries >= rest[id].entries;
  var touching = 0u;
  // A particle at rest so far (with sleep on) is tested for a deep contact: pressed deeper than
  // the correction leaves a pile at rest, it is not at rest (the write-back starts its time
  // again, so that its partners stay awake, or wake, and it is corrected among moving
  // partners, not caged by sleepers), nor asleep. Both ends of a pair judge it from
  // bit-identical gaps.
  var deep = false;
  if (moving && rest[id].time > 0.0 && params.sleepTime <= MAX_SLEEP_TIME) {
    let s = sorted[t];
    { // for (var e = first; e < last; e++), tested at the bottom (forLoop, common.wgsl.ts)
      var e = first;
      if (e < last) {
        loop {
          // Field by field: only the fields this pass never writes (a woken particle writes the
          // impulses of its own entries).
          if (asleep && !restedLongEnough(rest[contacts[e].id].time)) {
            asleep = false;
          }
          let u = contacts[e].nbr & ~DORMANT_BIT;
          let q = sorted[u];
          let d = q.xyz - s.xyz;
          let gap = sqrt(dot(d, d)) - (s.w + q.w);
          if (-gap - params.slop > SLEEP_OVERLAP * min(s.w, q.w)) {
            deep = true;
            asleep = false;
            break;
          }
          if (gap <= 0.0 && t < u) {
            touching += 1u;
          }
          continuing {
            e++;
            break if !(e < last);
          }
        }
      }
    }
  }
  // Read by the write-back only.
  rest[id].deep = select(0u, 1u, deep);
  let slept = rest[id].slept != 0u;
  rest[id].entries = entries;
  if (asleep) {
    if (touching > 0u) {
      atomicAdd(&stats.touching, touching);
    }
    atomicAdd(&stats.asleep, 1u);
    let still = ParticleBody(vec4f(0.0), vec4f(0.0, 0.0, 0.0, -1.0));
    bodiesA[t] = still;
    bodiesB[t] = still;
    return;
  }
  // Made dynamic since the last step: it was static then (its entries never solved, 0), while
  // its partners' entries hold the impulses with which it held them.
  let madeDynamic = rest[id].isStatic != 0u && bodiesA[t].v.w > 0.0;
  if (slept || madeDynamic) {
    // Woken: each of its entries takes its partner's (the normal impulse, the friction impulse
    // reversed), so both entries of each pair are equal and opposite again, warm. Its own entries
    // held the impulses of when it fell asleep (or none, static); a partner that stayed awake
    // solved against it as static and holds the current ones. If the partner slept in the last step too, the entry
    // of the lower index takes the higher's (a thread writes only its own entries, and never one
    // that another thread reads in this pass). A static partner's entries are never solved (it
    // applies no impulse): the particle keeps its own there.
    { // for (var e = first; e < last; e++), tested at the bottom (forLoop, common.wgsl.ts)
      var e = first;
      if (e < last) {
        loop {
          let other = contacts[e].id;
          // (The index rule is for two sleepers: one made dynamic always takes a woken sleeper's.)
          if ((slept && rest[other].slept != 0u && id > other) || rest[other].isStatic != 0u) {
            continue;
          }
          let u = contacts[e].nbr & ~DORMANT_BIT;
          let uFirst = params.entryBase + min(start[u], params.entryCapacity);
          let uLast = params.entryBase + min(start[u + 1u], params.entryCapacity);
          { // for (var f = uFirst; f < uLast; f++), tested at the bottom (forLoop, common.wgsl.ts)
            var f = uFirst;
            if (f < uLast) {
              loop {
                if (contacts[f].id == id) {
                  let theirs = contacts[f].impulse;
                  contacts[e].impulse = vec4f(theirs.x, -theirs.yzw);
                  break;
                }
                continuing {
                  f++;
                  break if !(f < uLast);
                }
              }
            }
          }
          continuing {
            e++;
            break if !(e < last);
          }
        }
      }
    }
  }
}
`;

/**
 * Splits the particles: a busy one (a contact-list entry, a wall record, or a wall within reach
 * at any substep: gap ≤ 2·margin + 2·travel, travel = (|v| + |g|·dt)·dt, with room for rounding,
 * which bounds prepareWall's nearWall at every substep) goes to the busy list for the solve; any
 * other runs its whole step here, with the operations the prepare, the sweeps and the
 * integration would do with nothing to solve (so the result does not depend on the split), and
 * leaves its body in the buffer the solve ends in. A sleeper (particleSleep) is neither.
 */
export const particleSplitShader = () => wgsl`
${header()}
@group(0) @binding(0) var<uniform> params: ParticleParams;
@group(0) @binding(1) var<storage, read_write> sorted: array<vec4f>;
@group(0) @binding(2) var<storage, read> sortedId: array<u32>;
@group(0) @binding(3) var<storage, read_write> start: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> bodiesA: array<ParticleBody>;
@group(0) @binding(5) var<storage, read_write> bodiesB: array<ParticleBody>;
@group(0) @binding(6) var<storage, read> walls: array<ParticleWalls>;
@group(0) @binding(7) var<storage, read> slots: array<ParticleColliderContact>;

@compute @workgroup_size(WG)
fn particleSplit(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
                 @builtin(local_invocation_index) lid: u32) {
  let t = flatWorkgroup(wid, nwg) * WG + lid;
  if (t >= params.count) {
    return;
  }
  let body = bodiesA[t];
  if (body.p.w < 0.0) {
    // Asleep (particleSleep wrote its bodies): nothing to do.
    return;
  }
  let w = body.v.w;
  var s = sorted[t];
  // Lists cut short by the capacity (an encode() step that overflowed) are not symmetric: then
  // every particle is busy, so that no listed partner runs its step here.
  let truncated = atomicLoad(&start[params.count]) > params.entryCapacity;
  let first = params.entryBase + min(atomicLoad(&start[t]), params.entryCapacity);
  let last = params.entryBase + min(atomicLoad(&start[t + 1u]), params.entryCapacity);
  let id = sortedId[t];
  var busy = truncated || last > first;
  if (params.boxCount > 0u) {
    // A collider contact this step (colliderList).
    busy = busy || slots[(params.rangeBase + id) * params.boxSlots].box != EMPTY_SLOT;
  }
  if (params.bounded != 0u) {
    let wall = walls[id];
    busy = busy || wall.impulseX.y != 0.0 || wall.impulseY.y != 0.0 || wall.impulseZ.y != 0.0;
    if (w > 0.0) {
      let travel = (length(body.v.xyz) + length(params.gravity) * params.frameDt) * params.frameDt;
      let low = (s.xyz - vec3f(s.w)) - params.boundsMin;
      let high = params.boundsMax - (s.xyz + vec3f(s.w));
      let gap = min(low, high);
      let rounding = 1e-4 * (abs(gap) + vec3f(s.w + travel)) + 1e-5 * (abs(s.xyz) + abs(params.boundsMin) + abs(params.boundsMax));
      busy = busy || any(gap <= vec3f(2.0 * params.margin + 2.0 * travel) + rounding);
    }
  }
  if (busy) {
    let k = atomicAdd(&start[params.count + 1u], 1u);
    atomicStore(&start[params.count + 2u + k], t);
    return;
  }
  // Nothing to solve all step: each substep's prepare (gravity, no impulse), sweeps (no
  // change) and integration, operation for operation.
  let gravity = select(vec3f(0.0), params.gravity * params.dt, w > 0.0);
  var v1 = body.v.xyz;
  var vp1 = vec3f(0.0);
  { // for (var sub = 0u; sub < params.substeps; sub++), tested at the bottom (forLoop, common.wgsl.ts)
    var sub = 0u;
    if (sub < params.substeps) {
      loop {
        v1 = (v1 + gravity) + vec3f(0.0);
        vp1 = vec3f(0.0);
        if (w == 0.0) {
          // A static particle: the sweeps copy its body, and it never moves.
          continue;
        }
        { // for (var sweep = 0u; sweep < params.iterations; sweep++), tested at the bottom (forLoop, common.wgsl.ts)
          var sweep = 0u;
          if (sweep < params.iterations) {
            loop {
              v1 = v1 + vec3f(0.0);
              vp1 = vp1 + vec3f(0.0);
              continuing {
                sweep++;
                break if !(sweep < params.iterations);
              }
            }
          }
        }
        {
          ${integrateStatements}
          s = vec4f(x, s.w);
        }
        continuing {
          sub++;
          break if !(sub < params.substeps);
        }
      }
    }
  }
  let out = ParticleBody(vec4f(v1, w), vec4f(vp1, 0.0));
  if (params.resultInB != 0u) {
    bodiesB[t] = out;
  } else {
    bodiesA[t] = out;
  }
}
`;

/** One thread: the solve's indirect dispatch arguments for the busy count (folded as dispatchFolded does). */
export const particleBusyArgsShader = () => wgsl`
${header()}
@group(0) @binding(0) var<uniform> params: ParticleParams;
@group(0) @binding(1) var<storage, read> start: array<u32>;
@group(0) @binding(2) var<storage, read_write> args: array<u32>;

@compute @workgroup_size(1)
fn particleBusyArgs() {
  let groups = (start[params.count + 1u] + WG - 1u) / WG;
  var x = groups;
  var y = 1u;
  if (groups > params.maxGroups) {
    y = (groups + params.maxGroups - 1u) / params.maxGroups;
    x = (groups + y - 1u) / y;
  }
  args[0] = x;
  args[1] = y;
  args[2] = 1u;
}
`;

/**
 * The end of a step: each particle's position and velocity back to the world's state, by index
 * (its inverse mass stays: a sleeper's bodies hold 0), and its sleep record: its time at rest
 * (one more step if it ends slower than sleepSpeed and moved no farther than sleepSpeed × dt,
 * and particleSleep found no deep contact, else 0), where it ended (particleGather compares), and whether it slept.
 */
export const particleWriteBackShader = () => wgsl`
${header()}
@group(0) @binding(0) var<uniform> params: ParticleParams;
@group(0) @binding(1) var<storage, read> sorted: array<vec4f>;
@group(0) @binding(2) var<storage, read> sortedId: array<u32>;
@group(0) @binding(3) var<storage, read> bodies: array<ParticleBody>;
@group(0) @binding(4) var<storage, read_write> spheres: array<vec4f>;
@group(0) @binding(5) var<storage, read_write> velocities: array<vec4f>;
@group(0) @binding(6) var<storage, read_write> rest: array<ParticleRest>;

@compute @workgroup_size(WG)
fn particleWriteBack(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
                     @builtin(local_invocation_index) lid: u32) {
  let t = flatWorkgroup(wid, nwg) * WG + lid;
  if (t >= params.count) {
    return;
  }
  let id = sortedId[t];
  let x = sorted[t];
  let body = bodies[t];
  let v = body.v.xyz;
  let before = velocities[id];
  spheres[id] = x;
  velocities[id] = vec4f(v, before.w);
  // At rest: slow, moved no farther than that speed allows (the position correction moves
  // particles that the velocity leaves at rest), and held up: a free particle's velocity changes
  // by g·dt a step, a supported one's by about nothing (without this, a particle slow at the top
  // of its flight, with sleepTime at most a step, would sleep in mid-air). Without gravity a
  // free particle keeps its velocity, and the speed alone decides.
  let at = rest[id];
  let g = length(params.gravity);
  let held = g == 0.0 || length(v - before.xyz) <= 0.5 * g * params.frameDt;
  // Pressed deeper than slop + SLEEP_OVERLAP × r (particleSleep's note in the spare word): not at rest.
  let still = length(v) <= params.sleepSpeed && length(x.xyz - at.position) <= params.sleepSpeed * params.frameDt && held && at.deep == 0u;
  rest[id] = ParticleRest(x.xyz, select(0.0, at.time + params.frameDt, still), select(0u, 1u, body.p.w < 0.0), at.entries, select(0u, 1u, before.w == 0.0), 0u);
}
`;
