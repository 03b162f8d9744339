import { formatRefreshToken, parseRefreshToken, refreshStateSchema } from '../token-families/refresh-family';
import * as z from '../zod';

/**
 * A grant: the family of tokens issued from one authorization code (and, before
 * client_credentials tokens became stateless, by one client_credentials request: such
 * grants are still honoured until they expire). Access tokens name their grant
 * (`grant_id`), so revoking the grant revokes every token of the family, which
 * introspection sees (RFC 7009 2.1). Its refresh tokens, if its client may refresh,
 * follow the rules of every refresh-token family (lib/token-families).
 */
export const grantSchema = z.extend(z.partial(refreshStateSchema), {
  id: z.string(),
  tenantId: z.string(),
  clientId: z.string(),
  kind: z.enum(['authorization_code', 'client_credentials']),
  /** `sub` of the tokens: the user, or the client itself for client_credentials. */
  subject: z.string(),
  /** The user's session the code was issued in (authorization_code only). */
  sessionId: z.optional(z.string()),
  scope: z.array(z.string()),
  /** The resource (RFC 8707) of the code the grant was redeemed from: its tokens' `aud`. */
  resource: z.optional(z.string()),
  /** Epoch seconds. */
  createdAt: z.number(),
  /** Epoch seconds: nothing issued from the grant is valid after this. */
  expiresAt: z.number(),
  /** For a user's grant, the user's session generation when it was made (lib/users/user.ts). */
  userEpoch: z.optional(z.number().check(z.int(), z.nonnegative())),
  /**
   * The session's last proof of a credential and its methods when the code was redeemed
   * (epoch seconds, RFC 8176): the `auth_time` and `amr` of the ID tokens of a refresh
   * (OIDC Core 12.2: those of the original authentication). Absent on older grants.
   */
  authTime: z.optional(z.number()),
  amr: z.optional(z.array(z.string())),
  /** The connection of the federated session the code was issued in (docs/api.md 14.3): `idp` in its tokens. */
  idp: z.optional(z.string()),
  /** A public client's grant redeemed with a DPoP proof: its refresh tokens need a proof by this key (docs/api.md 16.3). */
  dpopJkt: z.optional(z.string()),
});

export type OAuthGrant = z.output<typeof grantSchema>;

/** How long a grant with refresh tokens lives at most: its refresh tokens end then. */
export const GRANT_MAX_AGE_SECONDS = 30 * 24 * 3600;

/**
 * An OAuth refresh token: `<grant id>.<generation>.<secret>`, the secret 256 random
 * bits. The grant id routes it to its record (under the tenant of the authenticated
 * client).
 */
export interface GrantRefreshToken {
  grantId: string;
  generation: number;
  secret: string;
}

const SEGMENT = /^[A-Za-z0-9_-]{16,64}$/;

export function formatGrantRefreshToken({ grantId, generation, secret }: GrantRefreshToken): string {
  return formatRefreshToken([grantId], generation, secret);
}

/** The parts of an OAuth refresh token, or undefined for anything that cannot be one. */
export function parseGrantRefreshToken(token: string): GrantRefreshToken | undefined {
  const parsed = parseRefreshToken(token, 1, SEGMENT);
  const [grantId] = parsed?.route ?? [];
  return parsed && grantId ? { grantId, generation: parsed.generation, secret: parsed.secret } : undefined;
}
