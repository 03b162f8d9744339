import { defineConfig } from 'vitest/config';

/**
 * `npm run screenshots`: pictures of the hosted pages for the README (docs/screenshots),
 * apart from `npm test`. It runs on the browser tests' stack: DynamoDB Local from the
 * global setup, the functions served over HTTP, Debian's chromium headless shell.
 */
export default defineConfig({
  test: {
    name: 'screenshots',
    include: ['test/screenshots/**/*.shots.ts'],
    globalSetup: ['test/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
