/**
 * The layering, checked in CI (`npm run lint:deps`). Type imports count as imports (the swc
 * parser reads the TypeScript source as written, `import type` included).
 *
 * - No circle, anywhere.
 * - A kernel (shaders/) imports kernels and declarations only: the binding declarations, the
 *   structs, the pure constants and the spatial core, never a host (a phase, a pass, the solver,
 *   the world, the recorder).
 * - The CPU twins (src/reference/) import no GPU code, however indirectly.
 * - No broad phase imports another, in its host folder or its kernel folder.
 * - WGSL modules live in shaders/ only; the library imports neither its tests nor its bench.
 */
const PHASES = 'all-pairs|bvh|grid|sweep';
/** What a kernel may import from src/: pure declarations. */
const DECLARATIONS = [
  '^src/gpu/kernel\\.ts$',
  '^src/gpu/workgroups\\.ts$',
  '^src/layout\\.ts$',
  '^src/queryKinds\\.ts$',
  '^src/spatial/',
  '^src/particles/step\\.ts$',
  '^src/broadphase/bvh/shape\\.ts$',
];

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'kernels-import-no-host',
      comment: 'A kernel imports other kernels and the declarations it needs, never a host.',
      severity: 'error',
      from: { path: '^shaders/' },
      to: { path: '^src/', pathNot: DECLARATIONS },
    },
    {
      name: 'reference-imports-no-gpu',
      comment: 'The CPU twins are written from the math: no GPU module, however indirectly.',
      severity: 'error',
      from: { path: '^src/reference/' },
      to: {
        path: ['^src/gpu/', '^src/passes/', '^src/resident/', '\\.wgsl\\.ts$', '^src/device\\.ts$'],
        reachable: true,
      },
    },
    {
      name: 'phases-import-no-other-phase',
      comment: 'A broad phase owns its host folder and its kernel folder; it borrows from no other phase.',
      severity: 'error',
      from: { path: `^(src|shaders)/broadphase/(${PHASES})/` },
      to: { path: `^(src|shaders)/broadphase/(${PHASES})/`, pathNot: '^(src|shaders)/broadphase/$2/' },
    },
    {
      name: 'phases-import-no-seam-above',
      comment: 'A phase implements the seam (types.ts); the registry and index compose the phases, not the reverse.',
      severity: 'error',
      from: { path: `^(src|shaders)/broadphase/(${PHASES})/` },
      to: { path: '^src/broadphase/(registry|index)\\.ts$' },
    },
    {
      name: 'wgsl-only-in-shaders',
      comment: 'Every WGSL module lives in shaders/, in folders that mirror src/.',
      severity: 'error',
      from: {},
      to: { path: '\\.wgsl\\.ts$', pathNot: '^shaders/' },
    },
    {
      name: 'library-imports-no-tests-or-bench',
      severity: 'error',
      from: { path: '^(src|shaders)/' },
      to: { path: '^(test|bench|demo|examples|fuzz|scripts)/' },
    },
  ],
  options: {
    parser: 'swc',
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/' },
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
