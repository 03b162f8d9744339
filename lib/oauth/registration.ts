import { byAdmin, recordEvent } from '../audit/record';
import { isStrongSecret } from '../crypto/secret-strength';
import type { Deps } from '../deps';
import { ConflictError, ForbiddenError, ValidationError } from '../errors';
import { adminEvent } from '../events/by-admin';
import type { Identity } from '../tokens/access-token';
import type { SigningAlgorithm } from '../tokens/signing-keys';
import {
  type ClientView,
  clientView,
  type GrantType,
  isBackchannelLogoutUri,
  isPublicClient,
  type OAuthClient,
  parseAllowedOrigins,
  parseGrantTypes,
  parseRedirectUris,
  parseResources,
  type TokenEndpointAuthMethod,
  UUID_FORM,
} from './client';
import { parseScope } from './scope';

/** createOAuth2Client's body (docs/api.md 5.5). */
export interface ClientRegistration {
  client_id: string;
  /** Required unless the client is public (`token_endpoint_auth_method: "none"`), which must have none. */
  client_secret?: string | undefined;
  /** docs/api.md 16.1: `none` registers a public client; `client_secret_basic` when absent. */
  token_endpoint_auth_method?: TokenEndpointAuthMethod | undefined;
  /** docs/api.md 16.2: the web origins CORS lets call the token, userinfo and revocation endpoints, separated by spaces. */
  allowed_origins?: string | undefined;
  redirect_uri: string;
  grant_types: string;
  scope: string;
  tenant_id: string;
  /** docs/api.md 4.14: may introspect every access token of the tenant (a resource server). */
  introspect_any?: boolean | undefined;
  /** docs/api.md 4.7: the resource servers (RFC 8707) the client may ask tokens for, separated by spaces. */
  resources?: string | undefined;
  /** docs/api.md 11.4: how the client's ID tokens are signed (ES256 unless RS256 is asked for). */
  id_token_signed_response_alg?: SigningAlgorithm | undefined;
  /** docs/api.md 11.12: where RP-initiated logout may send the browser, separated by spaces. */
  post_logout_redirect_uris?: string | undefined;
  /** docs/api.md 16.3 (RFC 9449 5.2): every token request of the client must come with a DPoP proof. */
  dpop_bound_access_tokens?: boolean | undefined;
  /** docs/api.md 17.3: where logout tokens are POSTed when a session the client holds ends. */
  backchannel_logout_uri?: string | undefined;
  /** docs/api.md 17.3: every logout token must carry `sid`. */
  backchannel_logout_session_required?: boolean | undefined;
}

/** Client secrets are machine-generated: at least 32 characters (docs/api.md 4.8). */
export const MIN_CLIENT_SECRET_LENGTH = 32;

/** Rule 5 of docs/api.md 4.8, also for a new secret (9.13): long enough, and not plainly made by hand. */
export function checkClientSecret(secret: string): void {
  if (secret.length < MIN_CLIENT_SECRET_LENGTH) throw new ValidationError('Client secret too short', { code: 'CLIENT_SECRET_TOO_SHORT' });
  // Long but plainly not random (`aaaa…`, a word repeated): as guessable as a short one.
  if (!isStrongSecret(secret)) throw new ValidationError('Client secret too weak', { code: 'CLIENT_SECRET_TOO_WEAK' });
}

/** The messages of the rules of docs/api.md 16.1 on secrets. */
export const clientSecretErrors = {
  required: () => new ValidationError('Client secret required', { code: 'CLIENT_SECRET_REQUIRED' }),
  publicClient: () => new ValidationError('A public client has no secret', { code: 'PUBLIC_CLIENT_SECRET' }),
};

/** docs/api.md 16.1: a public client may not use client_credentials (it could not prove who asks). */
export function checkGrantTypesFor(method: TokenEndpointAuthMethod, grantTypes: readonly GrantType[]): void {
  if (isPublicClient({ tokenEndpointAuthMethod: method }) && grantTypes.includes('client_credentials'))
    throw new ValidationError('Unsupported grant type', { code: 'UNSUPPORTED_GRANT_TYPE' });
}

/** docs/api.md 16.2: the origins of a registration or a change, or 400 `Invalid allowed_origins`. */
export function allowedOriginsOf(value: string): string[] {
  const origins = parseAllowedOrigins(value);
  if (!origins) throw new ValidationError('Invalid allowed_origins', { code: 'INVALID_ORIGIN' });
  return origins;
}

/** docs/api.md 17.3: a back-channel logout URI, or 400 `Invalid backchannel_logout_uri`. */
export function backchannelLogoutUriOf(config: Pick<Deps['config'], 'loopbackIdentityProviders'>, value: string): string {
  if (!isBackchannelLogoutUri(value, config.loopbackIdentityProviders))
    throw new ValidationError('Invalid backchannel_logout_uri', { code: 'INVALID_REDIRECT_URI' });
  return value;
}

/** docs/api.md 4.8: an ADMIN registers clients of their own tenant only. Decided before validation. */
export function authorizeClientRegistration(admin: Identity | null, tenantId: string | undefined): void {
  if (admin?.role !== 'ADMIN') throw new ForbiddenError();
  if (tenantId !== undefined && tenantId !== admin.tenantId) throw new ForbiddenError();
}

/**
 * Registers a client after the rules of docs/api.md 4.8, in their order: redirect URIs
 * (and post-logout URIs; a public client's may also be a native app's, docs/api.md 16.1;
 * then the back-channel logout URI, 17.3),
 * grant types (no client_credentials for a public client), scope, resources, allowed
 * origins, the secret (its length; none for a public client), then the client id: not the session
 * audience nor of a user id's form (reserved), and unique across tenants (one
 * conditional write). The secret is stored
 * as a keyed hash only.
 */
export async function registerClient(
  deps: Pick<Deps, 'config' | 'clock' | 'random' | 'store' | 'log' | 'clientSecretHasher' | 'source'>,
  admin: Identity,
  registration: ClientRegistration,
): Promise<ClientView> {
  const method = registration.token_endpoint_auth_method ?? 'client_secret_basic';
  const rules = isPublicClient({ tokenEndpointAuthMethod: method }) ? 'public' : 'confidential';
  const redirectUris = parseRedirectUris(registration.redirect_uri, rules);
  if (!redirectUris) throw new ValidationError('Invalid redirect_uri', { code: 'INVALID_REDIRECT_URI' });
  const postLogoutRedirectUris =
    registration.post_logout_redirect_uris === undefined ? [] : parseRedirectUris(registration.post_logout_redirect_uris, rules);
  if (!postLogoutRedirectUris) throw new ValidationError('Invalid post_logout_redirect_uri', { code: 'INVALID_REDIRECT_URI' });
  const backchannelLogoutUri =
    registration.backchannel_logout_uri === undefined
      ? undefined
      : backchannelLogoutUriOf(deps.config, registration.backchannel_logout_uri);
  const grantTypes = parseGrantTypes(registration.grant_types);
  if (!grantTypes) throw new ValidationError('Unsupported grant type', { code: 'UNSUPPORTED_GRANT_TYPE' });
  checkGrantTypesFor(method, grantTypes);
  const scopes = parseScope(registration.scope);
  if (!scopes || scopes.length === 0) throw new ValidationError('Invalid scope', { code: 'INVALID_SCOPE' });
  const resources = registration.resources === undefined ? [] : parseResources(registration.resources);
  if (!resources) throw new ValidationError('Invalid resource', { code: 'INVALID_TARGET' });
  const allowedOrigins = registration.allowed_origins === undefined ? [] : allowedOriginsOf(registration.allowed_origins);
  const secret = registration.client_secret;
  if (rules === 'public' && secret !== undefined) throw clientSecretErrors.publicClient();
  if (rules === 'confidential') {
    if (secret === undefined) throw clientSecretErrors.required();
    checkClientSecret(secret);
  }
  // Session tokens carry this `aud`: a client of that id would share it with them, and a
  // resource server checking `aud` but not `typ` would take session tokens for its own.
  if (registration.client_id === deps.config.accessTokenAudience)
    throw new ValidationError('Reserved client_id', { code: 'RESERVED_CLIENT_ID' });
  // User ids are UUIDs: a client of that id would get tokens whose `sub` names a user (docs/api.md 4.8).
  if (UUID_FORM.test(registration.client_id)) throw new ValidationError('Reserved client_id', { code: 'RESERVED_CLIENT_ID' });

  const client: OAuthClient = {
    clientId: registration.client_id,
    tenantId: admin.tenantId,
    tokenEndpointAuthMethod: method,
    ...(secret === undefined ? {} : { secretHash: await deps.clientSecretHasher.hash(secret) }),
    redirectUris,
    allowedOrigins,
    grantTypes,
    scopes,
    createdAt: new Date(deps.clock.now()).toISOString(),
    createdBy: admin.userId,
    introspectAny: registration.introspect_any === true,
    resources,
    ...(registration.id_token_signed_response_alg ? { idTokenSignedResponseAlg: registration.id_token_signed_response_alg } : {}),
    ...(postLogoutRedirectUris.length ? { postLogoutRedirectUris } : {}),
    ...(registration.dpop_bound_access_tokens ? { dpopBoundAccessTokens: true } : {}),
    ...(backchannelLogoutUri === undefined ? {} : { backchannelLogoutUri }),
    ...(registration.backchannel_logout_session_required ? { backchannelLogoutSessionRequired: true } : {}),
  };
  const created = adminEvent(deps, admin, 'identity.client.created', client.clientId, { clientId: client.clientId });
  if ((await deps.store.emitting([created]).oauthClients.create(client)) === 'exists')
    throw new ConflictError('OAuth2 client already exists', { code: 'CLIENT_EXISTS' });
  deps.log.info('oauth_client_created', {
    clientId: client.clientId,
    tenantId: client.tenantId,
    createdBy: admin.userId,
    grantTypes,
    tokenEndpointAuthMethod: method,
    introspectAny: client.introspectAny,
  });
  await recordEvent(deps, { ...byAdmin(admin), type: 'oauth_client_created', outcome: 'success', details: { clientId: client.clientId } });
  return clientView(client);
}
