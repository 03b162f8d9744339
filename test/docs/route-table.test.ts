import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { routesFromServerlessYml } from '../../scripts/lib/serverless-routes';

/** One documented route: `METHOD /path  functions/<file>.ts  authorizer yes|no`. */
type RouteRow = string;

/**
 * The rows of docs/api.md's route table (section 1), one per route: a row naming two
 * routes (`GET /oauth2/userinfo`, `POST /oauth2/userinfo`) counts as two.
 */
function documentedRoutes(markdown: string): RouteRow[] {
  const section = /^## 1 Routes\n([\s\S]*?)^## 2 /m.exec(markdown)?.[1];
  if (!section) throw new Error('docs/api.md: no section 1 Routes');
  const rows = section.split('\n').filter((line) => /^\| [\d.]+ \|/.test(line));
  return rows.flatMap((row) => {
    const [, , , route = '', file = '', authorizer = ''] = row.split('|').map((cell) => cell.trim());
    const fileName = /^`(functions\/[a-z0-9-]+\.ts)`$/.exec(file)?.[1] ?? `unreadable function cell: ${file}`;
    const routes = [...route.matchAll(/`([A-Z]+) (\/[^`]*)`/g)].map(([, method, path]) => `${method} ${path}`);
    if (routes.length === 0) return [`unreadable route cell: ${route}`];
    return routes.map((each) => `${each}  ${fileName}  authorizer ${authorizer}`);
  });
}

describe('docs/api.md section 1 (the route table)', () => {
  it('lists every route of serverless.yml with its method, path, function file and authorizer, and no other', async () => {
    const [markdown, yml] = await Promise.all([readFile('docs/api.md', 'utf8'), readFile('serverless.yml', 'utf8')]);
    const { routes } = routesFromServerlessYml(yml);
    const served = routes.map(
      (route) => `${route.method} ${route.path}  functions/${route.bundle}.ts  authorizer ${route.authorizer ? 'yes' : 'no'}`,
    );
    expect(documentedRoutes(markdown).sort()).toEqual(served.sort());
  });

  it('reads a row with two routes as two, and a row it cannot read as a difference', () => {
    const markdown = [
      '## 1 Routes',
      '| § | operation | route | function | authorizer | caller |',
      '|---|---|---|---|---|---|',
      '| 11.2 | userInfo | `GET /oauth2/userinfo`, `POST /oauth2/userinfo` | `functions/oauth2-userinfo.ts` | no | anyone |',
      '| 4.13 | revoke | `POST /oauth2/revoke` (RFC 7009) | `functions/oauth2-revoke.ts` | no | OAuth client |',
      '| 4.9 | me | GET /auth/me | functions/me.ts | yes | session token |',
      '## 2 Every response',
    ].join('\n');
    expect(documentedRoutes(markdown)).toEqual([
      'GET /oauth2/userinfo  functions/oauth2-userinfo.ts  authorizer no',
      'POST /oauth2/userinfo  functions/oauth2-userinfo.ts  authorizer no',
      'POST /oauth2/revoke  functions/oauth2-revoke.ts  authorizer no',
      'unreadable route cell: GET /auth/me',
    ]);
  });
});
