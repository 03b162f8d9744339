import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../lib/errors';
import { OPENAPI_FILE, openApiDocument, operationDoc, serialize, VALIDATION_EXAMPLE } from '../../scripts/lib/openapi';
import { routesFromServerlessYml } from '../../scripts/lib/serverless-routes';

interface Operation {
  operationId: string;
  'x-doc-section': string;
  'x-authorizer': boolean;
  responses: Record<string, { content?: Record<string, { examples?: Record<string, { summary?: string; value: unknown }> }> }>;
}

/** docs/api.md by section number (`2`, `4.7`), each section's text with whitespace collapsed. */
function sections(markdown: string): Map<string, string> {
  const found = new Map<string, string>();
  let current: string | undefined;
  for (const line of markdown.split('\n')) {
    const heading = /^#{2,3} (\d+(?:\.\d+)?) /.exec(line)?.[1];
    if (heading) current = heading;
    if (current) found.set(current, `${found.get(current) ?? ''} ${line}`);
  }
  return new Map([...found].map(([section, text]) => [section, text.replace(/\s+/g, ' ')]));
}

/** The rows of docs/api.md's error-code table (section 2), by code. */
function errorCodeRows(markdown: string): Map<string, string> {
  const rows = markdown.split('\n').filter((line) => /^\| `[A-Z_]+` \|/.test(line));
  return new Map(rows.map((row) => [/^\| `([A-Z_]+)`/.exec(row)?.[1] ?? '', row]));
}

describe('docs/openapi.json', () => {
  let written: string;
  let operations: Array<{ route: string; operation: Operation }>;

  beforeAll(async () => {
    written = await readFile(OPENAPI_FILE, 'utf8');
    const paths = (JSON.parse(written) as { paths: Record<string, Record<string, Operation>> }).paths;
    operations = Object.entries(paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ route: `${method.toUpperCase()} ${path}`, operation })),
    );
  });

  it('is what `npm run openapi` generates from the code now', async () => {
    expect(written, 'docs/openapi.json is stale: run `npm run openapi`').toBe(serialize(await openApiDocument()));
  });

  it('documents every route of serverless.yml, with its function and authorizer, and no other', async () => {
    const { routes } = routesFromServerlessYml(await readFile('serverless.yml', 'utf8'));
    const documented = operations.map(({ route, operation }) => [route, operation.operationId, operation['x-authorizer']]);
    const routed = routes.map((route) => [`${route.method} ${route.path}`, route.functionName, route.authorizer]);
    expect(documented.sort()).toEqual(routed.sort());
  });

  it.each<[string, unknown, string]>([
    ['no operation', undefined, 'exports no `operation: OperationDoc` (lib/http/operation-doc.ts) to document it'],
    ['an operation without answers', { section: '4.1', summary: 'Ping', failures: [] }, 'exports no `operation: OperationDoc`'],
    [
      'an answer schema the generator does not know',
      { section: '4.1', summary: 'Ping', answers: [{ status: 200, description: 'Pong.', body: 'PongEnvelope' }], failures: [] },
      'answers with PongEnvelope, which RESPONSE_SCHEMAS does not name',
    ],
  ])('refuses a routed function with %s, naming its route and file', (_, exported, message) => {
    const route = { method: 'GET', path: '/ping', functionName: 'ping', bundle: 'ping', authorizer: false };
    expect(() => operationDoc(route, exported)).toThrow(
      `OpenAPI: serverless.yml routes GET /ping to ping, but functions/ping.ts ${message}`,
    );
  });

  it('lists only error messages that docs/api.md names in the operation’s section or in section 2', async () => {
    const prose = sections(await readFile('docs/api.md', 'utf8'));
    const missing: string[] = [];
    for (const { route, operation } of operations) {
      const section = operation['x-doc-section'];
      const text = `${prose.get(section) ?? ''} ${prose.get('2') ?? ''}`;
      for (const response of Object.values(operation.responses)) {
        for (const { examples = {} } of Object.values(response.content ?? {})) {
          for (const example of Object.values(examples)) {
            if (example.summary === VALIDATION_EXAMPLE) continue;
            const { error, error_description: description } = example.value as { error?: string; error_description?: string };
            const message = description ?? error ?? '';
            if (!text.includes(`\`${message}\``)) missing.push(`${route} (docs/api.md ${section}): ${message}`);
          }
        }
      }
    }
    expect([...new Set(missing)]).toEqual([]);
  });

  it('answers each envelope failure with a code whose row of the error-code table (docs/api.md 2) names its message and route', async () => {
    const rows = errorCodeRows(await readFile('docs/api.md', 'utf8'));
    const wrong: string[] = [];
    for (const { route, operation } of operations) {
      const section = operation['x-doc-section'];
      for (const response of Object.values(operation.responses)) {
        for (const { examples = {} } of Object.values(response.content ?? {})) {
          for (const example of Object.values(examples)) {
            const { error, code } = example.value as { error?: string; code?: string };
            if (code === undefined) continue;
            const row = rows.get(code) ?? '';
            const fromSchema = code === 'VALIDATION_FAILED' && /^[\w.]+: /.test(error ?? '');
            const message = fromSchema ? '<field path>: <message>' : error;
            const routes = row.split('|').at(-2) ?? '';
            const everyRoute = routes.includes('every');
            if (!row.includes(`\`${message}\``) || !(everyRoute || routes.includes(section))) {
              wrong.push(`${route} (${section}): ${code} ${message}`);
            }
          }
        }
      }
    }
    expect([...new Set(wrong)]).toEqual([]);
  });

  it('lists every code of ERROR_CODES in the error-code table of docs/api.md 2, and no other', async () => {
    expect([...errorCodeRows(await readFile('docs/api.md', 'utf8')).keys()].sort()).toEqual([...ERROR_CODES].sort());
  });

  it('cites only sections that docs/api.md has', async () => {
    const prose = sections(await readFile('docs/api.md', 'utf8'));
    const cited = [...written.matchAll(/docs\/api\.md (\d+(?:\.\d+)?)/g)].map((match) => match[1] ?? '');
    expect(cited.length).toBeGreaterThan(0);
    expect([...new Set(cited)].filter((section) => !prose.has(section))).toEqual([]);
  });
});
