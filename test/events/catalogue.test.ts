import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, type EventType } from '../../lib/events/catalogue';

/*
 * The catalogue (lib/events/catalogue.ts) and its documentation (docs/events.md, The
 * catalogue) hold together: every type is documented with an example of its `data`, and
 * every type is emitted by some change in lib/.
 */

const root = join(import.meta.dirname, '..', '..');

/**
 * Types whose emitting code and documentation are written in parallel branches: exempt
 * until they land. Once a listed type is both emitted and documented, the last test fails
 * until it is taken off this list, so the exemption cannot outlive its reason.
 */
const LANDING_ELSEWHERE: ReadonlySet<EventType> = new Set<EventType>([] satisfies EventType[]);

/** The text of every TypeScript file under lib/, the catalogue itself left out. */
function librarySource(): string {
  const files = readdirSync(join(root, 'lib'), { recursive: true, encoding: 'utf8' }).filter(
    (file) => file.endsWith('.ts') && file !== join('events', 'catalogue.ts'),
  );
  return files.map((file) => readFileSync(join(root, 'lib', file), 'utf8')).join('\n');
}

/**
 * The entries of docs/events.md's catalogue: each list item (a line starting `- `, with
 * the indented lines that continue it) and each fenced block, as text.
 */
function catalogueEntries(): string[] {
  const docs = readFileSync(join(root, 'docs', 'events.md'), 'utf8');
  const catalogue = docs.slice(docs.indexOf('## The catalogue'));
  const entries: string[] = [];
  let fenced: string[] | undefined;
  for (const line of catalogue.split('\n')) {
    if (line.startsWith('```')) {
      if (fenced) entries.push(fenced.join('\n'));
      fenced = fenced ? undefined : [];
    } else if (fenced) fenced.push(line);
    else if (line.startsWith('- ')) entries.push(line);
    else if (line.startsWith('  ') && entries.length > 0) entries[entries.length - 1] += `\n${line}`;
  }
  return entries;
}

/** The JSON examples of an entry: inline code that parses as an object with an actor, or a fenced JSON block. */
function examplesIn(entry: string): Array<Record<string, unknown>> {
  const candidates = [...entry.matchAll(/`(\{[^`]*\})`/g)].map((match) => match[1] ?? '');
  if (entry.trimStart().startsWith('{')) candidates.push(entry);
  return candidates.flatMap((text) => {
    try {
      const parsed: unknown = JSON.parse(text);
      return parsed !== null && typeof parsed === 'object' && 'actor' in parsed ? [parsed as Record<string, unknown>] : [];
    } catch {
      return [];
    }
  });
}

describe('the event catalogue (docs/events.md)', () => {
  const source = librarySource();
  const entries = catalogueEntries();
  const documented = (type: EventType) =>
    entries.some((entry) => (entry.includes(`\`${type}\``) || entry.includes(`"type": "${type}"`)) && examplesIn(entry).length > 0);
  const emitted = (type: EventType) => source.includes(`'${type}'`);
  const checked = EVENT_TYPES.filter((type) => !LANDING_ELSEWHERE.has(type));

  it.each(checked)('%s is documented with an example of its data', (type) => {
    expect(documented(type)).toBe(true);
  });

  it.each(checked)('%s is emitted by some change in lib/', (type) => {
    expect(emitted(type)).toBe(true);
  });

  it('every example is valid JSON with an actor of the envelope’s shape', () => {
    const examples = entries.flatMap(examplesIn);
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) {
      const actor = example.actor as { type?: unknown; id?: unknown };
      expect(Object.keys(actor).sort()).toEqual(['id', 'type']);
      expect(['user', 'client', 'scim', 'system']).toContain(actor.type);
      expect(actor.id === null || typeof actor.id === 'string').toBe(true);
    }
  });

  it('exempts no type that has landed: one both emitted and documented is taken off LANDING_ELSEWHERE', () => {
    expect([...LANDING_ELSEWHERE].filter((type) => emitted(type) && documented(type))).toEqual([]);
  });
});
