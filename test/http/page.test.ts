import { h } from 'preact';
import { describe, expect, it } from 'vitest';
import { ConflictError } from '../../lib/errors';
import { hostedPage, page } from '../../lib/hosted/http';
import { ErrorPage } from '../../lib/hosted/pages';
import { httpHandler } from '../../lib/http/handler';
import type { Reply } from '../../lib/http/reply';
import * as z from '../../lib/zod';
import { call } from '../helpers/http';
import { chainDeps } from './chain';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const form = z.strictObject({ csrf: z.string().check(z.minLength(1)), name: z.optional(z.string().check(z.maxLength(16))) });
const errorPage = (status: number, message: string, headers: Record<string, string> = {}) => {
  // The whole page: it says the message and nothing of what the request held.
  const expected = page(status, ErrorPage({ message }), { headers });
  expect(expected.html).toContain(`<p class="error" role="alert">${message}</p>`);
  return { status, headers: expected.headers, body: expected.html };
};

function route(handle: (body: z.output<typeof form>) => Promise<Reply>) {
  const { deps, lines } = chainDeps();
  const handler = httpHandler(deps, { ...hostedPage, body: form }, ({ body }) => handle(body));
  return { handler, lines: () => lines.map((line) => JSON.parse(line)) };
}

const fail = (error: unknown) => async (): Promise<never> => {
  throw error;
};

describe('a hosted page on the middy chain', () => {
  it("keeps exactly the page's headers: neither the JSON security headers nor CORS touch them", async () => {
    const answer = page(200, h('p', null, 'hello'), { redirectUri: 'https://app.example.com/cb', scripts: ['run()'] });
    const { handler } = route(async () => answer);
    // From a front end CORS allows: a page is still not for other origins to read.
    const response = await call(handler, { headers: { ...FORM, origin: 'https://app.example.com' }, body: 'csrf=c' });
    expect(response).toEqual({ status: 200, headers: answer.headers, body: answer.html });
    expect(response.headers['Content-Security-Policy']).toMatch(
      /^default-src 'none'; style-src 'sha256-.+'; form-action 'self' https:\/\/app\.example\.com; frame-ancestors 'none'; base-uri 'none'; script-src 'sha256-.+'$/,
    );
    expect(response.headers['Referrer-Policy']).toBe('same-origin');
  });

  it('hands the handler the form as its schema outputs it, and a GET an empty form whatever its body', async () => {
    const seen: unknown[] = [];
    const { handler } = route(async (body) => {
      seen.push(body);
      return page(200, h('p', null, 'ok'));
    });
    expect((await call(handler, { headers: FORM, body: 'csrf=c%20d&name=ann' })).status).toBe(200);
    const optional = z.strictObject({ csrf: z.optional(z.string()) });
    const get = httpHandler(chainDeps().deps, { ...hostedPage, body: optional }, async ({ body }) => {
      seen.push(body);
      return page(200, h('p', null, 'ok'));
    });
    expect((await call(get, { method: 'GET', headers: { 'content-type': 'application/json' }, body: '{"csrf":1}' })).status).toBe(200);
    expect(seen).toEqual([{ csrf: 'c d', name: 'ann' }, {}]);
  });

  it.each([
    ['a JSON body', { body: { csrf: 'c' } }],
    ['no content type', { headers: {}, body: 'csrf=c' }],
    ['a repeated field', { body: 'csrf=c&name=a&name=b' }],
    ['a field too many', { body: 'csrf=c&role=ADMIN' }],
    ['a field too long', { body: `csrf=c&name=${'n'.repeat(17)}` }],
    ['a missing field', { body: 'name=ann' }],
    ['a form over 8 KiB', { body: `csrf=${'c'.repeat(8 * 1024)}` }],
    ['a form over 16 KiB (no 413: the page limit is the stricter)', { body: `csrf=${'c'.repeat(17 * 1024)}` }],
  ])(
    'answers %s with the error page 400 Invalid form body, naming nothing the body held',
    async (_, spec: { headers?: Record<string, string>; body: unknown }) => {
      const { handler, lines } = route(fail(new Error('the handler must not run')));
      const response = await call(handler, { headers: spec.headers ?? FORM, body: spec.body });
      expect(response).toEqual(errorPage(400, 'Invalid form body'));
      expect(lines()).toEqual([]);
    },
  );

  it('answers an AppError with the error page of its status, message and headers', async () => {
    const { handler } = route(fail(new ConflictError('Already done')));
    expect(await call(handler, { headers: FORM, body: 'csrf=c' })).toEqual(errorPage(409, 'Already done'));
  });

  it('answers anything else with the 500 page, or the 503 page with Retry-After when a dependency is down; the cause is logged only', async () => {
    const broken = route(fail(new Error('secret detail')));
    const response = await call(broken.handler, { headers: FORM, body: 'csrf=c' });
    expect(response).toEqual(errorPage(500, 'Internal server error'));
    expect(String(response.body)).not.toContain('secret detail');
    expect(broken.lines()).toMatchObject([{ level: 'error', event: 'unhandled_error' }]);
    const down = route(fail(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })));
    expect(await call(down.handler, { headers: FORM, body: 'csrf=c' })).toEqual(
      errorPage(503, 'Service unavailable', { 'Retry-After': '1' }),
    );
    expect(down.lines()).toMatchObject([{ level: 'error', event: 'dependency_unavailable' }]);
  });
});
