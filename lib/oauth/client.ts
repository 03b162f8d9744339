import * as z from 'zod';
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from '../tokens/signing-keys';

/** The grant types a client may be registered with (docs/api.md 4.8). */
export const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials'] as const;
export type GrantType = (typeof GRANT_TYPES)[number];

/**
 * A registered OAuth 2.0 client. All clients are confidential (they have a secret);
 * `secretHash` never leaves lib/: answers use `clientView`.
 */
export const oauthClientSchema = z.object({
  clientId: z.string(),
  tenantId: z.string(),
  /** `hmac-sha256$<base64url>` of the secret, keyed with the server's pepper (client-secret.ts). */
  secretHash: z.string(),
  /** Compared exactly, as registered (RFC 9700 2.1). */
  redirectUris: z.array(z.string()),
  grantTypes: z.array(z.enum(GRANT_TYPES)),
  scopes: z.array(z.string()),
  /** ISO 8601. */
  createdAt: z.string(),
  /** The ADMIN who registered the client. */
  createdBy: z.string(),
  /** A name for people (consent, listings); docs/api.md 9.11. */
  clientName: z.string().optional(),
  /** Marked by an ADMIN as the platform's own (docs/api.md 9.11); clients are third-party otherwise. */
  firstParty: z.boolean().optional(),
  /** Where RP-initiated logout may send the browser, compared exactly like `redirectUris`. */
  postLogoutRedirectUris: z.array(z.string()).optional(),
  /**
   * The secret before the last rotation (docs/api.md 9.13), under the same hash format,
   * accepted until `previousSecretExpiresAt` (epoch seconds) and never after.
   */
  previousSecretHash: z.string().optional(),
  previousSecretExpiresAt: z.number().optional(),
  /** ISO 8601 of the last change through PATCH or a secret rotation. */
  updatedAt: z.string().optional(),
  /**
   * A resource server's permission (docs/api.md 4.14): it may introspect the access
   * tokens of every client of its tenant, not only its own. Set by the ADMIN at creation.
   */
  introspectAny: z.boolean().default(false),
  /**
   * The resource servers (RFC 8707 absolute URIs) the client may ask tokens for with
   * `resource`; such a token's `aud` is the resource (docs/api.md 4.7).
   */
  resources: z.array(z.string()).default([]),
  /** How the client's ID tokens are signed (docs/api.md 11.4): ES256 when absent. */
  idTokenSignedResponseAlg: z.enum(SIGNING_ALGORITHMS).optional(),
  /** RFC 9449 5.2 (docs/api.md 16.3): every token request must come with a DPoP proof. */
  dpopBoundAccessTokens: z.boolean().optional(),
  /** How the client authenticates at the token endpoint; `none`: a public client (docs/api.md 16.1). */
  tokenEndpointAuthMethod: z.string().optional(),
});

export type OAuthClient = z.output<typeof oauthClientSchema>;

/** The client as createOAuth2Client answers it (docs/api.md 4.8): never the secret or its hash. */
export interface ClientView {
  client_id: string;
  tenant_id: string;
  redirect_uris: string[];
  grant_types: GrantType[];
  scope: string;
  /** Present (true) for a client that may introspect every access token of its tenant. */
  introspect_any?: true;
  /** Present for a client registered with resources (RFC 8707), in the order given. */
  resources?: string[];
  /** Present for a client registered with an ID token algorithm (docs/api.md 11.4). */
  id_token_signed_response_alg?: SigningAlgorithm;
  /** Present for a client registered with post-logout URIs (docs/api.md 11.12), in the order given. */
  post_logout_redirect_uris?: string[];
  /** Present (true) for a client whose every token request must come with a DPoP proof (docs/api.md 16.3). */
  dpop_bound_access_tokens?: true;
}

/**
 * A client as the tenant administration answers it (docs/api.md 9.9): the registration's
 * view and what an ADMIN may change, and when the previous secret stops working. Never a
 * secret or a hash.
 */
export interface AdminClientView extends ClientView {
  client_name: string | null;
  post_logout_redirect_uris: string[];
  first_party: boolean;
  created_at: string;
  updated_at: string | null;
  /** ISO 8601; null when only the current secret works. */
  previous_secret_expires_at: string | null;
}

/** Whether the previous secret of a client still works at `now` (epoch seconds). */
export function hasLivePreviousSecret(client: OAuthClient, now: number): client is OAuthClient & { previousSecretHash: string } {
  return client.previousSecretHash !== undefined && (client.previousSecretExpiresAt ?? 0) > now;
}

export function adminClientView(client: OAuthClient, now: number): AdminClientView {
  const previous = hasLivePreviousSecret(client, now) ? client.previousSecretExpiresAt : undefined;
  return {
    ...clientView(client),
    client_name: client.clientName ?? null,
    post_logout_redirect_uris: [...(client.postLogoutRedirectUris ?? [])],
    first_party: client.firstParty ?? false,
    created_at: client.createdAt,
    updated_at: client.updatedAt ?? null,
    previous_secret_expires_at: previous === undefined ? null : new Date(previous * 1000).toISOString(),
  };
}

export function clientView(client: OAuthClient): ClientView {
  return {
    client_id: client.clientId,
    tenant_id: client.tenantId,
    redirect_uris: [...client.redirectUris],
    grant_types: [...client.grantTypes],
    scope: client.scopes.join(' '),
    ...(client.introspectAny ? { introspect_any: true as const } : {}),
    ...(client.resources.length ? { resources: [...client.resources] } : {}),
    ...(client.idTokenSignedResponseAlg ? { id_token_signed_response_alg: client.idTokenSignedResponseAlg } : {}),
    ...(client.postLogoutRedirectUris?.length ? { post_logout_redirect_uris: [...client.postLogoutRedirectUris] } : {}),
    ...(client.dpopBoundAccessTokens ? { dpop_bound_access_tokens: true as const } : {}),
  };
}

/**
 * User ids are UUIDs: a client id of that form is refused, so that the `sub` of a
 * client_credentials token (the client id) can never name a user (docs/api.md 4.8).
 */
export const UUID_FORM = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const MAX_RESOURCES = 10;

/**
 * A resource indicator (RFC 8707 2): an absolute URI without fragment; as redirect
 * URIs, printable ASCII, at most 2000 characters, https (http on a loopback host) and
 * without user information.
 */
export function isResourceUri(uri: string): boolean {
  return isAllowedRedirectUri(uri);
}

/** The space-separated resources of a registration, each once, or undefined if one is not allowed. */
export function parseResources(value: string): string[] | undefined {
  const resources = [...new Set(value.split(' ').filter(Boolean))];
  if (resources.length === 0 || resources.length > MAX_RESOURCES || !resources.every(isResourceUri)) return undefined;
  return resources;
}

const MAX_REDIRECT_URIS = 10;
const MAX_REDIRECT_URI_LENGTH = 2000;
/** Loopback hosts, for which plain http is allowed (RFC 8252 7.3, RFC 9700 2.6). */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * One redirect URI: absolute, https (or http on a loopback host), printable ASCII
 * only (the URL parser would silently drop tabs and newlines), with neither
 * fragment (RFC 6749 3.1.2) nor user information.
 */
export function isAllowedRedirectUri(uri: string): boolean {
  if (uri.length > MAX_REDIRECT_URI_LENGTH || !/^[\x21-\x7E]+$/.test(uri) || !/^https?:\/\//i.test(uri) || uri.includes('#')) {
    return false;
  }
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (url.username || url.password || !url.hostname) return false;
  return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname));
}

/** The space-separated redirect URIs of a registration, each once, or undefined if one is not allowed. */
export function parseRedirectUris(value: string): string[] | undefined {
  const uris = [...new Set(value.split(' ').filter(Boolean))];
  if (uris.length === 0 || uris.length > MAX_REDIRECT_URIS || !uris.every(isAllowedRedirectUri)) return undefined;
  return uris;
}

/** The space- or comma-separated grant types of a registration, each once, or undefined if one is unknown. */
export function parseGrantTypes(value: string): GrantType[] | undefined {
  const types = [...new Set(value.split(/[\s,]+/).filter(Boolean))];
  if (types.length === 0 || !types.every((type) => (GRANT_TYPES as readonly string[]).includes(type))) return undefined;
  return types as GrantType[];
}
