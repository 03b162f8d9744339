import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The docs' walkthroughs as a script, and the answers they claim.
 *
 * A walkthrough is every ```sh block after a line `<!-- walkthrough: NAME -->` up to the
 * next heading of the same or a higher level than the section the marker is in. A section
 * opts in by carrying the marker. The walkthroughs of README.md and of every `.md` file under
 * `docs/` run in one bash, README.md first, then the docs files by path, each file's in its own
 * order, so a later one may use the variables of an earlier one (`walkthroughFiles`).
 *
 * An answer is claimed by a comment that starts with a status code, at the end of a
 * command or on a line of its own after it: `# 201 {"success":true,...}`,
 * `# 401 X-MFA-Methods: TOTP {...}`, `# 302 http://...`. It is checked against the last
 * `curl` run so far: the status; each `Name: value` header (exactly); and when a body
 * follows (text starting with `{`, `[` or `http`), the last line curl printed, where
 * `...` stands for any text. Any other text after the status is prose.
 */
export interface Expectation {
  /** The Markdown file of the comment, relative to the project. */
  file: string;
  /** Line (1-based) of the comment in that file. */
  line: number;
  walkthrough: string;
  status: number;
  headers: Record<string, string>;
  /** The body pattern, `...` for any text; undefined when the comment claims none. */
  body?: string;
}

export interface Walkthrough {
  name: string;
  /** The Markdown file it is in, relative to the project. */
  file: string;
  /** Each line of its blocks with its line number in that file. */
  lines: Array<{ line: number; text: string }>;
}

const MARKER = /^<!-- walkthrough: ([a-z0-9-]+) -->$/;
const HEADING = /^(#{1,6}) /;
const CLAIM_ALONE = /^\s*# (\d{3})\b(.*)$/;
const CLAIM_AFTER = /^(.*\S)\s+# (\d{3})\b(.*)$/;
const HEADER = /^[,;]?\s*([A-Za-z][A-Za-z0-9-]*): ([^\s,{]+)/;

/**
 * The Markdown files whose walkthroughs run, in running order: README.md, then every
 * `.md` under `docs/`, sorted by path.
 */
export function walkthroughFiles(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.md'))
    .map((path) => join('docs', path))
    .sort();
  return ['README.md', ...docs];
}

/** Every walkthrough of the project under `root`, in running order. */
export function projectWalkthroughs(root: string): Walkthrough[] {
  return walkthroughFiles(root).flatMap((file) => walkthroughsOf(readFileSync(join(root, file), 'utf8'), file));
}

/** The walkthroughs of one Markdown file, in order. */
export function walkthroughsOf(markdown: string, file = 'README.md'): Walkthrough[] {
  const found: Walkthrough[] = [];
  let current: { walkthrough: Walkthrough; level: number } | undefined;
  let level = 0;
  let inBlock: 'sh' | 'other' | undefined;
  markdown.split('\n').forEach((text, index) => {
    const line = index + 1;
    if (inBlock) {
      if (text.startsWith('```')) inBlock = undefined;
      else if (inBlock === 'sh' && current) current.walkthrough.lines.push({ line, text });
      return;
    }
    if (text.startsWith('```')) {
      inBlock = text === '```sh' ? 'sh' : 'other';
      return;
    }
    const heading = HEADING.exec(text);
    if (heading) {
      level = heading[1]!.length;
      if (current && level <= current.level) current = undefined;
      return;
    }
    const marker = MARKER.exec(text);
    if (marker) {
      current = { walkthrough: { name: marker[1]!, file, lines: [] }, level };
      found.push(current.walkthrough);
    }
  });
  return found;
}

function claim(walkthrough: string, file: string, line: number, status: string, rest: string): Expectation {
  const headers: Record<string, string> = {};
  let remaining = rest;
  for (let header = HEADER.exec(remaining); header; header = HEADER.exec(remaining)) {
    headers[header[1]!.toLowerCase()] = header[2]!;
    remaining = remaining.slice(header[0].length);
  }
  remaining = remaining.replace(/^[,;]?\s*/, '');
  const body = /^(\{|\[|https?:)/.test(remaining) ? remaining.trimEnd() : undefined;
  return { file, line, walkthrough, status: Number(status), headers, body };
}

/**
 * One bash script of the walkthroughs: `prelude`, then their lines with a call of
 * `__expect N` after every claim (N indexes the returned expectations) and `__end` last.
 * `lineOf` maps a script line back to its place in the docs (`file:line`; '' for the harness's own).
 */
export function scriptOf(walkthroughs: Walkthrough[], prelude: string[]) {
  const script = [...prelude];
  const lineOf: string[] = prelude.map(() => '');
  const expectations: Expectation[] = [];
  const push = (text: string, where: string) => {
    script.push(text);
    lineOf.push(where);
  };
  for (const { name, file, lines } of walkthroughs) {
    for (const { line: number, text } of lines) {
      const line = `${file}:${number}`;
      const alone = CLAIM_ALONE.exec(text);
      const after = alone ? undefined : CLAIM_AFTER.exec(text);
      if (alone) {
        push(text, line);
        expectations.push(claim(name, file, number, alone[1]!, alone[2]!));
      } else if (after) {
        push(after[1]!, line);
        expectations.push(claim(name, file, number, after[2]!, after[3]!));
      } else {
        push(text, line);
        continue;
      }
      push(`__expect ${expectations.length - 1}`, line);
    }
  }
  push('__end', '');
  return { script: `${script.join('\n')}\n`, lineOf, expectations };
}

/** A body pattern as a regular expression over a whole line (`...` for any text). */
export function bodyPattern(pattern: string): RegExp {
  const parts = pattern.split('...').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`, 's');
}
