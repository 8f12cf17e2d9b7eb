/**
 * A slice of the fuzzer for CI: 50 random scenes per query (seeds 1..50; `npm run fuzz` runs
 * thousands), every query and broad phase, checked against the CPU reference.
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from './support/gpu.js';
import { FUZZ_QUERIES, generateCase, checkCase } from './support/fuzz.js';

const gpu = useGpu();
const SCENES = 50;

describe('fuzz slice', () => {
  for (const query of FUZZ_QUERIES) {
    it(`${query}: ${SCENES} random scenes (seeds 1–${SCENES}) agree with the reference`, async () => {
      const failures: string[] = [];
      for (let seed = 1; seed <= SCENES; seed++) {
        const c = generateCase(query, seed);
        const problems = await checkCase(gpu.collider, c);
        if (problems.length) failures.push(`seed ${seed} (${c.note}): ${problems[0]}`);
      }
      expect(failures).toEqual([]);
    });
  }

  it('the scenes are varied: empty, tiny, degenerate and large-scale ones appear', () => {
    const notes = Array.from({ length: SCENES }, (_, k) => generateCase('raycast', k + 1).note).join('\n');
    for (const word of ['zeros', 'giants', 'duplicates', 'touching', 'clustered', '0 spheres'])
      expect(notes).toContain(word);
  });
});
