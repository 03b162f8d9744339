import { describe, expect, it } from 'vitest';
import { readConfig } from '../../lib/config';
import { httpHandler } from '../../lib/http/handler';
import { ok } from '../../lib/http/reply';
import { createLogger } from '../../lib/log';
import * as z from '../../lib/zod';
import { call, type RequestSpec } from '../helpers/http';
import { chainDeps, failure, identity, success } from './chain';

function route(deps = chainDeps().deps) {
  return httpHandler(deps, { identity: 'required', body: z.object({ name: z.string() }) }, async ({ body }) => {
    if (body.name === 'boom') throw new Error('boom');
    return ok({ name: body.name });
  });
}

const CORS = { 'Access-Control-Allow-Origin': 'https://admin.example.com', 'Access-Control-Expose-Headers': 'X-MFA-Methods, Retry-After' };

describe('cors (@middy/http-cors, exposed to the configured front ends only)', () => {
  it.each<[string, RequestSpec, ReturnType<typeof success>]>([
    ['a success', { identity, body: { name: 'ok' } }, success({ name: 'ok' }, CORS)],
    ['a 401', { body: { name: 'ok' } }, failure(401, 'Unauthorized', CORS)],
    ['a 400', { identity, body: '{' }, failure(400, 'Invalid JSON body', CORS)],
    ['a 413', { body: 'x'.repeat(20_000) }, failure(413, 'Request body too large', CORS)],
    ['a 500', { identity, body: { name: 'boom' } }, failure(500, 'Internal server error', CORS)],
  ])('echoes an allowed origin on %s', async (_, spec, answer) => {
    expect(await call(route(), { ...spec, headers: { origin: 'https://admin.example.com' } })).toEqual(answer);
  });

  it.each([
    ['no origin', {}],
    ['another origin', { origin: 'https://evil.example.com' }],
    ['an allowed origin in other case', { origin: 'HTTPS://APP.EXAMPLE.COM' }],
    ['an allowed origin with a path', { origin: 'https://app.example.com/' }],
    ['the null origin', { origin: 'null' }],
  ])('sends no CORS header for %s, and still answers Vary: Origin', async (_, headers) => {
    expect(await call(route(), { identity, body: { name: 'ok' }, headers })).toEqual(success({ name: 'ok' }));
    expect(await call(route(), { body: { name: 'ok' }, headers })).toEqual(failure(401, 'Unauthorized'));
  });

  it('answers Vary: Origin with a single allowed origin too', async () => {
    const deps = { config: readConfig({ CORS_ALLOWED_ORIGINS: 'https://app.example.com' }), log: createLogger('error', () => {}) };
    expect(await call(route(deps), { identity, body: { name: 'ok' } })).toEqual(success({ name: 'ok' }));
    expect(await call(route(deps), { identity, body: { name: 'ok' }, headers: { origin: 'https://app.example.com' } })).toEqual(
      success(
        { name: 'ok' },
        { 'Access-Control-Allow-Origin': 'https://app.example.com', 'Access-Control-Expose-Headers': 'X-MFA-Methods, Retry-After' },
      ),
    );
  });
});
