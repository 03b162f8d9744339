import { recordEvent } from '../audit/record';
import { epochSeconds } from '../clock';
import { hashToken } from '../crypto/token-hash';
import type { Deps } from '../deps';
import { newEvent } from '../events/event';
import { authenticationMethods, isOpenIdScope, userClaims } from '../oidc/claims';
import { signIdToken } from '../oidc/id-token';
import { connectionOf } from '../sessions/live-session';
import { isLiveFor, isOfLiveConnection } from '../sessions/liveness';
import { rotateRefreshToken } from '../token-families/refresh-family';
import { NoRs256KeyError } from '../tokens/signing-keys';
import { epochOf, isOfCurrentEpoch, type User } from '../users/user';
import { OAUTH_ACCESS_TOKEN_TTL_SECONDS, signOAuthAccessToken } from './access-token';
import { isPublicClient, type OAuthClient } from './client';

import { DEVICE_CODE_GRANT } from './device-code';
import { redeemDeviceCode } from './device-grant';
import { acceptDpopProof, type DpopProof, dpopErrors } from './dpop';
import { oauthErrors } from './errors';
import { formatGrantRefreshToken, GRANT_MAX_AGE_SECONDS, type OAuthGrant, parseGrantRefreshToken } from './grant';
import { verifyPkce } from './pkce';
import { formatScope, isWithinScope, narrowedTo, parseScope } from './scope';

/** The token request's parameters (docs/api.md 4.7 plus PKCE and scope). */
export interface TokenRequest {
  grant_type: string;
  code?: string | undefined;
  redirect_uri?: string | undefined;
  code_verifier?: string | undefined;
  refresh_token?: string | undefined;
  scope?: string | undefined;
  /** RFC 8707: the resource server the access token is for. */
  resource?: string | undefined;
  /** RFC 8628 3.4: the device code of the device code grant. */
  device_code?: string | undefined;
}

/** The token request's grant, and the resource (RFC 8707) asked for, if any. */
export type TokenGrant = (
  | { type: 'authorization_code'; code: string; redirectUri: string; codeVerifier: string | undefined }
  | { type: 'refresh_token'; refreshToken: string; scope: string | undefined }
  | { type: 'client_credentials'; scope: string | undefined }
  | { type: typeof DEVICE_CODE_GRANT; deviceCode: string }
) & { resource?: string | undefined };

/** The token payload (docs/api.md 5.4, RFC 6749 5.1). */
export interface TokenResponse {
  access_token: string;
  /** `DPoP` for a token bound to the key of the request's proof (docs/api.md 16.3). */
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  refresh_token?: string;
  scope: string;
  /** OpenID Connect (docs/api.md 11.1): when the scope has `openid`. */
  id_token?: string;
}

export { GRANT_MAX_AGE_SECONDS } from './grant';

type TokenDeps = Pick<Deps, 'config' | 'clock' | 'random' | 'store' | 'keys' | 'log' | 'source'>;

/** The rules 1–3 of docs/api.md 4.7 of the token request, with their messages, before the client is authenticated. */
export function tokenGrant(request: TokenRequest): TokenGrant {
  const { resource } = request;
  switch (request.grant_type) {
    case 'authorization_code':
      if (!request.code || !request.redirect_uri) throw oauthErrors.missingParameters();
      return {
        type: 'authorization_code',
        code: request.code,
        redirectUri: request.redirect_uri,
        codeVerifier: request.code_verifier,
        resource,
      };
    case 'refresh_token':
      if (!request.refresh_token) throw oauthErrors.missingRefreshToken();
      return { type: 'refresh_token', refreshToken: request.refresh_token, scope: request.scope, resource };
    case 'client_credentials':
      return { type: 'client_credentials', scope: request.scope, resource };
    case DEVICE_CODE_GRANT:
      if (!request.device_code) throw oauthErrors.missingParameters();
      return { type: DEVICE_CODE_GRANT, deviceCode: request.device_code, resource };
    default:
      throw oauthErrors.unsupportedGrantType();
  }
}

/** An optional requested scope: within `allowed`, else 400 `Invalid scope` (RFC 6749 3.3, 6). */
export function requestedScope(requested: string | undefined, allowed: string[]): string[] {
  if (!requested) return allowed;
  const scope = parseScope(requested);
  if (!scope || scope.length === 0 || !isWithinScope(scope, allowed)) throw oauthErrors.invalidScope();
  return scope;
}

/**
 * RFC 8707 2: a requested resource must be one the client is registered for
 * (400 `Invalid resource`, `invalid_target`), and agree with the one the grant was
 * authorized for, if any. Undefined: none asked, none bound.
 */
export function resourceFor(client: OAuthClient, requested: string | undefined, bound?: string): string | undefined {
  if (requested === undefined || requested === '') return bound;
  if (!client.resources.includes(requested) || (bound !== undefined && bound !== requested)) throw oauthErrors.invalidTarget();
  return requested;
}

/** Whom an access token is for; `grantId` is absent for stateless (client_credentials) tokens. */
interface TokenSubject {
  clientId: string;
  tenantId: string;
  subject: string;
  grantId?: string | undefined;
  /** The resource server (RFC 8707), when one was asked for. */
  resource?: string | undefined;
  /** The connection of a federated sign-in (docs/api.md 14.3): the token's `idp`. */
  idp?: string | undefined;
  /** The key of the request's DPoP proof: the token's `cnf.jkt` (RFC 9449 6.1). */
  jkt?: string | undefined;
}

/** What the ID token of a user's grant says besides the user's claims (docs/api.md 11.1). */
interface IdTokenSubject {
  user: User;
  client: OAuthClient;
  sessionId: string;
  authTime: number;
  amr: string[];
  nonce?: string | undefined;
  /** The connection of a federated sign-in (docs/api.md 14.3). */
  idp?: string | undefined;
}

async function tokenResponse(
  deps: TokenDeps,
  to: TokenSubject,
  scope: readonly string[],
  now: number,
  refreshToken?: string,
  oidc?: IdTokenSubject,
): Promise<TokenResponse> {
  const keys = await deps.keys.load();
  const accessToken = signOAuthAccessToken(keys, {
    iss: deps.config.issuer,
    aud: to.resource ?? deps.config.oauthDefaultAudience,
    client_id: to.clientId,
    sub: to.subject,
    scope: formatScope(scope),
    tenantId: to.tenantId,
    grant_id: to.grantId,
    idp: to.idp,
    cnf: to.jkt === undefined ? undefined : { jkt: to.jkt },
    iat: now,
    jti: deps.random.id(),
  });
  // OIDC Core 3.1.3.3 and 12.2: an ID token whenever the token's scope has `openid`.
  const idToken =
    oidc && isOpenIdScope(scope)
      ? signIdToken(keys, oidc.client.idTokenSignedResponseAlg ?? 'ES256', userClaims(oidc.user, scope), {
          iss: deps.config.issuer,
          aud: oidc.client.clientId,
          authTime: oidc.authTime,
          amr: authenticationMethods(oidc.amr),
          sid: oidc.sessionId,
          nonce: oidc.nonce,
          idp: oidc.idp,
          accessToken,
          iat: now,
        })
      : undefined;
  return {
    access_token: accessToken,
    token_type: to.jkt === undefined ? 'Bearer' : 'DPoP',
    expires_in: OAUTH_ACCESS_TOKEN_TTL_SECONDS,
    ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }),
    scope: formatScope(scope),
    ...(idToken === undefined ? {} : { id_token: idToken }),
  };
}

/**
 * The user's whole record, for the claims of an ID token (the session read has only what
 * the authorizer needs); read only when the scope asks for one. Gone since: `invalid_grant`.
 */
async function claimsSource(deps: TokenDeps, tenantId: string, userId: string): Promise<User> {
  const user = await deps.store.users.findById(tenantId, userId);
  if (!user) throw oauthErrors.invalidGrant();
  return user;
}

/**
 * RFC 6749 4.1.3 with RFC 7636 4.6: find the code (under the client's tenant), refuse
 * it if it is another client's, used (then revoke everything issued from it, 10.5),
 * expired, or if the PKCE verifier or the redirect URI do not match; check that the
 * user and the session it was issued in are still active; mark it used and store the
 * grant (one transaction); issue.
 */
async function redeemAuthorizationCode(
  deps: TokenDeps,
  client: OAuthClient,
  request: Extract<TokenGrant, { type: 'authorization_code' }>,
  proof: DpopProof | undefined,
): Promise<TokenResponse> {
  const now = epochSeconds(deps.clock);
  const { tenantId } = client;
  const code = await deps.store.authorizationCodes.find(tenantId, hashToken(request.code));
  if (!code || code.clientId !== client.clientId) throw oauthErrors.invalidGrant();
  const refuseReuse = async () => {
    await deps.store.oauthGrants.revoke({ tenantId, id: code.grantId }, now, 'authorization_code_reuse');
    deps.log.warn('authorization_code_reuse_detected', { tenantId, clientId: client.clientId, userId: code.userId, grantId: code.grantId });
    return oauthErrors.invalidGrant();
  };
  if (code.usedAt !== undefined) throw await refuseReuse();
  if (code.expiresAt <= now) throw oauthErrors.invalidGrant();
  if (!verifyPkce(request.codeVerifier, code.codeChallenge)) throw oauthErrors.invalidGrant();
  if (code.redirectUri !== request.redirectUri) throw oauthErrors.invalidGrant();
  // RFC 9449 10: a code bound to a key at the authorization request is redeemed only with a proof by that key.
  if (code.dpopJkt !== undefined && code.dpopJkt !== proof?.jkt) throw oauthErrors.invalidGrant();
  // A client narrowed since the code was issued is given only what it may still have (docs/api.md 9.11).
  const scope = narrowedTo(code.scope, client.scopes);
  if (scope.length === 0) throw oauthErrors.invalidGrant();
  const resource = resourceFor(client, request.resource, code.resource);
  // The user and the session the code was issued in must still be live (one consistent read).
  const { session, user } = await deps.store.sessions.findWithOwner(tenantId, code.sessionId, code.userId);
  if (!session || !user || !isLiveFor(user, session, now, await connectionOf(deps, session))) throw oauthErrors.invalidGrant();
  // Read before the code is spent: a failed read leaves the code to a retry, not to reuse detection.
  const claimsUser = isOpenIdScope(scope) ? await claimsSource(deps, tenantId, user.id) : undefined;
  // Likewise an RS256 client while the keys hold no RS256 key (docs/api.md 11.1): refused before, not after.
  if (claimsUser && client.idTokenSignedResponseAlg === 'RS256' && !(await deps.keys.load()).rs256) throw new NoRs256KeyError();

  const withRefresh = client.grantTypes.includes('refresh_token');
  const refreshToken = withRefresh
    ? formatGrantRefreshToken({ grantId: code.grantId, generation: 0, secret: deps.random.token() })
    : undefined;
  const grant: OAuthGrant = {
    id: code.grantId,
    tenantId,
    clientId: client.clientId,
    kind: 'authorization_code',
    subject: user.id,
    sessionId: code.sessionId,
    scope,
    ...(resource === undefined ? {} : { resource }),
    createdAt: now,
    userEpoch: epochOf(user),
    authTime: session.authTime ?? session.createdAt,
    amr: [...session.amr],
    ...(session.idp === undefined ? {} : { idp: session.idp }),
    // RFC 9449 5: a public client's refresh tokens are bound to the key it redeemed the code with.
    ...(proof && isPublicClient(client) ? { dpopJkt: proof.jkt } : {}),
    expiresAt: now + (withRefresh ? GRANT_MAX_AGE_SECONDS : OAUTH_ACCESS_TOKEN_TTL_SECONDS),
    ...(refreshToken === undefined ? {} : { refreshHash: hashToken(refreshToken), refreshGeneration: 0, retired: {} }),
  };
  // The code is used and the grant stored in one transaction: exactly one of concurrent redemptions wins.
  if (!(await deps.store.authorizationCodes.redeem(code, grant, now))) throw await refuseReuse();
  deps.log.info('oauth_code_redeemed', { tenantId, clientId: client.clientId, userId: user.id, grantId: grant.id });
  const oidc = claimsUser
    ? {
        user: claimsUser,
        client,
        sessionId: code.sessionId,
        authTime: grant.authTime ?? now,
        amr: grant.amr ?? [],
        nonce: code.nonce,
        idp: grant.idp,
      }
    : undefined;
  return tokenResponse(deps, { ...grant, grantId: grant.id, jkt: proof?.jkt }, grant.scope, now, refreshToken, oidc);
}

/**
 * RFC 6749 6 with rotation (RFC 9700 4.14.2): the refresh token is exchanged for a
 * new one in one conditional write; a retired one presented again revokes the grant.
 * A narrower scope may be asked for the access token; the grant keeps its scope, and
 * a token gets only its part that the client's registration still allows.
 */
async function refreshGrant(
  deps: TokenDeps,
  client: OAuthClient,
  request: Extract<TokenGrant, { type: 'refresh_token' }>,
  proof: DpopProof | undefined,
): Promise<TokenResponse> {
  const parsed = parseGrantRefreshToken(request.refreshToken);
  if (!parsed) throw oauthErrors.invalidGrant();
  const { tenantId } = client;
  const { grantId, generation } = parsed;
  const now = epochSeconds(deps.clock);
  if (request.scope || request.resource || isPublicClient(client)) {
    // Checked before the token is spent: a refused scope, resource or key leaves it usable.
    const current = await deps.store.oauthGrants.find(tenantId, grantId);
    if (!current || current.revokedAt !== undefined) throw oauthErrors.invalidGrant();
    // Another client's token goes on to the rotation, which refuses it (and ends a public client's grant, 16.1).
    if (current.clientId === client.clientId) {
      // RFC 9449 5: a bound refresh token is used only with a proof by its key.
      if (current.dpopJkt !== undefined && current.dpopJkt !== proof?.jkt) throw oauthErrors.invalidGrant();
      requestedScope(request.scope, narrowedTo(current.scope, client.scopes));
      resourceFor(client, request.resource, current.resource);
    }
  }
  const next = formatGrantRefreshToken({ grantId, generation: generation + 1, secret: deps.random.token() });
  const family = { tenantId, id: grantId, clientId: client.clientId };
  const rotation = { generation, presentedHash: hashToken(request.refreshToken), nextHash: hashToken(next), now };
  // The client that presented it is the actor; the grant's own client is named (docs/events.md, Sessions and apps).
  const grantEnds = (grant: OAuthGrant, reason: string) =>
    deps.store.emitting([
      newEvent(deps, {
        tenantId,
        type: 'identity.grant.revoked',
        subject: grant.subject,
        actor: { type: 'client', id: client.clientId },
        data: { reason, grantId, clientId: grant.clientId },
      }),
    ]).oauthGrants;
  const result = await rotateRefreshToken(deps.store.oauthGrants, family, rotation, (grant) => grantEnds(grant, 'refresh_token_reused'));
  if (result.outcome === 'other_client') {
    // A public client's token proves nothing but possession (docs/api.md 16.1): seen in other hands, its grant ends.
    const owner = await deps.store.oauthClients.find(result.record.clientId);
    if (owner === undefined || !isPublicClient(owner)) throw oauthErrors.invalidGrant();
    await grantEnds(result.record, 'refresh_token_other_client').revoke({ tenantId, id: grantId }, now, 'refresh_token_other_client');
  }
  if (result.outcome === 'reused' || result.outcome === 'other_client') {
    const event = result.outcome === 'reused' ? 'oauth_refresh_token_reuse_detected' : 'oauth_refresh_token_of_other_client';
    deps.log.warn(event, { tenantId, clientId: client.clientId, grantId });
    await recordEvent(deps, {
      tenantId,
      type: 'refresh_token_reused',
      actor: { type: 'client', id: client.clientId },
      targetUserId: result.record.subject,
      outcome: 'failure',
      details: { clientId: client.clientId, grantId },
    });
    throw oauthErrors.invalidGrant();
  }
  if (result.outcome === 'invalid') throw oauthErrors.invalidGrant();
  const grant = result.record;
  const [user, connection] = await Promise.all([deps.store.users.findById(tenantId, grant.subject), connectionOf(deps, grant)]);
  // A grant made in a federated session ends with its connection (docs/api.md 14.1).
  if (user?.status !== 'active' || !isOfCurrentEpoch(user, grant) || !isOfLiveConnection(grant, connection)) {
    await deps.store.oauthGrants.revoke(family, now, 'user_inactive');
    throw oauthErrors.invalidGrant();
  }
  // The grant keeps what it was given; each token gets only what the client may still have (docs/api.md 9.11).
  const allowed = narrowedTo(grant.scope, client.scopes);
  if (allowed.length === 0) {
    // The refresh token was just rotated: the grant ends here, or a retry would look like theft.
    await deps.store.oauthGrants.revoke(family, now, 'client_scope_narrowed');
    throw oauthErrors.invalidGrant();
  }
  const resource = resourceFor(client, request.resource, grant.resource);
  const scope = requestedScope(request.scope, allowed);
  // Grants redeemed before ID tokens existed have no session proof recorded: their `iat` stands in.
  const oidc = isOpenIdScope(scope)
    ? {
        user,
        client,
        sessionId: grant.sessionId ?? grant.id,
        authTime: grant.authTime ?? grant.createdAt,
        amr: grant.amr ?? ['pwd'],
        idp: grant.idp,
      }
    : undefined;
  return tokenResponse(deps, { ...grant, grantId: grant.id, resource, jkt: proof?.jkt }, scope, now, next, oidc);
}

/**
 * RFC 6749 4.4: a token for the client itself; no refresh token. Stateless: nothing is
 * written, the signed token is the whole record (it has no `grant_id`). Revoking it
 * writes a deny record under its `jti` until its `exp` (revocation.ts), which
 * introspection reads.
 */
async function clientCredentials(
  deps: TokenDeps,
  client: OAuthClient,
  request: Extract<TokenGrant, { type: 'client_credentials' }>,
  proof: DpopProof | undefined,
) {
  const scope = requestedScope(request.scope, client.scopes);
  const resource = resourceFor(client, request.resource);
  const now = epochSeconds(deps.clock);
  const to = { clientId: client.clientId, tenantId: client.tenantId, subject: client.clientId, resource, jkt: proof?.jkt };
  return tokenResponse(deps, to, scope, now);
}

/**
 * The token endpoint's logic for an authenticated client: the grant must be one it is
 * registered for; a client registered with `dpop_bound_access_tokens` must send a DPoP
 * proof (RFC 9449 5.2), and a proof, checked already (lib/oauth/dpop.ts), is accepted
 * once, under the client's tenant; its key binds the tokens (docs/api.md 16.3).
 */
export async function issueTokens(deps: TokenDeps, client: OAuthClient, request: TokenGrant, proof?: DpopProof): Promise<TokenResponse> {
  if (!client.grantTypes.includes(request.type)) throw oauthErrors.unauthorizedClient();
  if (client.dpopBoundAccessTokens && !proof) {
    deps.log.info('dpop_proof_refused', { at: 'token', reason: 'missing', clientId: client.clientId });
    throw dpopErrors.invalidProof('token');
  }
  if (proof) await acceptDpopProof(deps, 'token', client.tenantId, proof);
  // docs/api.md 16.1: a public client cannot prove who asks, so never gets a token of its own.
  if (request.type === 'client_credentials' && isPublicClient(client)) throw oauthErrors.unauthorizedClient();
  switch (request.type) {
    case 'authorization_code':
      return redeemAuthorizationCode(deps, client, request, proof);
    case 'refresh_token':
      return refreshGrant(deps, client, request, proof);
    case 'client_credentials':
      return clientCredentials(deps, client, request, proof);
    case DEVICE_CODE_GRANT: {
      // A public client's refresh tokens are bound to the key of its proof, as for a code (RFC 9449 5).
      const bindTo = proof && isPublicClient(client) ? proof.jkt : undefined;
      const resource = resourceFor(client, request.resource);
      const { grant, refreshToken, now, oidc } = await redeemDeviceCode(deps, client, request.deviceCode, { resource, dpopJkt: bindTo });
      return tokenResponse(deps, { ...grant, grantId: grant.id, jkt: proof?.jkt }, grant.scope, now, refreshToken, oidc);
    }
  }
}
