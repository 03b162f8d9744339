import * as z from '../zod';

/**
 * Field rules shared by several operations. Lengths beyond the seed's minimums are
 * upper bounds that keep keys and hashing cost bounded (docs/api.md 10.2; README.md,
 * Deviations from the contract).
 */

/** Bounds of an identifier after NFKC, the form the table's keys use (docs/api.md 10.2). */
export const IDENTIFIER_MAX_CHARACTERS = 128;
export const IDENTIFIER_MAX_BYTES = 512;

/**
 * Whether `value`, normalised as lib/store/keys.ts normalises it (NFKC), stays within
 * IDENTIFIER_MAX_CHARACTERS characters and IDENTIFIER_MAX_BYTES bytes of UTF-8. NFKC
 * expands some code points up to 18 times (U+FDFA): a bound on the raw length alone lets
 * a key outgrow DynamoDB's limit.
 */
export function fitsAfterNormalization(value: string): boolean {
  const normalized = value.normalize('NFKC');
  return normalized.length <= IDENTIFIER_MAX_CHARACTERS && Buffer.byteLength(normalized, 'utf8') <= IDENTIFIER_MAX_BYTES;
}

/** The message of an identifier that grows beyond its bounds when normalised (docs/api.md 10.2). */
export const TOO_LONG_NORMALIZED = `Too long after Unicode normalization (NFKC): expected at most ${IDENTIFIER_MAX_CHARACTERS} characters and ${IDENTIFIER_MAX_BYTES} bytes`;

/**
 * 1–128 characters as given; a value that fails that gets that one problem only (the
 * later rule is not checked too: `fields` names each field once, as before).
 */
const bounded = () => z.string().check(z.minLength(1, { abort: true }), z.maxLength(IDENTIFIER_MAX_CHARACTERS, { abort: true }));

/** An identifier compared after NFKC: bounded before and after normalising. */
const normalizedIdentifier = () => bounded().check(z.refine(fitsAfterNormalization, { message: TOO_LONG_NORMALIZED }));

export const username = normalizedIdentifier();

/**
 * Tenant and shop ids in canonical form (docs/api.md 10.2): lower-case ASCII letters,
 * digits and hyphens, 3–63, no hyphen first or last, so that `Default`, `ACME` and
 * full-width look-alikes are not other tenants anyone can claim. The
 * form of a DNS label: an id fits in a host name or a bucket name as it is.
 */
export const CANONICAL_ID = /^[a-z0-9](?:[a-z0-9-]{1,61})[a-z0-9]$/;

/** The message of an id that is not in canonical form. */
export const NOT_CANONICAL_ID = 'Invalid id: expected 3 to 63 lower-case letters, digits and hyphens, not starting or ending with a hyphen';

const canonicalId = () => bounded().check(z.regex(CANONICAL_ID, { message: NOT_CANONICAL_ID }));

/** A tenant id that creates a tenant (docs/api.md 4.3): canonical. */
export const tenantId = canonicalId();
export const shopId = canonicalId();

/**
 * A tenant id that names a tenant which may already exist (login, password reset, an
 * ADMIN's registration, client registration): 1–128 characters as given, the rule before
 * the canonical form, so tenants created before it keep signing in (docs/api.md 10.2).
 * Only creating a tenant requires the canonical form ({@link tenantId}).
 */
export const existingTenantId = bounded();

/** An email address, trimmed and lower-cased before it is bounded and checked (docs/api.md 8.8). */
export const emailAddress = z.pipe(z.string().check(z.maxLength(1024), z.trim(), z.toLowerCase(), z.maxLength(254)), z.email());
