import { describe, expect, it } from 'vitest';
import { ForbiddenError } from '../../lib/errors';
import { httpHandler } from '../../lib/http/handler';
import { ok } from '../../lib/http/reply';
import type { Identity } from '../../lib/tokens/access-token';
import * as z from '../../lib/zod';
import { call } from '../helpers/http';
import { chainDeps, failure, identity, success } from './chain';

const body = z.object({ name: z.string().check(z.minLength(2)), nested: z.optional(z.object({ n: z.number() })) });
const query = z.object({ page: z.optional(z.coerce.number().check(z.int(), z.gte(1))) });

function route(authorize?: (caller: Identity | null, raw: Record<string, unknown>) => Promise<void>) {
  const { deps } = chainDeps();
  return httpHandler(deps, { identity: 'optional', body, query, ...(authorize ? { authorize } : {}) }, async (request) =>
    ok({ body: request.body, query: request.query }),
  );
}

describe('validate', () => {
  it('hands the handler what the schemas output: unknown fields dropped, query values coerced', async () => {
    expect(await call(route(), { body: { name: 'ok', extra: 'dropped' }, query: { page: '2', other: 'x' } })).toEqual(
      success({ body: { name: 'ok' }, query: { page: 2 } }),
    );
  });

  it('leaves an input without a schema undefined', async () => {
    const { deps } = chainDeps();
    const handler = httpHandler(deps, { identity: 'none' }, async (request) =>
      ok({ body: request.body ?? 'none', query: request.query ?? 'none' }),
    );
    expect(await call(handler, { body: { name: 'ok' }, query: { page: '1' } })).toEqual(success({ body: 'none', query: 'none' }));
  });

  it.each([
    ['a JSON array', '[1,2]', 'Invalid JSON body: expected an object'],
    ['a JSON string', '"name"', 'Invalid JSON body: expected an object'],
    ['a JSON number', '42', 'Invalid JSON body: expected an object'],
    ['JSON null', 'null', 'Invalid JSON body: expected an object'],
    ['a short field', { name: 'x' }, 'name: Too small: expected string to have >=2 characters'],
    ['a field of the wrong type', { name: 7 }, 'name: Invalid input: expected string, received number'],
    ['a nested field', { name: 'xy', nested: { n: 'one' } }, 'nested.n: Invalid input: expected number, received string'],
    ['a missing field', {}, 'name: Invalid input: expected string, received undefined'],
  ])('answers %s with 400 and the first failing field', async (_, sent, error) => {
    expect(await call(route(), { body: sent })).toEqual(failure(400, error));
  });

  it('lists every problem in fields (VALIDATION_FAILED), the message naming the first', async () => {
    const response = await call(route(), { body: { name: 7, nested: { n: 'one' } } });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      success: false,
      error: 'name: Invalid input: expected string, received number',
      code: 'VALIDATION_FAILED',
      fields: [
        { path: 'name', message: 'Invalid input: expected string, received number' },
        { path: 'nested.n', message: 'Invalid input: expected number, received string' },
      ],
    });
  });

  it('names the whole input `body` when it is at fault as a whole', async () => {
    const { deps } = chainDeps();
    const handler = httpHandler(
      deps,
      { identity: 'none', body: z.object({ a: z.string() }).check(z.refine(() => false, 'Nope')) },
      async () => ok({}),
    );
    expect((await call(handler, { body: { a: 'x' } })).body).toEqual({
      success: false,
      error: 'body: Nope',
      code: 'VALIDATION_FAILED',
      fields: [{ path: 'body', message: 'Nope' }],
    });
  });

  it('checks the query after the body', async () => {
    expect(await call(route(), { body: { name: 'ok' }, query: { page: '0' } })).toEqual(
      failure(400, 'page: Too small: expected number to be >=1'),
    );
    expect(await call(route(), { body: { name: 'x' }, query: { page: '0' } })).toEqual(
      failure(400, 'name: Too small: expected string to have >=2 characters'),
    );
  });

  it("runs the route's permission check on the raw body, after the object check and before the schemas", async () => {
    const seen: unknown[] = [];
    const handler = route(async (caller, raw) => {
      seen.push([caller?.userId ?? null, raw]);
      if (raw.name === 'forbidden' || caller === null) throw new ForbiddenError();
    });
    expect(await call(handler, { identity, body: { name: 'ok', extra: 1 } })).toEqual(success({ body: { name: 'ok' }, query: {} }));
    expect(await call(handler, { identity, body: { name: 'forbidden', nested: 'not an object' } })).toEqual(
      failure(403, 'Permission denied'),
    );
    expect(await call(handler, { body: { name: 'x' } })).toEqual(failure(403, 'Permission denied'));
    expect(await call(handler, { identity, body: '[1]' })).toEqual(failure(400, 'Invalid JSON body: expected an object'));
    expect(seen).toEqual([
      ['u1', { name: 'ok', extra: 1 }],
      ['u1', { name: 'forbidden', nested: 'not an object' }],
      [null, { name: 'x' }],
    ]);
  });
});
