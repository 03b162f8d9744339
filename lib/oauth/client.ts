import type * as z from 'zod/mini';
import type { SigningAlgorithm } from '../tokens/signing-keys';
import { GRANT_TYPES, type GrantType, type TokenEndpointAuthMethod } from './client-kinds';
import type { oauthClientSchema } from './client-record';

export { GRANT_TYPES, type GrantType, TOKEN_ENDPOINT_AUTH_METHODS, type TokenEndpointAuthMethod } from './client-kinds';

export type OAuthClient = z.output<typeof oauthClientSchema>;

/** Whether the client is public (docs/api.md 16.1): it has no secret and never authenticates with one. */
export function isPublicClient(client: Pick<OAuthClient, 'tokenEndpointAuthMethod'>): boolean {
  return client.tokenEndpointAuthMethod === 'none';
}

/** The client as createOAuth2Client answers it (docs/api.md 4.8): never the secret or its hash. */
export interface ClientView {
  client_id: string;
  tenant_id: string;
  redirect_uris: string[];
  grant_types: GrantType[];
  scope: string;
  /** `none` for a public client (docs/api.md 16.1). */
  token_endpoint_auth_method: TokenEndpointAuthMethod;
  /** Present for a client registered with web origins for CORS (docs/api.md 16.2), in the order given. */
  allowed_origins?: string[];
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
  /** Present for a client registered with a back-channel logout URI (docs/api.md 17.3). */
  backchannel_logout_uri?: string;
  /** Present (true) for a client that needs `sid` in every logout token (docs/api.md 17.3). */
  backchannel_logout_session_required?: true;
}

/**
 * A client as the tenant administration answers it (docs/api.md 9.9): the registration's
 * view and what an ADMIN may change, and when the previous secret stops working. Never a
 * secret or a hash.
 */
export interface AdminClientView extends ClientView {
  client_name: string | null;
  post_logout_redirect_uris: string[];
  allowed_origins: string[];
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
    allowed_origins: [...client.allowedOrigins],
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
    token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    ...(client.allowedOrigins.length ? { allowed_origins: [...client.allowedOrigins] } : {}),
    ...(client.introspectAny ? { introspect_any: true as const } : {}),
    ...(client.resources.length ? { resources: [...client.resources] } : {}),
    ...(client.idTokenSignedResponseAlg ? { id_token_signed_response_alg: client.idTokenSignedResponseAlg } : {}),
    ...(client.postLogoutRedirectUris?.length ? { post_logout_redirect_uris: [...client.postLogoutRedirectUris] } : {}),
    ...(client.dpopBoundAccessTokens ? { dpop_bound_access_tokens: true as const } : {}),
    ...(client.backchannelLogoutUri ? { backchannel_logout_uri: client.backchannelLogoutUri } : {}),
    ...(client.backchannelLogoutSessionRequired ? { backchannel_logout_session_required: true as const } : {}),
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

/**
 * A back-channel logout URI (OIDC Back-Channel Logout 1.0 2.2, docs/api.md 17.3): one
 * absolute URI by the rules of redirect URIs (a query allowed, no fragment), https. The
 * service itself POSTs to it, so a loopback host (then also plain http) only where
 * `loopback` allows it: `npm start` and the tests, never a deployed stage, whose sender
 * would refuse it at every attempt.
 */
export function isBackchannelLogoutUri(uri: string, loopback: boolean): boolean {
  if (!isAllowedRedirectUri(uri)) return false;
  const url = new URL(uri);
  return LOOPBACK.has(url.hostname) ? loopback : url.protocol === 'https:';
}

/**
 * A private-use URI scheme redirect of a native app (RFC 8252 7.1): a scheme in reverse
 * domain order, so with a dot (`com.example.app:/callback`), printable ASCII, without
 * fragment or user information. http and https are not private-use.
 */
export function isPrivateUseRedirectUri(uri: string): boolean {
  if (uri.length > MAX_REDIRECT_URI_LENGTH || !/^[\x21-\x7E]+$/.test(uri) || uri.includes('#')) return false;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(uri)?.[1]?.toLowerCase();
  if (!scheme || !/^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+$/.test(scheme)) return false;
  const rest = uri.slice(scheme.length + 1);
  if (rest === '' || (rest.startsWith('//') && /^\/\/[^/]*@/.test(rest))) return false;
  try {
    new URL(uri);
    return true;
  } catch {
    return false;
  }
}

/** Who a redirect URI is for: a confidential client's rules, or a public client's, which add native apps' URIs. */
export type RedirectUriRules = 'confidential' | 'public';

/**
 * The space-separated redirect URIs of a registration, each once, or undefined if one is
 * not allowed: https or http on a loopback host, and for a public client also a
 * private-use scheme (docs/api.md 16.1).
 */
export function parseRedirectUris(value: string, rules: RedirectUriRules = 'confidential'): string[] | undefined {
  const uris = [...new Set(value.split(' ').filter(Boolean))];
  const allowed = (uri: string) => isAllowedRedirectUri(uri) || (rules === 'public' && isPrivateUseRedirectUri(uri));
  if (uris.length === 0 || uris.length > MAX_REDIRECT_URIS || !uris.every(allowed)) return undefined;
  return uris;
}

/** The loopback IP literals whose redirect URIs match on any port (RFC 8252 7.3); `localhost` is matched exactly (8.3). */
const LOOPBACK_IP = new Set(['127.0.0.1', '[::1]']);

/** `uri` without its port if it is an http URI on a loopback IP literal, else undefined. */
function loopbackWithoutPort(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' || !LOOPBACK_IP.has(url.hostname)) return undefined;
  url.port = '';
  return url.href;
}

/**
 * Whether `uri` is one of the client's redirect URIs: compared exactly (RFC 9700 2.1),
 * except that a public client's http URI on 127.0.0.1 or [::1] matches on any port, the
 * port a native app's loopback listener got from the system (RFC 8252 7.3).
 */
export function matchesRedirectUri(client: Pick<OAuthClient, 'redirectUris' | 'tokenEndpointAuthMethod'>, uri: string): boolean {
  if (client.redirectUris.includes(uri)) return true;
  if (!isPublicClient(client) || !isAllowedRedirectUri(uri)) return false;
  const presented = loopbackWithoutPort(uri);
  return presented !== undefined && client.redirectUris.some((registered) => loopbackWithoutPort(registered) === presented);
}

const MAX_ALLOWED_ORIGINS = 10;

/**
 * One web origin for CORS (docs/api.md 16.2): `scheme://host[:port]` exactly as a
 * browser sends it in `Origin` (lower case, no default port, no path), https, or http
 * on a loopback host.
 */
export function isAllowedOrigin(origin: string): boolean {
  if (origin.length > 300 || !/^https?:\/\/[\x21-\x7E]+$/.test(origin)) return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.origin !== origin) return false;
  return url.protocol === 'https:' || LOOPBACK.has(url.hostname);
}

/** The space-separated origins of a registration, each once (the empty string: none), or undefined if one is not an origin. */
export function parseAllowedOrigins(value: string): string[] | undefined {
  const origins = [...new Set(value.split(' ').filter(Boolean))];
  if (origins.length > MAX_ALLOWED_ORIGINS || !origins.every(isAllowedOrigin)) return undefined;
  return origins;
}

/** The space- or comma-separated grant types of a registration, each once, or undefined if one is unknown. */
export function parseGrantTypes(value: string): GrantType[] | undefined {
  const types = [...new Set(value.split(/[\s,]+/).filter(Boolean))];
  if (types.length === 0 || !types.every((type) => (GRANT_TYPES as readonly string[]).includes(type))) return undefined;
  return types as GrantType[];
}
