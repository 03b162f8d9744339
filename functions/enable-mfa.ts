import { requireMfaConfig } from '../lib/config';
import { type Deps, defaultDeps } from '../lib/deps';
import { ConflictError, ForbiddenError, TooManyRequestsError, ValidationError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, recentRequired, unauthorized } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { accountOf } from '../lib/mfa/account';
import { enableMfa } from '../lib/mfa/enrolment';
import { MFA_METHODS } from '../lib/mfa/methods';
import { authorizeFactorChange } from '../lib/mfa/step-up';
import { mfaEnabled as mfaEnabledAnswer } from '../lib/sessions/api-schemas';
import { recentAuthentication } from '../lib/sessions/recent-auth';
import * as z from '../lib/zod';

export const body = z.object({
  method: z.enum(MFA_METHODS),
  // TOTP: base32 secret; SMS: E.164 number; EMAIL: address. Checked per method by enableMfa.
  secret: z.string().check(z.minLength(1), z.maxLength(1024)),
});

/** The `data` of the success envelope (docs/api.md 5). */
export const response = mfaEnabledAnswer;

/** POST /auth/mfa/enable (docs/api.md 4.4, recent: 8.1): a pending method; TOTP answers with the otpauth URI. */
export function makeHandler(deps: Deps) {
  requireMfaConfig(deps.config);
  return httpHandler(
    deps,
    { identity: 'required', response, body, authorize: recentAuthentication(deps, (identity) => authorizeFactorChange(deps, identity)) },
    async ({ body, identity, deps }) => ok(await enableMfa(deps, accountOf(identity), body)),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '4.4',
  summary: 'Add an MFA method as pending (TOTP answers with the otpauth URI; SMS and EMAIL send a code)',
  tag: 'mfa',
  caller: 'session',
  bodyTypes: ['json'],
  answers: [{ status: 200, description: 'The method is pending until verifyMFA.', body: 'MfaEnabledEnvelope', headers: noStore }],
  failures: [
    new ValidationError('Invalid TOTP secret'),
    new ValidationError('Invalid phone number'),
    new ValidationError('Invalid email address'),
    unauthorized,
    recentRequired,
    new ForbiddenError(undefined, { code: 'MFA_STEP_UP_REQUIRED' }),
    new ConflictError('MFA method already enabled', { code: 'MFA_ALREADY_ENABLED' }),
    new TooManyRequestsError(30, 'Too many requests', { code: 'RATE_LIMITED' }),
  ],
};
