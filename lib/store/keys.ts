/**
 * Primary keys of the single table. Every key starts with its tenant, and in every
 * caller-supplied part `%` and `#` are escaped so that a `#` in a tenant id or
 * username can never forge another record's key. Other characters stay as they are,
 * which keeps keys within DynamoDB's 2048-byte limit for parts of up to 128 characters.
 */
const part = (value: string) => value.replace(/%/g, '%25').replace(/#/g, '%23');

/** Usernames are unique per tenant regardless of case and Unicode form. */
export function normalizeUsername(username: string): string {
  return username.normalize('NFKC').toLowerCase();
}

export interface Key {
  pk: string;
  sk: string;
}

const tenantPrefix = (tenantId: string) => `T#${part(tenantId)}`;
const tenantUsersPartition = (tenantId: string) => `${tenantPrefix(tenantId)}#USERS`;
const mfaPartition = (tenantId: string, userId: string) => `${tenantPrefix(tenantId)}#MFA#${part(userId)}`;

export const keys = {
  tenant: (tenantId: string): Key => ({ pk: tenantPrefix(tenantId), sk: 'TENANT' }),
  /** Uniqueness record of a username; holds the user id. */
  username: (tenantId: string, username: string): Key => ({
    pk: `${tenantPrefix(tenantId)}#USERNAME#${part(normalizeUsername(username))}`,
    sk: 'USERNAME',
  }),
  user: (tenantId: string, userId: string): Key => ({ pk: `${tenantPrefix(tenantId)}#USER#${part(userId)}`, sk: 'PROFILE' }),
  session: (tenantId: string, sessionId: string): Key => ({
    pk: `${tenantPrefix(tenantId)}#SESSION#${part(sessionId)}`,
    sk: 'SESSION',
  }),
  loginAttempts: (tenantId: string, username: string): Key => ({
    pk: `${tenantPrefix(tenantId)}#LOGIN#${part(normalizeUsername(username))}`,
    sk: 'ATTEMPTS',
  }),
  /**
   * An OAuth client. The one key without a tenant: the token endpoint learns the
   * client id before any tenant, so client ids are unique across tenants and the
   * record names its tenant (README, deviations).
   */
  oauthClient: (clientId: string): Key => ({ pk: `CLIENT#${part(clientId)}`, sk: 'CLIENT' }),
  /** An authorization code, by the hash of the code, under the tenant of its client. */
  authorizationCode: (tenantId: string, codeHash: string): Key => ({
    pk: `${tenantPrefix(tenantId)}#OAUTHCODE#${part(codeHash)}`,
    sk: 'CODE',
  }),
  /** An OAuth grant (a family of tokens), under the tenant of its client. */
  oauthGrant: (tenantId: string, grantId: string): Key => ({ pk: `${tenantPrefix(tenantId)}#GRANT#${part(grantId)}`, sk: 'GRANT' }),
  /**
   * The revocation of one stateless access token (a client_credentials token has no
   * grant record), by its `jti`, under the tenant of its client; kept until the token expires.
   */
  revokedAccessToken: (tenantId: string, jti: string): Key => ({ pk: `${tenantPrefix(tenantId)}#REVOKEDJTI#${part(jti)}`, sk: 'REVOKED' }),
  /**
   * The owner index (lib/store/table.ts) entry of what a user owns: their sessions and
   * grants, listed newest first by one query on the index.
   */
  ownedBy: (tenantId: string, userId: string, kind: 'SESSION' | 'GRANT', createdAt: number, id: string) => ({
    gsi1pk: `${tenantPrefix(tenantId)}#OWNER#${part(userId)}`,
    gsi1sk: `${kind}#${String(createdAt).padStart(12, '0')}#${part(id)}`,
  }),
  /** The owner index partition of a user's sessions and grants. */
  ownerPartition: (tenantId: string, userId: string) => `${tenantPrefix(tenantId)}#OWNER#${part(userId)}`,
  /**
   * A send quota's window (lib/abuse/send-quota.ts): per user or tenant under the tenant;
   * per destination digest and for the whole service under no tenant, since a number
   * pumped through many tenants is still one number.
   */
  sendQuota: (tenantId: string, scope: 'destination' | 'user' | 'tenant' | 'global', id: string): Key =>
    scope === 'global' || scope === 'destination'
      ? { pk: `SENDS#${scope.toUpperCase()}#${part(id)}`, sk: 'QUOTA' }
      : { pk: `${tenantPrefix(tenantId)}#SENDS#${scope.toUpperCase()}#${part(id)}`, sk: 'QUOTA' },
  /** Everything MFA of one user shares a partition, so one query lists the user's methods. */
  mfaPartition,
  /** One MFA method (TOTP, SMS, EMAIL) of a user. */
  mfaMethod: (tenantId: string, userId: string, method: string): Key => ({
    pk: mfaPartition(tenantId, userId),
    sk: `METHOD#${part(method)}`,
  }),
  /** The attempt counter of wrong codes per user and method (the MFA lockout). */
  mfaAttempts: (tenantId: string, userId: string, method: string): Key => ({
    pk: mfaPartition(tenantId, userId),
    sk: `ATTEMPTS#${part(method)}`,
  }),
  /** The local outbox's last code for a user and method (local development only). */
  mfaOutbox: (tenantId: string, userId: string, method: string): Key => ({
    pk: mfaPartition(tenantId, userId),
    sk: `OUTBOX#${part(method)}`,
  }),
  /** The local outbox's notifications of a user, in the order they were sent (local development only). */
  outboxNotification: (tenantId: string, userId: string, sentAt: number, event: string): Key => ({
    pk: mfaPartition(tenantId, userId),
    sk: `OUTBOX#NOTICE#${String(sentAt).padStart(12, '0')}#${part(event)}`,
  }),
  outboxNotificationPrefix: 'OUTBOX#NOTICE#',
  /**
   * A password reset code (docs/api.md 8.7), by the username asked for: an unknown
   * username gets the same record (of nobody) as a known one, so the work is the same.
   */
  passwordReset: (tenantId: string, username: string): Key => ({
    pk: `${tenantPrefix(tenantId)}#RESET#${part(normalizeUsername(username))}`,
    sk: 'RESET',
  }),
  /** The attempt counter of reset codes tried for a username, across the codes it is sent. */
  resetAttempts: (tenantId: string, username: string): Key => ({
    pk: `${tenantPrefix(tenantId)}#RESET#${part(normalizeUsername(username))}`,
    sk: 'ATTEMPTS',
  }),
  /** The code that verifies a user's email address (docs/api.md 8.8). */
  emailVerification: (tenantId: string, userId: string): Key => ({
    pk: `${tenantPrefix(tenantId)}#USER#${part(userId)}`,
    sk: 'EMAILVERIFY',
  }),
  /**
   * The tenant index entry of a user (the owner index, `gsi1`): one query lists a
   * tenant's users, oldest first, page by page (docs/api.md 9.1).
   */
  tenantUser: (tenantId: string, createdAt: string, userId: string) => ({
    gsi1pk: tenantUsersPartition(tenantId),
    gsi1sk: `USER#${createdAt}#${part(userId)}`,
  }),
  /** The index partition of a tenant's users. */
  tenantUsersPartition,
};
