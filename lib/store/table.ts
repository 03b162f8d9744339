/** The TTL attribute: DynamoDB deletes an item some time after this epoch second. */
export const TTL_ATTRIBUTE = 'ttl';

/**
 * The one global secondary index: what belongs to an owner, listed by query (never a
 * scan): a user's sessions and grants under `gsi1pk` = the user's index key (lib/store/keys).
 * Projects every attribute; it is read for listings only, never for a decision.
 */
export const OWNER_INDEX = { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' } as const;
