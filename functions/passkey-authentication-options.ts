import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { existingTenantId, username } from '../lib/http/schemas';
import { authenticationOptions as authenticationOptionsAnswer } from '../lib/passkeys/api-schemas';
import { passkeyAuthenticationOptions } from '../lib/passkeys/ceremonies';
import * as z from '../lib/zod';

export const body = z.object({ username: z.optional(username), tenantId: z.optional(existingTenantId) });

/** The `data` of the success envelope (docs/api.md 5). */
export const response = authenticationOptionsAnswer;

/** POST /auth/passkeys/authentication/options (docs/api.md 12.5): the request options of a passkey sign-in. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'none', response, body }, async ({ body, deps }) =>
    ok({
      options: await passkeyAuthenticationOptions(deps, {
        tenantId: body.tenantId ?? deps.config.defaultTenantId,
        username: body.username,
      }),
    }),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '12.5',
  summary: 'The request options of a passkey sign-in (with a username: the user’s passkeys; without: discoverable ones)',
  tag: 'auth',
  caller: 'none',
  bodyTypes: ['json'],
  answers: [
    {
      status: 200,
      description: 'The options for navigator.credentials.get().',
      body: 'PasskeyAuthenticationOptionsEnvelope',
      headers: noStore,
    },
  ],
  failures: [],
};
