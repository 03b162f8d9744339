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
const tenantClientsPartition = (tenantId: string) => `${tenantPrefix(tenantId)}#CLIENTS`;
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
  /** A pending browser sign-in (docs/api.md 11.5), under the tenant of its client. */
  interaction: (tenantId: string, id: string): Key => ({ pk: `${tenantPrefix(tenantId)}#INTERACTION#${part(id)}`, sk: 'INTERACTION' }),
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
  /** A user's recovery codes (docs/api.md 8.6): one record, the digests of the unused codes. */
  mfaRecoveryCodes: (tenantId: string, userId: string): Key => ({ pk: mfaPartition(tenantId, userId), sk: 'RECOVERY' }),
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
  /**
   * The tenant index entry of an OAuth client (the owner index, `gsi1`, on the client
   * record): one query lists a tenant's clients, oldest first (docs/api.md 9.9).
   */
  tenantClient: (tenantId: string, createdAt: string, clientId: string) => ({
    gsi1pk: tenantClientsPartition(tenantId),
    gsi1sk: `CLIENT#${createdAt}#${part(clientId)}`,
  }),
  /** The index partition of a tenant's OAuth clients. */
  tenantClientsPartition,
};
