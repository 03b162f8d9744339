import * as z from 'zod';
import { CODE_CHALLENGE } from './pkce';

/** The query of GET /oauth2/authorize (docs/api.md 4.6 plus PKCE), for both of its doors. */
export const authorizationQuery = z.object({
  client_id: z.string().min(1).max(128),
  redirect_uri: z.string().min(1).max(2000),
  response_type: z.string().min(1).max(64),
  scope: z.string().max(1024).optional(),
  state: z.string().max(1024).optional(),
  code_challenge: z.string().regex(CODE_CHALLENGE).optional(),
  code_challenge_method: z.string().max(16).optional(),
  /** RFC 8707: the resource server the client will ask tokens for with the code. */
  resource: z.string().max(2000).optional(),
  /** OpenID Connect: given back in the ID token (docs/api.md 11.1); lib/oidc/nonce.ts checks it. */
  nonce: z.string().optional(),
  /** RFC 9449 10 (docs/api.md 16.3): the thumbprint of the DPoP key the code must be redeemed with. */
  dpop_jkt: z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}$/)
    .optional(),
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
