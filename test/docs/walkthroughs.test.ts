import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTable } from '../helpers/isolated-table';
import { type LocalStack, startLocalStack } from '../helpers/local-stack';
import { bodyPattern, type Expectation, projectWalkthroughs, scriptOf } from '../helpers/walkthroughs';

/**
 * The walkthroughs of README.md and the docs, run as a reader would paste them
 * (test/helpers/walkthroughs.ts says which blocks, in which order, and which answers): one
 * bash, in a temporary directory of its own, against a local stack on a table of its own
 * (the walkthroughs create tenant `acme` and client `shop-app`), with only bash, curl and
 * node on the PATH's side. The docs' `http://localhost:3000` becomes the stack's address;
 * nothing else is changed.
 */
const WALKTHROUGHS = projectWalkthroughs('.');
/** The walkthroughs that must stay runnable (README.md and docs/guides/*); other sections may opt in with the marker. */
const REQUIRED = [
  ['quick-start', 'README.md'],
  ['mfa', 'docs/guides/front-end.md'],
  ['sessions', 'docs/guides/front-end.md'],
  ['recovery-codes', 'docs/guides/front-end.md'],
  ['forgot-password', 'docs/guides/front-end.md'],
  ['oauth', 'docs/guides/partner-apps.md'],
];

interface Answer {
  status: number;
  headers: Record<string, string>;
  /** The last line curl printed. */
  last: string;
}

/** The last response's status and headers in a `curl -D` dump (redirects and 100s add earlier ones). */
function parseDump(dump: string): Omit<Answer, 'last'> {
  const responses = dump.split(/\r?\n\r?\n/).filter((part) => part.startsWith('HTTP/'));
  const [statusLine = '', ...lines] = (responses.at(-1) ?? '').split(/\r?\n/);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers };
}

describe('the walkthroughs of README.md and docs/', () => {
  const { script, lineOf, expectations } = scriptOf(WALKTHROUGHS, [
    'set -euo pipefail',
    // Whatever the blocks or this harness write is the runner's alone.
    'umask 077',
    'trap \'echo "__failed_at $LINENO" >&2\' ERR',
    // Every curl of the blocks leaves its status, headers and output for the next claim.
    'curl() { command curl -D "$WALKTHROUGH_ANSWERS/headers" "$@" | tee "$WALKTHROUGH_ANSWERS/out"; }',
    '__expect() { mv "$WALKTHROUGH_ANSWERS/headers" "$WALKTHROUGH_ANSWERS/$1.headers"; mv "$WALKTHROUGH_ANSWERS/out" "$WALKTHROUGH_ANSWERS/$1.out"; }',
    '__end() { touch "$WALKTHROUGH_ANSWERS/end"; }',
    // `npm run -s outbox -- ...` as a reader runs it in the project, against the stack's table.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash parameter expansions, not a template.
    'npm() { if [ "${1-} ${2-} ${3-}" = "run -s outbox" ]; then shift 3; [ "${1-}" = "--" ] && shift; node "$WALKTHROUGH_PROJECT/dist/scripts/outbox.mjs" "$@"; else command npm "$@"; fi; }',
  ]);
  let stack: LocalStack;
  let workDir: string;
  let run: { status: number | null; stderr: string; ms: number };
  let answers: Array<Answer | undefined>;

  beforeAll(async () => {
    const tableName = `walkthroughs-${Date.now()}`;
    await createTable(inject('dynamodbEndpoint'), tableName);
    stack = await startLocalStack({ tableName, keyId: 'walkthrough-key' });
    workDir = mkdtempSync(join(tmpdir(), 'walkthroughs-'));
    const answersDir = join(workDir, '.answers');
    mkdirSync(answersDir, { mode: 0o700 });
    writeFileSync(join(workDir, 'walkthroughs.sh'), script.replaceAll('http://localhost:3000', stack.base), { mode: 0o600 });
    const started = Date.now();
    const result = spawnSync('bash', ['walkthroughs.sh'], {
      cwd: workDir,
      encoding: 'utf8',
      timeout: 60_000,
      env: {
        ...process.env,
        PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
        WALKTHROUGH_ANSWERS: answersDir,
        WALKTHROUGH_PROJECT: process.cwd(),
        TABLE_NAME: tableName,
        DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
      },
    });
    run = { status: result.status, stderr: result.stderr, ms: Date.now() - started };
    answers = expectations.map((_, index) => {
      const dump = join(answersDir, `${index}.headers`);
      if (!existsSync(dump)) return undefined;
      const printed = readFileSync(join(answersDir, `${index}.out`), 'utf8')
        .trim()
        .split('\n');
      return { ...parseDump(readFileSync(dump, 'utf8')), last: printed.at(-1) ?? '' };
    });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it('finds the quick start, MFA, sessions, recovery-codes and OAuth walkthroughs where the docs keep them, each with answers to check', () => {
    expect(WALKTHROUGHS.map((w) => [w.name, w.file])).toEqual(expect.arrayContaining(REQUIRED));
    for (const { name } of WALKTHROUGHS) {
      expect(expectations.filter((e) => e.walkthrough === name).length, `${name} claims no answer`).toBeGreaterThan(0);
    }
  });

  it('hands node its arguments after `--`, so a random value that starts with `-` stays an argument', () => {
    for (const walkthrough of WALKTHROUGHS) {
      const text = walkthrough.lines.map((one) => one.text).join('\n');
      for (const call of text.matchAll(/\bnode -p?e '[^']*'([^\n)|<;]*)/g)) {
        const rest = (call[1] ?? '').trim();
        expect(rest === '' || rest.startsWith('-- '), `${walkthrough.file}: node … ${rest}`).toBe(true);
      }
    }
  });

  it('runs every block to the end, in a temporary directory, writing only files of mode 0600', () => {
    const failedAt = /__failed_at (\d+)/.exec(run.stderr)?.[1];
    const where = failedAt ? lineOf[Number(failedAt) - 1] || 'the harness' : 'no line';
    expect({ status: run.status, where }, run.stderr.slice(-2000)).toEqual({ status: 0, where: 'no line' });
    expect(existsSync(join(workDir, '.answers', 'end'))).toBe(true);
    // The blocks themselves write no file: answers stay in shell variables.
    expect(readdirSync(workDir).sort()).toEqual(['.answers', 'walkthroughs.sh']);
    for (const file of readdirSync(join(workDir, '.answers'))) {
      expect(statSync(join(workDir, '.answers', file)).mode & 0o777, file).toBe(0o600);
    }
    console.info(`walkthroughs ran in ${run.ms} ms`);
  });

  it.each(WALKTHROUGHS.map((w) => w.name))('answers as the %s walkthrough claims, at every claim', (name) => {
    const claims = expectations.map((e, index) => [e, answers[index]] as const).filter(([e]) => e.walkthrough === name);
    for (const [claimed, answer] of claims) expectAnswer(claimed, answer, stack.base);
  });
});

function expectAnswer(claimed: Expectation, answer: Answer | undefined, base: string) {
  const where = `${claimed.file}:${claimed.line}`;
  expect(answer, `${where}: no curl answered before this claim`).toBeDefined();
  if (!answer) return;
  expect(answer.status, where).toBe(claimed.status);
  for (const [name, value] of Object.entries(claimed.headers)) expect(answer.headers[name], `${where}: ${name}`).toBe(value);
  if (claimed.body !== undefined) {
    const local = claimed.body
      .replaceAll('http://localhost:3000', base)
      .replaceAll(encodeURIComponent('http://localhost:3000'), encodeURIComponent(base));
    expect(bodyPattern(local).test(answer.last), `${where}: ${withoutTokens(answer.last)}`).toBe(true);
  }
}

/** An answer fit for a failure message: the tokens it carries replaced. */
const withoutTokens = (answer: string) => answer.replace(/"(token|refreshToken|access_token|refresh_token)":"[^"]*"/g, '"$1":"<token>"');
