import { describe, expect, it } from 'vitest';
import { ConflictError } from '../../lib/errors';
import { httpHandler } from '../../lib/http/handler';
import { ok } from '../../lib/http/reply';
import { createLogger } from '../../lib/log';
import * as z from '../../lib/zod';
import { failure } from '../helpers/failures';
import { apiEvent, call } from '../helpers/http';
import { config, identity, JSON_HEADERS, send, success } from './chain';

function route(options: Partial<Parameters<typeof httpHandler>[1]> = {}, handle?: () => Promise<never>) {
  const lines: string[] = [];
  const handler = httpHandler(
    { config, log: createLogger('debug', (line) => lines.push(line)) },
    {
      identity: 'required',
      body: z.object({ name: z.string().check(z.minLength(2)), nested: z.optional(z.object({ n: z.number() })) }),
      ...options,
    },
    handle ?? (async ({ body }) => ok({ echo: body })),
  );
  return { handler, lines };
}

describe('the middy chain', () => {
  it('passes the validated body to the handler and wraps the answer in the envelope', async () => {
    const response = await call(route().handler, { identity, body: { name: 'ok', extra: 'dropped' } });
    expect(response).toEqual({
      status: 200,
      // Exactly these: none of the security headers for HTML documents (Permissions-Policy, COEP, COOP, ...).
      headers: JSON_HEADERS,
      body: { success: true, data: { echo: { name: 'ok' } } },
    });
  });

  it("hands the handler the function's deps, with a logger whose lines carry the request id", async () => {
    const lines: string[] = [];
    const deps = { config, log: createLogger('debug', (line) => lines.push(line)), marker: { name: 'store' } };
    const handler = httpHandler(deps, { identity: 'none' }, async ({ deps: given }) => {
      given.log.info('handled', { same: given.marker === deps.marker && given.config === config });
      return ok({});
    });
    expect(await call(handler)).toEqual(success({}));
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      { level: 'info', time: expect.any(String), event: 'handled', requestId: expect.stringMatching(/^req-/), same: true },
    ]);
  });

  it.each([
    ['no identity and bad input', { body: '{bad' }, 401, 'Unauthorized'],
    ['no identity and an oversized body', { body: 'x'.repeat(20_000) }, 413, 'Request body too large'],
    ['a body that is not JSON', { identity, body: '{"name":' }, 400, 'Invalid JSON body'],
    ['a JSON array', { identity, body: '[1,2]' }, 400, 'Invalid JSON body: expected an object'],
    ['a JSON string', { identity, body: '"name"' }, 400, 'Invalid JSON body: expected an object'],
    ['a body over 16 KiB', { identity, body: JSON.stringify({ name: 'x'.repeat(17_000) }) }, 413, 'Request body too large'],
    ['a short field', { identity, body: { name: 'x' } }, 400, 'name: Too small: expected string to have >=2 characters'],
    [
      'a nested field',
      { identity, body: { name: 'xy', nested: { n: 'one' } } },
      400,
      'nested.n: Invalid input: expected number, received string',
    ],
    ['no body', { identity }, 400, 'name: Invalid input: expected string, received undefined'],
  ])('answers %s with %i %s', async (_, spec, status, error) => {
    const response = await call(route().handler, spec);
    expect(response.status).toBe(status);
    expect(response.body).toEqual(failure(error));
    expect(response.headers['Cache-Control']).toBe('no-store');
  });

  it('refuses the body-size limit before reading anything else (base64 bodies measured decoded)', async () => {
    const event = apiEvent({ identity, body: Buffer.from(JSON.stringify({ name: 'ok' })).toString('base64') });
    event.isBase64Encoded = true;
    expect(await send(route().handler, event)).toEqual(success({ echo: { name: 'ok' } }));
  });

  it('answers 403 Permission denied for a role-restricted route without the role, or without identity', async () => {
    const { handler } = route({ role: 'ADMIN', identity: 'optional' });
    for (const spec of [{ identity, body: '{bad' }, { body: '{bad' }]) {
      expect(await call(handler, spec)).toMatchObject({ status: 403, body: failure('Permission denied') });
    }
  });

  it('ignores an identity smuggled in with the serverless-offline override header', async () => {
    const response = await call(route().handler, { identity, body: { name: 'ok' }, headers: { 'sls-offline-authorizer-override': '{}' } });
    expect(response).toMatchObject({ status: 401, body: failure('Unauthorized') });
  });

  it('answers an AppError with its status and message', async () => {
    const { handler } = route({}, async () => {
      throw new ConflictError('OAuth2 client already exists', { code: 'CLIENT_EXISTS' });
    });
    expect(await call(handler, { identity, body: { name: 'ok' } })).toMatchObject({
      status: 409,
      body: failure('OAuth2 client already exists'),
    });
  });

  it('answers anything unexpected with 500 Internal server error and logs the cause with the request id, not the body', async () => {
    const { handler, lines } = route({}, async () => {
      throw new Error('database exploded: secret detail');
    });
    const response = await call(handler, { identity, body: { name: 'hunter2-password' } });
    expect(response).toMatchObject({ status: 500, body: failure('Internal server error') });
    expect(JSON.stringify(response.body)).not.toContain('exploded');
    const logged = lines.map((line) => JSON.parse(line));
    expect(logged).toContainEqual(
      expect.objectContaining({
        level: 'error',
        event: 'unhandled_error',
        requestId: expect.stringMatching(/^req-/),
        errorMessage: 'database exploded: secret detail',
      }),
    );
    expect(lines.join('\n')).not.toContain('hunter2-password');
  });

  it('answers 503 Service unavailable with Retry-After when a dependency is down', async () => {
    const { handler, lines } = route({}, async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED' });
    });
    const response = await call(handler, { identity, body: { name: 'ok' } });
    expect(response).toMatchObject({
      status: 503,
      headers: { 'Retry-After': '1' },
      body: failure('Service unavailable'),
    });
    expect(lines.map((line) => JSON.parse(line).event)).toEqual(['dependency_unavailable']);
  });

  it('adds CORS headers for allowed origins only', async () => {
    const allowed = await call(route().handler, { identity, body: { name: 'ok' }, headers: { origin: 'https://admin.example.com' } });
    expect(allowed.headers).toMatchObject({
      'Access-Control-Allow-Origin': 'https://admin.example.com',
      'Access-Control-Expose-Headers': 'X-MFA-Methods, Retry-After',
      Vary: 'Origin',
    });
    const denied = await call(route().handler, { identity, body: { name: 'ok' }, headers: { origin: 'https://evil.example.com' } });
    expect(denied.headers['Access-Control-Allow-Origin']).toBeUndefined();
    const failed = await call(route().handler, { body: { name: 'ok' }, headers: { origin: 'https://app.example.com' } });
    expect(failed.headers['Access-Control-Allow-Origin']).toBe('https://app.example.com');
  });
});
