import { describe, expect, it } from 'vitest';
import { bodyPattern, scriptOf, walkthroughsOf } from '../helpers/walkthroughs';

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

describe('README walkthrough extraction (test/helpers/walkthroughs.ts)', () => {
  it('takes the sh blocks after a marker up to the next heading of the same level', () => {
    expect(walkthroughsOf(README)).toEqual([
      {
        name: 'first',
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
      { line: 8, walkthrough: 'first', status: 200, headers: {}, body: '{"a":1,...}' },
      { line: 13, walkthrough: 'first', status: 401, headers: { 'x-mfa-methods': 'TOTP' }, body: '{"code":"MFA_REQUIRED"}' },
      { line: 15, walkthrough: 'first', status: 200, headers: {}, body: undefined },
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
