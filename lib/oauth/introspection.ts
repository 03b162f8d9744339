import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { isOfCurrentEpoch } from '../users/user';
import type { OAuthAccessClaims } from './access-token';
import type { OAuthClient } from './client';
import type { OAuthGrant } from './grant';
import { formatScope } from './scope';
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
      token_type?: 'Bearer';
      aud?: string;
      jti?: string;
    };

function accessTokenAnswer(claims: OAuthAccessClaims): IntrospectionResponse {
  return {
    active: true,
    client_id: claims.client_id,
    scope: claims.scope,
    sub: claims.sub,
    iss: claims.iss,
    iat: claims.iat,
    exp: claims.exp,
    tenantId: claims.tenantId,
    token_type: 'Bearer',
    aud: claims.aud,
    jti: claims.jti,
  };
}

/** A user's grant lives only while its user is active and has not had every session and grant revoked since. */
async function userStillGrants(deps: Pick<Deps, 'store'>, grant: OAuthGrant): Promise<boolean> {
  const user = await deps.store.users.findById(grant.tenantId, grant.subject);
  return user !== undefined && user.status === 'active' && isOfCurrentEpoch(user, grant);
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
  if (found.kind === 'client_access_token') {
    // Expiry was checked with the signature; revocation is a deny record under the jti.
    const denied = await deps.store.oauthGrants.isAccessTokenDenied(client.tenantId, found.claims.jti);
    return denied ? { active: false } : accessTokenAnswer(found.claims);
  }
  if (found.grant.revokedAt !== undefined || found.grant.expiresAt <= now) return { active: false };
  const { grant } = found;
  if (grant.kind === 'authorization_code' && !(await userStillGrants(deps, grant))) return { active: false };
  if (found.kind === 'refresh_token') {
    if (!found.current) return { active: false };
    return {
      active: true,
      client_id: grant.clientId,
      scope: formatScope(grant.scope),
      sub: grant.subject,
      iss: deps.config.issuer,
      iat: grant.refreshedAt ?? grant.createdAt,
      exp: grant.expiresAt,
      tenantId: grant.tenantId,
    };
  }
  return accessTokenAnswer(found.claims);
}
