import { defineConfig } from 'vitest/config';

const shared = {
  // One DynamoDB Local for the run, a table of its own per project (test/global-setup.ts).
  globalSetup: ['test/global-setup.ts'],
  testTimeout: 20_000,
  hookTimeout: 60_000,
};

/** The files that drive Debian's chromium (test/helpers/browser.ts). */
const browser = ['test/e2e/hosted-*.test.ts'];
/** The files that must import modules in a fresh module graph of their own. */
const isolated = ['test/lib/lambda-settings.test.ts'];
/** The files that build dist/ and serve it with serverless-offline, or package it. */
const stack = ['test/e2e/local-stack.test.ts', 'test/docs/walkthroughs.test.ts', 'test/deploy/**/*.test.ts'];

export default defineConfig({
  test: {
    // DynamoDB Local is one JVM; two workers keep it busy without starving it.
    maxWorkers: 3,
    projects: [
      {
        // The functions called in-process (or served over HTTP in-process, test/e2e) on
        // DynamoDB Local: many files at once.
        test: {
          ...shared,
          name: 'functions',
          include: ['test/**/*.test.ts'],
          exclude: [...browser, ...stack, ...isolated, 'test/soak/**'],
          // The files of a worker share one module graph: each imports every function
          // module (test/helpers/routes.ts), which in a fresh graph per file was a tenth
          // of the run. No file here depends on importing a module afresh.
          isolate: false,
        },
      },
      {
        // Files that import a module afresh on purpose (a cold start with a setting missing).
        test: { ...shared, name: 'isolated', include: isolated },
      },
      {
        // One browser at a time, after the functions, beside the stack.
        test: {
          ...shared,
          name: 'browser',
          include: browser,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
      {
        // These share dist/ (and .serverless/): one file at a time, after the functions,
        // beside the browser.
        test: {
          ...shared,
          name: 'stack',
          include: stack,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
