import { type Deps, defaultDeps } from '../lib/deps';
import { UnauthorizedError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { clientSourceLimited, noStore, type OperationDoc } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { existingTenantId } from '../lib/http/schemas';
import { credential } from '../lib/passkeys/api-schemas';
import { signInWithPasskey } from '../lib/passkeys/sign-in';
import { authPayload as authPayloadAnswer } from '../lib/sessions/api-schemas';
import { deviceOf } from '../lib/sessions/device';
import { prefetchKeys } from '../lib/tokens/signing-keys';
import * as z from '../lib/zod';

export const body = z.object({ credential, tenantId: z.optional(existingTenantId) });

/** The `data` of the success envelope (docs/api.md 5). */
export const response = authPayloadAnswer;

/** POST /auth/passkeys/authentication (docs/api.md 12.6): a passkey sign-in, a new session; a passkey satisfies MFA. */
export function makeHandler(deps: Deps) {
  return httpHandler(
    deps,
    { identity: 'none', response, body, prefetch: prefetchKeys(deps.keys) },
    async ({ body, deps, sourceIp, event }) => {
      const tenantId = body.tenantId ?? deps.config.defaultTenantId;
      return ok(await signInWithPasskey(deps, { tenantId, credential: body.credential, sourceIp }, deviceOf(event)));
    },
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '12.6',
  summary: 'Sign in with a passkey: a new session (a passkey satisfies MFA)',
  tag: 'auth',
  caller: 'none',
  bodyTypes: ['json'],
  answers: [{ status: 200, description: 'A new session.', body: 'AuthPayloadEnvelope', headers: noStore }],
  failures: [new UnauthorizedError('Invalid passkey', {}, { code: 'INVALID_PASSKEY' }), clientSourceLimited],
};
