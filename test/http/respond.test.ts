import { describe, expect, it } from 'vitest';
import { type AppError, OAuthError, TooManyRequestsError, UnauthorizedError } from '../../lib/errors';
import { httpHandler } from '../../lib/http/handler';
import { document, ok, type Reply, redirect } from '../../lib/http/reply';
import * as z from '../../lib/zod';
import { call } from '../helpers/http';
import { chainDeps, failure, JSON_HEADERS, success } from './chain';

function route(
  handle: () => Promise<Reply>,
  options: { cacheControl?: string; formatError?: (error: AppError) => Reply | undefined } = {},
) {
  const { deps, lines } = chainDeps();
  const handler = httpHandler(deps, { identity: 'none', body: z.object({ password: z.optional(z.string()) }), ...options }, handle);
  return { handler, lines: () => lines.map((line) => JSON.parse(line)) };
}

const fail = (error: unknown) => async (): Promise<never> => {
  throw error;
};

describe('respond', () => {
  it('answers success with no-store, or the cache policy of the route, or the one of the reply', async () => {
    expect(await call(route(async () => ok({ a: 1 })).handler)).toEqual(success({ a: 1 }));
    expect(await call(route(async () => document({ keys: [] }), { cacheControl: 'public, max-age=300' }).handler)).toEqual({
      status: 200,
      headers: { ...JSON_HEADERS, 'Cache-Control': 'public, max-age=300' },
      body: { keys: [] },
    });
    expect(await call(route(async () => ok({}, 201, { 'Cache-Control': 'no-store', Pragma: 'no-cache' })).handler)).toEqual({
      status: 201,
      headers: { ...JSON_HEADERS, Pragma: 'no-cache' },
      body: { success: true, data: {} },
    });
  });

  it('answers a redirect without a body or a content type', async () => {
    const { 'Content-Type': _, ...headers } = JSON_HEADERS;
    expect(await call(route(async () => redirect('https://app.example.com/cb?code=c')).handler)).toEqual({
      status: 302,
      headers: { ...headers, Location: 'https://app.example.com/cb?code=c' },
      body: undefined,
    });
  });

  it('answers an AppError with its status, message and headers, and logs nothing', async () => {
    const mfa = route(fail(new UnauthorizedError('MFA code required', { 'X-MFA-Methods': 'TOTP,SMS' }, { code: 'MFA_REQUIRED' })));
    expect(await call(mfa.handler)).toEqual(failure(401, 'MFA code required', { 'X-MFA-Methods': 'TOTP,SMS' }));
    const limited = route(fail(new TooManyRequestsError(19.2)));
    expect(await call(limited.handler)).toEqual(failure(429, 'Too many failed attempts', { 'Retry-After': '20' }));
    expect([...mfa.lines(), ...limited.lines()]).toEqual([]);
  });

  it("answers a body middy's JSON parser refused with 400 Invalid JSON body, and never logs it", async () => {
    const { handler, lines } = route(async () => ok({}));
    expect(await call(handler, { body: '{"password":"hunter2-secret",' })).toEqual(failure(400, 'Invalid JSON body'));
    expect(lines()).toEqual([]);
  });

  it("answers in the route's error format where it gives one, else in the envelope", async () => {
    const formatError = (error: AppError) =>
      error instanceof OAuthError ? document({ error: error.oauthCode }, error.statusCode, { Pragma: 'no-cache' }) : undefined;
    expect(await call(route(fail(new OAuthError(400, 'Invalid grant', 'invalid_grant')), { formatError }).handler)).toEqual({
      status: 400,
      headers: { ...JSON_HEADERS, Pragma: 'no-cache' },
      body: { error: 'invalid_grant' },
    });
    expect(await call(route(fail(new UnauthorizedError()), { formatError }).handler)).toEqual(failure(401, 'Unauthorized'));
  });

  it.each([
    ['an Error', new Error('database exploded: secret detail'), 'Error', 'database exploded: secret detail'],
    ['a thrown string', 'a string', undefined, 'a string'],
  ])('answers %s with 500 Internal server error, and logs its cause with the request id', async (_, error, errorName, errorMessage) => {
    const { handler, lines } = route(fail(error));
    const response = await call(handler, { body: { password: 'hunter2-secret' } });
    expect(response).toEqual(failure(500, 'Internal server error'));
    expect(lines()).toEqual([
      {
        level: 'error',
        time: expect.any(String),
        event: 'unhandled_error',
        requestId: expect.stringMatching(/^req-/),
        ...(errorName ? { errorName, stack: expect.any(String) } : {}),
        errorMessage,
      },
    ]);
    expect(JSON.stringify(lines())).not.toContain('hunter2-secret');
  });

  it.each([
    ['a throttled database', Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' })],
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED' })],
  ])('answers %s with 503 Service unavailable and Retry-After', async (_, error) => {
    const { handler, lines } = route(fail(error));
    expect(await call(handler)).toEqual(failure(503, 'Service unavailable', { 'Retry-After': '1' }));
    expect(lines().map((line) => line.event)).toEqual(['dependency_unavailable']);
  });
});
