import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * Layers point down (docs/architecture.md): lib/http is transport and imports nothing of
 * the domain directories, and no module of lib/ reaches itself through its imports, type
 * imports included. Read from the import lines of lib/**\/*.ts(x).
 */

const LIB = join(__dirname, '../../lib');

function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) ? [relative(LIB, path)] : [];
  });
}

const files = new Set(sources(LIB));

/** The lib/ files a file imports (or re-exports from), by their path under lib/. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(LIB, file), 'utf8');
  const specifiers = [...text.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+'(\.[^']*)'/gms)].map((match) => match[1] ?? '');
  return specifiers.flatMap((specifier) => {
    const base = normalize(join(dirname(file), specifier));
    return [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].filter((candidate) => files.has(candidate)).slice(0, 1);
  });
}

const graph = new Map([...files].map((file) => [file, importsOf(file)]));

/** `http`, `oauth`, ...; a file directly in lib/ (errors, config, caller, ...) is shared by every layer. */
const directoryOf = (file: string) => (file.includes('/') ? file.split('/')[0] : undefined);

/** One cycle through `start`, if its imports lead back to it. */
function cycleFrom(start: string): string[] | undefined {
  const path: string[] = [];
  const seen = new Set<string>();
  const walk = (file: string): string[] | undefined => {
    if (file === start && path.length > 0) return [...path, file];
    if (seen.has(file)) return undefined;
    seen.add(file);
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      const found = walk(next);
      if (found) return found;
    }
    path.pop();
    return undefined;
  };
  return walk(start);
}

describe('the layers of lib/', () => {
  it('reads the import lines (the graph is not empty, and sees a known import)', () => {
    expect(graph.get('http/chain.ts')).toContain('http/respond.ts');
    expect(graph.get('oauth/errors.ts')).toContain('http/reply.ts');
  });

  it('keeps lib/http transport only: no import from a domain directory', () => {
    const upward = [...graph].flatMap(([file, imports]) =>
      directoryOf(file) === 'http'
        ? imports.filter((target) => ![undefined, 'http'].includes(directoryOf(target))).map((target) => `${file} -> ${target}`)
        : [],
    );
    expect(upward).toEqual([]);
  });

  it('has no import cycle', () => {
    const cycles = [...files].map(cycleFrom).filter((cycle) => cycle !== undefined);
    expect(cycles).toEqual([]);
  });
});
