import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';

/** Which test run last built dist/ (test/global-setup.ts's `testRunId`). */
const MARKER = join('dist', '.built-by-test-run');

/**
 * Builds dist/ (scripts/build.mjs) unless a file of this test run built it already: the
 * sources do not change during a run, and a build writes the same bytes (the packaging
 * test checks it), so one build serves every file of the `stack` project. Each of those
 * holds the stack's lock (test/helpers/one-at-a-time.ts) while it builds and reads dist/.
 */
export function buildDist(): void {
  const run = inject('testRunId');
  let builtBy: string | undefined;
  try {
    builtBy = readFileSync(MARKER, 'utf8');
  } catch {
    builtBy = undefined;
  }
  if (builtBy === run) return;
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  writeFileSync(MARKER, run);
}
