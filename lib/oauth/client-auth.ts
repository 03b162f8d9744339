import { sourceOf } from '../abuse/source-address';
import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { TooManyRequestsError } from '../errors';
import { schemaFailure } from '../http/middlewares/validate';
import type { AttemptSubject } from '../store/login-attempts';
import type { SecretSlot } from '../store/oauth-clients';
import * as z from '../zod';
import { hasLivePreviousSecret, isPublicClient, type OAuthClient } from './client';
import { oauthErrors } from './errors';

/** docs/api.md 10.1: the window of the per-source limit on failed client authentications. */
export const CLIENT_AUTH_WINDOW_SECONDS = 15 * 60;

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
const seedCredentials = z.object({ client_id: z.string().check(z.minLength(1)), client_secret: z.string().check(z.minLength(1)) });

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
 * Authenticates a client: a public client (docs/api.md 16.1) by its `client_id` alone,
 * and only if no secret comes with it; a confidential one by its secret against the stored hash, and during a rotation
 * against the previous one until it expires (docs/api.md 9.13), in constant time, with
 * the same work for an unknown client or one without a previous secret. Any failure is
 * 401 `Invalid client`. A secret stored under a pepper that is no longer current is
 * hashed again under the current one (docs/guides/operators.md, "Client-secret pepper rotation"), so that
 * the old pepper can be retired.
 */
export async function authenticateClient(
  deps: Pick<Deps, 'config' | 'store' | 'log' | 'clientSecretHasher' | 'clock'>,
  presented: PresentedClient,
  /** The caller's address as API Gateway saw it: failures are limited per source (docs/api.md 10.1). */
  sourceIp?: string,
): Promise<OAuthClient> {
  const now = epochSeconds(deps.clock);
  const address = sourceOf(sourceIp);
  const source: AttemptSubject | undefined = address === undefined ? undefined : { kind: 'client-source', address };
  const sourcePolicy = { max: deps.config.clientAuthFailuresPerSource, windowSeconds: CLIENT_AUTH_WINDOW_SECONDS };
  const failed = async (reason: string) => {
    deps.log.info('oauth_client_authentication_failed', { clientId: presented.clientId, method: presented.method, reason });
    if (source) await deps.store.attempts.reserve(source, now, sourcePolicy);
    return oauthErrors.invalidClient(presented.method === 'client_secret_basic');
  };
  if (presented.invalid || presented.clientId === undefined) throw await failed('no_valid_credentials');
  // The source's count is read alongside the client: a source past its limit tests no secret at all.
  const [verdict, client] = await Promise.all([
    source ? deps.store.attempts.peek(source, now, sourcePolicy) : undefined,
    deps.store.oauthClients.find(presented.clientId),
  ]);
  if (verdict && !verdict.allowed) {
    deps.log.warn('oauth_client_source_limited', { clientId: presented.clientId });
    throw new TooManyRequestsError(verdict.retryAfterSeconds, 'Too many requests', { code: 'RATE_LIMITED' });
  }
  if (client && isPublicClient(client)) {
    // docs/api.md 16.1: a public client has no secret; one presented for it is refused, never ignored.
    if (presented.method !== 'none' || presented.clientSecret !== undefined) throw await failed('public_client_secret');
    return client;
  }
  if (presented.clientSecret === undefined) throw await failed(client ? 'no_secret' : 'unknown_client');
  const previous = client && hasLivePreviousSecret(client, now) ? client.previousSecretHash : undefined;
  const [current, old] = await Promise.all([
    deps.clientSecretHasher.check(client?.secretHash, presented.clientSecret),
    deps.clientSecretHasher.check(previous, presented.clientSecret),
  ]);
  if (!client) throw await failed('unknown_client');
  if (current.matches && client.secretHash !== undefined) {
    if (current.rehashed) await rehash(deps, client, 'current', client.secretHash, current.rehashed);
  } else if (old.matches && previous !== undefined) {
    deps.log.info('oauth_client_previous_secret_used', { clientId: client.clientId, tenantId: client.tenantId });
    if (old.rehashed) await rehash(deps, client, 'previous', previous, old.rehashed);
  } else {
    throw await failed('wrong_secret');
  }
  return client;
}

/**
 * Stores the hash under the current pepper, only if that slot still holds the hash just
 * checked: a secret rotated or retired meanwhile is never overwritten or brought back.
 * The client is authenticated either way; a failed write is tried again at its next
 * authentication.
 */
async function rehash(
  deps: Pick<Deps, 'store' | 'log'>,
  client: OAuthClient,
  slot: SecretSlot,
  expected: string,
  rehashed: string,
): Promise<void> {
  const pepperId = rehashed.split('$')[1];
  try {
    const replaced = await deps.store.oauthClients.replaceSecretHash(client.clientId, expected, rehashed, slot);
    deps.log.info(replaced ? 'oauth_client_rehashed' : 'oauth_client_rehash_skipped', { clientId: client.clientId, pepperId, slot });
  } catch (error) {
    deps.log.warn('oauth_client_rehash_failed', { clientId: client.clientId, pepperId, slot, error });
  }
}
