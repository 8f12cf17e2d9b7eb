/**
 * One digit pass of an LSD radix sort of u32 keys (optionally with u32 values), stable
 * (src/passes/radixSort.ts drives it: count, the scan pass over the counts, scatter).
 *
 * The keys are cut into units of consecutive keys. Counting writes every unit's digit counts
 * digit-major, hist[d · units + unit], so that one exclusive scan of the whole array gives
 * every (digit, unit) its first output slot: all smaller digits, then this digit in the units
 * before. Scattering walks each unit again in input order, so equal digits keep their order.
 * Two strategies here, same layout (a third, 'subgroup', is `radixSortSubgroupShader` below):
 *
 * - 'thread' (`radixCountThread`, `radixScatterThread`): a unit is CHUNK keys owned by one
 *   thread, which counts them in private memory and writes them into its own column of hist,
 *   and after the scan walks
 *   them in order, taking slot = hist[d · units + unit]++ for each. No workgroup memory, no
 *   barrier, no atomic: the scan pass's recipe. On SwiftShader (CI's adapter) workgroup memory
 *   and barriers cost far more than storage accesses, and this runs many times faster than
 *   'workgroup' (measured: docs/PERFORMANCE.md, "Radix sort and scan").
 *   On a GPU a thread streams its chunk through the cache, like the scan's chunks.
 * - 'workgroup' (`radixCountTile`, `radixScatterTile`): a unit is a tile of ROUNDS · WG keys,
 *   one workgroup a tile. Counting uses workgroup atomics. Scattering walks the tile in ROUNDS
 *   rounds of WG keys (thread t takes key r · WG + t) and ranks each key among the round's keys
 *   of the same digit before it: every thread sets its bit in its digit's WG-bit mask
 *   (workgroup memory), and after a barrier counts the set bits below its own. The slot is the
 *   digit's running offset plus that rank; the round's last key of each digit advances the
 *   offset. Two mask sets alternate between rounds, so a round costs two barriers. The usual
 *   GPU shape: coalesced loads, 128 threads per 2,048 keys.
 *
 * Bits of a key above `shift + bits` of the last pass are ignored: the digit is
 * (key >> shift) & mask.
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { flatWorkgroup } from '../common.wgsl.js';
import { bindings, uniform, readOnly, readWrite, entry, constSize } from '../../src/gpu/kernel.js';
import { WORKGROUP_SIZE } from '../../src/gpu/workgroups.js';

/** 'workgroup' strategy: threads per workgroup, also the keys of one round. A multiple of 32. */
export const RADIX_WG = WORKGROUP_SIZE.radix;
/** Rounds per tile. */
export const RADIX_ROUNDS = 16;
/** 'workgroup' strategy: keys per tile (and per workgroup). */
export const RADIX_TILE = RADIX_WG * RADIX_ROUNDS;
/** 'thread' strategy: keys per thread, and threads per workgroup. */
export const RADIX_CHUNK = 1024;
export const RADIX_THREAD_WG = WORKGROUP_SIZE.radixThread;
/** Digit bits per pass at most, and the bins of a full pass. */
export const RADIX_BITS = 8;
export const RADIX_BINS = 1 << RADIX_BITS;
/** Workgroup memory of the scatter kernel, in bytes: offsets + two sets of masks. */
export const RADIX_WORKGROUP_BYTES = 4 * (RADIX_BINS + 2 * RADIX_BINS * (RADIX_WG / 32));

export interface RadixSortShaderOptions {
  /** Sort u32 values along with the keys. */
  values: boolean;
}

/**
 * Bindings: params (x = key count, y = units (the stride of a digit's row of counts), z =
 * shift, w = mask), keys in, the same keys as vec4u (the 'thread' count loads 4 at a time: its
 * first 4 · floor(count / 4) keys at least), keys out, histograms (bins · tiles + 1 values), then
 * with values: values in, values out.
 */
const RADIX_KEYS = {
  params: uniform('vec4u'),
  keysIn: readOnly('array<u32>'),
  keysIn4: readOnly('array<vec4u>'),
  keysOut: readWrite('array<u32>'),
} as const;
const RADIX_VALUES = { valuesIn: readOnly('array<u32>'), valuesOut: readWrite('array<u32>') } as const;
export const radixKeysBindings = bindings({ ...RADIX_KEYS, hist: readWrite('array<u32>') });
export const radixPairsBindings = bindings({ ...RADIX_KEYS, hist: readWrite('array<u32>'), ...RADIX_VALUES });
export const radixSortBindings = (values: boolean) => (values ? radixPairsBindings : radixKeysBindings);

const TILE_SIZE = constSize('WG', RADIX_WG);
const THREAD_SIZE = constSize('THREAD_WG', RADIX_THREAD_WG);
/**
 * The entries of `radixSortShader`. 'workgroup': one tile a workgroup (a whole workgroup past the
 * tiles returns, before the barriers its threads meet at); counting runs over every tile of the
 * pass's capacity (zeros past the keys), scattering over the tiles that hold keys. 'thread': one
 * unit a thread, likewise.
 */
export const radixEntries = {
  countTile: entry({ name: 'radixCountTile', size: TILE_SIZE, index: 'tile', per: 'workgroup', bound: 'params.y' }),
  scatterTile: entry({
    name: 'radixScatterTile',
    size: TILE_SIZE,
    index: 'tile',
    per: 'workgroup',
    exit: 'tile * TILE >= params.x',
  }),
  countThread: entry({ name: 'radixCountThread', size: THREAD_SIZE, index: 'unit', bound: 'params.y' }),
  scatterThread: entry({
    name: 'radixScatterThread',
    size: THREAD_SIZE,
    index: 'unit',
    exit: 'unit * CHUNK >= params.x',
    bound: 'params.y',
  }),
} as const;

export const radixSortShader = ({ values }: RadixSortShaderOptions) => wgsl`
// params: x = key count, y = units (the stride of a digit's row of counts), z = shift, w = mask.
${radixSortBindings(values).wgsl}
${flatWorkgroup}

${TILE_SIZE.wgsl}
const ROUNDS: u32 = ${RADIX_ROUNDS}u;
const TILE: u32 = ${RADIX_TILE}u;
const BINS: u32 = ${RADIX_BINS}u;
const WORDS: u32 = ${RADIX_WG / 32}u; // mask words per digit
const CHUNK: u32 = ${RADIX_CHUNK}u;
${THREAD_SIZE.wgsl}
const MASKS: u32 = ${RADIX_BINS * (RADIX_WG / 32)}u; // words in one mask set

var<workgroup> counts: array<atomic<u32>, BINS>;
var<workgroup> offsets: array<u32, BINS>;
var<workgroup> masks: array<atomic<u32>, ${2 * RADIX_BINS * (RADIX_WG / 32)}>;

fn digitOf(key: u32) -> u32 {
  return (key >> params.z) & params.w;
}

${radixEntries.countTile.wgsl}
  let tiles = params.y;
  for (var d = lid; d < BINS; d += WG) {
    atomicStore(&counts[d], 0u);
  }
  workgroupBarrier();
  let n = params.x;
  let base = tile * TILE;
  // Tiles past the keys (the histograms are sized for the pass's capacity) write zeros.
  if (base < n) {
    let end = min(base + TILE, n);
    for (var i = base + lid; i < end; i += WG) {
      atomicAdd(&counts[digitOf(keysIn[i])], 1u);
    }
  }
  workgroupBarrier();
  let bins = params.w + 1u;
  for (var d = lid; d < bins; d += WG) {
    hist[d * tiles + tile] = atomicLoad(&counts[d]);
  }
}

${radixEntries.scatterTile.wgsl}
  let n = params.x;
  let base = tile * TILE;
  let tiles = params.y;
  let bins = params.w + 1u;
  for (var d = lid; d < BINS; d += WG) {
    if (d < bins) {
      offsets[d] = hist[d * tiles + tile];
    }
    for (var w = 0u; w < WORDS; w++) {
      atomicStore(&masks[d * WORDS + w], 0u);
      atomicStore(&masks[MASKS + d * WORDS + w], 0u);
    }
  }
  workgroupBarrier();
  let word = lid / 32u;
  let bit = 1u << (lid & 31u);
  for (var r = 0u; r < ROUNDS; r++) {
    let start = base + r * WG;
    if (start >= n) {
      break;
    }
    let maskSet = (r & 1u) * MASKS;
    let i = start + lid;
    let valid = i < n;
    var key = 0u;
    var row = 0u;
    var digit = 0u;
    if (valid) {
      key = keysIn[i];
      digit = digitOf(key);
      row = maskSet + digit * WORDS;
      atomicOr(&masks[row + word], bit);
    }
    workgroupBarrier();
    var last = false;
    var total = 0u;
    if (valid) {
      var below = 0u;
      for (var w = 0u; w < WORDS; w++) {
        let m = atomicLoad(&masks[row + w]);
        let c = countOneBits(m);
        total += c;
        if (w < word) {
          below += c;
        } else if (w == word) {
          below += countOneBits(m & (bit - 1u));
        }
      }
      let slot = offsets[digit] + below;
      last = below + 1u == total;
      keysOut[slot] = key;
#if ${values}
      valuesOut[slot] = valuesIn[i];
#endif
    }
    // Every read of this round's offsets and masks is done.
    workgroupBarrier();
    if (last) {
      // The round's last key of its digit advances the digit and clears its masks, which the
      // round after next sets again (the next round uses the other set).
      offsets[digit] += total;
      for (var w = 0u; w < WORDS; w++) {
        atomicStore(&masks[row + w], 0u);
      }
    }
  }
}

${radixEntries.countThread.wgsl}
  let units = params.y;
  let bins = params.w + 1u;
  // The unit's counts in private memory, then its column of hist (zeros for a unit past the
  // keys: the counts are sized for the pass's capacity): on SwiftShader a private array's
  // access costs less than a storage one's, which is bounds-checked, and a vec4u load takes 4
  // keys (40 -> 30 ms for a 4-pass sort of 1M keys, docs/PERFORMANCE.md).
  var local: array<u32, BINS>;
  let n = params.x;
  let base = unit * CHUNK;
  if (base < n) {
    let end = min(base + CHUNK, n);
    let end4 = base + ((end - base) & ~3u);
    for (var i = base; i < end4; i += 4u) {
      let k = keysIn4[i >> 2u];
      local[digitOf(k.x)] += 1u;
      local[digitOf(k.y)] += 1u;
      local[digitOf(k.z)] += 1u;
      local[digitOf(k.w)] += 1u;
    }
    for (var i = end4; i < end; i++) {
      local[digitOf(keysIn[i])] += 1u;
    }
  }
  for (var d = 0u; d < bins; d++) {
    hist[d * units + unit] = local[d];
  }
}

${radixEntries.scatterThread.wgsl}
  let n = params.x;
  let base = unit * CHUNK;
  let units = params.y;
  let end = min(base + CHUNK, n);
  for (var i = base; i < end; i++) {
    let key = keysIn[i];
    let h = digitOf(key) * units + unit;
    let slot = hist[h];
    hist[h] = slot + 1u;
    keysOut[slot] = key;
#if ${values}
    valuesOut[slot] = valuesIn[i];
#endif
  }
}
`;

/** 'subgroup' strategy: threads per workgroup (any number of subgroups of any size). */
export const RADIX_SUBGROUP_WG = WORKGROUP_SIZE.radixSubgroup;

/**
 * Bindings of the 'subgroup' kernels: params, keys in (and their vec4u view, unused here), keys out, counts (atomic), unit counters
 * (two per pass: count, scatter), then with values: values in, values out.
 */
const SUBGROUP_COUNTS = {
  hist: readWrite('array<atomic<u32>>'),
  unitCounters: readWrite('array<atomic<u32>>'),
} as const;
export const radixSubgroupKeysBindings = bindings({ ...RADIX_KEYS, ...SUBGROUP_COUNTS });
export const radixSubgroupPairsBindings = bindings({ ...RADIX_KEYS, ...SUBGROUP_COUNTS, ...RADIX_VALUES });
export const radixSortSubgroupBindings = (values: boolean) =>
  values ? radixSubgroupPairsBindings : radixSubgroupKeysBindings;

/**
 * The 'subgroup' strategy (only where the device has `subgroups`): the units, layout and scan of
 * 'thread', but a unit of CHUNK keys is walked by a whole subgroup, S keys a round (S the
 * subgroup size, any power of two up to 128: 4 on SwiftShader, 32 or 64 on GPUs), lanes on
 * consecutive keys. A round matches equal digits across the lanes with one ballot per digit bit;
 * a key's rank is the number of its peers on lower lanes, and the highest peer (the leader)
 * adds the peers' count to the unit's count of that digit with one atomicAdd: in
 * `radixCountSubgroup` on counts cleared before, in `radixScatterSubgroup` on the scanned
 * counts, where the value it returns (shuffled from the leader) plus the rank is each key's
 * slot. Rounds follow the keys' order and each round's atomics return before the next round
 * starts, so equal digits keep their order. Subgroups take units from an atomic counter until
 * none is left, so the dispatch need not know S. No workgroup memory, no barrier.
 */
const SUBGROUP_SIZE = constSize('SUBGROUP_WG', RADIX_SUBGROUP_WG);
const SUBGROUP_BUILTINS = { lane: 'subgroup_invocation_id', size: 'subgroup_size' } as const;
/** The entries of `radixSortSubgroupShader`: no index and no bounds check (subgroups take units from a counter). */
export const radixSubgroupEntries = {
  count: entry({ name: 'radixCountSubgroup', size: SUBGROUP_SIZE, builtins: SUBGROUP_BUILTINS }),
  scatter: entry({ name: 'radixScatterSubgroup', size: SUBGROUP_SIZE, builtins: SUBGROUP_BUILTINS }),
} as const;

export const radixSortSubgroupShader = ({ values }: RadixSortShaderOptions) => wgsl`
enable subgroups;
// Control flow here is uniform across each subgroup (loops over rounds of a unit taken by the
// subgroup), which WGSL's analysis cannot see: it only knows workgroup uniformity.
diagnostic(off, subgroup_uniformity);

// params: x = key count, y = units (the stride of a digit's row of counts), z = shift, w = mask.
${radixSortSubgroupBindings(values).wgsl}

const CHUNK: u32 = ${RADIX_CHUNK}u;
${SUBGROUP_SIZE.wgsl}

fn digitOf(key: u32) -> u32 {
  return (key >> params.z) & params.w;
}

/** The subgroup's next unit (one atomicAdd by one lane, given to all). */
fn takeUnit(counter: u32) -> u32 {
  var unit = 0u;
  if (subgroupElect()) {
    unit = atomicAdd(&unitCounters[counter], 1u);
  }
  return subgroupBroadcastFirst(unit);
}

/**
 * Among the valid lanes with this lane's digit (its peers): x = how many are on lower lanes
 * (the rank), y = how many there are, z = the highest of them (the leader). Called by every
 * lane of the subgroup.
 */
fn matchDigit(digit: u32, valid: bool, lane: u32) -> vec3u {
  var peers = subgroupBallot(valid);
  for (var b = 0u; (params.w >> b) != 0u; b++) {
    let on = ((digit >> b) & 1u) != 0u;
    let vote = subgroupBallot(on);
    peers &= select(~vote, vote, on);
  }
  let word = lane / 32u;
  let lower = (1u << (lane & 31u)) - 1u;
  var rank = 0u;
  var count = 0u;
  var leader = 0u;
  for (var w = 0u; w < 4u; w++) {
    let p = peers[w];
    count += countOneBits(p);
    if (w < word) {
      rank += countOneBits(p);
    } else if (w == word) {
      rank += countOneBits(p & lower);
    }
    if (p != 0u) {
      leader = 32u * w + firstLeadingBit(p);
    }
  }
  return vec3u(rank, count, leader);
}

${radixSubgroupEntries.count.wgsl}
  let n = params.x;
  let units = params.y;
  let used = (n + CHUNK - 1u) / CHUNK;
  let counter = 2u * (params.z / 8u);
  loop {
    let unit = takeUnit(counter);
    if (unit >= used) {
      break;
    }
    let end = min(unit * CHUNK + CHUNK, n);
    for (var start = unit * CHUNK; start < end; start += size) {
      let i = start + lane;
      let valid = i < end;
      var digit = 0u;
      if (valid) {
        digit = digitOf(keysIn[i]);
      }
      let m = matchDigit(digit, valid, lane);
      if (valid && lane == m.z) {
        atomicAdd(&hist[digit * units + unit], m.y);
      }
    }
  }
}

${radixSubgroupEntries.scatter.wgsl}
  let n = params.x;
  let units = params.y;
  let used = (n + CHUNK - 1u) / CHUNK;
  let counter = 2u * (params.z / 8u) + 1u;
  loop {
    let unit = takeUnit(counter);
    if (unit >= used) {
      break;
    }
    let end = min(unit * CHUNK + CHUNK, n);
    for (var start = unit * CHUNK; start < end; start += size) {
      let i = start + lane;
      let valid = i < end;
      var key = 0u;
      var digit = 0u;
      if (valid) {
        key = keysIn[i];
        digit = digitOf(key);
      }
      let m = matchDigit(digit, valid, lane);
      var first = 0u;
      if (valid && lane == m.z) {
        first = atomicAdd(&hist[digit * units + unit], m.y);
      }
      first = subgroupShuffle(first, m.z);
      if (valid) {
        let slot = first + m.x;
        keysOut[slot] = key;
#if ${values}
        valuesOut[slot] = valuesIn[i];
#endif
      }
    }
  }
}
`;
