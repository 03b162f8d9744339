import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { connectionOf } from '../sessions/live-session';
import { isOfLiveConnection } from '../sessions/liveness';
import { isOfCurrentEpoch } from '../users/user';
import type { OAuthAccessClaims } from './access-token';
import type { OAuthClient } from './client';
import type { OAuthGrant } from './grant';
import { formatScope, narrowedTo, parseScope } from './scope';
import { findClientToken } from './token-lookup';

/** RFC 7662 2.2, plus our `tenantId`. */
export type IntrospectionResponse =
  | { active: false }
  | {
      active: true;
      client_id: string;
      scope: string;
      sub: string;
      iss: string;
      iat: number;
      exp: number;
      tenantId: string;
      token_type?: 'Bearer' | 'DPoP';
      aud?: string;
      jti?: string;
      /** A DPoP-bound access token's key (RFC 9449 6.2, docs/api.md 16.3). */
      cnf?: { jkt: string };
    };

/**
 * An access token's answer, with the part of its scope that its client may still have
 * (docs/api.md 9.11); nothing left is `{ active: false }`.
 */
function accessTokenAnswer(claims: OAuthAccessClaims, issuer: OAuthClient): IntrospectionResponse {
  const scope = narrowedTo(parseScope(claims.scope) ?? [], issuer.scopes);
  if (scope.length === 0) return { active: false };
  return {
    active: true,
    client_id: claims.client_id,
    scope: formatScope(scope),
    sub: claims.sub,
    iss: claims.iss,
    iat: claims.iat,
    exp: claims.exp,
    tenantId: claims.tenantId,
    token_type: claims.cnf ? 'DPoP' : 'Bearer',
    aud: claims.aud,
    jti: claims.jti,
    ...(claims.cnf ? { cnf: { jkt: claims.cnf.jkt } } : {}),
  };
}

/** A user's grant lives only while its user is active and has not had every session and grant revoked since. */
async function userStillGrants(deps: Pick<Deps, 'store'>, grant: OAuthGrant): Promise<boolean> {
  const [user, connection] = await Promise.all([deps.store.users.findById(grant.tenantId, grant.subject), connectionOf(deps, grant)]);
  // A grant made in a federated session ends with its connection (docs/api.md 14.1).
  return user !== undefined && user.status === 'active' && isOfCurrentEpoch(user, grant) && isOfLiveConnection(grant, connection);
}

/**
 * The client a token was issued to, as registered now: the caller itself, or for a
 * resource server's introspection another client of its tenant, read again (a deleted
 * one is undefined: what was issued to it is inactive, docs/api.md 9.12).
 */
async function issuingClient(deps: Pick<Deps, 'store'>, caller: OAuthClient, clientId: string): Promise<OAuthClient | undefined> {
  if (clientId === caller.clientId) return caller;
  const client = await deps.store.oauthClients.find(clientId);
  return client?.tenantId === caller.tenantId ? client : undefined;
}

/**
 * RFC 7662: whether a token of this client is active: known, its own, not expired,
 * and not revoked: its grant, or for a stateless client_credentials token its deny
 * record (a refresh token: also not yet rotated). Anything else, including another
 * client's token, is `{ active: false }` and nothing more. A client registered with
 * `introspect_any` (a resource server, docs/api.md 4.14) sees the access tokens of every
 * client of its tenant too (RFC 7662 4: the server decides who may introspect what).
 */
export async function introspect(
  deps: Pick<Deps, 'config' | 'clock' | 'store' | 'publicKeys'>,
  client: OAuthClient,
  token: string,
): Promise<IntrospectionResponse> {
  const now = epochSeconds(deps.clock);
  const found = await findClientToken(deps, client, token, now, client.introspectAny ? 'tenant' : 'own');
  if (!found) return { active: false };
  const issuer = await issuingClient(deps, client, found.kind === 'refresh_token' ? found.grant.clientId : found.claims.client_id);
  if (!issuer) return { active: false };
  if (found.kind === 'client_access_token') {
    // Expiry was checked with the signature; revocation is a deny record under the jti.
    const denied = await deps.store.oauthGrants.isAccessTokenDenied(client.tenantId, found.claims.jti);
    return denied ? { active: false } : accessTokenAnswer(found.claims, issuer);
  }
  if (found.grant.revokedAt !== undefined || found.grant.expiresAt <= now) return { active: false };
  const { grant } = found;
  if (grant.kind === 'authorization_code' && !(await userStillGrants(deps, grant))) return { active: false };
  if (found.kind === 'refresh_token') {
    const scope = narrowedTo(grant.scope, issuer.scopes);
    if (!found.current || scope.length === 0) return { active: false };
    return {
      active: true,
      client_id: grant.clientId,
      scope: formatScope(scope),
      sub: grant.subject,
      iss: deps.config.issuer,
      iat: grant.refreshedAt ?? grant.createdAt,
      exp: grant.expiresAt,
      tenantId: grant.tenantId,
    };
  }
  return accessTokenAnswer(found.claims, issuer);
}
