/**
 * Exclusive prefix sum of u32, in place (src/passes/scan.ts drives it). Two variants of one
 * reduce-then-scan, with the same bindings and parameters; they differ in how a unit of
 * consecutive values (a "chunk") is read:
 *
 * - **'serial'**: a chunk is SCAN_CHUNK (32) values of one thread, read and written in order,
 *   with no workgroup memory and no barrier. On SwiftShader, where a workgroup barrier costs
 *   more than a whole chunk of work, this is the fast one (a shared-memory Hillis–Steele scan
 *   of 1M values took ~800 ms there, this ~12 ms). On a GPU it reads badly: at each step the
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
import { ScanParams } from '../src/layout.js';
import { flatWorkgroup } from './common.wgsl.js';
import { WORKGROUP_SIZE } from '../src/gpu/workgroups.js';

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

/** Bindings, in order: params, data (n + 1 values), chunk sums (the level above: its offsets). */
export const scanBindings = ['uniform', 'storage', 'storage'] as const;

const header = () => wgsl`
${ScanParams.wgsl}
@group(0) @binding(0) var<uniform> params: ScanParams;
@group(0) @binding(1) var<storage, read_write> data: array<u32>;
@group(0) @binding(2) var<storage, read_write> chunkSums: array<u32>;
${flatWorkgroup}
`;

export const scanShader = (options: { variant?: ScanVariant } = {}) => (options.variant === 'tiled' ? tiledShader() : serialShader());

const serialShader = () => wgsl`
${header()}
const WG: u32 = ${SCAN_WG}u;
const CHUNK: u32 = ${SCAN_CHUNK}u;

@compute @workgroup_size(WG)
fn scanReduce(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
              @builtin(local_invocation_index) lid: u32) {
  let chunk = flatWorkgroup(wid, nwg) * WG + lid;
  let base = chunk * CHUNK;
  if (params.skip != 0u || base >= params.count) {
    return;
  }
  let end = min(base + CHUNK, params.count);
  var sum = 0u;
  for (var i = base; i < end; i++) {
    sum += data[i];
  }
  chunkSums[chunk] = sum;
}

@compute @workgroup_size(WG)
fn scanDownsweep(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
                 @builtin(local_invocation_index) lid: u32) {
  let chunk = flatWorkgroup(wid, nwg) * WG + lid;
  let base = chunk * CHUNK;
  let n = params.count;
  if (params.skip != 0u || base >= n) {
    return;
  }
  var running = 0u;
  if (params.useOffsets != 0u) {
    running = chunkSums[chunk];
  }
  let end = min(base + CHUNK, n);
  for (var i = base; i < end; i++) {
    let v = data[i];
    data[i] = running;
    running += v;
  }
  if (end == n) {
    data[n] = running;
  }
}
`;

// The tile in workgroup memory is padded by a word every 32, so that threads reading their
// SCAN_TILE_VALUES consecutive words (a stride of 8 between neighbours) spread over the banks.
const tiledShader = () => wgsl`
${header()}
const WG: u32 = ${SCAN_TILE_WG}u;
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
@compute @workgroup_size(WG)
fn scanReduce(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
              @builtin(local_invocation_index) lid: u32) {
  let chunk = flatWorkgroup(wid, nwg);
  let base = chunk * TILE;
  let n = params.count;
  if (params.skip != 0u || base >= n) {
    return;
  }
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

@compute @workgroup_size(WG)
fn scanDownsweep(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
                 @builtin(local_invocation_index) lid: u32) {
  let chunk = flatWorkgroup(wid, nwg);
  let base = chunk * TILE;
  let n = params.count;
  if (params.skip != 0u || base >= n) {
    return;
  }
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
