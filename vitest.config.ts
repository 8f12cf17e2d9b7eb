import { defineConfig } from 'vitest/config';
import { playwright } from '@vitest/browser-playwright';

/**
 * Three projects:
 * - node: every test on dawn.node (SwiftShader in CI). `forks` suits a native addon;
 *   --expose-gc lets the GC regression test force collections (PLATFORM.md).
 * - browser: the same GPU tests in real Chromium (Debian's /usr/bin/chromium, never a
 *   downloaded one), WebGPU on SwiftShader with the flags PLATFORM.md found to work.
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

/** The GPU tests that run in a browser too (the rest need Node: dawn.node's GC, the file system). */
const portable = ['spherePairs', 'boxes', 'casts', 'particles', 'scan', 'validate', 'shaders', 'layout', 'hostile', 'determinism', 'precision', 'faults'].map((name) => `test/${name}.test.ts`);

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
          exclude: ['test/e2e/**'],
          pool: 'forks',
          execArgv: ['--expose-gc'],
          maxWorkers: 2,
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: portable,
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
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          pool: 'forks',
          maxWorkers: 1,
        },
      },
    ],
  },
});
