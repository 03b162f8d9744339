import * as z from 'zod';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { redirect } from '../lib/http/reply';
import { authorize } from '../lib/oauth/authorization';
import { CODE_CHALLENGE } from '../lib/oauth/pkce';

/** docs/api.md 4.6 plus PKCE (docs/api.md 4.6). */
export const query = z.object({
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
});

/** GET /oauth2/authorize (docs/api.md 4.6): a code for the signed-in user, by redirect to the client. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', query }, async ({ query, identity, deps }) =>
    redirect(await authorize(deps, identity, query)),
  );
}

export const handler = makeHandler(defaultDeps());
