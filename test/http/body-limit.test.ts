import { describe, expect, it } from 'vitest';
import { httpHandler } from '../../lib/http/handler';
import { MAX_BODY_BYTES } from '../../lib/http/middlewares/body-limit';
import { ok } from '../../lib/http/reply';
import * as z from '../../lib/zod';
import { apiEvent, call } from '../helpers/http';
import { chainDeps, failure, identity, send, success } from './chain';

/** A JSON body of exactly `bytes` bytes: `{"name":"xx…"}`. */
const bodyOf = (bytes: number) => JSON.stringify({ name: 'x'.repeat(bytes - '{"name":""}'.length) });

function route() {
  const { deps } = chainDeps();
  return httpHandler(deps, { identity: 'required', body: z.object({ name: z.string() }) }, async ({ body }) =>
    ok({ length: body.name.length }),
  );
}

describe('bodyLimit', () => {
  it('takes a body of exactly 16 KiB', async () => {
    expect(MAX_BODY_BYTES).toBe(16 * 1024);
    expect(await call(route(), { identity, body: bodyOf(MAX_BODY_BYTES) })).toEqual(success({ length: MAX_BODY_BYTES - 11 }));
  });

  it('answers 413 Request body too large for one byte more, counting bytes, not characters', async () => {
    expect(await call(route(), { identity, body: bodyOf(MAX_BODY_BYTES + 1) })).toEqual(failure(413, 'Request body too large'));
    const multiByte = JSON.stringify({ name: 'ü'.repeat(8_200) });
    expect(multiByte.length).toBeLessThan(MAX_BODY_BYTES);
    expect(await call(route(), { identity, body: multiByte })).toEqual(failure(413, 'Request body too large'));
  });

  it('refuses before anything else: without identity and with a body that is not JSON, still 413', async () => {
    expect(await call(route(), { body: `{${'x'.repeat(MAX_BODY_BYTES)}` })).toEqual(failure(413, 'Request body too large'));
  });

  it('measures a base64 body decoded', async () => {
    const event = apiEvent({ identity, body: Buffer.from(bodyOf(MAX_BODY_BYTES)).toString('base64') });
    event.isBase64Encoded = true;
    expect(event.body?.length).toBeGreaterThan(MAX_BODY_BYTES);
    expect(await send(route(), event)).toEqual(success({ length: MAX_BODY_BYTES - 11 }));
    const over = apiEvent({ identity, body: Buffer.from(bodyOf(MAX_BODY_BYTES + 1)).toString('base64') });
    over.isBase64Encoded = true;
    expect(await send(route(), over)).toEqual(failure(413, 'Request body too large'));
  });
});
