import { ValidationError } from '../errors';
import type { IndexPosition } from '../store/keys';
import * as z from '../zod';

export const INVALID_CURSOR = 'Invalid cursor';

/** The refusal of a cursor of another tenant, or of one that does not decode to a position (docs/api.md 9.1). */
export const invalidCursor = () => new ValidationError(INVALID_CURSOR, { code: 'INVALID_CURSOR' });

/*
 * The cursor of a tenant's list sorted by time and id (its users, docs/api.md 9.1; its
 * invitations, 13.1) is the position of the page's last entry and the tenant it belongs
 * to. The start key is rebuilt from the caller's tenant, so no cursor can reach into
 * another tenant's partition; one of another tenant, or one that does not decode, is
 * refused. It is not sealed: a well-formed one names a position of the caller's own list.
 */
const cursorSchema = z.strictObject({ t: z.string(), c: z.iso.datetime(), i: z.string().check(z.minLength(1), z.maxLength(128)) });

export function encodePageCursor(tenantId: string, position: IndexPosition): string {
  return Buffer.from(JSON.stringify({ t: tenantId, c: position.createdAt, i: position.id })).toString('base64url');
}

/** The position a cursor of this tenant names; else 400 `Invalid cursor`. */
export function decodePageCursor(tenantId: string, cursor: string): IndexPosition {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  const parsed = cursorSchema.safeParse(decoded);
  if (!parsed.success || parsed.data.t !== tenantId) throw invalidCursor();
  return { createdAt: parsed.data.c, id: parsed.data.i };
}
