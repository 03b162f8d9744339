import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, recentRequired, unauthorized } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { authorizeFactorChange } from '../lib/mfa/step-up';
import { registrationOptions as registrationOptionsAnswer } from '../lib/passkeys/api-schemas';
import { passkeyRegistrationOptions } from '../lib/passkeys/ceremonies';
import { recentAuthentication } from '../lib/sessions/recent-auth';
import * as z from '../lib/zod';

export const body = z.strictObject({});

/** The `data` of the success envelope (docs/api.md 5). */
export const response = registrationOptionsAnswer;

/**
 * POST /auth/passkeys/registration/options (docs/api.md 12.1, recent): the creation options
 * of a new passkey; once the user has MFA, only for a session that passed it.
 */
export function makeHandler(deps: Deps) {
  return httpHandler(
    deps,
    { identity: 'required', response, body, authorize: recentAuthentication(deps, (identity) => authorizeFactorChange(deps, identity)) },
    async ({ identity, deps }) => ok({ options: await passkeyRegistrationOptions(deps, identity) }),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '12.1',
  summary: 'The creation options of a new passkey for the caller (recent authentication)',
  tag: 'auth',
  caller: 'session',
  bodyTypes: ['json'],
  answers: [
    {
      status: 200,
      description: 'The options for navigator.credentials.create().',
      body: 'PasskeyRegistrationOptionsEnvelope',
      headers: noStore,
    },
  ],
  failures: [unauthorized, recentRequired],
};
