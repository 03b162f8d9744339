import * as z from 'zod';
import type { Deps } from '../deps';
import { schemaFailure } from '../http/middlewares/validate';
import type { OAuthClient } from './client';
import { loadClientSecretHasher } from './client-secret';
import { oauthErrors } from './errors';

/** How a client presented its credentials (RFC 6749 2.3.1). */
export interface PresentedClient {
  method: 'client_secret_basic' | 'client_secret_post' | 'none';
  clientId?: string | undefined;
  clientSecret?: string | undefined;
  /** Malformed Basic credentials, or Basic and a body secret at once (RFC 6749 2.3.1: one method only). */
  invalid?: boolean;
}

/** The credential fields of a request body. */
export interface BodyCredentials {
  client_id?: string | undefined;
  client_secret?: string | undefined;
}

/**
 * RFC 6749 2.3.1: `Basic base64(urlencode(client_id) ":" urlencode(client_secret))`.
 * Undefined if the header is not Basic; `invalid` if it is but cannot be read.
 */
function basicCredentials(authorization: string | undefined): PresentedClient | undefined {
  if (!authorization || !/^Basic /i.test(authorization)) return undefined;
  const invalid: PresentedClient = { method: 'client_secret_basic', invalid: true };
  const encoded = authorization.slice('Basic '.length).trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length > 1024) return invalid;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1) return invalid;
  const formDecode = (value: string) => decodeURIComponent(value.replace(/\+/g, ' '));
  try {
    return {
      method: 'client_secret_basic',
      clientId: formDecode(decoded.slice(0, colon)),
      clientSecret: formDecode(decoded.slice(colon + 1)),
    };
  } catch {
    // A malformed percent-escape.
    return invalid;
  }
}

/** The seed's rule for JSON token requests: credentials in the body, both required. */
const seedCredentials = z.object({ client_id: z.string().min(1), client_secret: z.string().min(1) });

/**
 * The client credentials of a request: HTTP Basic, or `client_id` and `client_secret`
 * in the body. A JSON request without either is refused as the seed refuses it
 * (400, validation message); a form request without credentials fails at authentication.
 */
export function presentedClient(
  headers: Record<string, string | undefined>,
  body: BodyCredentials,
  format: 'json' | 'form',
): PresentedClient {
  const basic = basicCredentials(headers.authorization ?? headers.Authorization);
  if (basic) {
    const conflicting = body.client_secret !== undefined || (body.client_id !== undefined && body.client_id !== basic.clientId);
    return conflicting ? { ...basic, invalid: true } : basic;
  }
  if (format === 'json') {
    const checked = seedCredentials.safeParse(body);
    if (!checked.success) throw schemaFailure(checked.error, 'body');
  }
  if (body.client_id === undefined || body.client_secret === undefined) return { method: 'none', clientId: body.client_id };
  return { method: 'client_secret_post', clientId: body.client_id, clientSecret: body.client_secret };
}

/**
 * Authenticates a client: its secret against the stored hash, in constant time, with
 * the same work for an unknown client. Any failure is 401 `Invalid client`.
 */
export async function authenticateClient(deps: Pick<Deps, 'config' | 'store' | 'log'>, presented: PresentedClient): Promise<OAuthClient> {
  const failed = (reason: string) => {
    deps.log.info('oauth_client_authentication_failed', { clientId: presented.clientId, method: presented.method, reason });
    return oauthErrors.invalidClient(presented.method === 'client_secret_basic');
  };
  if (presented.invalid || presented.clientId === undefined || presented.clientSecret === undefined) throw failed('no_valid_credentials');
  const hasher = await loadClientSecretHasher(deps.config.oauthClientSecretPepper);
  const client = await deps.store.oauthClients.find(presented.clientId);
  const matches = hasher.verify(client?.secretHash, presented.clientSecret);
  if (!client) throw failed('unknown_client');
  if (!matches) throw failed('wrong_secret');
  return client;
}
