import { constantEquals } from '../crypto/constant-equals';
import { hashToken } from '../crypto/token-hash';

/**
 * A grant: the family of tokens issued from one authorization code (and, before
 * client_credentials tokens became stateless, by one client_credentials request: such
 * grants are still honoured until they expire). Access tokens name their grant
 * (`grant_id`), so revoking the grant revokes every token of the family, which
 * introspection sees (RFC 7009 2.1).
 * Refresh tokens rotate: only the hash of the current one is kept, with the hashes of
 * the last retired ones so that a retired token presented again is recognised as reuse.
 */
export interface OAuthGrant {
  id: string;
  tenantId: string;
  clientId: string;
  kind: 'authorization_code' | 'client_credentials';
  /** `sub` of the tokens: the user, or the client itself for client_credentials. */
  subject: string;
  /** The user's session the code was issued in (authorization_code only). */
  sessionId?: string | undefined;
  scope: string[];
  /** Epoch seconds. */
  createdAt: number;
  /** Epoch seconds: nothing issued from the grant is valid after this. */
  expiresAt: number;
  refreshHash?: string | undefined;
  refreshGeneration?: number | undefined;
  /** Hashes of retired refresh tokens by generation (`g<n>`), the last RETIRED_REFRESH_KEPT of them. */
  retired?: Record<string, string> | undefined;
  /** Epoch seconds of the last rotation. */
  refreshedAt?: number | undefined;
  revokedAt?: number | undefined;
  revokedReason?: string | undefined;
}

export const RETIRED_REFRESH_KEPT = 16;

export type GrantRotateResult =
  | { outcome: 'rotated'; grant: OAuthGrant }
  /** The token was valid once and has been retired: the grant must be revoked. */
  | { outcome: 'reused'; grant: OAuthGrant }
  | { outcome: 'invalid' };

/**
 * An OAuth refresh token: `<grant id>.<generation>.<secret>`, the secret 256 random
 * bits. The grant id routes it to its record (under the tenant of the authenticated
 * client). Unlike a JWT, its middle part is a decimal number, so the two never mix.
 */
export interface GrantRefreshToken {
  grantId: string;
  generation: number;
  secret: string;
}

const SEGMENT = /^[A-Za-z0-9_-]{16,64}$/;
const GENERATION = /^(0|[1-9][0-9]{0,8})$/;

export function formatGrantRefreshToken({ grantId, generation, secret }: GrantRefreshToken): string {
  return `${grantId}.${generation}.${secret}`;
}

/** The parts of an OAuth refresh token, or undefined for anything that cannot be one. */
export function parseGrantRefreshToken(token: string): GrantRefreshToken | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [grantId, generation, secret] = parts as [string, string, string];
  if (!SEGMENT.test(grantId) || !GENERATION.test(generation) || !SEGMENT.test(secret)) return undefined;
  return { grantId, generation: Number(generation), secret };
}

/** Whether `token` is the grant's current refresh token (or, with `includeRetired`, a retired one), compared as hashes. */
export function isRefreshTokenOf(grant: OAuthGrant, token: string, includeRetired: boolean): boolean {
  const hash = hashToken(token);
  const current = grant.refreshHash !== undefined && constantEquals(grant.refreshHash, hash);
  return current || (includeRetired && Object.values(grant.retired ?? {}).some((retired) => constantEquals(retired, hash)));
}
