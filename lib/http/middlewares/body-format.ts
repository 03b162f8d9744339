import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { UnsupportedContentTypeError, ValidationError } from '../../errors';

/** How the body came: the OAuth endpoints answer form requests in RFC format. */
export type BodyFormat = 'json' | 'form';

/** What {@link bodyFormat} adds to the event. */
export interface BodyFormatEvent {
  bodyFormat: BodyFormat;
}

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

/**
 * middy's form parser (node:querystring) reads the first 1,000 parameters and drops the
 * rest, a repeated one among them, which RFC 6749 3.1 has refused.
 */
const MAX_FORM_PARAMETERS = 1000;

/** Whether a request was made the RFC way: an `application/x-www-form-urlencoded` body. */
export function isFormRequest(event: APIGatewayProxyEventV2): boolean {
  const contentType = event.headers?.['content-type'] ?? '';
  return contentType.split(';')[0]?.trim().toLowerCase() === FORM;
}

function bodyText(event: APIGatewayProxyEventV2): string {
  if (!event.body) return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

/** `application/json` or a structured `application/*+json` type, whatever its parameters (a charset). */
function isJsonRequest(event: APIGatewayProxyEventV2): boolean {
  const mediaType = (event.headers?.['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return mediaType === JSON_TYPE || /^application\/[a-z0-9!#$&^_.-]+\+json$/.test(mediaType);
}

/**
 * Decides, before middy's body parsers run, how the body is read: as a form when it comes
 * form-encoded to a route that takes forms (the OAuth endpoints), as JSON when it says it
 * is JSON (`application/json` or `application/*+json`). A body of any other content type,
 * or of none, is refused with 415 `Unsupported content type` (docs/api.md 2), so that a
 * browser never sends one cross-origin without a CORS preflight; a request without a body
 * needs no content type, and reads as `{}`, so that a route without a body schema takes
 * it. The parsers see the decision as the request's content type. A form of more
 * parameters than the parser reads is refused (400 `Invalid form body: too many
 * parameters`).
 */
export function bodyFormat(acceptForm: boolean): MiddlewareObj<APIGatewayProxyEventV2 & BodyFormatEvent> {
  return {
    before: ({ event }) => {
      const format: BodyFormat = acceptForm && isFormRequest(event) ? 'form' : 'json';
      const empty = bodyText(event).trim() === '';
      if (format === 'json' && !empty && !isJsonRequest(event)) throw new UnsupportedContentTypeError();
      event.bodyFormat = format;
      event.headers = { ...event.headers, 'content-type': format === 'form' ? FORM : JSON_TYPE };
      if (format === 'form' && bodyText(event).split('&').length > MAX_FORM_PARAMETERS) {
        throw new ValidationError('Invalid form body: too many parameters', { code: 'INVALID_FORM' });
      }
      if (format === 'json' && empty) {
        event.body = '{}';
        event.isBase64Encoded = false;
      }
    },
  };
}
