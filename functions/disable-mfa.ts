import { type Deps, defaultDeps } from '../lib/deps';
import { ForbiddenError, ValidationError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, recentRequired, unauthorized } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { accountOf } from '../lib/mfa/account';
import { disableMfa } from '../lib/mfa/lifecycle';
import { MFA_METHODS } from '../lib/mfa/methods';
import { authorizeFactorChange } from '../lib/mfa/step-up';
import { recentAuthentication } from '../lib/sessions/recent-auth';
import * as z from '../lib/zod';

export const body = z.object({ method: z.enum(MFA_METHODS) });

/** POST /auth/mfa/disable (docs/api.md 8.6, recent): removes an active method; the last one takes the recovery codes. */
export function makeHandler(deps: Deps) {
  return httpHandler(
    deps,
    { identity: 'required', body, authorize: recentAuthentication(deps, (identity) => authorizeFactorChange(deps, identity)) },
    async ({ body, identity, deps }) => ok(await disableMfa(deps, accountOf(identity), body.method)),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '8.6',
  summary: 'Remove an active MFA method; the last one takes the recovery codes with it',
  tag: 'mfa',
  caller: 'session',
  bodyTypes: ['json'],
  answers: [{ status: 200, description: 'The method is removed.', body: 'MfaDisabledEnvelope', headers: noStore }],
  failures: [
    new ValidationError('MFA method not enabled', { code: 'MFA_METHOD_NOT_ENABLED' }),
    unauthorized,
    recentRequired,
    new ForbiddenError(undefined, { code: 'MFA_STEP_UP_REQUIRED' }),
  ],
};
