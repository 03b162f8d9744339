import * as z from 'zod';

import { shopId } from '../http/schemas';

/** A name people read: one line of text (docs/api.md 9.7, 13.3). */
export const oneLineName = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+$/u);

/** POST /admin/shops (docs/api.md 9.7): ids are canonical (10.2); names are one line of text. */
export const newShop = z.strictObject({ shopId, name: oneLineName });

/** The path of the routes on one user (docs/api.md 9): user ids are UUIDs. */
export const userPath = z.strictObject({ userId: z.uuid() });
