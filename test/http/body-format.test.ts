import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { httpHandler } from '../../lib/http/handler';
import { ok } from '../../lib/http/reply';
import { NO_CACHE, rfcErrorFormat } from '../../lib/oauth/errors';
import * as z from '../../lib/zod';
import { apiEvent } from '../helpers/http';
import { chainDeps, failure, JSON_HEADERS, send, success } from './chain';

const FORM = 'application/x-www-form-urlencoded';

/** A route like the OAuth endpoints (JSON or form bodies, RFC-format errors for forms), or like the others (JSON only). */
function route(acceptForm: boolean) {
  const { deps } = chainDeps();
  return httpHandler(
    deps,
    {
      identity: 'none',
      body: z.object({ grant_type: z.optional(z.string()), scope: z.optional(z.string()) }),
      acceptForm,
      ...(acceptForm ? { formatError: rfcErrorFormat } : {}),
    },
    async ({ body, bodyFormat }) => ok({ body, bodyFormat }),
  );
}

/** An event with exactly this content type (none when undefined) and body. */
function request(contentType: string | undefined, body?: string, base64 = false): APIGatewayProxyEventV2 {
  const event = apiEvent(body === undefined ? {} : { body: base64 ? Buffer.from(body).toString('base64') : body });
  delete event.headers['content-type'];
  if (contentType !== undefined) event.headers['content-type'] = contentType;
  event.isBase64Encoded = base64;
  return event;
}

const rfcFailure = (error: string, description: string) => ({
  status: 400,
  headers: { ...JSON_HEADERS, ...NO_CACHE },
  body: { error, error_description: description },
});

describe("bodyFormat and middy's body parsers", () => {
  it.each([
    ['application/json', 'application/json'],
    ['application/json with a charset', 'application/json; charset=utf-8'],
    ['upper case and spaces', ' Application/JSON ;charset=UTF-8'],
    ['a structured +json type', 'application/merge-patch+json'],
  ])('reads a body with %s as JSON', async (_, contentType) => {
    const body = { grant_type: 'client_credentials' };
    for (const acceptForm of [false, true]) {
      expect(await send(route(acceptForm), request(contentType, JSON.stringify(body)))).toEqual(success({ body, bodyFormat: 'json' }));
    }
  });

  it.each([
    ['no content type', undefined, true],
    ['text/plain', 'text/plain', true],
    ['text/plain with a charset', 'text/plain;charset=UTF-8', true],
    ['multipart/form-data', 'multipart/form-data; boundary=x', true],
    ['text/json', 'text/json', true],
    ['application/jsonp', 'application/jsonp', true],
    ['a form content type on a route without forms', FORM, false],
  ])('answers 415 Unsupported content type (UNSUPPORTED_CONTENT_TYPE) for a JSON body with %s', async (_, contentType, acceptForm) => {
    const answer = await send(route(acceptForm), request(contentType, JSON.stringify({ grant_type: 'client_credentials' })));
    expect(answer).toEqual(failure(415, 'Unsupported content type'));
    expect(answer.body.code).toBe('UNSUPPORTED_CONTENT_TYPE');
  });

  it.each([
    ['no body', undefined, false],
    ['an empty body', '', false],
    ['a blank body', ' \n\t', false],
    ['an empty base64 body', '', true],
    ['a blank base64 body', '  ', true],
  ])('reads %s as {}, whatever content type it names or none', async (_, body, base64) => {
    for (const contentType of ['application/json', undefined, 'text/plain']) {
      expect(await send(route(true), request(contentType, body, base64))).toEqual(success({ body: {}, bodyFormat: 'json' }));
    }
  });

  it('decodes a base64 JSON body', async () => {
    expect(await send(route(true), request('application/json', '{"scope":"é"}', true))).toEqual(
      success({ body: { scope: 'é' }, bodyFormat: 'json' }),
    );
  });

  it.each([
    ['text that is not JSON', '{"grant_type":'],
    ['a byte-order mark', '\ufeff{}'],
    // @middy/http-json-body-parser refuses these keys (prototype pollution); before it they were dropped by validation.
    ['a __proto__ key', '{"__proto__":{"admin":true}}'],
    ['a constructor.prototype key', '{"constructor":{"prototype":{"admin":true}}}'],
  ])('answers 400 Invalid JSON body for %s', async (_, body) => {
    expect(await send(route(true), request('application/json', body))).toEqual(failure(400, 'Invalid JSON body'));
  });

  it.each([
    ['application/x-www-form-urlencoded', FORM],
    ['a charset', `${FORM}; charset=UTF-8`],
    ['upper case', 'Application/X-WWW-Form-Urlencoded'],
    ['spaces around it', ` ${FORM} ; charset=UTF-8`],
  ])('reads a form body on a route that takes forms, content type with %s', async (_, contentType) => {
    expect(await send(route(true), request(contentType, 'grant_type=client_credentials&scope=a+b%21&other=dropped'))).toEqual(
      success({ body: { grant_type: 'client_credentials', scope: 'a b!' }, bodyFormat: 'form' }),
    );
  });

  it('reads an empty form as {}', async () => {
    expect(await send(route(true), request(FORM))).toEqual(success({ body: {}, bodyFormat: 'form' }));
    expect(await send(route(true), request(FORM, ''))).toEqual(success({ body: {}, bodyFormat: 'form' }));
  });

  it('keeps a repeated form parameter as a list, so that validation refuses it (RFC 6749 3.1), in RFC format', async () => {
    expect(await send(route(true), request(FORM, 'grant_type=client_credentials&grant_type=refresh_token'))).toEqual(
      rfcFailure('invalid_request', 'grant_type: Invalid input: expected string, received array'),
    );
  });

  it('refuses a form of more parameters than the parser reads, which would drop a repeated one (RFC 6749 3.1)', async () => {
    const fillers = (count: number) => 'x=1&'.repeat(count);
    expect(await send(route(true), request(FORM, `grant_type=a&${fillers(998)}scope=s`))).toEqual(
      success({ body: { grant_type: 'a', scope: 's' }, bodyFormat: 'form' }),
    );
    expect(await send(route(true), request(FORM, `grant_type=a&${fillers(998)}grant_type=b`))).toEqual(
      rfcFailure('invalid_request', 'grant_type: Invalid input: expected string, received array'),
    );
    expect(await send(route(true), request(FORM, `grant_type=a&${fillers(999)}grant_type=b`))).toEqual(
      rfcFailure('invalid_request', 'Invalid form body: too many parameters'),
    );
  });
});
