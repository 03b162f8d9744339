import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bodyPattern, projectWalkthroughs, scriptOf, walkthroughFiles, walkthroughsOf } from '../helpers/walkthroughs';

const README = [
  '# Title',
  '```sh',
  'echo not marked',
  '```',
  '## Section',
  '<!-- walkthrough: first -->',
  '```sh',
  'curl -s $B/a   # 200 {"a":1,...}',
  '```',
  '### Sub-section (still the first)',
  '```sh',
  'curl -s $B/b',
  '# 401 X-MFA-Methods: TOTP {"code":"MFA_REQUIRED"}',
  '# 1. prose, not a claim',
  '# 200, always (prose after the status)',
  '```',
  '```ts',
  'const notShell = 1;',
  '```',
  '## Next section',
  '```sh',
  'echo outside any walkthrough',
  '```',
].join('\n');

describe('walkthrough extraction (test/helpers/walkthroughs.ts)', () => {
  it('takes the sh blocks after a marker up to the next heading of the same level', () => {
    expect(walkthroughsOf(README)).toEqual([
      {
        name: 'first',
        file: 'README.md',
        lines: [
          { line: 8, text: 'curl -s $B/a   # 200 {"a":1,...}' },
          { line: 12, text: 'curl -s $B/b' },
          { line: 13, text: '# 401 X-MFA-Methods: TOTP {"code":"MFA_REQUIRED"}' },
          { line: 14, text: '# 1. prose, not a claim' },
          { line: 15, text: '# 200, always (prose after the status)' },
        ],
      },
    ]);
  });

  it('reads each claim, and checks it right after its command', () => {
    const { script, expectations } = scriptOf(walkthroughsOf(README), ['set -eu']);
    expect(expectations).toEqual([
      { file: 'README.md', line: 8, walkthrough: 'first', status: 200, headers: {}, body: '{"a":1,...}' },
      {
        file: 'README.md',
        line: 13,
        walkthrough: 'first',
        status: 401,
        headers: { 'x-mfa-methods': 'TOTP' },
        body: '{"code":"MFA_REQUIRED"}',
      },
      { file: 'README.md', line: 15, walkthrough: 'first', status: 200, headers: {}, body: undefined },
    ]);
    expect(script.split('\n')).toEqual([
      'set -eu',
      'curl -s $B/a',
      '__expect 0',
      'curl -s $B/b',
      '# 401 X-MFA-Methods: TOTP {"code":"MFA_REQUIRED"}',
      '__expect 1',
      '# 1. prose, not a claim',
      '# 200, always (prose after the status)',
      '__expect 2',
      '__end',
      '',
    ]);
  });

  it('names the file and line of every script line it takes from the docs', () => {
    const { lineOf } = scriptOf(walkthroughsOf(README, 'docs/guides/x.md'), ['set -eu']);
    expect(lineOf).toEqual([
      '',
      'docs/guides/x.md:8',
      'docs/guides/x.md:8',
      'docs/guides/x.md:12',
      'docs/guides/x.md:13',
      'docs/guides/x.md:13',
      'docs/guides/x.md:14',
      'docs/guides/x.md:15',
      'docs/guides/x.md:15',
      '',
    ]);
  });

  it('collects README.md first, then every .md under docs/ by path, each with its own lines', () => {
    const root = mkdtempSync(join(tmpdir(), 'walkthrough-files-'));
    try {
      mkdirSync(join(root, 'docs', 'guides'), { recursive: true });
      const marked = (name: string) => `## ${name}\n<!-- walkthrough: ${name} -->\n\`\`\`sh\necho ${name}   # 200\n\`\`\`\n`;
      writeFileSync(join(root, 'README.md'), marked('readme'));
      writeFileSync(join(root, 'docs', 'zeta.md'), marked('zeta'));
      writeFileSync(join(root, 'docs', 'guides', 'alpha.md'), `# Alpha\n\n${marked('alpha')}`);
      writeFileSync(join(root, 'docs', 'guides', 'notes.txt'), marked('not-markdown'));
      expect(walkthroughFiles(root)).toEqual(['README.md', 'docs/guides/alpha.md', 'docs/zeta.md']);
      expect(projectWalkthroughs(root)).toEqual([
        { name: 'readme', file: 'README.md', lines: [{ line: 4, text: 'echo readme   # 200' }] },
        { name: 'alpha', file: 'docs/guides/alpha.md', lines: [{ line: 6, text: 'echo alpha   # 200' }] },
        { name: 'zeta', file: 'docs/zeta.md', lines: [{ line: 4, text: 'echo zeta   # 200' }] },
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it.each([
    ['{"a":1,...}', '{"a":1,"b":2}', true],
    ['{"a":1,...}', '{"a":2,"b":2}', false],
    ['{"a":1}', '{"a":1} and more', false],
    ['http://x/cb?code=...&state=xyz', 'http://x/cb?code=abc&state=xyz', true],
    ['http://x/cb?code=...&state=xyz', 'http://x/cb?code=abc&state=xyzw', false],
  ])('matches %s against %s: %s', (pattern, line, matches) => {
    expect(bodyPattern(pattern).test(line)).toBe(matches);
  });
});
