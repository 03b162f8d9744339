import * as z from 'zod';
import type { Deps } from '../deps';
import { httpHandler } from '../http/handler';
import type { Reply } from '../http/reply';
import type { OAuthClient } from './client';
import { authenticateClient, presentedClient } from './client-auth';
import { requireClientSecretPepper } from './client-secret';
import { oauthErrors, rfcErrorFormat } from './errors';

/** The body of the endpoints where a client asks about one of its tokens (RFC 7009 2.1, RFC 7662 2.1). */
export const clientTokenBody = z.object({
  token: z.string().max(4096).optional(),
  token_type_hint: z.string().max(64).optional(),
  client_id: z.string().min(1).max(128).optional(),
  client_secret: z.string().min(1).max(512).optional(),
});

/**
 * revoke and introspect: form-encoded only, the client authenticated (HTTP Basic or
 * the body), then `token` required; `handle` gets the authenticated client and the token.
 * Failures answer in RFC 6749 5.2 format.
 */
export function clientTokenRoute(deps: Deps, handle: (deps: Deps, client: OAuthClient, token: string) => Promise<Reply>) {
  requireClientSecretPepper(deps.config);
  return httpHandler(
    deps,
    { identity: 'none', body: clientTokenBody, acceptForm: true, formatError: rfcErrorFormat },
    async ({ body, headers, bodyFormat, deps, sourceIp }) => {
      if (bodyFormat !== 'form') throw oauthErrors.formRequired();
      const client = await authenticateClient(deps, presentedClient(headers, body, bodyFormat), sourceIp);
      if (!body.token) throw oauthErrors.missingToken();
      return handle(deps, client, body.token);
    },
  );
}
