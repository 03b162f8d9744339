import { requireMfaConfig } from '../lib/config';
import { type Deps, defaultDeps } from '../lib/deps';
import { TooManyRequestsError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, recentRequired, unauthorized } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { emailAddress } from '../lib/http/schemas';
import { recentAuthentication } from '../lib/sessions/recent-auth';
import { emailSet as emailSetAnswer } from '../lib/users/account-schemas';
import { changeEmail } from '../lib/users/email';
import * as z from '../lib/zod';

export const body = z.object({ email: emailAddress });

/** The `data` of the success envelope (docs/api.md 5). */
export const response = emailSetAnswer;

/** PUT /auth/email (docs/api.md 8.8), recent: the address stored unverified and a code sent to it. */
export function makeHandler(deps: Deps) {
  requireMfaConfig(deps.config);
  return httpHandler(
    deps,
    { identity: 'required', response, body, authorize: recentAuthentication(deps) },
    async ({ body, identity, deps }) => ok(await changeEmail(deps, identity, body.email)),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '8.8',
  summary: 'Set the caller’s email address (recent): stored unverified, a code sent to it',
  tag: 'auth',
  caller: 'session',
  bodyTypes: ['json'],
  answers: [{ status: 200, description: 'The address is stored and a code sent.', body: 'EmailSetEnvelope', headers: noStore }],
  failures: [unauthorized, recentRequired, new TooManyRequestsError(30, 'Too many requests', { code: 'RATE_LIMITED' })],
};
