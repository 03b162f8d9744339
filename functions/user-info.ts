import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc } from '../lib/http/operation-doc';
import { document } from '../lib/http/reply';
import { clientOrigins } from '../lib/oauth/cors';
import { dpopErrors } from '../lib/oauth/dpop';
import { userInfo, userInfoErrors } from '../lib/oidc/userinfo';

/**
 * GET|POST /oauth2/userinfo (docs/api.md 11.2, OIDC Core 5.3): the claims of the user an
 * OAuth access token with `openid` was issued for. The token comes as `Authorization:
 * Bearer`, or a DPoP-bound one as `Authorization: DPoP` with its proof (docs/api.md 16.3);
 * no session authorizer runs (it takes session tokens, not OAuth ones).
 */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'none', acceptForm: true, corsOrigins: clientOrigins(deps) }, async ({ headers, deps, event }) =>
    document(await userInfo(deps, { authorization: headers.authorization, dpop: headers.dpop, method: event.requestContext.http.method })),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '11.2',
  summary: 'The claims of the user an OAuth access token with scope openid was issued for (OIDC Core 5.3)',
  tag: 'oauth2',
  caller: 'oauthToken',
  answers: [{ status: 200, description: 'The claims the token’s scope grants.', body: 'UserInfo', headers: noStore }],
  failures: [
    userInfoErrors.noToken(),
    userInfoErrors.invalidToken(),
    dpopErrors.invalidProof('resource'),
    userInfoErrors.insufficientScope(),
  ],
};
