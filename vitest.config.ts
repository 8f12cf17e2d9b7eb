import { defineConfig } from 'vitest/config';

// Node tests run on dawn.node (SwiftShader in CI). `forks` suits a native addon; --expose-gc
// lets the GC regression test force collections (PLATFORM.md's Dawn instance crash).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    execArgv: ['--expose-gc'],
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/support/summaryReporter.ts'],
  },
});
