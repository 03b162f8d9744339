/** Authentication methods references (RFC 8176) a session was established with. */
export type Amr = 'pwd' | 'otp';

/**
 * A login session: the family of its refresh tokens. Only the hash of the current
 * refresh token is kept, with the hashes of the last retired ones so that a retired
 * token presented again is recognised as reuse.
 */
export interface Session {
  id: string;
  tenantId: string;
  userId: string;
  amr: Amr[];
  /** Epoch seconds. */
  createdAt: number;
  /** Epoch seconds; the session ends here at the latest (30 days after login by default). */
  expiresAt: number;
  refreshHash: string;
  refreshGeneration: number;
  /** Hashes of retired refresh tokens by generation (`g<n>`), the last RETIRED_KEPT of them. */
  retired: Record<string, string>;
  revokedAt?: number | undefined;
  revokedReason?: string | undefined;
}

/** How many retired refresh-token hashes a session remembers for reuse detection. */
export const RETIRED_KEPT = 16;

export type RotateResult =
  | { outcome: 'rotated'; session: Session }
  /** The token was valid once and has been retired: the session must be revoked. */
  | { outcome: 'reused'; session: Session }
  | { outcome: 'invalid' };
