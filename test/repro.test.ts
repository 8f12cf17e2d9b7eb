/**
 * Every scene the fuzzer ever failed on (test/repro/*.json, written shrunk by `npm run fuzz`)
 * replayed against the CPU reference: once fixed, it stays fixed.
 */
import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { useGpu } from './support/gpu.js';
import { checkCase, type FuzzCase } from './support/fuzz.js';

const gpu = useGpu();
const dir = new URL('./repro/', import.meta.url);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort();

describe('fuzzer repros', () => {
  it('the repro directory holds at least the format sample', () => {
    expect(files.length).toBeGreaterThan(0);
  });
  for (const file of files) {
    it(file, async () => {
      const c = JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as FuzzCase;
      expect(await checkCase(gpu.collider, c)).toEqual([]);
    });
  }
});
