import { type Deps, defaultDeps } from '../lib/deps';
import { clientSourceLimited, noCache, type OperationDoc } from '../lib/http/operation-doc';
import { document } from '../lib/http/reply';
import { clientTokenBody, clientTokenRoute } from '../lib/oauth/client-token-route';
import { NO_CACHE, oauthErrors } from '../lib/oauth/errors';
import { introspect } from '../lib/oauth/introspection';

export const body = clientTokenBody;

/** POST /oauth2/introspect (RFC 7662): form-encoded, client-authenticated; a client sees only its own tokens. */
export function makeHandler(deps: Deps) {
  return clientTokenRoute(deps, { publicClients: false }, async (deps, client, token) =>
    document(await introspect(deps, client, token), 200, NO_CACHE),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '4.14',
  summary: 'Whether a token of the calling client is active (RFC 7662)',
  tag: 'oauth2',
  caller: 'client',
  bodyTypes: ['form'],
  rfcErrors: true,
  answers: [{ status: 200, description: 'The token’s state.', body: 'Introspection', headers: noCache }],
  failures: [
    { error: oauthErrors.formRequired(), only: 'json' },
    { error: oauthErrors.invalidClient(true), only: 'form' },
    { error: clientSourceLimited, only: 'form' },
    { error: oauthErrors.missingToken(), only: 'form' },
  ],
};
