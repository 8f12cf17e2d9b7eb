/**
 * The colouring of a step's contact graph (shaders/particles/solver.wgsl.ts has the overview):
 * once a step, after its first prepare has decided which pairs it solves, every such pair gets
 * one of PALETTE colours so that no moving particle is in two pairs of a colour. The sweeps then
 * solve one colour at a time (pairs.wgsl.ts), each colour's pairs in parallel: Gauss–Seidel over
 * the colours, with nothing written by two threads of a dispatch.
 *
 * A pair is solved from one entry, its owner's: the lower particle's when both move, else the
 * moving one's (a sleeper's or a static particle's entries are not prepared). A particle of
 * inverse mass 0 is never written by a pair, so two pairs that share only it may share a colour.
 *
 * The colouring is speculative, in COLOUR_ROUNDS rounds of two passes, a thread a pair of the
 * step's pair list (`work`: in a round after the first, the pairs whose picks lost):
 *   colourTentative  each uncoloured pair picks, by a hash of its priority and the round, one of
 *                    the colours neither of its moving particles has yet, and claims it at both
 *                    (an atomicMax of the round and the pair's priority: MASK.claims)
 *   colourResolve    it keeps the colour unless a pair it shares a moving particle with picked
 *                    the same in this round and has the higher priority (a hash of the pair):
 *                    its claim is then not the highest there, or ties it (rare: the list decides)
 * Pairs still uncoloured after the last round (a particle in more pairs than the palette holds,
 * or a crowd that kept picking alike) are not lost: they are the overflow, solved after the
 * colours by Jacobi sweeps with mass splitting among the overflow pairs (pairs.wgsl.ts).
 * Around the rounds:
 *   colourStart      per busy particle: its masks cleared, how fast a strike may send it; each
 *                    pair it owns marked uncoloured, with its mirror (the partner's entry of the
 *                    pair, which the solve keeps equal), and listed in `work`
 *   colourCount      per listed pair: a coloured one counted in its colour and band; an
 *                    uncoloured one the overflow's: its entries marked, its particles counted
 *                    and listed (colourPlan.wgsl.ts has these and the two below)
 *   colourPlan       (one thread) each colour's range of the pair list and its dispatch arguments
 *   colourScatter    each coloured pair (its entry and owner) into its colour's range, by band
 * Every choice depends on the pairs' ids, masks and states only (integer atomics: no float
 * atomics), so two runs colour alike; the order of pairs within a colour's range varies, which
 * changes nothing (a colour's pairs share no moving particle).
 *
 * An entry's state (`state`, by entry within the step's half): NONE, or for the pair of an owner
 * (MIRROR_BIT clear on the owner's entry, set on the mirror): UNCOLOURED, a tentative colour with
 * its round ((round + 1) << 8 | colour), that with COLOURED_BIT once kept (and on the owner's
 * entry, from colourCount on, the pair's band at bit 16: colourPlan.wgsl.ts), or OVERFLOW.
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { header, busyParticle, busyThread, strikeOf } from './common.wgsl.js';
import { bindings, uniform, readOnly, readWrite, entry } from '../../src/gpu/kernel.js';
import { PALETTE, COLOUR_ROUNDS, BANDS } from '../../src/particles/step.js';

export { PALETTE, COLOUR_ROUNDS, BANDS };
/** The mirror of an entry whose partner does not list it (lists cut short by the capacity). */
export const NO_MIRROR = 0xffffffff;
/** Entry states (see the module's comment). */
export const PAIR_NONE = 0xffffffff;
export const PAIR_UNCOLOURED = 0;
export const PAIR_OVERFLOW = 0x7ffffffe;
export const COLOURED_BIT = 0x80000000;
export const MIRROR_BIT = 0x40000000;

/**
 * The colour table (`table`, u32): per colour and band (index colour · BANDS + band: each
 * colour's pairs are ordered by band, colourPlan.wgsl.ts) the pairs counted, then the scatter's
 * cursors, then the ranges: where the band's pairs start in the pair list, and how many pairs of
 * the colour the bands up to it hold (a sweep of substep j solves those of band min(j, BANDS − 1));
 * the overflow's count of particles; the lengths of the two pending lists; the first colour of the
 * tail (the colours the sweeps solve in one workgroup: pairs.wgsl.ts, pairSolveTail); the length
 * of the step's pair list (`work`); then, `count` words (the step's particles), the overflow's
 * particles (bucket positions).
 */
export const TABLE = {
  counts: 0,
  cursors: PALETTE * BANDS,
  ranges: 2 * PALETTE * BANDS,
  overflow: 4 * PALETTE * BANDS,
  pending: 4 * PALETTE * BANDS + 1,
  tail: 4 * PALETTE * BANDS + 3,
  work: 4 * PALETTE * BANDS + 4,
  list: 4 * PALETTE * BANDS + 5,
} as const;
/** The colour table's words for `capacity` particles. */
export const tableWords = (capacity: number): number => TABLE.list + capacity;

/**
 * The step's pairs to colour (`work`, u32), for `entryCapacity` entries a half: each pair the
 * step solves, once, as (its owner's entry, the owner, the mirror: WORK_ITEM words), listed by
 * colourStart; after them the two pending lists, `entryCapacity` words each: the pairs (by index
 * in the list) whose picks lost a round, which the next round picks again. A round after the
 * first takes only those, so that the later rounds, where few pairs are left, cost next to
 * nothing.
 */
export const WORK_ITEM = 3;
export const workWords = (entryCapacity: number): number => (WORK_ITEM + 2) * entryCapacity;

/**
 * A particle's words in `masks` (by bucket position): the colours of its pairs, its overflow
 * pairs, for each round's parity the colours that two of this round's picks at the particle made
 * with the same claim (below: only then does the resolution look at its list), how fast a strike
 * may send it (f32 bits: (1 + e) × the fastest approach of a partner it lists times its share of
 * the pair's inverse mass, or its strike
 * bound, common.wgsl.ts strikeOf, if larger; for the bands: colourPlan.wgsl.ts), and per colour the claim, the highest of this round's picks of that
 * colour at the particle.
 */
export const MASK = { colours: 0, overflow: 1, ties: 2, struck: 4, claims: 5, words: 5 + PALETTE } as const;

/**
 * A pick's claim at each of its moving particles: the round (from 1) in the top CLAIM_ROUND_BITS,
 * so that a round's claims exceed every earlier one's, then the pair's priority's high bits. A
 * higher claim is a pair that beats it (`beats`); two equal claims are told apart by the list.
 */
export const CLAIM_ROUND_BITS = 4;
if (COLOUR_ROUNDS >= 2 ** CLAIM_ROUND_BITS) throw new Error('colouring: a claim holds too few rounds');

/**
 * Indirect dispatch arguments, (x, y, z) each: one per band and colour (band · PALETTE + colour),
 * then the overflow's, then a round's, then the pair list's (a thread a pair), then the tail's
 * per band (ARGS_TAIL + band: one workgroup or none).
 */
export const ARGS = {
  overflow: PALETTE * BANDS,
  round: PALETTE * BANDS + 1,
  work: PALETTE * BANDS + 2,
  tail: PALETTE * BANDS + 3,
} as const;
export const COLOUR_ARGS_WORDS = 3 * (ARGS.tail + BANDS);

/** The WGSL constants and helpers of the colouring and of the pair sweeps. */
export const colouringHeader = /* wgsl */ `
const PALETTE: u32 = ${PALETTE}u;
const BANDS: u32 = ${BANDS}u;
// The palette's bits of a mask.
const PALETTE_MASK: u32 = ${PALETTE === 32 ? 0xffffffff : 2 ** PALETTE - 1}u;
const NO_MIRROR: u32 = ${NO_MIRROR}u;
const PAIR_NONE: u32 = ${PAIR_NONE}u;
const PAIR_UNCOLOURED: u32 = ${PAIR_UNCOLOURED}u;
const PAIR_OVERFLOW: u32 = ${PAIR_OVERFLOW}u;
const COLOURED_BIT: u32 = ${COLOURED_BIT}u;
const MIRROR_BIT: u32 = ${MIRROR_BIT}u;
const TABLE_COUNTS: u32 = ${TABLE.counts}u;
const TABLE_CURSORS: u32 = ${TABLE.cursors}u;
const TABLE_RANGES: u32 = ${TABLE.ranges}u;
const TABLE_OVERFLOW: u32 = ${TABLE.overflow}u;
const TABLE_PENDING: u32 = ${TABLE.pending}u;
const TABLE_TAIL: u32 = ${TABLE.tail}u;
const ARGS_OVERFLOW: u32 = ${ARGS.overflow}u;
const ARGS_ROUND: u32 = ${ARGS.round}u;
const ARGS_TAIL: u32 = ${ARGS.tail}u;
const ARGS_WORK: u32 = ${ARGS.work}u;
const TABLE_WORK: u32 = ${TABLE.work}u;
const WORK_ITEM: u32 = ${WORK_ITEM}u;
const MASK_WORDS: u32 = ${MASK.words}u;
const MASK_COLOURS: u32 = ${MASK.colours}u;
const MASK_OVERFLOW: u32 = ${MASK.overflow}u;
const MASK_TIES: u32 = ${MASK.ties}u;
const MASK_CLAIMS: u32 = ${MASK.claims}u;
const MASK_STRUCK: u32 = ${MASK.struck}u;
const CLAIM_ROUND_BITS: u32 = ${CLAIM_ROUND_BITS}u;
const TABLE_LIST: u32 = ${TABLE.list}u;

// A 32-bit integer hash (src/reference/particles/colouring.ts has its twin).
fn mix32(x: u32) -> u32 {
  var h = x;
  h = (h ^ (h >> 16u)) * 0x7feb352du;
  h = (h ^ (h >> 15u)) * 0x846ca68bu;
  return h ^ (h >> 16u);
}

// The priority of the pair of particles a and b (indices): the same from either side.
fn pairPriority(a: u32, b: u32) -> u32 {
  return mix32(mix32(min(a, b)) ^ max(a, b));
}

// The claim (MASK.claims) of a pick in the given round by a pair of priority p.
fn claimOf(round: u32, p: u32) -> u32 {
  return ((round + 1u) << (32u - CLAIM_ROUND_BITS)) | (p >> CLAIM_ROUND_BITS);
}

// The position of the n-th (from 0) set bit of x (n < countOneBits(x)), by halving: a branchless
// step per width (on SwiftShader a lane's loop runs as long as the longest lane's).
fn nthSetBit(x: u32, n: u32) -> u32 {
  var bits = x;
  var k = n;
  var at = 0u;
${[16, 8, 4, 2, 1]
  .map(
    (width) => `  {
    let below = countOneBits(bits & ${2 ** width - 1}u);
    let step = select(0u, ${width}u, k >= below);
    k -= select(0u, below, k >= below);
    bits >>= step;
    at += step;
  }`,
  )
  .join('\n')}
  return at;
}

// Whether pair (a, b) of priority p beats pair (c, d) of priority q: by priority, ties by the
// pair's lower and then higher index (a total order: two pairs never tie).
fn beats(p: u32, a: u32, b: u32, q: u32, c: u32, d: u32) -> bool {
  if (p != q) {
    return p > q;
  }
  if (min(a, b) != min(c, d)) {
    return min(a, b) > min(c, d);
  }
  return max(a, b) > max(c, d);
}
`;

/** The round or the colour a pass of the colouring or of the sweeps works on (a uniform slot each). */
export const PASS_INDEX = 'vec4u';

const entryState = { state: readWrite('array<u32>') } as const;

export const colourStartBindings = bindings({
  params: uniform('ParticleParams'),
  start: readOnly('array<u32>'),
  contacts: readOnly('array<ParticleContact>'),
  bodies: readOnly('array<ParticleBody>'),
  ...entryState,
  masks: readWrite('array<u32>'),
  mirror: readWrite('array<u32>'),
  table: readWrite('array<atomic<u32>>'),
  work: readWrite('array<u32>'),
});

export const colourTentativeBindings = bindings({
  params: uniform('ParticleParams'),
  slot: uniform(PASS_INDEX),
  contacts: readOnly('array<ParticleContact>'),
  bodies: readOnly('array<ParticleBody>'),
  sortedId: readOnly('array<u32>'),
  ...entryState,
  masks: readWrite('array<atomic<u32>>'),
  table: readOnly('array<u32>'),
  work: readOnly('array<u32>'),
});

export const colourResolveBindings = bindings({
  params: uniform('ParticleParams'),
  slot: uniform(PASS_INDEX),
  start: readOnly('array<u32>'),
  contacts: readOnly('array<ParticleContact>'),
  bodies: readOnly('array<ParticleBody>'),
  sortedId: readOnly('array<u32>'),
  ...entryState,
  masks: readWrite('array<atomic<u32>>'),
  table: readWrite('array<atomic<u32>>'),
  work: readWrite('array<u32>'),
});

/** A pair of the step's pair list (`work`), thread k's: in bounds where k < its length (`table` read by `read`). */
export const workThread = (read: (word: string) => string) => ({ index: 'k', bound: read('TABLE_WORK') }) as const;

/** Binds `w` (the pair's index in the pair list), `e` (its owner's entry), `t` (the owner) and `m` (its mirror). */
export const workPair = (w: string) => /* wgsl */ `
  let w = ${w};
  let e = work[WORK_ITEM * w];
  let t = work[WORK_ITEM * w + 1u];
  let m = work[WORK_ITEM * w + 2u];`;

/** Where pending list `parity` starts in `work`. */
const pendingList = (parity: string) => `(WORK_ITEM + (${parity})) * params.entryCapacity`;

/**
 * A round's pair: in the first, pair k of the list; in a later one, entry k of the pending list
 * the round before wrote (`roundBound` its length).
 */
const roundBound = (read: (word: string) => string) =>
  `select(${read('TABLE_WORK')}, ${read('TABLE_PENDING + (slot.x & 1u)')}, slot.x > 0u)`;
const roundPair = workPair(`select(k, work[${pendingList('slot.x & 1u')} + k], slot.x > 0u)`);

/** The loop over particle t's list (entriesOf in scope), `body` run for each entry e; `continue` skips one. */
export const forEntries = (body: string): string => /* wgsl */ `
  { // for (var e = first; e < last; e++), tested at the bottom (forLoop, common.wgsl.ts)
    var e = first;
    if (e < last) {
      loop {
${body}
        continuing {
          e++;
          break if !(e < last);
        }
      }
    }
  }`;

/** particle t's list range (the contact starts hold it: `start`). */
export const listOf = (t: string, name: string) => /* wgsl */ `
  let ${name}First = params.entryBase + min(start[${t}], params.entryCapacity);
  let ${name}Last = params.entryBase + min(start[${t} + 1u], params.entryCapacity);`;

export const colourStartEntry = entry({ name: 'colourStart', ...busyThread });

/**
 * Per busy particle: masks cleared, each owned pair uncoloured, its mirror found (NO_MIRROR if its
 * partner's list lacks it) and the pair listed (`work`, the particle's pairs together).
 */
export const colourStartShader = () => wgsl`
${header()}
${colouringHeader}
${colourStartBindings.wgsl}

${colourStartEntry.wgsl}
${busyParticle}
  for (var word = 0u; word < MASK_WORDS; word++) {
    masks[MASK_WORDS * t + word] = 0u;
  }
  let wt = bodies[t].v.w;
  ${listOf('t', 'my')}
  let first = myFirst;
  let last = myLast;
  // Its owned pairs counted first, so that one atomic reserves their places in the list; and the
  // fastest approach of a partner (along the first prepare's normal, times this particle's share
  // of the pair's inverse mass), for the strike's bound (at least particleSplit's, which counts
  // its boxes too).
  var owned = 0u;
  var approach = 0.0;
  if (wt > 0.0) {
    let vt = bodies[t].v.xyz;
    for (var e = first; e < last; e++) {
      let u = contacts[e].nbr;
      if (u >= DORMANT_BIT) {
        // A run of dormant entries: on past it (the first prepare's link, substep.wgsl.ts).
        e = bitcast<u32>(contacts[e].aim) - 1u;
        continue;
      }
      let bu = bodies[u].v;
      approach = max(approach, -dot(bu.xyz - vt, contacts[e].normal.xyz) * (wt / (wt + bu.w)));
      if (t < u || bu.w == 0.0) {
        owned++;
      }
    }
  }
  masks[MASK_WORDS * t + MASK_STRUCK] = bitcast<u32>(max((1.0 + params.restitution) * approach, bitcast<f32>(${strikeOf('t')})));
  var at = 0u;
  if (owned > 0u) {
    at = atomicAdd(&table[TABLE_WORK], owned);
  }
${forEntries(/* wgsl */ `
        let u = contacts[e].nbr;
        var state_e = PAIR_NONE;
        if (u < DORMANT_BIT && wt > 0.0) {
          let wu = bodies[u].v.w;
          if (wu == 0.0 || t < u) {
            state_e = PAIR_UNCOLOURED;
            ${listOf('u', 'its')}
            var m = NO_MIRROR;
            for (var f = itsFirst; f < itsLast; f++) {
              if ((contacts[f].nbr & ~DORMANT_BIT) == t) {
                m = f - params.entryBase;
                break;
              }
            }
            mirror[e - params.entryBase] = m;
            work[WORK_ITEM * at] = e;
            work[WORK_ITEM * at + 1u] = t;
            work[WORK_ITEM * at + 2u] = m;
            at++;
          }
        }
        // A pair owned by the partner: its state comes through the mirror from the first round on.
        state[e - params.entryBase] = state_e;`)}
}
`;

export const colourTentativeEntry = entry({
  name: 'colourTentative',
  index: 'k',
  bound: roundBound((word) => `table[${word}]`),
});

/** A round's picks: each of its pairs, a colour free at both its moving particles (or none: uncoloured). */
export const colourTentativeShader = () => wgsl`
${header()}
${colouringHeader}
${colourTentativeBindings.wgsl}

${colourTentativeEntry.wgsl}
${roundPair}
  let round = slot.x;
  let parity = round & 1u;
  let here = e - params.entryBase;
  let u = contacts[e].nbr;
  let wu = bodies[u].v.w;
  var used = atomicLoad(&masks[MASK_WORDS * t + MASK_COLOURS]);
  if (wu > 0.0) {
    used |= atomicLoad(&masks[MASK_WORDS * u + MASK_COLOURS]);
  }
  let free = ~used & PALETTE_MASK;
  var next = PAIR_UNCOLOURED;
  if (free != 0u) {
    // The pick-th free colour, pick by the pair's hash and the round.
    let p = pairPriority(sortedId[t], contacts[e].id);
    let c = nthSetBit(free, mix32(p + round) % countOneBits(free));
    next = ((round + 1u) << 8u) | c;
    // The claim at each moving particle that lists the pair, and whether a pick there made the
    // same claim before it (the highest claim is then a tie to look at).
    let claim = claimOf(round, p);
    let bit = 1u << c;
    if (atomicMax(&masks[MASK_WORDS * t + MASK_CLAIMS + c], claim) == claim) {
      atomicOr(&masks[MASK_WORDS * t + MASK_TIES + parity], bit);
    }
    if (wu > 0.0 && m != NO_MIRROR && atomicMax(&masks[MASK_WORDS * u + MASK_CLAIMS + c], claim) == claim) {
      atomicOr(&masks[MASK_WORDS * u + MASK_TIES + parity], bit);
    }
  }
  state[here] = next;
  if (m != NO_MIRROR) {
    state[m] = next | MIRROR_BIT;
  }
}
`;

export const colourResolveEntry = entry({
  name: 'colourResolve',
  index: 'k',
  bound: roundBound((word) => `atomicLoad(&table[${word}])`),
});

/**
 * A round's outcome: a pair keeps its pick unless a pair of the same pick this round (coloured by
 * it or not: states compare without their flags) at one of its moving particles beats it; a kept
 * colour goes into both moving particles' masks; a lost pick goes to the pending list of the next
 * round.
 */
export const colourResolveShader = () => wgsl`
${header()}
${colouringHeader}
${colourResolveBindings.wgsl}

${colourResolveEntry.wgsl}
${roundPair}
  let round = slot.x;
  let parity = round & 1u;
  let u = contacts[e].nbr;
  let wu = bodies[u].v.w;
  // The next round's ties start empty at both particles (a tie left from an earlier round costs a
  // look at the list, never a wrong outcome).
  atomicStore(&masks[MASK_WORDS * t + MASK_TIES + 1u - parity], 0u);
  if (wu > 0.0) {
    atomicStore(&masks[MASK_WORDS * u + MASK_TIES + 1u - parity], 0u);
  }
  let here = e - params.entryBase;
  let s = state[here];
  if ((s >> 8u) != round + 1u) {
    // No colour was free: the pair stays uncoloured (the overflow's).
    return;
  }
  let id = sortedId[t];
  let partner = contacts[e].id;
  let p = pairPriority(id, partner);
  let c = s & 0xffu;
  let bit = 1u << c;
  // A higher claim at a moving particle is a pair there of the same pick that beats this one; an
  // equal claim made twice (a tie) is settled by the particle's list, as is the partner's side of
  // a pair its list lacks (no claim there: lists cut short).
  let claim = claimOf(round, p);
  var kept = atomicLoad(&masks[MASK_WORDS * t + MASK_CLAIMS + c]) == claim;
  var repeatedThere = false;
  if (wu > 0.0) {
    if (m == NO_MIRROR) {
      repeatedThere = true;
    } else {
      kept = kept && atomicLoad(&masks[MASK_WORDS * u + MASK_CLAIMS + c]) == claim;
      repeatedThere = (atomicLoad(&masks[MASK_WORDS * u + MASK_TIES + parity]) & bit) != 0u;
    }
  }
  let repeatedHere = (atomicLoad(&masks[MASK_WORDS * t + MASK_TIES + parity]) & bit) != 0u;
  if (kept && repeatedHere) {
    ${listOf('t', 'my')}
    for (var f = myFirst; f < myLast && kept; f++) {
      if (f != e && (state[f - params.entryBase] & ~(MIRROR_BIT | COLOURED_BIT)) == s) {
        let other = contacts[f].id;
        kept = !beats(pairPriority(id, other), id, other, p, id, partner);
      }
    }
  }
  if (kept && repeatedThere) {
    ${listOf('u', 'its')}
    for (var g = itsFirst; g < itsLast && kept; g++) {
      if (g - params.entryBase != m && (state[g - params.entryBase] & ~(MIRROR_BIT | COLOURED_BIT)) == s) {
        let other = contacts[g].id;
        kept = !beats(pairPriority(partner, other), partner, other, p, id, partner);
      }
    }
  }
  if (kept) {
    state[here] = s | COLOURED_BIT;
    if (m != NO_MIRROR) {
      state[m] = s | COLOURED_BIT | MIRROR_BIT;
    }
    atomicOr(&masks[MASK_WORDS * t + MASK_COLOURS], bit);
    if (wu > 0.0) {
      atomicOr(&masks[MASK_WORDS * u + MASK_COLOURS], bit);
    }
  } else {
    // The next round takes this pair again.
    let next = (round + 1u) & 1u;
    let at = atomicAdd(&table[TABLE_PENDING + next], 1u);
    work[${pendingList('next')} + at] = w;
  }
}
`;
