/**
 * Exclusive prefix sum of u32, in place (src/passes/scan.ts drives it).
 *
 * Reduce-then-scan with no workgroup memory and no barriers: each thread owns a chunk of CHUNK
 * consecutive values. `scanReduce` sums every chunk into the level above; the level above is
 * scanned the same way, down to one chunk; `scanDownsweep` then rescans each chunk from its
 * offset and writes the exclusive sums back, and the thread holding the last value writes the
 * total after it (data[n]). Per value: two reads and one write, ~12 bytes, plus 1/CHUNK of that
 * for the levels above.
 *
 * Why barrier-free: on SwiftShader (our CI adapter) a workgroup barrier costs more than the
 * whole chunk of work — a shared-memory Hillis–Steele scan of 1M values took ~800 ms there,
 * this one ~12 ms. On a real GPU a thread's chunk (128 bytes) is one cache line, so the
 * strided first read brings in the lines the next CHUNK − 1 reads hit.
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { ScanParams } from '../src/layout.js';
import { flatWorkgroup } from './common.wgsl.js';
import { WORKGROUP_SIZE } from '../src/gpu/workgroups.js';

export const SCAN_WG = WORKGROUP_SIZE.scan;
export const SCAN_CHUNK = 32;

/** Bindings, in order: params, data (n + 1 values), chunk sums (the level above: its offsets). */
export const scanBindings = ['uniform', 'storage', 'storage'] as const;

export const scanShader = () => wgsl`
${ScanParams.wgsl}
@group(0) @binding(0) var<uniform> params: ScanParams;
@group(0) @binding(1) var<storage, read_write> data: array<u32>;
@group(0) @binding(2) var<storage, read_write> chunkSums: array<u32>;
${flatWorkgroup}

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
