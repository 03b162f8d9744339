import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { document } from '../lib/http/reply';
import { userInfo } from '../lib/oidc/userinfo';

/**
 * GET|POST /oauth2/userinfo (docs/api.md 11.2, OIDC Core 5.3): the claims of the user an
 * OAuth access token with `openid` was issued for. The token comes as `Authorization:
 * Bearer`; no session authorizer runs (it takes session tokens, not OAuth ones).
 */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'none', acceptForm: true }, async ({ headers, deps }) =>
    document(await userInfo(deps, headers.authorization)),
  );
}

export const handler = makeHandler(defaultDeps());
