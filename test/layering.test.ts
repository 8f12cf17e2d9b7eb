/**
 * The layering the code keeps, read from its imports (type imports included) with
 * dependency-cruiser and the project's rules (.dependency-cruiser.cjs), and the sizes it keeps:
 * - no rule of .dependency-cruiser.cjs is broken (no circle, kernels import no host, the CPU twins
 *   no GPU code, no phase another, WGSL in shaders/ only);
 * - a broad phase lives in two folders, its host's (src/broadphase/<name>/) and its kernels'
 *   (shaders/broadphase/<name>/): they import nothing of another phase, and outside them only its
 *   registry line (src/broadphase/registry.ts) and its CPU twin (src/reference/) import them, so
 *   a new phase touches its two folders and its registry line;
 * - no file of src/ or shaders/ is over 500 lines (Biome checks the functions: 150 lines).
 */
import { describe, it, expect } from 'vitest';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { BROADPHASE_NAMES } from '../src/broadphase/registry.js';

const require = createRequire(import.meta.url);
const config = require('../.dependency-cruiser.cjs');

async function graph(): Promise<ICruiseResult> {
  const result = await cruise(['src', 'shaders'], {
    ...config.options,
    ruleSet: { forbidden: config.forbidden },
    validate: true,
  });
  return result.output as ICruiseResult;
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

describe('layering', () => {
  it('breaks no rule of .dependency-cruiser.cjs, type imports included', async () => {
    const { summary } = await graph();
    expect(summary.totalCruised).toBeGreaterThan(100);
    expect(summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);
  });

  it("a broad phase's two folders import no other phase, and only its registry line and its CPU twin import them", async () => {
    const { modules } = await graph();
    for (const name of BROADPHASE_NAMES) {
      const own = (path: string): boolean =>
        path.startsWith(`src/broadphase/${name}/`) || path.startsWith(`shaders/broadphase/${name}/`);
      const folders = modules.filter((m) => own(m.source));
      expect(folders.length, name).toBeGreaterThan(1);
      for (const m of folders) {
        for (const d of m.dependencies) {
          expect(
            /^(src|shaders)\/broadphase\/[^/]+\//.test(d.resolved) && !own(d.resolved),
            `${m.source} → ${d.resolved}`,
          ).toBe(false);
        }
      }
      const importers = new Set(
        modules.filter((m) => !own(m.source) && m.dependencies.some((d) => own(d.resolved))).map((m) => m.source),
      );
      importers.delete('src/broadphase/registry.ts');
      for (const twin of [...importers].filter((path) => path.startsWith('src/reference/'))) importers.delete(twin);
      expect([...importers].sort(), name).toEqual([]);
    }
  });

  it('keeps every file of src/ and shaders/ to 500 lines', () => {
    const long = [...files('src'), ...files('shaders')]
      .map((path) => ({ path, lines: readFileSync(path, 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > 500);
    expect(long).toEqual([]);
  });
});
