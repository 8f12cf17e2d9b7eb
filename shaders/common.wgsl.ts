/**
 * WGSL shared by several shaders. Each export is a snippet that a shader module interpolates
 * (three-mesh-bvh style: a module lists what it uses by interpolating it).
 */
import { PairCounter } from '../src/layout.js';

/**
 * A counted loop, `for (init; test; step) { body }`, written with its test at the bottom: a
 * guard, then `loop { body continuing { step; break if !test; } }`. The same iterations and the
 * same results as the `for`; `continue` and `break` in the body mean what they mean there.
 *
 * Why: on SwiftShader (CI's adapter) a loop is one machine loop over 4-lane groups that tests
 * whether any lane goes round again only at its back edge, and it runs every statement of the
 * body, both arms of each `if`, whichever lanes are active. A `for` tests at its top, so it pays a
 * whole pass of its body (an inner loop's first pass included) with every lane off, to find that
 * the test failed; with the test at the back edge that pass is gone. Measured there: the grid's
 * pair kernel at 100k uniform spheres 30 → 21 ms from its level loop alone. On a GPU it is the
 * same loop.
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

/**
 * sphere–sphere overlap (docs/CONTRACT.md): |cA − cB|² ≤ (rA + rB)², touching counts.
 * Symmetric bit for bit: swapping a and b negates d exactly and adds the radii in either order.
 * Two points (rA + rB = 0) touch only when they coincide: the f32 square of a distance below
 * about 1e-19 underflows to 0, which would make points 1e-30 apart "touch". (A nonzero radius is
 * at least 2^-60, whose square is a normal f32, so only points need the exact test.)
 */
export const spheresOverlap = /* wgsl */ `
fn spheresOverlap(a: vec4f, b: vec4f) -> bool {
  let d = b.xyz - a.xyz;
  let s = a.w + b.w;
  return dot(d, d) <= s * s && (s > 0.0 || all(d == vec3f(0.0)));
}
`;

/**
 * The guarded append of a pair list. Every call counts, whether or not the pair fits: the host
 * reads the true count, and grows the list and runs again (or throws CapacityError) when it
 * exceeds the capacity, which is the bound buffer's length. The count is 64-bit (count, countHi)
 * so that even a wrap past 2^32 is reported, not mistaken for a small count.
 */
export const pairAppend = (group: number, pairsBinding: number, counterBinding: number): string => /* wgsl */ `
${PairCounter.wgsl}
@group(${group}) @binding(${pairsBinding}) var<storage, read_write> pairs: array<vec2u>;
@group(${group}) @binding(${counterBinding}) var<storage, read_write> pairCounter: PairCounter;

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
