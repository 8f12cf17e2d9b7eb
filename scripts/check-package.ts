/**
 * `npm run check:package`: the package as a stranger gets it. Builds, packs the tarball, and
 * checks:
 * - what is in it: the entries, LICENSE, README and the docs it links to; no source maps (their
 *   sources are not shipped); every relative link of the README resolves inside the tarball;
 *   the declarations for TypeScript 5 reference @webgpu/types and the others do not;
 * - that it installs into a fresh project (from npm's cache when it can: `--prefer-offline`),
 *   with TypeScript 5.9, 6 and 7 beside it (exact versions: {@link COMPILERS}), and that each
 *   compiler, `--strict`, accepts scripts/package-consumer.ts there, a file that uses every
 *   export of 'webgpu-collide' and 'webgpu-collide/node', with no setup beyond the install (no
 *   @webgpu/types of its own, no @types/node): under `nodenext` resolution with
 *   `skipLibCheck: false` (every declaration checked, lib.dom and @webgpu/types included) and
 *   under `bundler` with `skipLibCheck: true`; and TypeScript 5.9 under `node10` (typesVersions).
 *   Any error fails: TypeScript 6 and later declare WebGPU in their lib.dom, so the package's
 *   declarations for them must not bring @webgpu/types too (package.json's `types@<6` condition);
 * - that every runtime export of both entries is used by that file (a new export must be added
 *   there), and that both entries load in Node;
 * - the tarball as a registry's tools see it: publint (`--strict`: a warning fails too) and Are
 *   the Types Wrong (`attw --profile esm-only`: the package is ESM only, `"type": "module"`, so
 *   attw's one warning, that `require()` from CommonJS under node16 resolves to ESM, is expected
 *   and left out; node10 resolution is checked above with TypeScript 5.9 itself);
 * - `npm publish --dry-run`: no warning but the login a dry run without credentials asks for;
 * - that the README's figures for the tarball (files, packed kB) are within 10% of the truth.
 * Exits 1 with what failed. No GPU needed.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
/** The compilers a consumer may have: npm alias → exact version (`npm view typescript versions`). */
const COMPILERS = { ts5: '5.9.3', ts6: '6.0.3', ts7: '7.0.2' } as const;
const consumerSource = join(root, 'scripts/package-consumer.ts');
const problems: string[] = [];
const started = performance.now();
const lap = (what: string): void =>
  console.log(`check-package: ${what} (${((performance.now() - started) / 1000).toFixed(1)} s)`);

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
  const [packed] = JSON.parse(
    run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', scratch], root),
  ) as [{ filename: string; files: { path: string }[]; size: number; unpackedSize: number }];
  const files = new Set(packed.files.map((f) => f.path));
  lap(
    `packed ${packed.filename}: ${files.size} files, ${(packed.size / 1024).toFixed(0)} KiB (${(packed.unpackedSize / 1024).toFixed(0)} KiB unpacked)`,
  );
  const tarball = join(scratch, packed.filename);
  // The registry's linters, on the tarball itself.
  const before = problems.length;
  for (const [tool, args] of [
    ['publint', [tarball, '--strict']],
    ['attw', [tarball, '--profile', 'esm-only', '--no-color']],
  ] as const) {
    try {
      run(join(root, 'node_modules/.bin', tool), [...args], root);
    } catch (error) {
      problems.push(`${tool} finds problems in the tarball: ${(error as Error).message}`);
    }
  }
  lap(problems.length === before ? 'publint and attw: no problem' : 'publint and attw: problems (below)');
  // npm's own checks before a publish (package.json fields it would correct, ...): no warning,
  // but the login that a dry run without credentials always asks for.
  const dryRun = spawnSync('npm', ['publish', '--dry-run', '--ignore-scripts'], { cwd: root, encoding: 'utf8' });
  const warnings = `${dryRun.stdout}${dryRun.stderr}`
    .split('\n')
    .filter((line) => /^npm warn/i.test(line) && !/requires you to be logged in/.test(line));
  if (dryRun.status !== 0 || warnings.length > 0)
    problems.push(`npm publish --dry-run: exit ${dryRun.status}\n${warnings.join('\n')}`);
  lap('npm publish --dry-run: clean');

  // The README's figures (The package): files and packed size, within 10%.
  const stated = /(\d+) files, about (\d+) kB packed/.exec(readFileSync(join(root, 'README.md'), 'utf8'));
  const packedKb = packed.size / 1000;
  if (!stated) problems.push('README states no "N files, about K kB packed" for the tarball');
  else if (
    Math.abs(Number(stated[1]) - files.size) > 0.1 * files.size ||
    Math.abs(Number(stated[2]) - packedKb) > 0.1 * packedKb
  )
    problems.push(
      `README says ${stated[1]} files, about ${stated[2]} kB packed; the tarball has ${files.size} files, ${packedKb.toFixed(0)} kB`,
    );

  // What the tarball holds.
  const typings = [
    'dist/src/typings/index.d.ts',
    'dist/src/typings/node.d.ts',
    'dist/src/typings/flags.d.ts',
    'dist/src/typings/ts5/index.d.ts',
    'dist/src/typings/ts5/node.d.ts',
  ];
  for (const file of [
    'package.json',
    'README.md',
    'CHANGELOG.md',
    'LICENSE',
    'dist/src/index.js',
    'dist/src/index.d.ts',
    'dist/src/node.js',
    'dist/src/node.d.ts',
    ...typings,
  ]) {
    if (!files.has(file)) problems.push(`the tarball lacks ${file}`);
  }
  const maps = [...files].filter((f) => f.endsWith('.map'));
  if (maps.length > 0)
    problems.push(`the tarball ships source maps whose sources it does not ship: ${maps.slice(0, 3).join(', ')}...`);
  const stray = [...files].filter((f) => /^(src|test|bench|scripts|tools|demo)\//.test(f));
  if (stray.length > 0) problems.push(`the tarball ships development files: ${stray.slice(0, 3).join(', ')}...`);
  // TypeScript 5's entries bring WebGPU's types from @webgpu/types; nothing else may (TypeScript
  // 6 and later declare them in lib.dom: both at once are ~180 duplicate identifiers).
  for (const file of typings.filter((f) => files.has(f))) {
    const references = /\/\/\/ <reference types="@webgpu\/types"/.test(readFileSync(join(root, file), 'utf8'));
    if (references !== file.includes('/ts5/'))
      problems.push(`${file} ${references ? 'references' : 'does not reference'} @webgpu/types`);
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
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2),
  );
  const compilers = Object.entries(COMPILERS).map(([alias, version]) => `${alias}@npm:typescript@${version}`);
  run(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      '--loglevel=error',
      join(scratch, packed.filename),
      ...compilers,
    ],
    project,
  );
  lap(`installed into a fresh project, with TypeScript ${Object.values(COMPILERS).join(', ')}`);
  // Strict settings and no types of its own (`types: []`): the package's d.ts must bring what
  // WebGPU's types the compiler lacks by themselves. Every error fails, in lib files too.
  const strict = {
    strict: true,
    noEmit: true,
    target: 'es2022',
    types: [],
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
  };
  const setups = [
    ['nodenext', 'nodenext', false],
    ['esnext', 'bundler', true],
    ['es2022', 'node10', true],
  ] as const;
  for (const [module, moduleResolution, skipLibCheck] of setups) {
    writeFileSync(
      join(project, `tsconfig.${moduleResolution}.json`),
      JSON.stringify({
        compilerOptions: { ...strict, module, moduleResolution, skipLibCheck },
        files: ['src/index.ts'],
      }),
    );
  }
  // node10 (typesVersions) only for TypeScript 5: 6 deprecates it and 7 removed it.
  const checks = Object.keys(COMPILERS).flatMap((alias) =>
    setups
      .filter(([, resolution]) => resolution !== 'node10' || alias === 'ts5')
      .map(([, resolution, skip]) => ({ alias, resolution, skip })),
  );
  // Two at a time (the slow ones, skipLibCheck off under TypeScript 5 and 6, take ~10 s each).
  const tscs = async (queue: typeof checks): Promise<void> => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const { alias, resolution, skip } = next;
      const output = await new Promise<string>((done) =>
        execFile(
          process.execPath,
          [join(project, `node_modules/${alias}/bin/tsc`), '-p', `tsconfig.${resolution}.json`],
          { cwd: project, encoding: 'utf8' },
          (error, stdout, stderr) => done(error ? `${stdout}${stderr}` || error.message : ''),
        ),
      );
      if (output) {
        const version = COMPILERS[alias as keyof typeof COMPILERS];
        problems.push(
          `tsc ${version} --strict (moduleResolution ${resolution}, skipLibCheck ${skip}) fails in a project that installed the package:\n${output.trim().split('\n').slice(0, 20).join('\n')}`,
        );
      }
    }
  };
  const queue = [...checks].sort((a, b) => Number(a.skip) - Number(b.skip));
  await Promise.all([tscs(queue), tscs(queue)]);
  lap(
    `type-checked the consumer (${checks.map((c) => `${COMPILERS[c.alias as keyof typeof COMPILERS]} ${c.resolution}`).join(', ')})`,
  );

  // Every runtime export is used by the consumer file, and both entries load.
  const consumer = readFileSync(consumerSource, 'utf8');
  const probe = `const a = await import('webgpu-collide'); const b = await import('webgpu-collide/node');
    console.log(JSON.stringify({ index: Object.keys(a), node: Object.keys(b) }));`;
  const exported = JSON.parse(run(process.execPath, ['--input-type=module', '-e', probe], project)) as {
    index: string[];
    node: string[];
  };
  // Type-only exports too: the names in the entries' `export { ... }` lists and declarations.
  const declared = ['index', 'node'].flatMap((entry) => {
    const dts = readFileSync(join(root, `dist/src/${entry}.d.ts`), 'utf8');
    const listed = [...dts.matchAll(/^export (?:type )?\{([^}]*)\}/gm)].flatMap((m) => m[1].split(','));
    const single = [...dts.matchAll(/^export (?:declare )?(?:const|function|class|interface|type|\* as) (\w+)/gm)].map(
      (m) => m[1],
    );
    return [
      ...listed.map(
        (n) =>
          n
            .trim()
            .replace(/^type /, '')
            .split(/\s+as\s+/)
            .pop()!,
      ),
      ...single,
    ].filter(Boolean);
  });
  for (const name of new Set([...exported.index, ...exported.node, ...declared])) {
    if (!new RegExp(`\\b${name}\\b`).test(consumer))
      problems.push(`scripts/package-consumer.ts does not use the export ${name}`);
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
  console.log(
    `check-package: the package installs and type-checks as a stranger gets it (${((performance.now() - started) / 1000).toFixed(1)} s)`,
  );
}
