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
};
