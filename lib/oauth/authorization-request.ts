import * as z from '../zod';
import { CODE_CHALLENGE } from './pkce';

/** The query of GET /oauth2/authorize (docs/api.md 4.6 plus PKCE), for both of its doors. */
export const authorizationQuery = z.object({
  client_id: z.string().check(z.minLength(1), z.maxLength(128)),
  redirect_uri: z.string().check(z.minLength(1), z.maxLength(2000)),
  response_type: z.string().check(z.minLength(1), z.maxLength(64)),
  scope: z.optional(z.string().check(z.maxLength(1024))),
  state: z.optional(z.string().check(z.maxLength(1024))),
  code_challenge: z.optional(z.string().check(z.regex(CODE_CHALLENGE))),
  code_challenge_method: z.optional(z.string().check(z.maxLength(16))),
  /** RFC 8707: the resource server the client will ask tokens for with the code. */
  resource: z.optional(z.string().check(z.maxLength(2000))),
  /** OpenID Connect: given back in the ID token (docs/api.md 11.1); lib/oidc/nonce.ts checks it. */
  nonce: z.optional(z.string()),
  /** RFC 9449 10 (docs/api.md 16.3): the thumbprint of the DPoP key the code must be redeemed with. */
  dpop_jkt: z.optional(z.string().check(z.regex(/^[A-Za-z0-9_-]{43}$/))),
});

/** oauth2Authorize's query (docs/api.md 4.6 plus PKCE, docs/api.md 4.6). */
export type AuthorizationRequest = z.output<typeof authorizationQuery>;

/**
 * A form body's parameters as API Gateway hands a query to a function: a parameter given
 * more than once joined with commas. An authorization request by POST (OpenID Connect
 * Core 3.1.2.1, docs/api.md 16.2) is so read exactly as the same request by GET.
 */
export function formAsQuery(form: unknown): unknown {
  if (typeof form !== 'object' || form === null) return form;
  return Object.fromEntries(Object.entries(form).map(([name, value]) => [name, Array.isArray(value) ? value.join(',') : value]));
}

/** oauth2Authorize's form body by POST: its query's schema, read as a query. */
export const authorizationForm = z.preprocess(formAsQuery, authorizationQuery);
