import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/**
 * scripts/infrastructure-changed.mjs decides between a full deploy and per-function
 * deploys. It runs here in a scratch git repository, as the deploy job runs it in its
 * checkout, with the push's `before` commit as GitHub gives it.
 */
const SCRIPT = resolve('scripts/infrastructure-changed.mjs');
const ZERO = '0'.repeat(40);

let repo: string;
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', ...args], {
    cwd: repo,
    encoding: 'utf8',
  }).trim();
/** Writes the files and commits them; returns the commit id. */
const commit = (files: Record<string, string>) => {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
  git('add', '-A');
  git('commit', '-q', '-m', Object.keys(files).join(' '));
  return git('rev-parse', 'HEAD');
};
const infrastructureChanged = (before: string) =>
  execFileSync(process.execPath, [SCRIPT, before], { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

describe('scripts/infrastructure-changed.mjs', () => {
  let deployed: string;
  beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), 'infrastructure-changed-'));
    git('init', '-q', '-b', 'main');
    deployed = commit({ 'serverless.yml': 'service: identity-service\n', 'functions/login.ts': 'v1\n', 'package-lock.json': '{}\n' });
  });
  afterEach(() => rmSync(repo, { recursive: true, force: true }));

  it('answers false when the commits of the push change only function code', () => {
    commit({ 'functions/login.ts': 'v2\n' });
    commit({ 'lib/sessions/sessions.ts': 'v2\n' });
    expect(infrastructureChanged(deployed)).toBe('false');
  });

  it.each(['serverless.yml', '.serverless-plugins/roles.js', 'package-lock.json', 'scripts/package.mjs'])(
    'answers true when %s changed in an earlier commit of the push than the last',
    (path) => {
      commit({ [path]: 'changed\n' });
      commit({ 'functions/login.ts': 'v2\n' });
      expect(infrastructureChanged(deployed)).toBe('true');
    },
  );

  it('answers true for the all-zero before of a push that creates the branch', () => {
    commit({ 'functions/login.ts': 'v2\n' });
    expect(infrastructureChanged(ZERO)).toBe('true');
  });

  it('answers true when before is not in the clone (a force-push replaced it)', () => {
    commit({ 'functions/login.ts': 'v2\n' });
    expect(infrastructureChanged('1234567890abcdef1234567890abcdef12345678')).toBe('true');
  });

  it('answers true when HEAD does not descend from before (history rewritten)', () => {
    const replaced = commit({ 'functions/login.ts': 'v2\n' });
    git('reset', '-q', '--hard', deployed);
    commit({ 'functions/login.ts': 'v3\n' });
    expect(infrastructureChanged(replaced)).toBe('true');
  });

  it('answers true without a before (not a push) and for one that is not a commit id', () => {
    expect(infrastructureChanged('')).toBe('true');
    expect(infrastructureChanged('HEAD~1')).toBe('true');
  });
});

describe('the deploy workflow', () => {
  const workflow = readFileSync('.github/workflows/deploy.yml', 'utf8');

  it('decides on a full deploy from the push before commit, with the whole history checked out', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a JS template.
    expect(workflow).toContain('BEFORE: ${{ github.event.before }}');
    expect(workflow).toContain('node scripts/infrastructure-changed.mjs "$BEFORE"');
    expect(workflow).toMatch(/actions\/checkout@v4\n(\s+#.*\n)?\s+with: \{ fetch-depth: 0 \}/);
    // The comparison lives in the script, where the tests above exercise it.
    expect(workflow).not.toMatch(/git diff/);
  });

  it('lints before it tests, as .ci/run does, so that nothing unlinted reaches the deploy job', () => {
    const runs = [...workflow.matchAll(/- run: (.+)/g)].map(([, command]) => command);
    expect(runs.slice(0, 3)).toEqual(['npm ci', 'npm run lint', 'npm test']);
    expect(readFileSync('.ci/run', 'utf8')).toMatch(/\nnpm run lint\nnpm test\n/);
  });
});
