import * as z from 'zod';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { document } from '../lib/http/reply';
import { authenticateClient, presentedClient } from '../lib/oauth/client-auth';
import { requireClientSecretPepper } from '../lib/oauth/client-secret';
import { NO_CACHE, oauthErrors, rfcErrorFormat } from '../lib/oauth/errors';
import { introspect } from '../lib/oauth/introspection';

export const body = z.object({
  token: z.string().max(4096).optional(),
  token_type_hint: z.string().max(64).optional(),
  client_id: z.string().min(1).max(128).optional(),
  client_secret: z.string().min(1).max(512).optional(),
});

/** POST /oauth2/introspect (RFC 7662): form-encoded, client-authenticated; a client sees only its own tokens. */
export function makeHandler(deps: Deps) {
  requireClientSecretPepper(deps.config);
  return httpHandler(
    deps,
    { identity: 'none', body, acceptForm: true, formatError: rfcErrorFormat },
    async ({ body, headers, bodyFormat, deps }) => {
      if (bodyFormat !== 'form') throw oauthErrors.formRequired();
      const client = await authenticateClient(deps, presentedClient(headers, body, bodyFormat));
      if (!body.token) throw oauthErrors.missingToken();
      return document(await introspect(deps, client, body.token), 200, NO_CACHE);
    },
  );
}

export const handler = makeHandler(defaultDeps());
