/**
 * The colouring's plan (colouring.wgsl.ts colours the pairs): after each round, the next round's
 * dispatch over the pairs whose picks lost (colourRoundArgs; colourWorkArgs before the first,
 * over every listed pair); after the rounds, each colour's count by band and the overflow
 * (colourCount), each colour's range in the pair list and the dispatch arguments of the sweeps,
 * per band (colourPlan), and the pair list itself, each colour's pairs by band (colourScatter).
 *
 * A pair's band (formula.band) is the first substep in which it may close at its speed bound:
 * the relative speed the step's first prepare left it (a static partner's velocity is 0), raised
 * by how fast a strike may send each moving particle (colourStart: (1 + e) × the fastest approach
 * of a partner it lists, or its strike bound from particleSplit, a box's included), by what
 * gravity adds in the step and, while boxes move, by the fastest a box can send a particle. A
 * substep's sweeps dispatch each colour's bands up to it only (BANDS): before its band a pair
 * stays open. The bound covers a strike by one partner along its normal, not a particle
 * squeezed by several at once nor a chain of strikes within the step, as the step's choice of
 * pairs (formula.reach) does not either; a pair that keeps its warm start is of band 0.
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { header, writeArgs } from './common.wgsl.js';
import { formula } from './formula.js';
import { colouringHeader, PASS_INDEX, workThread, workPair } from './colouring.wgsl.js';
import { bindings, uniform, readOnly, readWrite, entry, ONE_THREAD } from '../../src/gpu/kernel.js';

export const colourScatterBindings = bindings({
  params: uniform('ParticleParams'),
  state: readOnly('array<u32>'),
  table: readWrite('array<atomic<u32>>'),
  pairs: readWrite('array<vec2u>'),
  work: readOnly('array<u32>'),
});

/**
 * A coloured pair's band in its owner's state (bits BAND_SHIFT on: colourCount writes it,
 * colourScatter reads it; no later pass reads a coloured state).
 */
const BAND_SHIFT = 16;

export const colourPlanBindings = bindings({
  params: uniform('ParticleParams'),
  /** x: the colours the sweeps dispatch one by one (src/particles/recordSweeps.ts, the host's colourSlots). */
  slot: uniform(PASS_INDEX),
  table: readWrite('array<u32>'),
  args: readWrite('array<u32>'),
  stats: readWrite('ParticleStats'),
});

/**
 * The most pairs the tail may hold by choice: the colours whose pairs, together with all those
 * after them, number no more than this are solved by one workgroup (pairSolveTail), colour after
 * colour, instead of a dispatch each. On SwiftShader a dispatch costs about as much as some
 * hundred pair solves on one core (scratch measure: 50–100 µs against 0.15 µs a pair).
 */
export const TAIL_PAIRS = 1024;

export const colourCountBindings = bindings({
  params: uniform('ParticleParams'),
  sorted: readOnly('array<vec4f>'),
  contacts: readOnly('array<ParticleContact>'),
  bodies: readOnly('array<ParticleBody>'),
  state: readWrite('array<u32>'),
  masks: readWrite('array<atomic<u32>>'),
  table: readWrite('array<atomic<u32>>'),
  work: readOnly('array<u32>'),
});

export const colourRoundArgsBindings = bindings({
  params: uniform('ParticleParams'),
  slot: uniform(PASS_INDEX),
  table: readWrite('array<u32>'),
  args: readWrite('array<u32>'),
});

export const colourWorkArgsEntry = entry({ name: 'colourWorkArgs', size: ONE_THREAD });

/** One thread, before the first round: its dispatch and the count's and scatter's, a thread a listed pair. */
export const colourWorkArgsShader = () => wgsl`
${header()}
${colouringHeader}
${colourRoundArgsBindings.wgsl}
${writeArgs}

${colourWorkArgsEntry.wgsl}
  writeArgs(3u * ARGS_ROUND, table[TABLE_WORK]);
  writeArgs(3u * ARGS_WORK, table[TABLE_WORK]);
}
`;

export const colourRoundArgsEntry = entry({ name: 'colourRoundArgs', size: ONE_THREAD });

/** One thread, after round `slot.x`: the next round's dispatch over the pending list its resolve wrote, and the other list emptied for that round's resolve. */
export const colourRoundArgsShader = () => wgsl`
${header()}
${colouringHeader}
${colourRoundArgsBindings.wgsl}
${writeArgs}

${colourRoundArgsEntry.wgsl}
  let next = (slot.x + 1u) & 1u;
  writeArgs(3u * ARGS_ROUND, table[TABLE_PENDING + next]);
  table[TABLE_PENDING + (1u - next)] = 0u;
}
`;

export const colourCountEntry = entry({ name: 'colourCount', ...workThread((word) => `atomicLoad(&table[${word}])`) });

/**
 * Each listed pair: coloured, counted in its colour and band; left uncoloured, marked OVERFLOW
 * (both entries), its moving particles' overflow counts raised, each particle listed for the
 * overflow once (by the pair that raised its count from 0).
 */
export const colourCountShader = () => wgsl`
${header()}
${colouringHeader}
${colourCountBindings.wgsl}

fn listOverflow(t: u32) {
  if (atomicAdd(&masks[MASK_WORDS * t + MASK_OVERFLOW], 1u) == 0u) {
    let k = atomicAdd(&table[TABLE_OVERFLOW], 1u);
    atomicStore(&table[TABLE_LIST + k], t);
  }
}

${colourCountEntry.wgsl}
${workPair('k')}
  let here = e - params.entryBase;
  let s = state[here];
  let u = contacts[e].nbr;
  if ((s & COLOURED_BIT) != 0u) {
    // The band (formula.band), from the pair's relative speed and how fast a strike may send each
    // moving particle (colourStart), with what gravity adds over the step and the fastest a box
    // can send a particle, for each; a pair that keeps its warm start is solved from the first
    // substep.
    let sphere = sorted[t];
    let q = sorted[u];
    let d = q.xyz - sphere.xyz;
    let gap = sqrt(dot(d, d)) - (sphere.w + q.w);
    let bu = bodies[u].v;
    let struckT = bitcast<f32>(atomicLoad(&masks[MASK_WORDS * t + MASK_STRUCK]));
    var struckU = 0.0;
    var vu = vec3f(0.0);
    if (bu.w > 0.0) {
      vu = bu.xyz;
      struckU = bitcast<f32>(atomicLoad(&masks[MASK_WORDS * u + MASK_STRUCK]));
    }
    let lift = 2.0 * (params.boxSpeed + length(params.gravity) * params.frameDt);
    let speed = ((length(bodies[t].v.xyz - vu) + struckT) + struckU) + lift;
    let lastBand = f32(min(BANDS, params.substeps) - 1u);
    var band = min(u32(${formula.band('gap', 'speed', 'lastBand')}), BANDS - 1u);
    if (any(contacts[e].impulse != vec4f(0.0))) {
      band = 0u;
    }
    state[here] = s | (band << ${BAND_SHIFT}u);
    atomicAdd(&table[TABLE_COUNTS + (s & 0xffu) * BANDS + band], 1u);
    return;
  }
  state[here] = PAIR_OVERFLOW;
  if (m != NO_MIRROR) {
    state[m] = PAIR_OVERFLOW;
  }
  listOverflow(t);
  if (bodies[u].v.w > 0.0) {
    listOverflow(u);
  }
}
`;

export const colourPlanEntry = entry({ name: 'colourPlan', size: ONE_THREAD });

/**
 * One thread: each colour's range of the pair list, band after band; the tail, from the first
 * colour after which no more than TAIL_PAIRS pairs are left (or the first the host does not
 * dispatch alone, if earlier), with that first colour raised into the stats for the host's next
 * call; the dispatch arguments per band (folded as dispatchFolded does): each colour before the
 * tail its own, of its pairs in that band and those before, those in it none, the tail one
 * workgroup if it holds such a pair, the overflow one thread a particle.
 */
export const colourPlanShader = () => wgsl`
${header()}
${colouringHeader}
${colourPlanBindings.wgsl}
${writeArgs}

fn colourCount(c: u32) -> u32 {
  var count = 0u;
  for (var b = 0u; b < BANDS; b++) {
    count += table[TABLE_COUNTS + c * BANDS + b];
  }
  return count;
}

${colourPlanEntry.wgsl}
  var offset = 0u;
  for (var c = 0u; c < PALETTE; c++) {
    var upTo = 0u;
    for (var b = 0u; b < BANDS; b++) {
      let i = c * BANDS + b;
      let count = table[TABLE_COUNTS + i];
      upTo += count;
      table[TABLE_RANGES + 2u * i] = offset;
      table[TABLE_RANGES + 2u * i + 1u] = upTo;
      table[TABLE_CURSORS + i] = 0u;
      offset += count;
    }
  }
  var wanted = PALETTE;
  var left = 0u;
  while (wanted > 0u && left + colourCount(wanted - 1u) <= ${TAIL_PAIRS}u) {
    wanted--;
    left += colourCount(wanted);
  }
  atomicMax(&stats.colourSlotsNeeded, wanted);
  let tail = min(wanted, slot.x);
  table[TABLE_TAIL] = tail;
  for (var b = 0u; b < BANDS; b++) {
    var inTail = 0u;
    for (var c = 0u; c < PALETTE; c++) {
      let count = table[TABLE_RANGES + 2u * (c * BANDS + b) + 1u];
      writeArgs(3u * (b * PALETTE + c), select(0u, count, c < tail));
      inTail += select(count, 0u, c < tail);
    }
    writeArgs(3u * (ARGS_TAIL + b), min(inTail, 1u));
  }
  writeArgs(3u * ARGS_OVERFLOW, table[TABLE_OVERFLOW]);
}
`;

export const colourScatterEntry = entry({
  name: 'colourScatter',
  ...workThread((word) => `atomicLoad(&table[${word}])`),
});

/** Each coloured pair of the list (its entry, its owner) into its colour's and band's range of the pair list. */
export const colourScatterShader = () => wgsl`
${header()}
${colouringHeader}
${colourScatterBindings.wgsl}

${colourScatterEntry.wgsl}
${workPair('k')}
  let s = state[e - params.entryBase];
  if ((s & COLOURED_BIT) == 0u) {
    return;
  }
  let i = (s & 0xffu) * BANDS + ((s >> ${BAND_SHIFT}u) & 0xffu);
  let slot = atomicAdd(&table[TABLE_CURSORS + i], 1u);
  pairs[atomicLoad(&table[TABLE_RANGES + 2u * i]) + slot] = vec2u(e, t);
}
`;
