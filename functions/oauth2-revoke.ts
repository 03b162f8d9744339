import * as z from 'zod';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { authenticateClient, presentedClient } from '../lib/oauth/client-auth';
import { requireClientSecretPepper } from '../lib/oauth/client-secret';
import { oauthErrors, rfcErrorFormat } from '../lib/oauth/errors';
import { revokeToken } from '../lib/oauth/revocation';

export const body = z.object({
  token: z.string().max(4096).optional(),
  token_type_hint: z.string().max(64).optional(),
  client_id: z.string().min(1).max(128).optional(),
  client_secret: z.string().min(1).max(512).optional(),
});

/** POST /oauth2/revoke (RFC 7009): form-encoded, client-authenticated; 200 whether or not the token was valid. */
export function makeHandler(deps: Deps) {
  requireClientSecretPepper(deps.config);
  return httpHandler(
    deps,
    { identity: 'none', body, acceptForm: true, formatError: rfcErrorFormat },
    async ({ body, headers, bodyFormat, deps }) => {
      if (bodyFormat !== 'form') throw oauthErrors.formRequired();
      const client = await authenticateClient(deps, presentedClient(headers, body, bodyFormat));
      if (!body.token) throw oauthErrors.missingToken();
      await revokeToken(deps, client, body.token);
      return { statusCode: 200 };
    },
  );
}

export const handler = makeHandler(defaultDeps());
