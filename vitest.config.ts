import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const shared = {
  // One DynamoDB Local for the run, a table of its own per project (test/global-setup.ts).
  globalSetup: ['test/global-setup.ts'],
  testTimeout: 20_000,
  hookTimeout: 60_000,
};

/**
 * The files that take longest: the fault-injection suite runs every operation once per
 * database call it makes (its two files are four lines each, the work is in steps.ts),
 * the property tests send hundreds of requests per route, and the roles check drives
 * every route, and the packaging test packages the service twice. Vitest starts the files it has timings of longest first; a fresh clone (CI)
 * has none, and by size alone these would start last and end the run on one core.
 */
const slowest = [
  'test/security/injected-faults/',
  'test/deploy/roles-and-settings.test.ts',
  'test/security/hostile-input/',
  'test/deploy/package.test.ts',
];

/** Vitest's order, with `slowest` first. */
class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const isSlow = (file: TestSpecification) => slowest.some((prefix) => relative(process.cwd(), file.moduleId).startsWith(prefix));
    return [...sorted.filter(isSlow), ...sorted.filter((file) => !isSlow(file))];
  }
}

/** The files that drive Debian's chromium (test/helpers/browser.ts). */
const browser = ['test/e2e/hosted-*.test.ts'];
/** The files that must import modules in a fresh module graph of their own. */
const isolated = ['test/lib/lambda-settings.test.ts'];
/** The files that build dist/ and serve it with serverless-offline, or package it. */
const stack = ['test/e2e/local-stack.test.ts', 'test/docs/walkthroughs.test.ts', 'test/deploy/package.test.ts'];

export default defineConfig({
  test: {
    sequence: { sequencer: SlowestFirst },
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
        // After the functions, two files at a time with the stack's: each file drives a
        // chromium of its own.
        test: { ...shared, name: 'browser', include: browser, maxWorkers: 2, sequence: { groupOrder: 1 } },
      },
      {
        // These share dist/ (and .serverless/): beside the browser files, but one at a time
        // (a lock across workers, test/helpers/one-at-a-time.ts).
        test: {
          ...shared,
          name: 'stack',
          include: stack,
          setupFiles: ['test/helpers/one-at-a-time.ts'],
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
