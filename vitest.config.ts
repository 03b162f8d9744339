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
 * The files that take longest, longest first: the fault-injection suite runs every
 * operation once per database call it makes (its two files are four lines each, the work
 * is in steps.ts), the browser files drive chromium through whole pages, the packaging
 * test packages the service twice, the property tests send hundreds of requests per
 * route, and the roles check drives every route. Vitest starts the files it has timings
 * of longest first; a fresh clone (CI) has none, and by size alone these would start last
 * and end the run on one core.
 */
const slowest = [
  'test/security/injected-faults/',
  'test/deploy/package.test.ts',
  'test/e2e/hosted-admin-staff.test.ts',
  'test/e2e/hosted-admin-apps.test.ts',
  'test/e2e/hosted-account.test.ts',
  'test/security/hostile-input/admin.test.ts',
  'test/e2e/hosted-passkeys.test.ts',
  'test/e2e/hosted-second-factor.test.ts',
  'test/e2e/hosted-browser.test.ts',
  'test/security/hostile-input/',
  'test/deploy/roles-and-settings.test.ts',
  'test/security/outage.test.ts',
  'test/security/races.test.ts',
];

/**
 * The other files that take the stack's lock (test/helpers/one-at-a-time.ts): spread
 * through the rest of the run, so that none waits for another's lock, holding a worker.
 */
const spread = ['test/e2e/local-stack.test.ts', 'test/docs/walkthroughs.test.ts', 'test/lib/lean-dynamo.test.ts'];

/** Vitest's order, with `slowest` first, in the order of that list, and `spread` spread out. */
class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const pathOf = (file: TestSpecification) => relative(process.cwd(), file.moduleId);
    const rank = (file: TestSpecification) => {
      const index = slowest.findIndex((prefix) => pathOf(file).startsWith(prefix));
      return index === -1 ? slowest.length : index;
    };
    // A stable sort: within a rank (and after the list), vitest's order stays.
    const ordered = sorted
      .map((file, index) => ({ file, index, rank: rank(file) }))
      .sort((a, b) => a.rank - b.rank || a.index - b.index)
      .map(({ file }) => file);
    const spreading = ordered.filter((file) => spread.includes(pathOf(file)));
    const head = ordered.filter((file) => rank(file) < slowest.length);
    const rest = ordered.filter((file) => rank(file) === slowest.length && !spreading.includes(file));
    // Early in the rest: its first files are its largest.
    const step = Math.floor(rest.length / (spreading.length + 2));
    for (const [index, file] of spreading.entries()) rest.splice((index + 1) * step + index, 0, file);
    return [...head, ...rest];
  }
}

/** The files that drive Debian's chromium (test/helpers/browser.ts). */
const browser = ['test/e2e/hosted-*.test.ts'];
/** The files that must import modules in a fresh module graph of their own. */
const isolated = ['test/lib/lambda-settings.test.ts'];
/**
 * The files that build dist/ (once a run: test/helpers/built-dist.ts) and serve it with
 * serverless-offline or load its bundles, or package it.
 */
const stack = [
  'test/e2e/local-stack.test.ts',
  'test/docs/walkthroughs.test.ts',
  'test/lib/lean-dynamo.test.ts',
  'test/deploy/package.test.ts',
];

export default defineConfig({
  test: {
    sequence: { sequencer: SlowestFirst },
    // Four files at a time on two cores: much of a file's time is waiting for DynamoDB
    // Local (one JVM), chromium or a timer, and the other files fill it. Measured in pairs,
    // four took 4-7 s less than three, at the same CPU (docs/testing.md).
    maxWorkers: 4,
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
        // Each file drives a chromium of its own. The files of a worker share one module
        // graph, as the functions' do: importing every function module afresh was about 2
        // CPU-s a file.
        test: { ...shared, name: 'browser', include: browser, isolate: false },
      },
      {
        // These share dist/ (and .serverless/): one at a time (a lock across workers,
        // test/helpers/one-at-a-time.ts). `slowest` starts the packaging test first and
        // `spread` spreads the others through the run, so that none waits for the lock.
        test: {
          ...shared,
          name: 'stack',
          include: stack,
          setupFiles: ['test/helpers/one-at-a-time.ts'],
        },
      },
    ],
  },
});
