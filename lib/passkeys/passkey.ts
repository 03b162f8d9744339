import * as z from '../zod';

/** The two WebAuthn ceremonies a challenge is issued for (docs/api.md 12). */
export const CEREMONIES = ['registration', 'authentication'] as const;
export type Ceremony = (typeof CEREMONIES)[number];

/** How long a challenge may be answered (docs/api.md 12): 5 minutes, the options' `timeout` too. */
export const CHALLENGE_TTL_SECONDS = 5 * 60;

/** How long a removed passkey's record stays (so that a removal whose answer was lost is recognised). */
export const REMOVED_KEPT_SECONDS = 24 * 3600;

/** Passkeys one user may register (each is listed in the registration's `excludeCredentials`). */
export const MAX_PASSKEYS_PER_USER = 20;

/**
 * A registered passkey, as stored under its tenant (lib/store/passkeys.ts). `id` is the
 * base64url SHA-256 of the credential id: short, fixed-length, and one per credential.
 */
export const passkeySchema = z.object({
  id: z.string(),
  tenantId: z.string(),
  userId: z.string(),
  /** The credential id, base64url. */
  credentialId: z.string(),
  /** The public key, SubjectPublicKeyInfo DER, base64url. */
  publicKey: z.string(),
  /** Its COSE algorithm (-7 ES256, -8 EdDSA, -257 RS256). */
  algorithm: z.number().check(z.int()),
  /** The last signature counter seen; 0 for authenticators that keep none. */
  counter: z.number().check(z.int(), z.nonnegative()),
  /** The credential may be synced to other devices (backup eligible, WebAuthn 6.1 flag BE). */
  backupEligible: z.boolean(),
  transports: z.array(z.string()),
  name: z.string(),
  /** Epoch seconds. */
  createdAt: z.number(),
  lastUsedAt: z.optional(z.number()),
  /** Epoch seconds of a removal: a removed passkey is no longer a passkey. */
  removedAt: z.optional(z.number()),
});
export type Passkey = z.output<typeof passkeySchema>;

/** A challenge issued for one ceremony in one tenant, for one user at registration. */
export const challengeSchema = z.object({
  challenge: z.string(),
  tenantId: z.string(),
  ceremony: z.enum(CEREMONIES),
  /** The user the ceremony is for (registration; authentication when a username was given). */
  userId: z.optional(z.string()),
  /** Epoch seconds. */
  expiresAt: z.number(),
});
export type Challenge = z.output<typeof challengeSchema>;

/** A passkey as the API shows it (docs/api.md 12): never its key or credential id. */
export interface PasskeyView {
  id: string;
  name: string;
  /** ISO 8601. */
  createdAt: string;
  lastUsedAt: string | null;
}

const isoOf = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString();

/** The view of a stored passkey. */
export function passkeyView(passkey: Passkey): PasskeyView {
  return {
    id: passkey.id,
    name: passkey.name,
    createdAt: isoOf(passkey.createdAt),
    lastUsedAt: passkey.lastUsedAt === undefined ? null : isoOf(passkey.lastUsedAt),
  };
}
