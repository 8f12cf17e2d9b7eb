/**
 * WGSL shared by several shaders. Each export is a snippet that a shader module interpolates
 * (three-mesh-bvh style: a module lists what it uses by interpolating it).
 */
import { PairCounter } from '../src/layout.js';
import { readWrite } from '../src/gpu/kernel.js';

/**
 * A counted loop, `for (init; test; step) { body }`, written with its test at the bottom: a
 * guard, then `loop { body continuing { step; break if !test; } }`. The same iterations and the
 * same results as the `for`; `continue` and `break` in the body mean what they mean there.
 *
 * Why: on SwiftShader (CI's adapter) a loop is one machine loop over 4-lane groups that tests
 * whether any lane goes round again only at its back edge, and it runs every statement of the
 * body, both arms of each `if`, whichever lanes are active. A `for` tests at its top, so it pays a
 * whole pass of its body (an inner loop's first pass included) with every lane off, to find that
 * the test failed; with the test at the back edge that pass is gone. On a GPU it is the same
 * loop.
 */
export function forLoop(init: string, test: string, step: string, body: string): string {
  return /* wgsl */ `{
    ${init};
    if (${test}) {
      loop {
        ${body}
        continuing {
          ${step};
          break if !(${test});
        }
      }
    }
  }`;
}

/**
 * The loop over the grid's levels that hold spheres, from `from` (a level holding spheres, or
 * `grid.firstLevel`), binding `name`: empty levels are skipped by the plan's links
 * (GridParams.firstLevel, GridLevel.next), not visited and found empty; on SwiftShader a level
 * that a lane skips still costs its whole masked body.
 */
export function levelLoop(name: string, from: string, body: string): string {
  return forLoop(`var ${name} = ${from}`, `${name} < grid.levelCount`, `${name} = grid.levels[${name}].next`, body);
}

/**
 * The linear workgroup index of a dispatch folded to 2-D (src/gpu/dispatch.ts): workgroups past
 * 65535 continue in y. Every kernel guards its tail, since x·y may exceed the workgroups needed.
 */
export const flatWorkgroup = /* wgsl */ `
fn flatWorkgroup(wid: vec3u, nwg: vec3u) -> u32 {
  return wid.x + wid.y * nwg.x;
}
`;

/** Reaches below this are tested scaled by TINY_SCALE (tinyReach, below). */
export const TINY_REACH = 2 ** -40;
/** A power of two, so that scaling by it is exact. */
export const TINY_SCALE = 2 ** 64;
/**
 * Scaled, an offset is first clamped to ±TINY_CLAMP (2^-39: beyond any reach that is scaled, so
 * the answer stays): its square then stays finite (WGSL does not promise what an overflow gives).
 * Unscaled, ±TINY_UNCLAMPED clamps nothing (offsets are at most 2^61 on an axis).
 */
export const TINY_CLAMP = 2 ** -39;
export const TINY_UNCLAMPED = 2 ** 62;

/**
 * The narrow tests' guard against subnormals. WGSL lets a GPU flush f32 subnormals to zero, in
 * arithmetic and in comparisons (SwiftShader does), so:
 *
 * - `withinReach(d, reach)`, |d|² ≤ reach²: a component of d below 2^-63 squares to a subnormal,
 *   and a flush drops it. Against a reach of at least 2^-40 (squared 2^-80) what it drops is below
 *   2^-44 of the test's scale, far inside the contract's band; a smaller reach (down to the
 *   2^-60 that validation allows, and 0) is tested with d and the reach scaled by 2^64, exactly.
 * - `samePoint(a, b)`: two points coincide when their coordinates are equal numbers, compared by
 *   their bits (+0 and −0 equal): d = b − a of points 1e-45 apart flushes to 0.
 * - `pointInBox(p, lo, hi)`: lo ≤ p ≤ hi on every axis, compared by the floats' order taken as
 *   integers (a flush would put a point 1e-45 outside a face on it).
 *
 * Interpolated by spheresOverlap, boxMath (shaders/boxes.wgsl.ts) and castMath
 * (shaders/passes/casts.wgsl.ts), of which a shader module takes one.
 */
export const tinyGuards = /* wgsl */ `
const TINY_REACH: f32 = ${TINY_REACH.toExponential()};
const TINY_SCALE: f32 = ${TINY_SCALE.toExponential()};
const TINY_UNSCALE: f32 = ${(1 / TINY_SCALE).toExponential()};
const TINY_CLAMP: f32 = ${TINY_CLAMP.toExponential()};
const TINY_UNCLAMPED: f32 = ${TINY_UNCLAMPED.toExponential()};

fn withinReach(d: vec3f, reach: f32) -> bool {
  let tiny = reach < TINY_REACH;
  let k = select(1.0, TINY_SCALE, tiny);
  let limit = select(TINY_UNCLAMPED, TINY_CLAMP, tiny);
  let e = clamp(d, vec3f(-limit), vec3f(limit)) * k;
  let r = reach * k;
  return dot(e, e) <= r * r;
}

fn samePoint(a: vec3f, b: vec3f) -> bool {
  // Per axis: the same bits, or both ±0 (no bit but the sign set in either).
  let x = bitcast<vec3u>(a);
  let y = bitcast<vec3u>(b);
  return all(min(x ^ y, (x | y) << vec3u(1u)) == vec3u(0u));
}

// The float's order as an i32's: −0 as +0, negative values with their magnitude bits reversed.
fn orderedBits(v: vec3f) -> vec3i {
  let b = bitcast<vec3i>(v);
  let z = select(b, vec3i(0), (b & vec3i(0x7fffffff)) == vec3i(0));
  return select(z, z ^ vec3i(0x7fffffff), z < vec3i(0));
}

fn pointInBox(p: vec3f, lo: vec3f, hi: vec3f) -> bool {
  let k = orderedBits(p);
  return all(orderedBits(lo) <= k) && all(k <= orderedBits(hi));
}
`;

/**
 * sphere–sphere overlap (docs/CONTRACT.md): |cA − cB|² ≤ (rA + rB)², touching counts.
 * Symmetric bit for bit: swapping a and b negates d exactly and adds the radii in either order.
 * Two points (rA + rB = 0) touch only when they coincide (samePoint): the f32 square of a
 * distance below about 1e-19 underflows to 0, which would make points 1e-30 apart "touch".
 */
export const spheresOverlap = /* wgsl */ `
${tinyGuards}
fn spheresOverlap(a: vec4f, b: vec4f) -> bool {
  let s = a.w + b.w;
  return withinReach(b.xyz - a.xyz, s) && (s > 0.0 || samePoint(a.xyz, b.xyz));
}
`;

/**
 * The guarded append of a pair list. Every call counts, whether or not the pair fits: the host
 * reads the true count, and grows the list and runs again (or throws CapacityError) when it
 * exceeds the capacity, which is the bound buffer's length. The count is 64-bit (count, countHi)
 * so that even a wrap past 2^32 is reported, not mistaken for a small count. A kernel that
 * appends declares PAIR_OUTPUT's bindings (`pairs`, `pairCounter`) and interpolates this.
 */
export const pairAppend = /* wgsl */ `
${PairCounter.wgsl}
fn appendPair(i: u32, j: u32) {
  let slot = atomicAdd(&pairCounter.count, 1u);
  if (slot == 0xffffffffu) {
    atomicAdd(&pairCounter.countHi, 1u);
  }
  if (slot < arrayLength(&pairs)) {
    pairs[slot] = vec2u(i, j);
  }
}
`;

/** The bindings `pairAppend` writes (src/gpu/kernel.ts): the list and its PairCounter. */
export const PAIR_OUTPUT = {
  pairs: readWrite('array<vec2u>'),
  pairCounter: readWrite('PairCounter'),
} as const;
