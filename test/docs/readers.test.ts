import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The repository explains itself: README.md is a front door of at most 250 lines (the
 * guides, decisions and figures live under docs/), and a code comment cites a file of
 * docs/, never an issue number a reader of the repository cannot look up.
 */
const README_MAX_LINES = 250;
const CODE_DIRS = ['lib', 'functions'];

/** Every comment of a TypeScript source: line comments and block comments, with the line each starts on. */
function commentsOf(source: string): Array<{ line: number; text: string }> {
  const comments: Array<{ line: number; text: string }> = [];
  // Strings and template literals are matched so that a `//` inside one is not taken for a comment.
  const tokens = /'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`|\/\/[^\n]*|\/\*[\s\S]*?\*\//g;
  for (const match of source.matchAll(tokens)) {
    const text = match[0];
    if (!text.startsWith('//') && !text.startsWith('/*')) continue;
    comments.push({ line: source.slice(0, match.index).split('\n').length, text });
  }
  return comments;
}

/** Whether a comment names an issue: "issue 13", "Issue 16, item 7", "issues 3 and 4", "#13". */
const namesAnIssue = (comment: string) => /\bissues? #?\d+|(?:^|[\s(])#\d+\b/i.test(comment);

const sources = (dir: string) =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((path) => /\.(ts|tsx|mts|mjs)$/.test(path))
    .map((path) => join(dir, path));

describe('docs for their readers', () => {
  it(`keeps README.md at ${README_MAX_LINES} lines or fewer`, () => {
    const lines = readFileSync('README.md', 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('finds no comment in lib/ or functions/ that names an issue number', () => {
    const offending = CODE_DIRS.flatMap(sources).flatMap((file) =>
      commentsOf(readFileSync(file, 'utf8'))
        .filter(({ text }) => namesAnIssue(text))
        .map(({ line, text }) => `${file}:${line} ${text.split('\n')[0]}`),
    );
    expect(offending).toEqual([]);
  });

  it.each([
    ['// (issue 16, item 7)', true],
    ['/** Rotation (issue 19): add a key */', true],
    ['// Issue 12: a deleted client', true],
    ['/* see #13 */', true],
    ['// issues 3 and 4', true],
    ['// docs/api.md 10.2', false],
    ['// the issuer of the token', false],
    ['/** RFC 8707 section 2 */', false],
  ])('reads %s as naming an issue: %s', (comment, names) => {
    expect(namesAnIssue(comment)).toBe(names);
  });

  it('takes comments, not strings, for comments', () => {
    const source = [
      "const url = 'http://example.com/#1'; // a comment",
      'const css = "color:#123"; /* block',
      '   comment */ const t = `// not a comment`;',
    ].join('\n');
    expect(commentsOf(source)).toEqual([
      { line: 1, text: '// a comment' },
      { line: 2, text: '/* block\n   comment */' },
    ]);
  });
});
