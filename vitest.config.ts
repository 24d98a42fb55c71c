import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // 2-core machines: integration files start servers; more forks than cores only adds contention.
    maxWorkers: 2,
  },
});
