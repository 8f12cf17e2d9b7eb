/**
 * Box colliders in the particle world (world.setColliders): static and kinematic oriented boxes,
 * solved with the particles as contacts with an infinitely heavy body. The CPU twin is
 * src/reference/particles.ts (ParticleSolverTwin, `colliders`).
 *
 * Per step (src/particles/recordStep.ts records them only while the world has boxes), first:
 *   colliderSpeed     one thread per box: the fastest a box can send a particle within the step
 *                     ((1 + e) × its fastest point's speed), the largest into the stats and from
 *                     there into the parameters, for every reach of the step (formula.reach)
 * then, after the search or the carry, before the sleep:
 *   colliderCells     the grid's bucket offsets as the last search left them: a search's are
 *                     kept aside, and a step that keeps the lists (whose grid build cleared
 *                     them and skipped the count) takes them back
 *   colliderFind      one thread per box walks the particle grid's cells within its bounds grown
 *                     by the reach of a step (the margin, the skin, the fastest particle's and
 *                     the box's own travel); each moving particle whose gap to the box is at
 *                     most margin + its travel + the box's travel + how far a faster particle
 *                     striking it may send it (min((1 + e)·the fastest's travel, r)) gets the box in one of its
 *                     `foundSlots` found-slots (an atomic count per particle, kept counting past
 *                     the slots: ParticleStats.boxSlotsNeeded, the host grows and runs again)
 *   meshReduce        with meshes, per particle: the found triangles that a nearer one holds
 *                     the particle from first are dropped (./meshes.wgsl.ts); past its
 *                     `boxSlots`, the number of contacts left goes to ParticleStats.keptSlotsNeeded
 *   colliderList      per particle: its found boxes in the order of their index (so the result
 *                     does not depend on the order the boxes' threads found them), each
 *                     warm-started with the impulse its contact with that box had in the last
 *                     step, and a box's normal and surface velocity now (for particleSplit's
 *                     strike bound); a particle touching a moving box, gaining or losing a box, or
 *                     deeper in a box than slop + SLEEP_OVERLAP·r is not at rest (its time at
 *                     rest starts again, so it does not sleep, and wakes if asleep)
 * Per substep, over the busy particles (particleSplit makes one with a collider contact busy):
 *   colliderPrepare   each contact's geometry with the box's pose now (the normal from the
 *                     particle toward the box: the centre clamped into the box in the box's
 *                     frame; from inside, out through the nearest face), the box's velocity at
 *                     the contact point, the aims (the same formulas as particle contacts: the
 *                     restitution and its threshold, the speculative gap, the push) and the warm
 *                     start; it leaves the warm start's velocity change and the contact count in
 *                     the body's `p` for particlePrepare to add (every binding of that pass is
 *                     taken, and p is free until the prepare writes it)
 *   (particleSettle solves the slots after the particle's pairs, one after another, with the
 *   particle's whole mass: settleColliders, ./substep.wgsl.ts)
 *   colliderMove      after the substep's integration, each kinematic box's pose advances by its
 *                     velocity: c += v·h, q += h/2·(ω, 0)⊗q, normalised (a box at rest keeps its
 *                     pose bit for bit)
 * (colliderSpeed and colliderMove, the boxes' own motion, are in ./boxMotion.wgsl.ts.)
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import {
  ParticleParams,
  ParticleBody,
  ParticleStats,
  ParticleRest,
  ParticleColliderContact,
  WideBox,
  WIDE_BOXES,
} from './layout.js';
import { EXT_SCALE } from '../../src/spatial/level.js';
import { gridHelpers, compiledFor, GRID_PARAMS, type GridLayout } from '../spatial/grid.wgsl.js';
import { walkRows, inRowFunction } from '../spatial/walk.wgsl.js';
import { flatWorkgroup, levelLoop } from '../common.wgsl.js';
import { boxMath } from '../boxes.wgsl.js';
import { formula } from './formula.js';
import { boxTravel } from './boxMotion.wgsl.js';
import { SLEEP_OVERLAP } from '../../src/particles/step.js';
import { triangleMath, faceNormal } from '../mesh/triangle.wgsl.js';
import { triangleGeometry, foundTriangles, TRIANGLE_WORDS } from './meshes.wgsl.js';
import { colliderGeometry } from './colliderGeometry.wgsl.js';
import { bindings, uniform, readOnly, readWrite, entry, WG } from '../../src/gpu/kernel.js';

export const colliderFindBindings = bindings({
  ...GRID_PARAMS,
  params: uniform('ParticleParams'),
  colliderPoses: readOnly('array<vec4f>'),
  colliderVelocities: readOnly('array<vec4f>'),
  cellStart: readOnly('array<u32>'),
  current: readOnly('array<vec4f>'),
  bodies: readOnly('array<ParticleBody>'),
  found: readWrite('array<atomic<u32>>'),
  stats: readWrite('ParticleStats'),
  anchors: readOnly('array<vec4f>'),
});

export const colliderListBindings = bindings({
  params: uniform('ParticleParams'),
  sortedId: readOnly('array<u32>'),
  sorted: readOnly('array<vec4f>'),
  found: readOnly('array<u32>'),
  slots: readWrite('array<ParticleColliderContact>'),
  colliderPoses: readOnly('array<vec4f>'),
  colliderVelocities: readOnly('array<vec4f>'),
  rest: readWrite('array<ParticleRest>'),
  slotTriangles: readWrite('array<vec4f>'),
});

export const colliderPrepareBindings = bindings({
  params: uniform('ParticleParams'),
  sorted: readOnly('array<vec4f>'),
  sortedId: readOnly('array<u32>'),
  start: readOnly('array<u32>'),
  bodies: readWrite('array<ParticleBody>'),
  slots: readWrite('array<ParticleColliderContact>'),
  colliderPoses: readOnly('array<vec4f>'),
  colliderVelocities: readOnly('array<vec4f>'),
  slotTriangles: readOnly('array<vec4f>'),
});

export const colliderCellsBindings = bindings({
  params: uniform('ParticleParams'),
  cellStart: readWrite('array<u32>'),
  saved: readWrite('array<u32>'),
});

/**
 * A box whose reach covers more cells than this (over the particle grid's levels, each counted at
 * most as many as its particles) is found a thread a particle (colliderFindWide), not by one thread
 * walking its cells: about as many particles as one thread of the grid's walk visits in a
 * millisecond on a GPU.
 */
export const WIDE_CELLS = 4096;

/**
 * The `box` of a collider slot past a particle's last. Slots hold the box's index + 1, so that
 * a cleared buffer is all empty slots.
 */
export const EMPTY_SLOT = 0;

const header = () => /* wgsl */ `
${ParticleParams.wgsl}
${ParticleBody.wgsl}
${WideBox.wgsl}
${ParticleStats.wgsl}
${ParticleRest.wgsl}
${ParticleColliderContact.wgsl}
${flatWorkgroup}
${boxMath}
${WG.wgsl}
const EMPTY_SLOT: u32 = ${EMPTY_SLOT}u;
const SLEEP_OVERLAP: f32 = ${SLEEP_OVERLAP};
const EXT_SCALE: f32 = ${EXT_SCALE};
const WIDE_CELLS: f32 = ${WIDE_CELLS};
const WIDE_BOXES: u32 = ${WIDE_BOXES}u;
`;

export const colliderFindEntry = entry({ name: 'colliderFind', index: 'k', bound: 'params.boxCount' });

/**
 * The grid walk reads a candidate's position where it was binned (its anchor, from the last
 * search: the hashed walk filters candidates by their cell, and a particle has moved up to half
 * the skin since, possibly into another cell); the test reads where it is now (`current`).
 */
export const colliderFindShader = (layout: GridLayout) =>
  compiledFor(colliderFindCode(layout).replaceAll('sorted[u]', 'binned(u)'), layout);

const colliderFindCode = ({ dense }: GridLayout) => wgsl`
${gridHelpers(dense)}
${header()}
${colliderGeometry}
${colliderFindBindings.wgsl}
#if ${!dense}
${inRowFunction}
#endif

// Particle u where the last search binned it (its radius has not changed since: that searches).
fn binned(u: u32) -> vec4f {
  return vec4f(anchors[u].xyz, current[u].w);
}

struct CellRange {
  lo: vec3u,
  hi: vec3u,
}

// The cells of level b that a box (centre, world half extents e, their sum span) reaches, grown
// by \`grow\` and the level's largest radius, with room for the rounding of the offsets.
fn cellRange(b: u32, center: vec3f, e: vec3f, span: f32, grow: f32) -> CellRange {
  let ext = (grid.levels[b].maxRadius + grow) * EXT_SCALE;
  let rel = center - grid.levels[b].origin;
  let reach = e + vec3f(ext) + (abs(rel) + vec3f(span + ext)) * (1.0 / 65536.0);
  return CellRange(cellOfOffset(rel - reach, b), cellOfOffset(rel + reach, b));
}

${colliderFindEntry.wgsl}
  let center = colliderPoses[3u * k].xyz;
  let half = colliderPoses[3u * k + 1u].xyz;
  let rot = colliderPoses[3u * k + 2u];
  let travel = ${boxTravel('k')};
  let fastest = bitcast<f32>(atomicLoad(&stats.fastestBits)) * params.frameDt;
  let e = obbWorldHalfExtents(half, rot);
  let span = e.x + e.y + e.z;
  // A particle binned at the last search has moved at most half the skin since (particleGather).
  let grow = params.margin + params.skin + fastest + travel;
  // A box whose reach covers more than WIDE_CELLS cells (the levels' together, each at most as
  // many as its particles) would keep this one thread walking most of the particles (a floor
  // under a million): colliderFindWide takes it, a thread a particle.
  var cells = 0.0;
  ${levelLoop(
    'b',
    'grid.firstLevel',
    `
        let range = cellRange(b, center, e, span, grow);
        let size = vec3f(range.hi - range.lo + vec3u(1u));
        cells += min(size.x * size.y * size.z, f32(grid.levels[b].count));`,
  )}
  if (cells > WIDE_CELLS) {
    let at = atomicAdd(&stats.wideCount, 1u);
    if (at < WIDE_BOXES) {
      stats.wide[at].box = k;
      return;
    }
  }
  ${levelLoop(
    'b',
    'grid.firstLevel',
    `
        let range = cellRange(b, center, e, span, grow);
        let lo = range.lo;
        let hi = range.hi;
        ${walkRows({
          dense,
          level: 'b',
          lo: 'lo',
          hi: 'hi',
          levelScan: true,
          visit: `let body = bodies[u].v;
              if (body.w > 0.0) {
                let s = current[u];
                let g = boxGeometry(s, center, half, rot);
                // Struck within the step by a faster particle, it may leave at up to (1 + e)
                // times the fastest particle's speed: its reach counts that too, up to its radius.
                let struck = min((1.0 + params.restitution) * fastest, s.w);
                if (g.gap <= params.margin + length(body.xyz) * params.frameDt + travel + struck) {
                  let slot = atomicAdd(&found[u], 1u);
                  if (slot < params.foundSlots) {
                    atomicStore(&found[params.count + u * params.foundSlots + slot], k);
                  }
                  atomicMax(&stats.boxSlotsNeeded, slot + 1u);
                }
              }`,
        })}`,
  )}
}
`;

export const colliderListEntry = entry({ name: 'colliderList', index: 't', bound: 'params.count' });

/**
 * Per particle (bucket position t): its found boxes, and the triangles meshReduce kept, into
 * this step's half of its slots, by collider id (those past its `boxSlots` are left out: the
 * host grows and runs again), each with the impulse of its contact with that collider in the
 * last step (one it did not touch then starts from 0). Not at rest (time 0) when it touches a
 * moving collider, gained or lost one, or lies deeper in one than slop + SLEEP_OVERLAP·r.
 */
export const colliderListShader = ({ meshes }: { meshes: boolean }) => wgsl`
${header()}
${colliderGeometry}
${colliderListBindings.wgsl}
#if ${meshes}
${foundTriangles}
#endif

// Whether found entry j (ids and words: the particle's) is listed: a box, or a triangle not dropped.
fn listed(ids: u32, words: u32, j: u32) -> bool {
#if ${meshes}
  return found[ids + j] < params.boxCount || (found[words + j * ${TRIANGLE_WORDS}u + 3u] & DROPPED) == 0u;
#else
  return true;
#endif
}

${colliderListEntry.wgsl}
  let id = sortedId[t];
  let mine = (params.rangeBase + id) * params.boxSlots;
  let before = (params.prevRangeBase + id) * params.boxSlots;
  let count = min(found[t], params.foundSlots);
  let had = slots[before].box != EMPTY_SLOT;
  if (count == 0u && !had) {
    slots[mine].box = EMPTY_SLOT;
    return;
  }
  let s = sorted[t];
  let ids = params.count + t * params.foundSlots;
  let words = params.count * (1u + params.foundSlots) + t * params.foundSlots * ${TRIANGLE_WORDS}u;
  var keep = 0u;
  for (var j = 0u; j < count; j++) {
    keep += select(0u, 1u, listed(ids, words, j));
  }
  var wake = false;
  var kept = 0u;
  for (var j = 0u; j < count; j++) {
    let box = found[ids + j];
    if (!listed(ids, words, j)) {
      continue;
    }
    // Its place among this particle's kept colliders: how many of them have a lower id.
    var rank = 0u;
    for (var i = 0u; i < count; i++) {
      rank += select(0u, 1u, found[ids + i] < box && listed(ids, words, i));
    }
    if (rank >= params.boxSlots) {
      continue;
    }
    var impulse = vec4f(0.0);
    var isNew = true;
    for (var i = 0u; i < params.boxSlots; i++) {
      let old = slots[before + i];
      if (old.box == EMPTY_SLOT) {
        break;
      }
      if (old.box == box + 1u) {
        impulse = old.impulse;
        isNew = false;
        kept += 1u;
        break;
      }
    }
    // The collider: a box, or a mesh's triangle (its words after the found ids; k the mesh's collider).
    var k = box;
    var gap: f32;
    // A box's normal (w = 1: a box) and surface velocity here, for particleSplit's strike bound;
    // colliderPrepare writes them again each substep.
    var normal = vec4f(0.0);
    var surface = vec4f(0.0);
    if (box < params.boxCount) {
      let g = boxGeometry(s, colliderPoses[3u * k].xyz, colliderPoses[3u * k + 1u].xyz, colliderPoses[3u * k + 2u]);
      gap = g.gap;
      normal = vec4f(g.n, 1.0);
      surface = vec4f(colliderVelocities[2u * k].xyz + cross(colliderVelocities[2u * k + 1u].xyz, g.point), 0.0);
    }
#if ${meshes}
    else {
      let w = words + j * ${TRIANGLE_WORDS}u;
      k = params.boxCount + found[w + 3u];
      gap = bitcast<f32>(found[w + 15u]);
      let at = 3u * (id * params.boxSlots + rank);
      slotTriangles[at] = foundVertex(w);
      slotTriangles[at + 1u] = foundVertex(w + 4u);
      slotTriangles[at + 2u] = foundVertex(w + 8u);
    }
#endif
    // A mesh refitted since the last step has a nonzero w in its linear velocity (the world's flag).
    let moving = any(colliderVelocities[2u * k] != vec4f(0.0)) || any(colliderVelocities[2u * k + 1u].xyz != vec3f(0.0));
    if (isNew || moving || -gap - params.slop > SLEEP_OVERLAP * s.w) {
      wake = true;
    }
    slots[mine + rank] = ParticleColliderContact(impulse, normal, surface, box + 1u, 0.0);
  }
  if (keep < params.boxSlots) {
    slots[mine + keep].box = EMPTY_SLOT;
  }
  // A collider of the last step's not kept now: a support may have gone.
  var lost = false;
  for (var i = 0u; i < params.boxSlots; i++) {
    if (slots[before + i].box == EMPTY_SLOT) {
      break;
    }
    lost = lost || i + 1u > kept;
  }
  if (wake || lost) {
    rest[id].time = 0.0;
  }
}
`;

/**
 * The boxed list: the busy particles with a collider contact this step (particleSplit appends
 * them), in the contact starts' scratch after the strike bounds (common.wgsl.ts, strikeOf): its
 * length at start[4·count + 3], its particles after it. colliderPrepare walks it, thread k
 * taking boxed particle k.
 */
export const boxedList = {
  length: 'start[4u * params.count + 3u]',
  at: (k: string): string => `start[4u * params.count + 4u + ${k}]`,
} as const;

export const colliderPrepareEntry = entry({ name: 'colliderPrepare', index: 'k', bound: boxedList.length });

/**
 * A substep's collider contacts of boxed particle t (common.wgsl.ts, boxedThread: the geometry,
 * aims and warm start, as particlePrepare's for particle pairs, the box's velocity in place of
 * the partner's). Leaves (the warm start's velocity change, the contact count) in bodies[t].p
 * for particlePrepare; every other busy particle's is 0 there (the gather's, or the last
 * integration's).
 */
export const colliderPrepareShader = ({ meshes }: { meshes: boolean }) => wgsl`
${header()}
${colliderGeometry}
#if ${meshes}
${triangleMath}
${faceNormal}
${triangleGeometry}
#endif
${colliderPrepareBindings.wgsl}

${colliderPrepareEntry.wgsl}
  let t = ${boxedList.at('k')};
  let h = params.dt;
  let s = sorted[t];
  let id = sortedId[t];
  let w = bodies[t].v.w;
  let v = bodies[t].v.xyz + select(vec3f(0.0), params.gravity * h, w > 0.0);
  let base = (params.rangeBase + id) * params.boxSlots;
  var dv = vec3f(0.0);
  var splits = 0u;
  for (var i = 0u; i < params.boxSlots; i++) {
    let c = slots[base + i];
    if (c.box == EMPTY_SLOT) {
      break;
    }
    let box = c.box - 1u;
    var k = box;
    var g: BoxGeometry;
    if (box < params.boxCount) {
      g = boxGeometry(s, colliderPoses[3u * k].xyz, colliderPoses[3u * k + 1u].xyz, colliderPoses[3u * k + 2u]);
    }
#if ${meshes}
    else {
      let at = 3u * (id * params.boxSlots + i);
      let v0 = slotTriangles[at];
      k = params.boxCount + bitcast<u32>(v0.w);
      g = triangleGeometry(s, v0, slotTriangles[at + 1u], slotTriangles[at + 2u], colliderPoses[3u * k].xyz, colliderPoses[3u * k + 2u]);
    }
#endif
    let n = g.n;
    let surface = colliderVelocities[2u * k].xyz + cross(colliderVelocities[2u * k + 1u].xyz, g.point);
    let vn0 = dot(surface - v, n);
    let aim = ${formula.aim('g.gap', 'vn0')};
    var impulse = vec4f(0.0);
    if (${formula.keepsImpulse('g.gap', 'vn0', 's.w')}) {
      let lt = c.impulse.yzw;
      impulse = vec4f(c.impulse.x, lt - dot(lt, n) * n);
    }
    slots[base + i] = ParticleColliderContact(impulse, vec4f(n, ${formula.push('g.gap')}), vec4f(surface, aim), c.box, 0.0);
    dv -= w * (impulse.x * n + impulse.yzw);
    splits += 1u;
  }
  bodies[t].p = vec4f(dv, f32(splits));
}
`;

export const colliderCellsEntry = entry({
  name: 'colliderCells',
  index: 'k',
  bound: 'min(arrayLength(&cellStart), arrayLength(&saved))',
});

/** One thread per bucket offset: keep a search's offsets aside (`saved`), or put them back on a step that did not search. */
export const colliderCellsShader = () => wgsl`
${header()}
${colliderCellsBindings.wgsl}

${colliderCellsEntry.wgsl}
  if (params.searching != 0u) {
    saved[k] = cellStart[k];
  } else {
    cellStart[k] = saved[k];
  }
}
`;
