/**
 * `npm run check:package`: the package as a stranger gets it. Builds, packs the tarball, and
 * checks:
 * - what is in it: the entries, LICENSE, README and the docs it links to; no source maps (their
 *   sources are not shipped); every relative link of the README resolves inside the tarball;
 * - that it installs into a fresh project (from npm's cache: `--prefer-offline`) and that
 *   `tsc --strict` (this repo's TypeScript) accepts scripts/package-consumer.ts there, a file
 *   that uses every export of 'webgpu-collide' and 'webgpu-collide/node', with no setup beyond
 *   the install (no @webgpu/types of its own, no @types/node), under both `nodenext` and
 *   `bundler` resolution;
 * - that every runtime export of both entries is used by that file (a new export must be added
 *   there), and that both entries load in Node.
 * Exits 1 with what failed. No GPU needed.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const tsc = join(root, 'node_modules/typescript/bin/tsc');
const consumerSource = join(root, 'scripts/package-consumer.ts');
const problems: string[] = [];
const started = performance.now();
const lap = (what: string): void => console.log(`check-package: ${what} (${((performance.now() - started) / 1000).toFixed(1)} s)`);

function run(command: string, args: string[], cwd: string): string {
  try {
    return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

const scratch = mkdtempSync(join(tmpdir(), 'webgpu-collide-package-'));
try {
  rmSync(join(root, 'dist'), { recursive: true, force: true }); // no stale files (source maps of an older build)
  run('npm', ['run', 'build', '--silent'], root); // as `npm pack`'s prepack does (skipped below: its output would mix with the JSON)
  lap('built');
  const [packed] = JSON.parse(run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', scratch], root)) as [
    { filename: string; files: { path: string }[]; size: number; unpackedSize: number },
  ];
  const files = new Set(packed.files.map((f) => f.path));
  lap(`packed ${packed.filename}: ${files.size} files, ${(packed.size / 1024).toFixed(0)} KiB (${(packed.unpackedSize / 1024).toFixed(0)} KiB unpacked)`);

  // What the tarball holds.
  for (const file of ['package.json', 'README.md', 'LICENSE', 'dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/node.js', 'dist/src/node.d.ts']) {
    if (!files.has(file)) problems.push(`the tarball lacks ${file}`);
  }
  const maps = [...files].filter((f) => f.endsWith('.map'));
  if (maps.length > 0) problems.push(`the tarball ships source maps whose sources it does not ship: ${maps.slice(0, 3).join(', ')}...`);
  const stray = [...files].filter((f) => /^(src|test|bench|scripts|tools|demo)\//.test(f));
  if (stray.length > 0) problems.push(`the tarball ships development files: ${stray.slice(0, 3).join(', ')}...`);
  for (const entry of ['index', 'node']) {
    const dts = readFileSync(join(root, `dist/src/${entry}.d.ts`), 'utf8');
    if (!dts.startsWith('/// <reference types="@webgpu/types"')) problems.push(`dist/src/${entry}.d.ts does not reference @webgpu/types`);
  }
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  for (const [, target] of readme.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/i.test(target) || target.startsWith('#')) continue;
    const path = posix.normalize(target.split('#')[0]);
    if (!files.has(path)) problems.push(`README links to ${target}, which the tarball does not ship`);
  }

  // A fresh project: the tarball and TypeScript's strictest settings, nothing else.
  const project = join(scratch, 'consumer');
  cpSync(consumerSource, join(project, 'src/index.ts'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2));
  run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', join(scratch, packed.filename)], project);
  lap('installed into a fresh project');
  // Strict settings and no types of its own (`types: []`): the package's d.ts must bring the
  // WebGPU types (@webgpu/types) by themselves. With skipLibCheck off, TypeScript 6+ reports
  // @webgpu/types 0.1.x against its own lib.dom (which now declares WebGPU too): those errors are
  // between the two, not ours, and are left out; any other error (in our d.ts or in the use of
  // the API) fails. With skipLibCheck on (most projects), nothing may be reported at all.
  const strict = { strict: true, noEmit: true, target: 'es2022', types: [], exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true };
  const setups = [['nodenext', 'nodenext', false], ['esnext', 'bundler', true]] as const;
  for (const [module, moduleResolution, skipLibCheck] of setups) {
    const config = `tsconfig.${moduleResolution}.json`;
    writeFileSync(join(project, config), JSON.stringify({ compilerOptions: { ...strict, module, moduleResolution, skipLibCheck }, files: ['src/index.ts'] }));
    let output = '';
    try {
      run(process.execPath, [tsc, '-p', config], project);
    } catch (error) {
      output = (error as Error).message;
    }
    const errors = output.split('\n').filter((line) => /error TS\d+/.test(line));
    const ours = errors.filter((line) => !line.startsWith('node_modules/@webgpu/types/') && !/\/lib\.dom\.d\.ts\(/.test(line));
    if (ours.length > 0 || (output && errors.length === 0)) {
      problems.push(`tsc --strict (moduleResolution ${moduleResolution}, skipLibCheck ${skipLibCheck}) fails in a project that installed the package:\n${(ours.length > 0 ? ours : [output]).join('\n')}`);
    }
  }
  lap('type-checked the consumer (nodenext, bundler)');

  // Every runtime export is used by the consumer file, and both entries load.
  const consumer = readFileSync(consumerSource, 'utf8');
  const probe = `const a = await import('webgpu-collide'); const b = await import('webgpu-collide/node');
    console.log(JSON.stringify({ index: Object.keys(a), node: Object.keys(b) }));`;
  const exported = JSON.parse(run(process.execPath, ['--input-type=module', '-e', probe], project)) as { index: string[]; node: string[] };
  // Type-only exports too: the names in the entries' `export { ... }` lists and declarations.
  const declared = ['index', 'node'].flatMap((entry) => {
    const dts = readFileSync(join(root, `dist/src/${entry}.d.ts`), 'utf8');
    const listed = [...dts.matchAll(/^export (?:type )?\{([^}]*)\}/gm)].flatMap((m) => m[1].split(','));
    const single = [...dts.matchAll(/^export (?:declare )?(?:const|function|class|interface|type|\* as) (\w+)/gm)].map((m) => m[1]);
    return [...listed.map((n) => n.trim().replace(/^type /, '').split(/\s+as\s+/).pop()!), ...single].filter(Boolean);
  });
  for (const name of new Set([...exported.index, ...exported.node, ...declared])) {
    if (!new RegExp(`\\b${name}\\b`).test(consumer)) problems.push(`scripts/package-consumer.ts does not use the export ${name}`);
  }
  lap(`loaded both entries (${exported.index.length} and ${exported.node.length} exports)`);
} catch (error) {
  problems.push((error as Error).message);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

if (problems.length > 0) {
  console.error(`\ncheck-package: ${problems.length} problem(s):\n- ${problems.join('\n- ')}`);
  process.exitCode = 1;
} else {
  console.log(`check-package: the package installs and type-checks as a stranger gets it (${((performance.now() - started) / 1000).toFixed(1)} s)`);
}
