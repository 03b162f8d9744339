import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { isFormRequest } from '../../oauth/errors';

/** How the body came: the OAuth endpoints answer form requests in RFC format. */
export type BodyFormat = 'json' | 'form';

/** What {@link bodyFormat} adds to the event. */
export interface BodyFormatEvent {
  bodyFormat: BodyFormat;
}

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

function isBlank(event: APIGatewayProxyEventV2): boolean {
  if (!event.body) return true;
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  return text.trim() === '';
}

/**
 * Decides, before middy's body parsers run, how the body is read: as a form when it comes
 * form-encoded to a route that takes forms (the OAuth endpoints), otherwise as JSON,
 * whatever content type the request names, or none (there is no 415 for JSON routes).
 * The parsers see the decision as the request's content type, and an empty JSON body
 * reads as `{}`, so that a route without a body schema takes a request without a body.
 */
export function bodyFormat(acceptForm: boolean): MiddlewareObj<APIGatewayProxyEventV2 & BodyFormatEvent> {
  return {
    before: ({ event }) => {
      const format: BodyFormat = acceptForm && isFormRequest(event) ? 'form' : 'json';
      event.bodyFormat = format;
      event.headers = { ...event.headers, 'content-type': format === 'form' ? FORM : JSON_TYPE };
      if (format === 'json' && isBlank(event)) {
        event.body = '{}';
        event.isBase64Encoded = false;
      }
    },
  };
}
