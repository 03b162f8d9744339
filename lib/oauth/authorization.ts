import { epochSeconds } from '../clock';
import { hashToken } from '../crypto/token-hash';
import type { Deps } from '../deps';
import { ValidationError } from '../errors';
import { checkNonce } from '../oidc/nonce';
import type { Identity } from '../tokens/access-token';
import { AUTHORIZATION_CODE_TTL_SECONDS } from './authorization-code';
import type { AuthorizationRequest } from './authorization-request';
import { matchesRedirectUri, type OAuthClient } from './client';
import { isWithinScope, parseScope } from './scope';

export { type AuthorizationRequest, authorizationQuery } from './authorization-request';

/**
 * Adds parameters to a redirect URI with the URL API, keeping its query as it is
 * (RFC 6749 3.1.2: the registered URI's query must be retained).
 */
export function withQuery(uri: string, parameters: Record<string, string | undefined>): string {
  const url = new URL(uri);
  const added = new URLSearchParams(
    Object.entries(parameters).filter((entry): entry is [string, string] => entry[1] !== undefined),
  ).toString();
  const existing = url.search.slice(1);
  url.search = existing ? `${existing}&${added}` : added;
  return url.href;
}

/**
 * The checks of an authorization request that need no user, in the order of docs/api.md
 * 4.6: the client (of `tenantId` when given: another tenant's client is answered like an
 * unknown one), its redirect URI, scope, grant type, resource and PKCE. Every failure is a
 * 400 and never a redirect: until the client and its redirect URI are known to match,
 * redirecting could hand errors to an attacker. PKCE with S256 is required for every
 * client (RFC 9700 2.1.1). An OpenID Connect `nonce` is checked last (docs/api.md 11.1).
 * The browser door (docs/api.md 11.5) runs them before showing anything.
 */
export async function checkAuthorizationRequest(
  deps: Pick<Deps, 'store'>,
  request: AuthorizationRequest,
  tenantId?: string,
): Promise<{ client: OAuthClient; scope: string[]; codeChallenge: string; nonce: string | undefined }> {
  if (request.response_type !== 'code') throw new ValidationError('Unsupported response type', { code: 'UNSUPPORTED_RESPONSE_TYPE' });
  const client = await deps.store.oauthClients.find(request.client_id);
  if (!client || (tenantId !== undefined && client.tenantId !== tenantId))
    throw new ValidationError('Invalid client', { code: 'INVALID_CLIENT' });
  if (!matchesRedirectUri(client, request.redirect_uri))
    throw new ValidationError('Invalid redirect_uri', { code: 'INVALID_REDIRECT_URI' });
  // No scope asked: the client's registered scope (RFC 6749 3.3 lets the server choose a default).
  const scope = request.scope ? parseScope(request.scope) : client.scopes;
  if (!scope || scope.length === 0 || !isWithinScope(scope, client.scopes))
    throw new ValidationError('Invalid scope', { code: 'INVALID_SCOPE' });
  if (!client.grantTypes.includes('authorization_code')) throw new ValidationError('Unauthorized client', { code: 'UNAUTHORIZED_CLIENT' });
  // RFC 8707 2: a resource the client is not registered for (the code is bound to it).
  if (request.resource && !client.resources.includes(request.resource))
    throw new ValidationError('Invalid resource', { code: 'INVALID_TARGET' });
  if (request.code_challenge === undefined) throw new ValidationError('Missing code_challenge', { code: 'PKCE_REQUIRED' });
  if (request.code_challenge_method !== 'S256')
    throw new ValidationError('Unsupported code_challenge_method', { code: 'UNSUPPORTED_CODE_CHALLENGE_METHOD' });
  const nonce = checkNonce(request.nonce);
  return { client, scope, codeChallenge: request.code_challenge, nonce };
}

/**
 * Issues an authorization code for the signed-in user (RFC 6749 4.1.1, RFC 7636) and
 * returns where to redirect the browser, after {@link checkAuthorizationRequest} with the
 * user's tenant; the `nonce` is kept with the code (docs/api.md 11.1). Both doors of
 * docs/api.md 4.6 (Bearer) and 11.5 (browser) issue here.
 */
export async function authorize(
  deps: Pick<Deps, 'config' | 'clock' | 'random' | 'store' | 'log'>,
  user: Identity,
  request: AuthorizationRequest,
): Promise<string> {
  const { client, scope, codeChallenge, nonce } = await checkAuthorizationRequest(deps, request, user.tenantId);

  const code = deps.random.token(32);
  const now = epochSeconds(deps.clock);
  await deps.store.authorizationCodes.create({
    hash: hashToken(code),
    tenantId: client.tenantId,
    clientId: client.clientId,
    redirectUri: request.redirect_uri,
    userId: user.userId,
    sessionId: user.sessionId,
    scope,
    codeChallenge,
    grantId: deps.random.token(16),
    ...(request.resource ? { resource: request.resource } : {}),
    ...(nonce === undefined ? {} : { nonce }),
    ...(request.dpop_jkt === undefined ? {} : { dpopJkt: request.dpop_jkt }),
    createdAt: now,
    expiresAt: now + AUTHORIZATION_CODE_TTL_SECONDS,
  });
  deps.log.info('oauth_code_issued', { tenantId: client.tenantId, clientId: client.clientId, userId: user.userId });
  // RFC 9207: `iss` tells the client which server answered (mix-up defence, RFC 9700 4.4).
  return withQuery(request.redirect_uri, { code, state: request.state, iss: deps.config.issuer });
}
