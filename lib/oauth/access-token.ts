import { errors, jwtVerify } from 'jose';
import { type KeySet, type PublicKeySet, signJwt } from '../tokens/signing-keys';
import { checksOf, verifiedTokens } from '../tokens/verified-tokens';
import * as z from '../zod';

/** `expires_in` of every OAuth access token (docs/api.md 4.7). */
export const OAUTH_ACCESS_TOKEN_TTL_SECONDS = 3600;

/** What an OAuth access token says (RFC 9068 2.2, plus our `tenantId` and, for tokens of a grant, `grant_id`). */
export interface OAuthAccessClaims {
  iss: string;
  /**
   * The resource server the token is for (RFC 8707: the `resource` asked for), else the
   * configured default audience, else the client the token was issued to.
   */
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
  /** The connection of a federated sign-in (docs/api.md 14.3). */
  idp?: string | undefined;
  /** A DPoP-bound token (RFC 9449 6.1, docs/api.md 16.3): the thumbprint of the key that must prove each use. */
  cnf?: { jkt: string } | undefined;
  iat: number;
  exp: number;
  jti: string;
}

/**
 * Signs an OAuth access token: a JWT of type `at+jwt` (RFC 9068) signed ES256 with
 * the same keys as session tokens, so resource servers verify it against our JWKS.
 * Its audience is a resource server or the client (never the session audience: no
 * client or resource may take it), and it has no `sid`, so the session authorizer
 * (which wants our own audience and a session) never accepts it. `aud` defaults to the client.
 */
export function signOAuthAccessToken(keys: KeySet, claims: Omit<OAuthAccessClaims, 'aud' | 'exp'> & { aud?: string | undefined }): string {
  const { iss, client_id, sub, scope, tenantId, grant_id, idp, cnf, iat, jti } = claims;
  return signJwt(keys, 'at+jwt', {
    client_id,
    scope,
    tenantId,
    ...(grant_id === undefined ? {} : { grant_id }),
    ...(idp === undefined ? {} : { idp }),
    ...(cnf === undefined ? {} : { cnf: { jkt: cnf.jkt } }),
    iss,
    aud: claims.aud ?? client_id,
    sub,
    iat,
    exp: iat + OAUTH_ACCESS_TOKEN_TTL_SECONDS,
    jti,
  });
}

const accessClaims = z.object({
  iss: z.string(),
  aud: z.string(),
  client_id: z.string().check(z.minLength(1)),
  sub: z.string().check(z.minLength(1)),
  scope: z.string(),
  tenantId: z.string().check(z.minLength(1)),
  grant_id: z.optional(z.string().check(z.minLength(1))),
  idp: z.optional(z.string().check(z.minLength(1))),
  cnf: z.optional(z.object({ jkt: z.string().check(z.minLength(1)) })),
  iat: z.number(),
  exp: z.number(),
  jti: z.string().check(z.minLength(1)),
});

const verified = verifiedTokens<OAuthAccessClaims>();

/**
 * The claims of a valid OAuth access token of ours (signature, `typ`, `iss`, `exp`, a
 * single `aud`), or undefined for anything else, including session tokens (`typ`).
 * `now` in epoch seconds. Revocation is the caller's check (the grant). A token sent again
 * within its time is recalled, not verified again (lib/tokens/verified-tokens.ts).
 */
export async function verifyOAuthAccessToken(
  keys: PublicKeySet,
  issuer: string,
  token: string,
  now: number,
): Promise<OAuthAccessClaims | undefined> {
  const checks = checksOf(issuer);
  const recalled = verified.recall(keys, checks, token, now);
  if (recalled) return recalled;
  try {
    const { payload } = await jwtVerify(token, keys.publicKeyFor, {
      algorithms: ['ES256'],
      typ: 'at+jwt',
      issuer,
      currentDate: new Date(now * 1000),
      requiredClaims: ['exp', 'iat', 'sub', 'jti', 'aud'],
    });
    const claims = accessClaims.safeParse(payload);
    if (!claims.success) return undefined;
    verified.remember(keys, checks, token, payload, claims.data);
    return claims.data;
  } catch (error) {
    if (error instanceof errors.JOSEError) return undefined;
    throw error;
  }
}
