import { username } from '../http/schemas';
import * as z from '../zod';
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

const text = z.string().check(z.maxLength(256));

/** RFC 7643 4.1.1 `name`: its sub-attributes, strings. */
const nameSchema = z.strictObject({
  formatted: z.optional(text),
  familyName: z.optional(text),
  givenName: z.optional(text),
  middleName: z.optional(text),
  honorificPrefix: z.optional(text),
  honorificSuffix: z.optional(text),
});

/** RFC 7643 4.1.2 `emails`: an address, its type, whether primary. */
const emailSchema = z.strictObject({
  value: z.email().check(z.maxLength(254)),
  type: z.optional(z.string().check(z.maxLength(64))),
  primary: z.optional(scimBoolean),
  display: z.optional(text),
});

/**
 * A user as a SCIM client writes it (POST, PUT, and the result of a PATCH): the attributes
 * the service stores (docs/api.md 13.3). Read-only ones (`id`, `meta`, `groups`) are
 * dropped; other attributes are not stored and so are ignored, as RFC 7644 3.3 lets a
 * service provider do.
 */
export const userInput = z.object({
  userName: username,
  externalId: z.optional(z.string().check(z.minLength(1), z.maxLength(128))),
  name: z.optional(nameSchema),
  displayName: z.optional(text),
  emails: z.optional(z.array(emailSchema).check(z.maxLength(10))),
  active: z.optional(scimBoolean),
  [COMMERCE_SCHEMA]: z.optional(z.strictObject({ shopId: z.optional(z.string().check(z.minLength(1), z.maxLength(128))) })),
});
export type UserInput = z.output<typeof userInput>;

/** RFC 7644 3.5.2: a PATCH request, `op` in any letter case. */
export const patchRequest = z.object({
  schemas: z.optional(z.array(z.string())),
  Operations: z
    .array(
      z.object({
        op: z.pipe(
          z.pipe(
            z.string(),
            z.transform((op) => op.toLowerCase()),
          ),
          z.enum(['add', 'replace', 'remove']),
        ),
        path: z.optional(z.string().check(z.minLength(1), z.maxLength(512))),
        value: z.optional(z.unknown()),
      }),
    )
    .check(z.minLength(1), z.maxLength(100)),
});
export type PatchRequest = z.output<typeof patchRequest>;

/** RFC 7644 3.4.2.4: 1-based `startIndex` (below 1 reads as 1) and `count` (negative reads as 0), at most 100 a page. */
export const listQuery = z.object({
  filter: z.optional(z.string().check(z.maxLength(1024))),
  startIndex: z.optional(z.coerce.number().check(z.int())),
  count: z.optional(z.coerce.number().check(z.int())),
});
export type ListQuery = z.output<typeof listQuery>;
export const MAX_RESULTS = 100;

/** A SCIM body or query as `schema` says, or its first problem as 400 `invalidValue` (RFC 7644 3.12). */
export function parseScim<S extends z.ZodMiniType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue?.path.map(String).join('.') || 'body';
  throw scimErrors.invalidValue(`${path}: ${issue?.message ?? 'Invalid input'}`);
}
