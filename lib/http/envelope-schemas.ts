import { ERROR_CODES } from '../errors';
import * as z from '../zod';

/*
 * The envelope of every JSON answer (docs/api.md 2) as schemas; the data inside is
 * described next to its domain (lib/sessions/api-schemas.ts, lib/oauth/api-schemas.ts, ...).
 */

/** The data of an answer that only says what happened (`{ message }`). */
export const message = <M extends string>(text: M) => z.strictObject({ message: z.literal(text) });

/** docs/api.md 2: the success envelope around `data`. */
export const success = <T extends z.ZodMiniType>(data: T) => z.strictObject({ success: z.literal(true), data });

/** docs/api.md 2: the failure envelope, with its stable code and, for validation failures, every problem. */
export const failure = z.strictObject({
  success: z.literal(false),
  error: z.string(),
  code: z.enum(ERROR_CODES),
  fields: z.optional(z.array(z.strictObject({ path: z.string(), message: z.string() }))),
});
