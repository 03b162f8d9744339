import type * as z from 'zod/mini';

/** A stored item that does not have the shape its record must have: a bug or a tampered table, never the caller's fault. */
export class StoredRecordError extends Error {
  override name = 'StoredRecordError';
}

/**
 * Parses an item read from the table into its record (keys, TTL and write markers are
 * dropped with every attribute the record does not name); undefined stays undefined.
 * The error names the record kind and the failing fields, never their values.
 */
export function parseRecord<S extends z.ZodMiniType>(
  schema: S,
  kind: string,
  item: Record<string, unknown> | undefined,
): z.output<S> | undefined {
  if (item === undefined) return undefined;
  const parsed = schema.safeParse(item);
  if (parsed.success) return parsed.data;
  const fields = parsed.error.issues.map((issue) => issue.path.join('.') || '(record)').join(', ');
  throw new StoredRecordError(`Stored ${kind} record is malformed: ${fields}`);
}
