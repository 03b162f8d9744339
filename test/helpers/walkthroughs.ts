/**
 * The README's walkthroughs as a script, and the answers they claim.
 *
 * A walkthrough is every ```sh block after a line `<!-- walkthrough: NAME -->` up to the
 * next heading of the same or a higher level than the section the marker is in. A section
 * opts in by carrying the marker. All walkthroughs run in README order in one bash, so a
 * later one may use the variables of an earlier one.
 *
 * An answer is claimed by a comment that starts with a status code, at the end of a
 * command or on a line of its own after it: `# 201 {"success":true,...}`,
 * `# 401 X-MFA-Methods: TOTP {...}`, `# 302 http://...`. It is checked against the last
 * `curl` run so far: the status; each `Name: value` header (exactly); and when a body
 * follows (text starting with `{`, `[` or `http`), the last line curl printed, where
 * `...` stands for any text. Any other text after the status is prose.
 */
export interface Expectation {
  /** README line (1-based) of the comment. */
  line: number;
  walkthrough: string;
  status: number;
  headers: Record<string, string>;
  /** The body pattern, `...` for any text; undefined when the comment claims none. */
  body?: string;
}

export interface Walkthrough {
  name: string;
  /** Each line of its blocks with its README line number. */
  lines: Array<{ line: number; text: string }>;
}

const MARKER = /^<!-- walkthrough: ([a-z0-9-]+) -->$/;
const HEADING = /^(#{1,6}) /;
const CLAIM_ALONE = /^\s*# (\d{3})\b(.*)$/;
const CLAIM_AFTER = /^(.*\S)\s+# (\d{3})\b(.*)$/;
const HEADER = /^[,;]?\s*([A-Za-z][A-Za-z0-9-]*): ([^\s,{]+)/;

/** The walkthroughs of a README, in order. */
export function walkthroughsOf(readme: string): Walkthrough[] {
  const found: Walkthrough[] = [];
  let current: { walkthrough: Walkthrough; level: number } | undefined;
  let level = 0;
  let inBlock: 'sh' | 'other' | undefined;
  readme.split('\n').forEach((text, index) => {
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
      current = { walkthrough: { name: marker[1]!, lines: [] }, level };
      found.push(current.walkthrough);
    }
  });
  return found;
}

function claim(walkthrough: string, line: number, status: string, rest: string): Expectation {
  const headers: Record<string, string> = {};
  let remaining = rest;
  for (let header = HEADER.exec(remaining); header; header = HEADER.exec(remaining)) {
    headers[header[1]!.toLowerCase()] = header[2]!;
    remaining = remaining.slice(header[0].length);
  }
  remaining = remaining.replace(/^[,;]?\s*/, '');
  const body = /^(\{|\[|https?:)/.test(remaining) ? remaining.trimEnd() : undefined;
  return { line, walkthrough, status: Number(status), headers, body };
}

/**
 * One bash script of the walkthroughs: `prelude`, then their lines with a call of
 * `__expect N` after every claim (N indexes the returned expectations) and `__end` last.
 * `lineOf` maps a script line back to the README line.
 */
export function scriptOf(walkthroughs: Walkthrough[], prelude: string[]) {
  const script = [...prelude];
  const lineOf: number[] = prelude.map(() => 0);
  const expectations: Expectation[] = [];
  const push = (text: string, line: number) => {
    script.push(text);
    lineOf.push(line);
  };
  for (const { name, lines } of walkthroughs) {
    for (const { line, text } of lines) {
      const alone = CLAIM_ALONE.exec(text);
      const after = alone ? undefined : CLAIM_AFTER.exec(text);
      if (alone) {
        push(text, line);
        expectations.push(claim(name, line, alone[1]!, alone[2]!));
      } else if (after) {
        push(after[1]!, line);
        expectations.push(claim(name, line, after[2]!, after[3]!));
      } else {
        push(text, line);
        continue;
      }
      push(`__expect ${expectations.length - 1}`, line);
    }
  }
  push('__end', 0);
  return { script: `${script.join('\n')}\n`, lineOf, expectations };
}

/** A body pattern as a regular expression over a whole line (`...` for any text). */
export function bodyPattern(pattern: string): RegExp {
  const parts = pattern.split('...').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`, 's');
}
