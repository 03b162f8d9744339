import * as z from 'zod';

/*
 * The fields of a client registration as the routes take them (docs/api.md 4.8, 9.11,
 * 9.13): one definition, so that registering, changing and rotating validate alike.
 */

/** Printable ASCII without spaces: client ids travel in HTTP Basic and in tokens. */
export const clientIdField = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[\x21-\x7E]+$/);
export const clientSecretField = z.string().min(1).max(512);
/** One or more URIs separated by spaces (the rules: lib/oauth/client.ts parseRedirectUris). */
export const redirectUriField = z.string().min(1).max(8192);
export const grantTypesField = z.string().min(1).max(256);
export const scopeField = z.string().min(1).max(1024);
/** Web origins separated by spaces (docs/api.md 16.2; the rules: lib/oauth/client.ts parseAllowedOrigins). */
export const allowedOriginsField = z.string().max(4096);

/** The path of the routes on one client (docs/api.md 9.10-9.13). */
export const clientPath = z.strictObject({ clientId: clientIdField });
