import { defineConfig } from 'vitest/config';
import { playwright } from '@vitest/browser-playwright';
import { firefoxBidi } from './test/support/firefoxProvider.js';
import { FIREFOX_FILES, SLOW_ON_WGPU, ONCE_PER_ENGINE, allBut } from './test/support/wgpuRuns.js';

/**
 * Four projects (and Deno's run, scripts/deno-tests.ts, after them in `npm test`):
 * - node: every test on dawn.node (SwiftShader in CI). `forks` suits a native addon;
 *   --expose-gc lets the GC regression test force collections (docs/PLATFORMS.md).
 * - browser: the same GPU tests in real Chromium (Debian's /usr/bin/chromium, never a
 *   downloaded one), WebGPU on SwiftShader with the flags docs/PLATFORMS.md explains.
 * - firefox: the differential tests in Firefox (wgpu), test/support/wgpuRuns.ts says which.
 * - e2e: the demo built, served on localhost and driven in headless Chromium.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--enable-unsafe-webgpu',
  '--enable-features=Vulkan',
  '--use-vulkan=swiftshader',
  '--use-angle=swiftshader',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Firefox (wgpu, the other WebGPU engine): Debian's firefox-esr from the security updates (141+
 * has WebGPU), driven over WebDriver BiDi (test/support/firefoxProvider.ts), on SwiftShader's
 * Vulkan driver (as Chromium and dawn.node here: the run differs from theirs by the engine
 * alone). FIREFOX_VK_ICD picks another driver, e.g. lavapipe's (docs/TESTING.md).
 */
export const FIREFOX = process.env.FIREFOX_PATH ?? '/usr/lib/firefox-esr/firefox-esr';
export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

/** The GPU tests that run in a browser too (the rest need Node: dawn.node's GC, the file system). */
const portable = [
  'collider/spherePairs',
  'collider/boxes',
  'broadphase/sweep/sweep',
  'broadphase/bvh/bvh',
  'collider/points',
  'resident/resident',
  'collider/casts',
  'particles/particles',
  'passes/scan',
  'passes/radixSort',
  'validate',
  'shaders',
  'gpu/sizedArrays',
  'layout',
  'hostile',
  'determinism',
  'collider/precision',
  'faults',
  'worker',
  'gpu/readback',
  'mesh/meshEngines',
].map((name) => `test/${name}.test.ts`);

export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 120_000,
    reporters: ['default', './test/support/summaryReporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          include: ['test/**/*.test.ts'],
          provide: { webgpuEngine: 'Dawn' },
          // test/worker.test.ts needs a Web Worker with navigator.gpu: the browsers and Deno run it.
          exclude: ['test/e2e/**', 'test/worker.test.ts'],
          pool: 'forks',
          execArgv: ['--expose-gc'],
          maxWorkers: 2,
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: [...portable, 'test/engine.test.ts'],
          provide: { webgpuEngine: 'Dawn' },
          // dawn.node runs these on the same engine (test/support/wgpuRuns.ts); see firefox below.
          ...({ testNamePattern: allBut([...SLOW_ON_WGPU, ...ONCE_PER_ENGINE]) } as object),
          browser: {
            enabled: true,
            headless: true,
            provider: playwright({ launchOptions: { executablePath: CHROMIUM, args: CHROMIUM_ARGS } }),
            instances: [{ browser: 'chromium' }],
            screenshotFailures: false,
          },
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'firefox',
          include: FIREFOX_FILES,
          // Honoured per project at run time (vitest 4.1: the Firefox run skips these), though
          // ProjectConfig's type leaves it out. If it ever were ignored they would only run.
          ...({ testNamePattern: allBut([...SLOW_ON_WGPU, ...ONCE_PER_ENGINE]) } as object),
          provide: { webgpuEngine: 'wgpu' },
          browser: {
            enabled: true,
            headless: true,
            provider: firefoxBidi({
              executablePath: FIREFOX,
              env: { VK_ICD_FILENAMES: process.env.FIREFOX_VK_ICD ?? SWIFTSHADER_ICD },
            }),
            instances: [{ browser: 'firefox' }],
            screenshotFailures: false,
          },
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          pool: 'forks',
          maxWorkers: 1,
        },
      },
    ],
  },
});
