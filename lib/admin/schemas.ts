import { shopId } from '../http/schemas';
import * as z from '../zod';

/** A name people read: one line of text (docs/api.md 9.7, 13.3). */
export const oneLineName = z.string().check(z.trim(), z.minLength(1), z.maxLength(100), z.regex(/^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+$/u));

/** POST /admin/shops (docs/api.md 9.7): ids are canonical (10.2); names are one line of text. */
export const newShop = z.strictObject({ shopId, name: oneLineName });

/** The path of the routes on one user (docs/api.md 9): user ids are UUIDs. */
export const userPath = z.strictObject({ userId: z.uuid() });
