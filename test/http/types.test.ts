import { describe, expect, it } from 'vitest';
import { OAUTH_ERROR_CODES, OAuthError } from '../../lib/errors';
import { httpHandler } from '../../lib/http/handler';
import { document, ok, redirect } from '../../lib/http/reply';
import * as z from '../../lib/zod';
import { call } from '../helpers/http';
import { chainDeps } from './chain';

/*
 * Type tests: tsc (npx tsc --noEmit) is what runs them. Each `@ts-expect-error` fails the
 * compilation if the line under it ever compiles, that is if a wrong shape is accepted.
 */

describe('closed OAuth error codes', () => {
  it('takes only the RFC codes the endpoints answer with', () => {
    expect(OAUTH_ERROR_CODES.map((code) => new OAuthError(400, 'x', code).oauthCode)).toEqual(OAUTH_ERROR_CODES);
    // @ts-expect-error: not an RFC 6749 5.2 code
    const refused = () => new OAuthError(400, 'x', 'invalid_grant_type');
    expect(refused).toBeTypeOf('function');
  });
});

describe('typed answers', () => {
  const deps = chainDeps().deps;
  const response = z.strictObject({ name: z.string(), shops: z.array(z.string()) });

  it("holds a route's ok() to the data its response schema describes", async () => {
    const right = httpHandler(deps, { identity: 'none', response }, async () => ok({ name: 'ann', shops: [] }, 201));
    // A redirect carries no body: it fits a route of any response.
    const moved = httpHandler(deps, { identity: 'none', response }, async () => redirect('https://app.example.com/'));
    // @ts-expect-error: a field the schema does not describe (a hash on a stored record)
    const leaking = httpHandler(deps, { identity: 'none', response }, async () => ok({ name: 'ann', shops: [], passwordHash: 'h' }));
    // @ts-expect-error: a field missing
    const missing = httpHandler(deps, { identity: 'none', response }, async () => ok({ name: 'ann' }));
    // @ts-expect-error: a field of the wrong type
    const wrong = httpHandler(deps, { identity: 'none', response }, async () => ok({ name: 'ann', shops: 'all' }));
    // @ts-expect-error: a document outside the envelope
    const bare = httpHandler(deps, { identity: 'none', response }, async () => document({ name: 'ann', shops: [] }));
    // A route without a response schema answers what it likes.
    const free = httpHandler(deps, { identity: 'none' }, async () => ok({ anything: true }));
    expect((await call(right)).body).toEqual({ success: true, data: { name: 'ann', shops: [] } });
    expect((await call(moved)).status).toBe(302);
    expect([leaking, missing, wrong, bare, free].every((handler) => typeof handler === 'function')).toBe(true);
  });
});
