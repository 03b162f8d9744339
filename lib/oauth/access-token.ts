import { errors, jwtVerify } from 'jose';
import * as z from 'zod';
import { type KeySet, signJwt } from '../tokens/signing-keys';

/** `expires_in` of every OAuth access token (docs/api.md 4.7). */
export const OAUTH_ACCESS_TOKEN_TTL_SECONDS = 3600;

/** What an OAuth access token says (RFC 9068 2.2, plus our `tenantId` and, for tokens of a grant, `grant_id`). */
export interface OAuthAccessClaims {
  iss: string;
  /** The client the token was issued to; also `client_id`. */
  aud: string;
  client_id: string;
  /** The user, or the client itself for client_credentials. */
  sub: string;
  scope: string;
  tenantId: string;
  /**
   * The grant (token family) the token belongs to: revoking it revokes the token.
   * Absent from client_credentials tokens, which are stateless: no grant is stored
   * for them, and their revocation is a deny record under their `jti`.
   */
  grant_id?: string | undefined;
  iat: number;
  exp: number;
  jti: string;
}

/**
 * Signs an OAuth access token: a JWT of type `at+jwt` (RFC 9068) signed ES256 with
 * the same keys as session tokens, so resource servers verify it against our JWKS.
 * Its audience is the client, and it has no `sid`, so the session authorizer
 * (which wants our own audience and a session) never accepts it.
 */
export function signOAuthAccessToken(keys: KeySet, claims: Omit<OAuthAccessClaims, 'aud' | 'exp'>): string {
  const { iss, client_id, sub, scope, tenantId, grant_id, iat, jti } = claims;
  return signJwt(keys, 'at+jwt', {
    client_id,
    scope,
    tenantId,
    ...(grant_id === undefined ? {} : { grant_id }),
    iss,
    aud: client_id,
    sub,
    iat,
    exp: iat + OAUTH_ACCESS_TOKEN_TTL_SECONDS,
    jti,
  });
}

const accessClaims = z.object({
  iss: z.string(),
  aud: z.string(),
  client_id: z.string().min(1),
  sub: z.string().min(1),
  scope: z.string(),
  tenantId: z.string().min(1),
  grant_id: z.string().min(1).optional(),
  iat: z.number(),
  exp: z.number(),
  jti: z.string().min(1),
});

/**
 * The claims of a valid OAuth access token of ours (signature, `typ`, `iss`, `exp`,
 * `aud` = `client_id`), or undefined for anything else, including session tokens.
 * `now` in epoch seconds. Revocation is the caller's check (the grant).
 */
export async function verifyOAuthAccessToken(
  keys: KeySet,
  issuer: string,
  token: string,
  now: number,
): Promise<OAuthAccessClaims | undefined> {
  try {
    const { payload } = await jwtVerify(token, keys.publicKeyFor, {
      algorithms: ['ES256'],
      typ: 'at+jwt',
      issuer,
      currentDate: new Date(now * 1000),
      requiredClaims: ['exp', 'iat', 'sub', 'jti', 'aud'],
    });
    const claims = accessClaims.safeParse(payload);
    if (!claims.success || claims.data.aud !== claims.data.client_id) return undefined;
    return claims.data;
  } catch (error) {
    if (error instanceof errors.JOSEError) return undefined;
    throw error;
  }
}
