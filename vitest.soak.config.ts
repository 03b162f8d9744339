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
    // The SDK's notice that it will soon need Node 22, once per process, says nothing about the soak.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
