import { defineConfig } from 'vitest/config';

/**
 * `npm run test:soak`: the long load test (test/soak), apart from `npm test`. It starts
 * its own DynamoDB Local and server, so there is no global setup; one file, no retries.
 */
export default defineConfig({
  test: {
    name: 'soak',
    include: ['test/soak/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 600_000,
  },
});
