/**
 * Exclusive prefix sum of u32, in place (src/passes/scan.ts drives it). Two variants of one
 * reduce-then-scan, with the same bindings and parameters; they differ in how a unit of
 * consecutive values (a "chunk") is read:
 *
 * - **'serial'**: a chunk is SCAN_CHUNK (32) values of one thread, read and written in order,
 *   four at a time (`array<vec4u>`), with no workgroup memory and no barrier. On SwiftShader,
 *   where a workgroup barrier costs more than a whole chunk of work, this is the fast one, many
 *   times a shared-memory Hillis–Steele scan's speed; there each lane's load is a load of its
 *   own, so four values a load take fewer loads (measured: docs/PERFORMANCE.md, "What the design
 *   rests on"). On a GPU it reads badly: at each step the
 *   threads of a SIMD group touch 32 different 128-byte lines, one word of each, and the lines
 *   must stay cached for the next 31 steps; with thousands of threads resident they do not.
 * - **'tiled'**: a chunk is a tile of SCAN_TILE (2,048) values of one workgroup. Its threads
 *   read the tile coalesced (thread t takes words t, t + WG, t + 2·WG, ...) into workgroup
 *   memory, scan their own SCAN_TILE_VALUES consecutive words there, scan the threads' sums
 *   (two levels of 16), and write the tile back coalesced: four barriers a tile. Every global
 *   access is one full line per SIMD group, and a level holds 64× fewer chunks than 'serial's
 *   (1M values: two levels instead of four).
 *
 * Both: `scanReduce` sums every chunk into the level above; the level above is scanned the
 * same way, down to one chunk; `scanDownsweep` rescans each chunk from its offset (the level
 * above, when `useOffsets`) and writes the exclusive sums back, and the chunk holding the last
 * value writes the total after it (data[n]). Per value: two reads and one write, ~12 bytes,
 * plus 1/chunk of that for the levels above. Sums wrap like u32 arithmetic.
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { ScanParams } from './layout.js';
import { flatWorkgroup } from '../common.wgsl.js';
import { bindings, uniform, readWrite, entry, constSize } from '../../src/gpu/kernel.js';
import { WORKGROUP_SIZE } from '../../src/gpu/workgroups.js';

export type ScanVariant = 'serial' | 'tiled';

/** 'serial': threads a workgroup, each scanning SCAN_CHUNK values. */
export const SCAN_WG = WORKGROUP_SIZE.scan;
export const SCAN_CHUNK = 32;
/** 'tiled': threads a workgroup, each scanning SCAN_TILE_VALUES values of the workgroup's tile. */
export const SCAN_TILE_WG = WORKGROUP_SIZE.scanTile;
export const SCAN_TILE_VALUES = 8;
export const SCAN_TILE = SCAN_TILE_WG * SCAN_TILE_VALUES;

/** Values a chunk holds (the unit the levels above sum), and chunks a workgroup takes. */
export const SCAN_UNITS: Readonly<Record<ScanVariant, { chunk: number; chunksPerWorkgroup: number }>> = {
  serial: { chunk: SCAN_CHUNK, chunksPerWorkgroup: SCAN_WG },
  tiled: { chunk: SCAN_TILE, chunksPerWorkgroup: 1 },
};

/**
 * The bindings of each variant: params, data (n + 1 values, the binding at least
 * SCAN_ALIGN-aligned bytes past them: src/passes/scan.ts, scanBufferBytes; 'serial' reads them
 * as vec4u), chunk sums (the level above: its offsets). One layout for both.
 */
const scanDeclaration = (data: string) =>
  bindings({
    params: uniform('ScanParams'),
    data: readWrite(data),
    chunkSums: readWrite('array<u32>'),
  });
export const scanBindings = { serial: scanDeclaration('array<vec4u>'), tiled: scanDeclaration('array<u32>') } as const;

/** A scanned binding holds whole groups of this many bytes ('serial' reads four values at once). */
export const SCAN_ALIGN = 16;

const header = (variant: ScanVariant) => wgsl`
${ScanParams.wgsl}
${scanBindings[variant].wgsl}
${flatWorkgroup}
`;

export const scanShader = (options: { variant?: ScanVariant } = {}) =>
  options.variant === 'tiled' ? tiledShader() : serialShader();

const SERIAL_SIZE = constSize('WG', SCAN_WG);
/** 'serial': one chunk of QUADS vec4s a thread; a chunk past the values (or a skipped pass) returns. */
const serialExit = 'params.skip != 0u || chunk * QUADS * 4u >= params.count';
export const scanSerialEntries = {
  reduce: entry({ name: 'scanReduce', size: SERIAL_SIZE, index: 'chunk', exit: serialExit }),
  downsweep: entry({ name: 'scanDownsweep', size: SERIAL_SIZE, index: 'chunk', exit: serialExit }),
} as const;

// Values in vec4s: value i is lane i % 4 of data[i / 4]. A chunk is QUADS vec4s; lanes at or
// past n are left as they are (the buffer may hold other data after the total), but for the
// total itself, written at n.
const serialShader = () => wgsl`
${header('serial')}
${SERIAL_SIZE.wgsl}
const QUADS: u32 = ${SCAN_CHUNK / 4}u;
const LANES: vec4u = vec4u(0u, 1u, 2u, 3u);

${scanSerialEntries.reduce.wgsl}
  let n = params.count;
  let first = chunk * QUADS;
  let end = min(first + QUADS, (n + 3u) / 4u);
  var sum = vec4u(0u);
  for (var j = first; j < end; j++) {
    sum += select(vec4u(0u), data[j], vec4u(4u * j) + LANES < vec4u(n));
  }
  chunkSums[chunk] = sum.x + sum.y + sum.z + sum.w;
}

${scanSerialEntries.downsweep.wgsl}
  let n = params.count;
  let first = chunk * QUADS;
  var running = 0u;
  if (params.useOffsets != 0u) {
    running = chunkSums[chunk];
  }
  let end = min(first + QUADS, (n + 3u) / 4u);
  for (var j = first; j < end; j++) {
    let index = vec4u(4u * j) + LANES;
    let v = data[j];
    let live = index < vec4u(n);
    let x = select(vec4u(0u), v, live);
    let sums = vec4u(running, running + x.x, running + x.x + x.y, running + x.x + x.y + x.z);
    running = sums.w + x.w;
    data[j] = select(select(v, vec4u(running), index == vec4u(n)), sums, live);
  }
  // The total at n: written above when n is not a multiple of 4 (in the last vec4 of values);
  // else it opens a vec4 of its own, and end · 4 == n only in the chunk holding the last value.
  if (end * 4u == n) {
    var last = data[end];
    last.x = running;
    data[end] = last;
  }
}
`;

const TILED_SIZE = constSize('WG', SCAN_TILE_WG);
/**
 * 'tiled': one tile a workgroup; a whole workgroup past the values (or a skipped pass) returns,
 * before the barriers its threads meet at.
 */
const tiledExit = 'params.skip != 0u || chunk * TILE >= params.count';
export const scanTiledEntries = {
  reduce: entry({ name: 'scanReduce', size: TILED_SIZE, index: 'chunk', per: 'workgroup', exit: tiledExit }),
  downsweep: entry({ name: 'scanDownsweep', size: TILED_SIZE, index: 'chunk', per: 'workgroup', exit: tiledExit }),
} as const;

// The tile in workgroup memory is padded by a word every 32, so that threads reading their
// SCAN_TILE_VALUES consecutive words (a stride of 8 between neighbours) spread over the banks.
const tiledShader = () => wgsl`
${header('tiled')}
${TILED_SIZE.wgsl}
const VALUES: u32 = ${SCAN_TILE_VALUES}u;
const TILE: u32 = WG * VALUES;
const GROUP: u32 = 16u; // the threads' sums are scanned in groups of 16, then the 16 group totals

var<workgroup> tile: array<u32, ${SCAN_TILE + SCAN_TILE / 32}>;
var<workgroup> threadSums: array<u32, WG>;
var<workgroup> groupSums: array<u32, ${SCAN_TILE_WG / 16}>;

fn padded(i: u32) -> u32 {
  return i + (i >> 5u);
}

/**
 * The exclusive prefix of this thread's sum among the workgroup's, and the workgroup's total:
 * the sums scanned in groups of 16 in place, then the 16 group totals. Two barriers; every
 * thread of the workgroup must call it.
 */
fn scanThreadSums(lid: u32, sum: u32) -> vec2u {
  threadSums[lid] = sum;
  workgroupBarrier();
  if (lid < WG / GROUP) {
    var group = 0u;
    for (var k = 0u; k < GROUP; k++) {
      let v = threadSums[lid * GROUP + k];
      threadSums[lid * GROUP + k] = group;
      group += v;
    }
    groupSums[lid] = group;
  }
  workgroupBarrier();
  var prefix = threadSums[lid];
  var total = 0u;
  for (var k = 0u; k < WG / GROUP; k++) {
    if (k < lid / GROUP) {
      prefix += groupSums[k];
    }
    total += groupSums[k];
  }
  return vec2u(prefix, total);
}

/** The tile's sum: each thread adds its coalesced values, then the threads' sums are added. */
${scanTiledEntries.reduce.wgsl}
  let base = chunk * TILE;
  let n = params.count;
  var sum = 0u;
  for (var k = 0u; k < VALUES; k++) {
    let i = base + k * WG + lid;
    if (i < n) {
      sum += data[i];
    }
  }
  let scanned = scanThreadSums(lid, sum);
  if (lid == 0u) {
    chunkSums[chunk] = scanned.y;
  }
}

${scanTiledEntries.downsweep.wgsl}
  let base = chunk * TILE;
  let n = params.count;
  // Coalesced in: word k·WG + lid of the tile (zeros past n).
  for (var k = 0u; k < VALUES; k++) {
    let i = k * WG + lid;
    var v = 0u;
    if (base + i < n) {
      v = data[base + i];
    }
    tile[padded(i)] = v;
  }
  workgroupBarrier();
  // Each thread scans its own VALUES consecutive words, in place.
  let first = lid * VALUES;
  var running = 0u;
  for (var k = 0u; k < VALUES; k++) {
    let at = padded(first + k);
    let v = tile[at];
    tile[at] = running;
    running += v;
  }
  // This thread's offset: the tile's, then the threads' before it.
  var offset = scanThreadSums(lid, running).x;
  if (params.useOffsets != 0u) {
    offset += chunkSums[chunk];
  }
  for (var k = 0u; k < VALUES; k++) {
    tile[padded(first + k)] += offset;
  }
  if (lid == WG - 1u && base + TILE >= n) {
    data[n] = offset + running; // the total: the tile's words past n are zeros
  }
  workgroupBarrier();
  // Coalesced out.
  for (var k = 0u; k < VALUES; k++) {
    let i = k * WG + lid;
    if (base + i < n) {
      data[base + i] = tile[padded(i)];
    }
  }
}
`;
