import { requireMfaConfig } from '../lib/config';
import { type Deps, defaultDeps } from '../lib/deps';
import { ValidationError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { locked, noStore, type OperationDoc, unauthorized } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { accountOf } from '../lib/mfa/account';
import { verifyMfa } from '../lib/mfa/enrolment';
import { MFA_METHODS } from '../lib/mfa/methods';
import * as z from '../lib/zod';

export const body = z.object({
  method: z.enum(MFA_METHODS),
  code: z.string().check(z.minLength(1), z.maxLength(16)),
});

/** POST /auth/mfa/verify (docs/api.md 4.5): a right code activates a pending method; the first one ends the other sessions (8.1). */
export function makeHandler(deps: Deps) {
  requireMfaConfig(deps.config);
  return httpHandler(deps, { identity: 'required', body }, async ({ body, identity, deps }) =>
    ok(await verifyMfa(deps, accountOf(identity), body, identity.sessionId)),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '4.5',
  summary: 'Check a code of an MFA method; a right code activates a pending method',
  tag: 'mfa',
  caller: 'session',
  bodyTypes: ['json'],
  answers: [{ status: 200, description: 'The code was right.', body: 'MfaVerifiedEnvelope', headers: noStore }],
  failures: [
    new ValidationError('MFA method not enabled', { code: 'MFA_METHOD_NOT_ENABLED' }),
    new ValidationError('Invalid MFA code', { code: 'INVALID_MFA_CODE' }),
    unauthorized,
    locked,
  ],
};
