import { type Deps, defaultDeps } from '../lib/deps';
import { UnauthorizedError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { authPayload as authPayloadAnswer } from '../lib/sessions/api-schemas';
import { deviceOf } from '../lib/sessions/device';
import { refreshSession } from '../lib/sessions/sessions';
import { prefetchKeys } from '../lib/tokens/signing-keys';
import * as z from '../lib/zod';

export const body = z.object({ refreshToken: z.string().check(z.minLength(1), z.maxLength(512)) });

/** The `data` of the success envelope (docs/api.md 5). */
export const response = authPayloadAnswer;

/** POST /auth/refresh (docs/api.md 4.2). */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'none', response, body, prefetch: prefetchKeys(deps.keys) }, async ({ body, deps, event }) =>
    ok(await refreshSession(deps, body.refreshToken, deviceOf(event))),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '4.2',
  summary: 'Exchange a refresh token for a new token pair (rotation)',
  tag: 'auth',
  caller: 'none',
  bodyTypes: ['json'],
  answers: [
    { status: 200, description: 'The session with a new access and refresh token.', body: 'AuthPayloadEnvelope', headers: noStore },
  ],
  failures: [new UnauthorizedError('Invalid refresh token', {}, { code: 'INVALID_REFRESH_TOKEN' })],
};
