/** The TTL attribute: DynamoDB deletes an item some time after this epoch second. */
export const TTL_ATTRIBUTE = 'ttl';

/**
 * The owner index, the first global secondary index: what belongs to an owner, listed by query (never a
 * scan): a user's sessions and grants under `gsi1pk` = the user's index key (lib/store/keys).
 * Projects every attribute; it is read for listings only, never for a decision.
 */
export const OWNER_INDEX = { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' } as const;

/**
 * The email index, a sparse global secondary index: a tenant's users by email address,
 * under `gsi2pk` = the tenant and the normalized address (keys.userEmail), set on a
 * user's profile whenever it holds an email. Eventually consistent, like every global
 * index: it finds users for lookups (an invitation's duplicate check, a SCIM filter),
 * never for a security decision.
 */
export const EMAIL_INDEX = { name: 'gsi2', partitionKey: 'gsi2pk' } as const;
