import { requireMfaConfig } from '../lib/config';
import { type Deps, defaultDeps } from '../lib/deps';
import { ValidationError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, unauthorized } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { verifyEmail } from '../lib/users/email';
import * as z from '../lib/zod';

export const body = z.object({ code: z.string().check(z.trim(), z.minLength(1), z.maxLength(16)) });

/** POST /auth/email/verify (docs/api.md 8.8): the code sent to the address proves it is the user's. */
export function makeHandler(deps: Deps) {
  requireMfaConfig(deps.config);
  return httpHandler(deps, { identity: 'required', body }, async ({ body, identity, deps }) =>
    ok(await verifyEmail(deps, identity, body.code)),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '8.8',
  summary: 'Verify the caller’s email address with the code sent to it',
  tag: 'auth',
  caller: 'session',
  bodyTypes: ['json'],
  answers: [{ status: 200, description: 'The address is verified.', body: 'EmailVerifiedEnvelope', headers: noStore }],
  failures: [new ValidationError('Invalid verification code', { code: 'INVALID_VERIFICATION_CODE' }), unauthorized],
};
