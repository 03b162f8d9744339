import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { clientSourceLimited, noCache, type OperationDoc } from '../lib/http/operation-doc';
import { document } from '../lib/http/reply';
import { authenticateClient, presentedClient } from '../lib/oauth/client-auth';
import { requireClientSecretPepper } from '../lib/oauth/client-secret';
import { startDeviceAuthorization } from '../lib/oauth/device-authorization';
import { NO_CACHE, oauthErrors, rfcErrorFormat } from '../lib/oauth/errors';
import * as z from '../lib/zod';

/** RFC 8628 3.1: the client's credentials (or HTTP Basic) and the scope it asks for. */
export const body = z.object({
  client_id: z.optional(z.string().check(z.minLength(1), z.maxLength(128))),
  client_secret: z.optional(z.string().check(z.minLength(1), z.maxLength(512))),
  scope: z.optional(z.string().check(z.maxLength(1024))),
});

/**
 * POST /oauth2/device_authorization (docs/api.md 16.4, RFC 8628 3.1): a form body, the
 * client authenticated as at the token endpoint; answers in RFC format.
 */
export function makeHandler(deps: Deps) {
  requireClientSecretPepper(deps.config);
  return httpHandler(
    deps,
    { identity: 'none', body, acceptForm: true, formatError: rfcErrorFormat },
    async ({ body, headers, bodyFormat, deps, sourceIp }) => {
      if (bodyFormat !== 'form') throw oauthErrors.formRequired();
      const client = await authenticateClient(deps, presentedClient(headers, body, bodyFormat), sourceIp);
      return document(await startDeviceAuthorization(deps, client, body.scope), 200, NO_CACHE);
    },
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '16.4',
  summary: 'Device authorization (RFC 8628): a device code for the device, a user code for its user',
  tag: 'oauth2',
  caller: 'client',
  bodyTypes: ['form'],
  rfcErrors: true,
  answers: [
    {
      status: 200,
      description: 'The RFC 8628 3.2 document: `device_code`, `user_code`, `verification_uri(_complete)`, `expires_in`, `interval`.',
      body: 'DeviceAuthorizationResponse',
      headers: noCache,
    },
  ],
  failures: [
    oauthErrors.formRequired(),
    oauthErrors.invalidClient(true),
    clientSourceLimited,
    oauthErrors.unauthorizedClient(),
    oauthErrors.invalidScope(),
  ],
};
