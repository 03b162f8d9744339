import { defineConfig } from 'vitest/config';

const shared = {
  globalSetup: ['test/global-setup.ts'],
  testTimeout: 20_000,
  hookTimeout: 60_000,
};

export default defineConfig({
  test: {
    // DynamoDB Local is one JVM; two workers keep it busy without starving it.
    maxWorkers: 2,
    projects: [
      {
        test: {
          ...shared,
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/e2e/**', 'test/deploy/**', 'test/soak/**', 'test/docs/walkthroughs.test.ts'],
        },
      },
      {
        // These build dist/ and run or package it: one file at a time, after the rest.
        test: {
          ...shared,
          name: 'stack',
          include: ['test/e2e/**/*.test.ts', 'test/deploy/**/*.test.ts', 'test/docs/walkthroughs.test.ts'],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
