/**
 * The particle solver's search (shaders/particles/solver.wgsl.ts has the overview): the gather
 * of the state in the last search's order and the decision to search again, then either the
 * stable bucket order and the contact lists (count, scan, fill) or the carry of the last lists.
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { GATE_WGSL } from '../gpu/gate.wgsl.js';
import { gridHelpers, compiledFor, GRID_PARAMS, type GridLayout } from '../spatial/grid.wgsl.js';
import { bindings, uniform, readOnly, readWrite, entry, ONE_THREAD } from '../../src/gpu/kernel.js';
import { walkRows, inRowFunction } from '../spatial/walk.wgsl.js';
import { levelLoop } from '../common.wgsl.js';
import { formula } from './formula.js';
import { header, entriesOf } from './common.wgsl.js';

/** What the count and the fill read: the grid, the parameters, the bucket order and the bodies. */
const SEARCH = {
  ...GRID_PARAMS,
  params: uniform('ParticleParams'),
  cellStart: readOnly('array<u32>'),
  sorted: readOnly('array<vec4f>'),
  /** particleReach's: where the lists are made and each particle's reach (−1: static). */
  anchors: readOnly('array<vec4f>'),
} as const;

export const gatherBindings = bindings({
  params: uniform('ParticleParams'),
  spheres: readOnly('array<vec4f>'),
  velocities: readOnly('array<vec4f>'),
  sortedId: readOnly('array<u32>'),
  sorted: readWrite('array<vec4f>'),
  bodies: readWrite('array<ParticleBody>'),
  anchors: readOnly('array<vec4f>'),
  stats: readWrite('ParticleStats'),
  rest: readWrite('array<ParticleRest>'),
});

export const decideBindings = bindings({
  params: uniform('ParticleParams'),
  stats: readWrite('ParticleStats'),
  reuse: readWrite('ParticleReuse'),
  gateTemplate: readOnly('array<vec4u>'),
  gateArgs: readWrite('array<u32>'),
  start: readOnly('array<u32>'),
});

export const carryBindings = bindings({
  params: uniform('ParticleParams'),
  sortedId: readOnly('array<u32>'),
  start: readOnly('array<u32>'),
  contacts: readWrite('array<ParticleContact>'),
  ranges: readWrite('array<vec2u>'),
});

export const scatterIdsBindings = bindings({
  ...GRID_PARAMS,
  params: uniform('ParticleParams'),
  keys: readOnly('array<vec2u>'),
  cellStart: readOnly('array<u32>'),
  scratchId: readWrite('array<u32>'),
  velocities: readOnly('array<vec4f>'),
  stats: readWrite('ParticleStats'),
});

export const stableBindings = bindings({
  ...GRID_PARAMS,
  params: uniform('ParticleParams'),
  keys: readOnly('array<vec2u>'),
  cellStart: readOnly('array<u32>'),
  scratchId: readOnly('array<u32>'),
  spheres: readOnly('array<vec4f>'),
  velocities: readOnly('array<vec4f>'),
  sorted: readWrite('array<vec4f>'),
  bodies: readWrite('array<ParticleBody>'),
  sortedId: readWrite('array<u32>'),
});

export const reachBindings = bindings({
  params: uniform('ParticleParams'),
  sorted: readOnly('array<vec4f>'),
  bodies: readOnly('array<ParticleBody>'),
  anchors: readWrite('array<vec4f>'),
});

export const countBindings = bindings({
  ...SEARCH,
  counts: readWrite('array<u32>'),
  stats: readWrite('ParticleStats'),
});

export const fillBindings = bindings({
  ...SEARCH,
  sortedId: readOnly('array<u32>'),
  start: readOnly('array<u32>'),
  contacts: readWrite('array<ParticleContact>'),
  ranges: readWrite('array<vec2u>'),
  stats: readWrite('ParticleStats'),
});

export const particleGatherEntry = entry({ name: 'particleGather', index: 't', bound: 'params.count' });

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
${gatherBindings.wgsl}

${particleGatherEntry.wgsl}
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
  // (Only the time: the first step after new particles visits them in index order (the solver's
  // forget), not the order their search will give, so a position written here would depend on
  // it; the write-back's move test measures from where the last step ended, which a moved
  // particle fails once more.)
  // A sleeper ended its last step at exactly 0: any other velocity was written since (even one
  // slower than sleepSpeed), and wakes it.
  if (changed || any(s.xyz != rest[id].position) || length(me.xyz) > params.sleepSpeed || (rest[id].slept != 0u && any(me.xyz != vec3f(0.0)))) {
    rest[id].time = 0.0;
  }
  if (params.boxCount + params.meshCount > 0u && me.w > 0.0) {
    // The fastest particle's travel grows every box's search (colliderFind) and each particle's
    // mesh search (meshFind: how fast a particle it strikes may leave).
    atomicMax(&stats.fastestBits, bitcast<u32>(length(me.xyz)));
  }
  sorted[t] = s;
  bodies[t] = ParticleBody(me, vec4f(0.0));
}
`;

export const particleDecideEntry = entry({ name: 'particleDecide', size: ONE_THREAD });

/** One thread: search again (the host forced it, a particle moved too far, or the last lists overflowed), or keep the lists. */
export const particleDecideShader = () => wgsl`
${header()}
${decideBindings.wgsl}
${GATE_WGSL}

${particleDecideEntry.wgsl}
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

export const particleCarryEntry = entry({
  name: 'particleCarry',
  index: 't',
  exit: 'params.searching != 0u',
  bound: 'params.count',
});

/**
 * A step that keeps the lists: each particle's entries, impulses and all, move to this step's
 * half of the contact buffer (the first prepare decides again which are solved), and its range
 * there is noted for the warm start of the next search.
 */
export const particleCarryShader = () => wgsl`
${header()}
${carryBindings.wgsl}

${particleCarryEntry.wgsl}
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

export const particleScatterIdsEntry = entry({
  name: 'particleScatterIds',
  index: 'i',
  exit: 'params.searching == 0u',
  bound: 'grid.sphereCount',
});
export const particleScatterIdsShader = () => wgsl`
${gridHelpers()}
${header()}
${scatterIdsBindings.wgsl}

${particleScatterIdsEntry.wgsl}
  let key = keys[i];
  scratchId[cellStart[key.x] + key.y] = i;
  let v = velocities[i];
  if (v.w > 0.0) {
    // Non-negative floats order as their bits do.
    atomicMax(&stats.maxSpeedBits, bitcast<u32>(length(v.xyz)));
  }
}
`;

export const particleStableEntry = entry({
  name: 'particleStable',
  index: 'i',
  exit: 'params.searching == 0u',
  bound: 'grid.sphereCount',
});
export const particleStableShader = () => wgsl`
${gridHelpers()}
${header()}
${stableBindings.wgsl}

${particleStableEntry.wgsl}
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
 * Binds particle t's reach (formula.reach: 0 for a static particle) and whether it moves, from
 * its anchor (particleReach).
 */
const reachOf = (t: string): string => /* wgsl */ `let anchorReach = anchors[${t}].w;
  let moves = anchorReach >= 0.0;
  let reach = max(anchorReach, 0.0);`;

export const particleReachEntry = entry({
  name: 'particleReach',
  index: 't',
  exit: 'params.searching == 0u',
  bound: 'params.count',
});

/**
 * Per particle, in the new order: where its lists are made (for particleGather to measure its
 * moves from) and its reach (formula.reach; −1 for a static particle), which the count and the
 * fill read for every candidate, a word instead of its velocity and a square root.
 */
export const particleReachShader = () => wgsl`
${header()}
${reachBindings.wgsl}

${particleReachEntry.wgsl}
  let s = sorted[t];
  let me = bodies[t].v;
  anchors[t] = vec4f(s.xyz, select(${formula.reach('s', 'me')}, -1.0, me.w == 0.0));
}
`;

/**
 * A row's cells (walkRows' rowClip) that the ball of radius `ext` about the centre reaches: every
 * partner a search lists lies within it (below). Worked in cells of the level (`clipAt`: the
 * centre, `clipExt`: the radius, with room for the rounding of both, since the candidates' cells
 * come from the same arithmetic); the grid's edge rows and cells also hold what lies beyond the
 * grid (cellOf clamps), so they reach out to infinity. A particle's range is 4 to 5 cells a side
 * (cells of 2·maxRadius): the ball misses about a quarter of the candidates of its box (the pour
 * of issue 47 at frame 90: 54 of 71 a particle are left), a sixth of the count's time.
 */
const reachedCells = /* wgsl */ `let clipLo = vec2f(select(f32(rowY), -3.0e38, rowY == 0u), select(f32(rowZ), -3.0e38, rowZ == 0u));
        let clipHi = vec2f(select(f32(rowY) + 1.0, 3.0e38, f32(rowY) >= clipLast.y), select(f32(rowZ) + 1.0, 3.0e38, f32(rowZ) >= clipLast.z));
        let clipOff = max(max(clipLo - clipAt.yz, clipAt.yz - clipHi), vec2f(0.0));
        let clipLeft = clipExt * clipExt - dot(clipOff, clipOff);
        let clipHalf = sqrt(max(clipLeft, 0.0));
        let clipX = clamp(floor(vec2f(clipAt.x - clipHalf, clipAt.x + clipHalf)), vec2f(0.0), vec2f(clipLast.x));
        let rowX = select(vec2u(1u, 0u), vec2u(clipX), clipLeft >= 0.0);`;

/**
 * The statements visiting every other particle u that a search lists for particle t: within the
 * search margin plus the skin (gap ≤ margin + skin + both reaches), from the grid cells within
 * ext = r + maxRadius + margin + skin + both reaches of its centre (no partner's centre is
 * farther), on every level, each row narrowed to the cells the ball of radius ext reaches
 * (reachedCells). The visit sees `q` (u's sphere), `gap` and `pairReach` (both reaches).
 */
function partners(dense: boolean, visit: string): string {
  return /* wgsl */ `
  let vmaxReach = max(bitcast<f32>(atomicLoad(&stats.maxSpeedBits)), params.boxSpeed) * params.frameDt;
  ${levelLoop(
    'b',
    'grid.firstLevel',
    `
        let maxR = grid.levels[b].maxRadius;
        let ext = (s.w + maxR + (params.margin + params.skin) + reach + min(vmaxReach, maxR)) * EXT_SCALE;
        let lo = cellOf(s.xyz - vec3f(ext), b);
        let hi = cellOf(s.xyz + vec3f(ext), b);
        let clipAt = (s.xyz - grid.levels[b].origin) * grid.levels[b].invCellSize;
        let clipLast = vec3f(grid.levels[b].dims - 1u);
        let clipExt = (ext * grid.levels[b].invCellSize) * (1.0 + 1e-4) + 1e-5 * max(max(abs(clipAt.x), abs(clipAt.y)), abs(clipAt.z)) + 1e-3;
        ${walkRows({
          dense,
          level: 'b',
          lo: 'lo',
          hi: 'hi',
          rowClip: reachedCells,
          visit: `if (u != t) {
                let reachU = anchors[u].w;
                if (moves || reachU >= 0.0) {
                  let d = q.xyz - s.xyz;
                  let gap = sqrt(dot(d, d)) - (s.w + q.w);
                  let pairReach = reach + max(reachU, 0.0);
                  if (gap <= (params.margin + params.skin) + pairReach) {
                    ${visit}
                  }
                }
              }`,
        })}`,
  )}`;
}

export const particleCountEntry = entry({
  name: 'particleCount',
  index: 't',
  exit: 'params.searching == 0u',
  bound: 'params.count',
});
export const particleCountShader = (layout: GridLayout) => compiledFor(particleCountCode(layout), layout);

const particleCountCode = ({ dense }: GridLayout) => wgsl`
${gridHelpers(dense)}
${header()}
${countBindings.wgsl}
#if ${!dense}
${inRowFunction}
#endif

${particleCountEntry.wgsl}
  let s = sorted[t];
  ${reachOf('t')}
  var found = 0u;
  // The first PARTNERS_KEPT partners go to this particle's scratch row after the counts, so that
  // the fill need not walk the grid again.
  let row = params.count + 1u + t * PARTNERS_KEPT;
  ${partners(
    dense,
    `if (found < PARTNERS_KEPT) {
                counts[row + found] = u;
              }
              found += 1u;`,
  )}
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
        // The normal slot starts empty (0): where the centres coincide when the prepare first
        // sees the pair, it takes the pair's hashed normal, and then keeps the last it saw.
        contacts[params.entryBase + slot] = ParticleContact(impulse, vec4f(0.0), u, other, 0.0, 0.0);
      }
      slot += 1u;`;

export const particleFillEntry = entry({
  name: 'particleFill',
  index: 't',
  exit: 'params.searching == 0u',
  bound: 'params.count',
});
export const particleFillShader = (layout: GridLayout) => compiledFor(particleFillCode(layout), layout);

const particleFillCode = ({ dense }: GridLayout) => wgsl`
${gridHelpers(dense)}
${header()}
${fillBindings.wgsl}
#if ${!dense}
${inRowFunction}
#endif

${particleFillEntry.wgsl}
  if (t == params.count - 1u) {
    atomicMax(&stats.entriesNeeded, start[params.count]);
  }
  let s = sorted[t];
  ${reachOf('t')}
  let id = sortedId[t];
  // This particle's list of the previous step, for the warm start: only its entries from the first
  // to the last that hold an impulse (a match elsewhere would carry 0, as none does). Most of a
  // pour's balls fall free and hold none: their new entries then search nothing.
  let listed = ranges[params.prevRangeBase + id];
  var previous = vec2u(listed.y, listed.y);
  for (var e = listed.x; e < listed.y; e++) {
    if (any(bitcast<vec4u>(contacts[e].impulse) != vec4u(0u))) {
      previous = vec2u(min(previous.x, e), e + 1u);
    }
  }
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
