import { errors, jwtVerify } from 'jose';
import { AMR_VALUES, type Identity } from '../caller';
import { ROLES } from '../users/user';
import * as z from '../zod';
import { type KeySet, type PublicKeySet, signJwt } from './signing-keys';
import { checksOf, verifiedTokens } from './verified-tokens';

export type { Identity } from '../caller';

export interface TokenSettings {
  issuer: string;
  audience: string;
  ttlSeconds: number;
}

/** Signs a first-party session access token (ES256, with `kid`). `now` in epoch seconds. */
export async function signAccessToken(keys: KeySet, settings: TokenSettings, identity: Identity, jti: string, now: number) {
  const token = signJwt(keys, 'JWT', {
    username: identity.username,
    role: identity.role,
    tenantId: identity.tenantId,
    shopId: identity.shopId,
    sid: identity.sessionId,
    amr: identity.amr,
    auth_time: identity.authTime,
    ...(identity.idp === undefined ? {} : { idp: identity.idp }),
    iss: settings.issuer,
    aud: settings.audience,
    sub: identity.userId,
    iat: now,
    exp: now + settings.ttlSeconds,
    jti,
  });
  return { token, expiresAt: now + settings.ttlSeconds };
}

const sessionClaims = z.object({
  sub: z.string().check(z.minLength(1)),
  username: z.string().check(z.minLength(1)),
  role: z.enum(ROLES),
  tenantId: z.string().check(z.minLength(1)),
  shopId: z.string().check(z.minLength(1)),
  sid: z.string().check(z.minLength(1)),
  /** Sessions carry these only (lib/caller.ts): a token with another is not ours to honour. */
  amr: z.array(z.enum(AMR_VALUES)),
  /** Absent from tokens issued before it was added: their `iat` stands in. */
  auth_time: z.optional(z.number().check(z.int())),
  /** The connection of a federated session (docs/api.md 14.3). */
  idp: z.optional(z.string().check(z.minLength(1))),
});

export type VerifyFailure = 'malformed' | 'signature' | 'expired' | 'claims';

const verified = verifiedTokens<Identity>();

/**
 * Verifies a session access token: signature against our published keys (ES256
 * only), then `typ`, `iss`, `aud`, `exp`/`nbf`, then the shape of our claims. OAuth access
 * tokens have another audience and no `sid`, so they never pass. A token sent again
 * within its time is recalled, not verified again (lib/tokens/verified-tokens.ts).
 */
export async function verifyAccessToken(
  keys: PublicKeySet,
  settings: Omit<TokenSettings, 'ttlSeconds'>,
  token: string,
  now: number,
): Promise<{ ok: true; identity: Identity } | { ok: false; reason: VerifyFailure }> {
  const checks = checksOf(settings.issuer, settings.audience);
  const recalled = verified.recall(keys, checks, token, now);
  if (recalled) return { ok: true, identity: recalled };
  try {
    const { payload } = await jwtVerify(token, keys.publicKeyFor, {
      algorithms: ['ES256'],
      // Explicit typing (RFC 8725 3.11): OAuth access tokens are `at+jwt`.
      typ: 'JWT',
      issuer: settings.issuer,
      audience: settings.audience,
      currentDate: new Date(now * 1000),
      requiredClaims: ['exp', 'iat', 'sub'],
    });
    const claims = sessionClaims.safeParse(payload);
    if (!claims.success) return { ok: false, reason: 'claims' };
    const { sub, sid, auth_time, username, role, tenantId, shopId, amr, idp } = claims.data;
    const authTime = auth_time ?? (typeof payload.iat === 'number' ? payload.iat : 0);
    const base = { userId: sub, sessionId: sid, username, role, tenantId, shopId, amr, authTime };
    const identity: Identity = idp === undefined ? base : { ...base, idp };
    verified.remember(keys, checks, token, payload, identity);
    return { ok: true, identity };
  } catch (error) {
    if (error instanceof errors.JWTExpired) return { ok: false, reason: 'expired' };
    if (error instanceof errors.JWTClaimValidationFailed) return { ok: false, reason: 'claims' };
    if (error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JWKSNoMatchingKey) {
      return { ok: false, reason: 'signature' };
    }
    if (error instanceof errors.JOSEError) return { ok: false, reason: 'malformed' };
    throw error;
  }
}
