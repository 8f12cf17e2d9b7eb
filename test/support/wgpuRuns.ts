/**
 * What `npm test` runs on wgpu, the second WebGPU engine (Firefox through vitest.config.ts, Deno
 * through scripts/deno-tests.ts), and what it leaves out and why. Imported by both; no imports
 * of its own, so that Deno and the Vitest config read it alike. docs/TESTING.md explains.
 */

/** Long behaviour tests of the particle world (hundreds of awaited steps): Dawn runs them; on wgpu they would add minutes to CI. */
export const SLOW_ON_WGPU = [
  'kinetic energy does not rise',
  '2,000 substeps of a dense box',
  '2,000 particles dropped into a 10 × 40 × 10 box',
  // dawn.node's resident memory over 1,000 cycles (the browsers skip it: no process.memoryUsage).
  '1,000 collider and world create/query/destroy cycles',
];

/**
 * Long tests that run once per engine: on Dawn in dawn.node, on wgpu in Deno. The browsers run the
 * same engines again (Chromium: Dawn, Firefox: wgpu) and skip them, with SLOW_ON_WGPU (which
 * Chromium ran until 2026-11-26): the tests that compare a few steps of the GPU with the CPU twin,
 * which check each engine's compiled shaders, still run there; the sleep schedule's long run
 * against the twin does not. About 90 s of Chromium's run and 65 s of Firefox's.
 */
export const ONCE_PER_ENGINE = [
  'direct and indirect dispatch give bitwise-identical states',
  'the same start gives bitwise-identical states after 100 steps',
  'resting particles fall asleep, and wake, on the same steps as the CPU twin',
  'a pile falls asleep and stays still to the bit',
];

/**
 * Where Deno's WebGPU differs from the WebGPU specification in a way a test sees (verified with
 * Deno 2.9.6):
 * - `device.destroy()` lets a map already requested resolve instead of rejecting it, so a
 *   `world.read()` in flight answers (with the state it was reading) rather than rejecting with
 *   DeviceLostError. Firefox, Chromium and dawn.node reject it.
 * - `queue.writeBuffer` with zero bytes of data panics the whole process (`Option::unwrap()` on
 *   `None` in ext/webgpu/queue.rs). The library never writes zero bytes; the radix sort test's
 *   0-key case uploads its (empty) keys that way.
 */
export const DENO_DIFFERS = [
  'a device destroyed mid-call: pending and later calls reject with DeviceLostError',
  '0 random keys (seed 11)',
];

/** The test files Firefox runs (each file opens Firefox's page once; Deno runs the whole portable list). */
export const FIREFOX_FILES = [
  'engine',
  'collider/spherePairs',
  'collider/boxes',
  'collider/casts',
  'particles/particles',
  'validate',
  'hostile',
  'worker',
  'mesh/meshEngines',
].map((name) => `test/${name}.test.ts`);

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A test name pattern that matches every test except those named (by a part of their name). */
export function allBut(names: readonly string[]): RegExp {
  return new RegExp(`^(?!.*(?:${names.map(escapeRegExp).join('|')}))`);
}
