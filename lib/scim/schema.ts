import * as z from 'zod';
import { username } from '../http/schemas';
import { scimErrors } from './errors';

/** RFC 7643 4.1 and docs/api.md 13.3: the schemas of a SCIM user. */
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const COMMERCE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:commerce:2.0:User';
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/** RFC 7643 2.3.2 booleans, and the strings Entra ID sends for them ("True", "False"). */
export const scimBoolean = z.preprocess(
  (value) => (typeof value === 'string' && /^(true|false)$/i.test(value) ? value.toLowerCase() === 'true' : value),
  z.boolean(),
);

const text = z.string().max(256);

/** RFC 7643 4.1.1 `name`: its sub-attributes, strings. */
const nameSchema = z.strictObject({
  formatted: text.optional(),
  familyName: text.optional(),
  givenName: text.optional(),
  middleName: text.optional(),
  honorificPrefix: text.optional(),
  honorificSuffix: text.optional(),
});

/** RFC 7643 4.1.2 `emails`: an address, its type, whether primary. */
const emailSchema = z.strictObject({
  value: z.email().max(254),
  type: z.string().max(64).optional(),
  primary: scimBoolean.optional(),
  display: text.optional(),
});

/**
 * A user as a SCIM client writes it (POST, PUT, and the result of a PATCH): the attributes
 * the service stores (docs/api.md 13.3). Read-only ones (`id`, `meta`, `groups`) are
 * dropped; other attributes are not stored and so are ignored, as RFC 7644 3.3 lets a
 * service provider do.
 */
export const userInput = z.object({
  userName: username,
  externalId: z.string().min(1).max(128).optional(),
  name: nameSchema.optional(),
  displayName: text.optional(),
  emails: z.array(emailSchema).max(10).optional(),
  active: scimBoolean.optional(),
  [COMMERCE_SCHEMA]: z.strictObject({ shopId: z.string().min(1).max(128).optional() }).optional(),
});
export type UserInput = z.output<typeof userInput>;

/** RFC 7644 3.5.2: a PATCH request, `op` in any letter case. */
export const patchRequest = z.object({
  schemas: z.array(z.string()).optional(),
  Operations: z
    .array(
      z.object({
        op: z
          .string()
          .transform((op) => op.toLowerCase())
          .pipe(z.enum(['add', 'replace', 'remove'])),
        path: z.string().min(1).max(512).optional(),
        value: z.unknown().optional(),
      }),
    )
    .min(1)
    .max(100),
});
export type PatchRequest = z.output<typeof patchRequest>;

/** RFC 7644 3.4.2.4: 1-based `startIndex` (below 1 reads as 1) and `count` (negative reads as 0), at most 100 a page. */
export const listQuery = z.object({
  filter: z.string().max(1024).optional(),
  startIndex: z.coerce.number().int().optional(),
  count: z.coerce.number().int().optional(),
});
export type ListQuery = z.output<typeof listQuery>;
export const MAX_RESULTS = 100;

/** A SCIM body or query as `schema` says, or its first problem as 400 `invalidValue` (RFC 7644 3.12). */
export function parseScim<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue?.path.map(String).join('.') || 'body';
  throw scimErrors.invalidValue(`${path}: ${issue?.message ?? 'Invalid input'}`);
}
