import { type Deps, defaultDeps } from '../lib/deps';
import { clientSourceLimited, noStore, type OperationDoc } from '../lib/http/operation-doc';
import { clientTokenBody, clientTokenRoute } from '../lib/oauth/client-token-route';
import { oauthErrors } from '../lib/oauth/errors';
import { revokeToken } from '../lib/oauth/revocation';

export const body = clientTokenBody;

/** POST /oauth2/revoke (RFC 7009): form-encoded, client-authenticated; 200 whether or not the token was valid. */
export function makeHandler(deps: Deps) {
  return clientTokenRoute(deps, { publicClients: true, clientCors: true }, async (deps, client, token) => {
    await revokeToken(deps, client, token);
    return { statusCode: 200 };
  });
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '4.13',
  summary: 'Revoke a token of the calling client (RFC 7009)',
  tag: 'oauth2',
  caller: 'client',
  bodyTypes: ['form'],
  rfcErrors: true,
  answers: [{ status: 200, description: 'Revoked, or nothing to revoke: always 200 for a known client (RFC 7009 2.2).', headers: noStore }],
  failures: [
    { error: oauthErrors.formRequired(), only: 'json' },
    { error: oauthErrors.invalidClient(true), only: 'form' },
    { error: clientSourceLimited, only: 'form' },
    { error: oauthErrors.missingToken(), only: 'form' },
  ],
};
