import { type Deps, defaultDeps } from '../lib/deps';
import { ConflictError, ValidationError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, unauthorized } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { authorizeFactorChange } from '../lib/mfa/step-up';
import { credential, passkeyName } from '../lib/passkeys/api-schemas';
import { registerPasskey } from '../lib/passkeys/ceremonies';
import * as z from '../lib/zod';

export const body = z.object({ credential, name: z.optional(passkeyName) });

/**
 * POST /auth/passkeys/registration (docs/api.md 12.2): stores the passkey the authenticator
 * made; once the user has MFA, only in a session that passed it (MFA may have come after the options).
 */
export function makeHandler(deps: Deps) {
  return httpHandler(
    deps,
    { identity: 'required', body, authorize: (identity) => authorizeFactorChange(deps, identity) },
    async ({ body, identity, deps }) => ok({ passkey: await registerPasskey(deps, identity, body.credential, body.name) }, 201),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '12.2',
  summary: 'Register the passkey the authenticator made',
  tag: 'auth',
  caller: 'session',
  bodyTypes: ['json'],
  answers: [{ status: 201, description: 'The new passkey.', body: 'PasskeyEnvelope', headers: noStore }],
  failures: [
    new ValidationError('Invalid passkey registration', { code: 'INVALID_PASSKEY_REGISTRATION' }),
    unauthorized,
    new ConflictError('Passkey already registered', { code: 'PASSKEY_ALREADY_REGISTERED' }),
    new ConflictError('Too many passkeys', { code: 'TOO_MANY_PASSKEYS' }),
  ],
};
