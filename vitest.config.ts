import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // DynamoDB Local is one JVM; a few workers keep it busy without starving it.
    maxWorkers: 2,
  },
});
