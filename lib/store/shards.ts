/**
 * The write partition of a record with a random id (an audit event, an event without a
 * subject): from the id, so that a tenant's records spread evenly over `shards` partitions.
 */
export const shardOf = (id: string, shards: number) => Number.parseInt(id.replace(/-/g, '').slice(0, 8), 16) % shards || 0;
