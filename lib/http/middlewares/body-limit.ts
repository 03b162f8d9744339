import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { PayloadTooLargeError } from '../../errors';

/** docs/api.md 2: bodies over 16 KiB are refused before parsing. */
export const MAX_BODY_BYTES = 16 * 1024;

/**
 * Refuses a body over `maxBytes` ({@link MAX_BODY_BYTES} unless a route says otherwise,
 * as the user import does: docs/api.md 13.2) with 413 `Request body too large`, before
 * any other check reads the request (so also a call without identity). A base64 body is
 * measured decoded. middy has no body-size limit of its own.
 */
export function bodyLimit(maxBytes: number = MAX_BODY_BYTES): MiddlewareObj<APIGatewayProxyEventV2> {
  return {
    before: ({ event }) => {
      const size = event.body ? Buffer.byteLength(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : 0;
      if (size > maxBytes) throw new PayloadTooLargeError();
    },
  };
}
