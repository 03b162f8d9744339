import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { ValidationError } from '../../errors';

/** The most a form of the hosted pages may weigh (a password of 1024 characters and the rest). */
export const MAX_FORM_BYTES = 8 * 1024;

const FORM = 'application/x-www-form-urlencoded';

/** The one refusal of a page's form (docs/api.md 11.8): it never names what the body held. */
export const invalidForm = () => new ValidationError('Invalid form body', { code: 'INVALID_FORM' });

function bodyText(event: APIGatewayProxyEventV2): string {
  if (event.body === undefined) return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

/** Whether a field comes twice: such a form is ambiguous, refused rather than guessed. */
function hasRepeatedField(text: string): boolean {
  const names = new Set<string>();
  for (const [name] of new URLSearchParams(text)) {
    if (names.has(name)) return true;
    names.add(name);
  }
  return false;
}

/**
 * Readies the body of a hosted page's request for middy's form parser: a POST must be an
 * `application/x-www-form-urlencoded` form of at most `maxBytes` ({@link MAX_FORM_BYTES}
 * unless the route says otherwise: a SAML response, docs/api.md 14.5), no field twice,
 * else 400 `Invalid form body`; the body of any other method is ignored (a browser sends
 * none) and reads as an empty form. It stands where a JSON route has the body limit and
 * the body format (lib/http/handler.ts).
 */
export function pageForm(maxBytes = MAX_FORM_BYTES): MiddlewareObj<APIGatewayProxyEventV2> {
  return {
    before: ({ event }) => {
      if (event.requestContext?.http?.method === 'POST') {
        const type = (event.headers?.['content-type'] ?? '').toLowerCase();
        const text = bodyText(event);
        if (!type.startsWith(FORM) || text.length > maxBytes || hasRepeatedField(text)) throw invalidForm();
        event.body = text;
      } else {
        event.body = '';
      }
      event.isBase64Encoded = false;
      event.headers = { ...event.headers, 'content-type': FORM };
    },
  };
}
