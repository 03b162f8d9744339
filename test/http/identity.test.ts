import { describe, expect, it } from 'vitest';
import { httpHandler, type IdentityRule } from '../../lib/http/handler';
import { ok } from '../../lib/http/reply';
import type { Role } from '../../lib/users/user';
import * as z from '../../lib/zod';
import { call } from '../helpers/http';
import { chainDeps, failure, identity, success } from './chain';

function route(rule: IdentityRule, role?: Role) {
  const { deps } = chainDeps();
  return httpHandler(
    deps,
    { identity: rule, ...(role ? { role } : {}), body: z.object({ name: z.string().check(z.minLength(2)) }) },
    async ({ identity: caller }) => ok({ caller }),
  );
}

describe('identity', () => {
  it('hands a required identity to the handler', async () => {
    expect(await call(route('required'), { identity, body: { name: 'ok' } })).toEqual(success({ caller: identity }));
  });

  it.each([
    ['no token (no context)', {}],
    ['a context that is not a whole identity', { authorizerContext: { userId: 'u1' } }],
    [
      'an identity smuggled in with the serverless-offline override header',
      { identity, headers: { 'sls-offline-authorizer-override': '{}' } },
    ],
  ])('answers 401 Unauthorized for %s on a route that requires identity', async (_, spec) => {
    expect(await call(route('required'), { ...spec, body: { name: 'ok' } })).toEqual(failure(401, 'Unauthorized'));
  });

  it('answers 401 before looking at the body (docs/api.md 2)', async () => {
    expect(await call(route('required'), { body: '{bad' })).toEqual(failure(401, 'Unauthorized'));
    expect(await call(route('required'), { body: { name: 'x' } })).toEqual(failure(401, 'Unauthorized'));
  });

  it('answers 503 Service unavailable when the authorizer could not check the token, unless the route ignores identity', async () => {
    const unavailable = { authorizerContext: { authError: 'unavailable' }, body: { name: 'ok' } };
    expect(await call(route('required'), unavailable)).toEqual(failure(503, 'Service unavailable'));
    expect(await call(route('optional'), unavailable)).toEqual(failure(503, 'Service unavailable'));
    expect(await call(route('none'), unavailable)).toEqual(success({ caller: null }));
  });

  it('hands an optional identity over when there is one, null otherwise', async () => {
    expect(await call(route('optional'), { identity, body: { name: 'ok' } })).toEqual(success({ caller: identity }));
    expect(await call(route('optional'), { body: { name: 'ok' } })).toEqual(success({ caller: null }));
  });

  it('ignores the identity on a route without one', async () => {
    expect(await call(route('none'), { identity, body: { name: 'ok' } })).toEqual(success({ caller: null }));
  });

  it('answers 403 Permission denied for a missing role, before 401 and before 400', async () => {
    const admin = { ...identity, role: 'ADMIN' as const };
    expect(await call(route('required', 'ADMIN'), { identity: admin, body: { name: 'ok' } })).toEqual(success({ caller: admin }));
    expect(await call(route('required', 'ADMIN'), { identity, body: { name: 'ok' } })).toEqual(failure(403, 'Permission denied'));
    expect(await call(route('required', 'ADMIN'), { body: '{bad' })).toEqual(failure(403, 'Permission denied'));
    expect(await call(route('optional', 'ADMIN'), { identity, body: '[1]' })).toEqual(failure(403, 'Permission denied'));
  });
});
