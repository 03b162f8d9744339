import * as z from '../zod';

/**
 * An authorization code (RFC 6749 4.1.2) as stored: the code itself is 256 random
 * bits given only to the client's redirect URI; the record is keyed by its SHA-256.
 * It is bound to everything the token request must match.
 */
export const authorizationCodeSchema = z.object({
  hash: z.string(),
  tenantId: z.string(),
  clientId: z.string(),
  redirectUri: z.string(),
  userId: z.string(),
  sessionId: z.string(),
  scope: z.array(z.string()),
  /** S256 code challenge (RFC 7636). */
  codeChallenge: z.string(),
  /** The grant the code's tokens will belong to, chosen now so a second use can revoke it. */
  grantId: z.string(),
  /** The resource (RFC 8707) the user authorized the client for, if it asked for one. */
  resource: z.optional(z.string()),
  /** The authorization request's OpenID Connect `nonce`, given back in the ID token (docs/api.md 11.1). */
  nonce: z.optional(z.string()),
  /** RFC 9449 10: the `dpop_jkt` of the authorization request; the code is redeemed with a proof by that key only. */
  dpopJkt: z.optional(z.string()),
  /** Epoch seconds. */
  createdAt: z.number(),
  expiresAt: z.number(),
  /** Set, once, by the token request that redeems the code. */
  usedAt: z.optional(z.number()),
});

export type AuthorizationCode = z.output<typeof authorizationCodeSchema>;

/** A code lives 60 seconds (docs/api.md 4.6). */
export const AUTHORIZATION_CODE_TTL_SECONDS = 60;

/** How long the record is kept after issue, so that a late second use still revokes its tokens. */
export const AUTHORIZATION_CODE_KEPT_SECONDS = 24 * 3600;
