import type { Identity } from '../tokens/access-token';
import type { DeliveredMethod } from './methods';

/** Whose second factor: what every audit line names. */
export interface Account {
  tenantId: string;
  userId: string;
  username: string;
}

export function accountOf(identity: Identity): Account {
  return { tenantId: identity.tenantId, userId: identity.userId, username: identity.username };
}

// What sealed secrets and code digests are bound to: a value copied to another user's record does not open.

/** The context a user's TOTP secret is sealed under. */
export const secretContext = ({ tenantId, userId }: Account) => `totp-secret\u0000${tenantId}\u0000${userId}`;

/** The context a code sent to one method of a user is digested under. */
export const codeContext = ({ tenantId, userId }: Account, method: DeliveredMethod) =>
  `code\u0000${tenantId}\u0000${userId}\u0000${method}`;

/** The context a user's recovery codes are digested under. */
export const recoveryContext = ({ tenantId, userId }: Account) => `recovery-code\u0000${tenantId}\u0000${userId}`;
