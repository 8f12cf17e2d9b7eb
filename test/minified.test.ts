/**
 * What a bundled app sees: the library minified (esbuild, identifiers renamed, as an app's
 * production build does). Error classes keep their names, so `error.name` and logs say
 * `CapacityError`, not a single letter; and a bad `device` is a typed error naming it.
 */
import { describe, it, expect } from 'vitest';
import { build } from 'esbuild';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { RULES } from '../src/checks.js';

type Lib = typeof import('../src/index.js');

async function minifiedLibrary(): Promise<Lib> {
  const result = await build({
    entryPoints: [join(__dirname, '../src/index.ts')],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    write: false,
    logLevel: 'silent',
  });
  const file = join(mkdtempSync(join(tmpdir(), 'collide-min-')), 'index.min.mjs');
  writeFileSync(file, result.outputFiles[0].text);
  return (await import(/* @vite-ignore */ pathToFileURL(file).href)) as Lib;
}

describe('a minified build', () => {
  it('keeps every error class name, and a bad device is an InvalidInputError naming options.device', async () => {
    const lib = await minifiedLibrary();
    const names = [
      'CollideError',
      'InvalidInputError',
      'CapacityError',
      'NoAdapterError',
      'WebGPUError',
      'DeviceLostError',
      'DestroyedError',
    ] as const;
    const made = [
      new lib.CollideError('m'),
      new lib.InvalidInputError('a', 0, 'r'),
      new lib.CapacityError('pairs', 2, 1),
      new lib.NoAdapterError('m'),
      new lib.WebGPUError('validation', 'm'),
      new lib.DeviceLostError('destroyed', 'm'),
      new lib.DestroyedError('m'),
    ];
    expect(made.map((e) => e.name)).toEqual([...names]);
    expect(String(made[2])).toMatch(/^CapacityError: /);
    for (const device of [42, {}, null]) {
      for (const create of [
        () => lib.createCollider({ device: device as never }),
        () => lib.createParticleWorld({ device: device as never, capacity: 1 }),
      ]) {
        const error = await create().then(
          () => new Error('expected a rejection'),
          (e: unknown) => e,
        );
        expect(error, JSON.stringify(device)).toBeInstanceOf(lib.InvalidInputError);
        expect((error as InstanceType<Lib['InvalidInputError']>).argument).toBe('options.device');
        expect((error as InstanceType<Lib['InvalidInputError']>).rule).toBe(RULES.device);
      }
    }
  });
});
