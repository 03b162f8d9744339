import { type AuditDeps, byAdmin, recordEvent } from '../audit/record';
import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { NotFoundError, ServiceUnavailableError, ValidationError } from '../errors';
import { adminEvent } from '../events/by-admin';
import type { ClientChange } from '../store/oauth-clients';
import type { Identity } from '../tokens/access-token';
import type { SigningAlgorithm } from '../tokens/signing-keys';
import {
  type AdminClientView,
  adminClientView,
  isAllowedRedirectUri,
  isPublicClient,
  type OAuthClient,
  parseGrantTypes,
  parseRedirectUris,
} from './client';
import { allowedOriginsOf, backchannelLogoutUriOf, checkClientSecret, checkGrantTypesFor, clientSecretErrors } from './registration';
import { parseScope } from './scope';
import { GRANT_MAX_AGE_SECONDS } from './token';

/** docs/api.md 9.10-9.13: unknown, deleted and other tenants' clients alike. */
export const CLIENT_NOT_FOUND = 'Client not found';

/** docs/api.md 9.13: how long the previous secret keeps working by default, and at most. */
export const PREVIOUS_SECRET_DEFAULT_SECONDS = 86_400;
export const PREVIOUS_SECRET_MAX_SECONDS = 604_800;

/**
 * How long a deleted client's id stays taken (docs/api.md 9.12): past the end of the
 * longest-lived thing issued to it (a grant's refresh tokens), so that a new client of
 * the same id can never redeem, refresh or introspect what the old one was given.
 */
export const DELETED_CLIENT_ID_RESERVED_SECONDS = GRANT_MAX_AGE_SECONDS + 86_400;

/** How often a rotation is tried when the secret changed meanwhile (another rotation, a rehash). */
const ATTEMPTS = 5;
const backOff = (attempt: number) => new Promise((resolve) => setTimeout(resolve, 15 * (attempt + 1)));

type ClientAdminDeps = Pick<Deps, 'store' | 'clock' | 'log' | 'clientSecretHasher' | 'config'> & AuditDeps;

/** The audit event of a change of a client (docs/api.md 9.8): never its secret. */
const clientChanged = (
  deps: ClientAdminDeps,
  admin: Identity,
  type: 'oauth_client_updated' | 'oauth_client_deleted' | 'oauth_client_secret_rotated',
  clientId: string,
) => recordEvent(deps, { ...byAdmin(admin), type, outcome: 'success', details: { clientId } });

const notFound = () => new NotFoundError(CLIENT_NOT_FOUND, { code: 'CLIENT_NOT_FOUND' });
const isoNow = (deps: Pick<Deps, 'clock'>) => new Date(deps.clock.now()).toISOString();
const viewOf = (deps: Pick<Deps, 'clock'>, client: OAuthClient) => adminClientView(client, epochSeconds(deps.clock));

/** The client of the ADMIN's tenant; another tenant's is not found, like an unknown one. */
async function findClient(deps: ClientAdminDeps, admin: Identity, clientId: string): Promise<OAuthClient> {
  const client = await deps.store.oauthClients.find(clientId);
  if (!client || client.tenantId !== admin.tenantId) throw notFound();
  return client;
}

/** docs/api.md 9.9: the tenant's clients, oldest first. */
export async function listClients(deps: ClientAdminDeps, admin: Identity): Promise<AdminClientView[]> {
  const clients = await deps.store.oauthClients.listByTenant(admin.tenantId);
  return clients.filter((client) => client.tenantId === admin.tenantId).map((client) => viewOf(deps, client));
}

/** docs/api.md 9.10. */
export async function readClient(deps: ClientAdminDeps, admin: Identity, clientId: string): Promise<AdminClientView> {
  return viewOf(deps, await findClient(deps, admin, clientId));
}

/** PATCH's body (docs/api.md 9.11): the registration's fields, each optional. */
export interface ClientUpdate {
  redirect_uri?: string | undefined;
  grant_types?: string | undefined;
  scope?: string | undefined;
  client_name?: string | undefined;
  first_party?: boolean | undefined;
  post_logout_redirect_uris?: string | undefined;
  id_token_signed_response_alg?: SigningAlgorithm | undefined;
  dpop_bound_access_tokens?: boolean | undefined;
  /** docs/api.md 16.2: the empty string removes them all. */
  allowed_origins?: string | undefined;
  /** docs/api.md 17.3: the empty string removes it. */
  backchannel_logout_uri?: string | undefined;
  backchannel_logout_session_required?: boolean | undefined;
}

const invalidRedirectUri = () => new ValidationError('Invalid redirect_uri', { code: 'INVALID_REDIRECT_URI' });
const invalidPostLogoutUri = () => new ValidationError('Invalid post_logout_redirect_uri', { code: 'INVALID_REDIRECT_URI' });

/**
 * The rules of registration (docs/api.md 4.8, in its order) for the fields given; then the
 * post-logout URIs, the allowed origins and the back-channel logout URI. URIs are checked here by a public client's
 * rules, the wider ones, and by the client's own in {@link checkChangeFor}.
 */
function clientChange(config: ClientAdminDeps['config'], update: ClientUpdate): ClientChange {
  const change: ClientChange = {
    clientName: update.client_name,
    firstParty: update.first_party,
    idTokenSignedResponseAlg: update.id_token_signed_response_alg,
    dpopBoundAccessTokens: update.dpop_bound_access_tokens,
    backchannelLogoutSessionRequired: update.backchannel_logout_session_required,
  };
  if (update.redirect_uri !== undefined) {
    change.redirectUris = parseRedirectUris(update.redirect_uri, 'public');
    if (!change.redirectUris) throw invalidRedirectUri();
  }
  if (update.grant_types !== undefined) {
    change.grantTypes = parseGrantTypes(update.grant_types);
    if (!change.grantTypes) throw new ValidationError('Unsupported grant type', { code: 'UNSUPPORTED_GRANT_TYPE' });
  }
  if (update.scope !== undefined) {
    change.scopes = parseScope(update.scope);
    if (!change.scopes || change.scopes.length === 0) throw new ValidationError('Invalid scope', { code: 'INVALID_SCOPE' });
  }
  if (update.post_logout_redirect_uris !== undefined) {
    // The empty string removes them all; otherwise the rules of redirect URIs.
    change.postLogoutRedirectUris =
      update.post_logout_redirect_uris.trim() === '' ? [] : parseRedirectUris(update.post_logout_redirect_uris, 'public');
    if (!change.postLogoutRedirectUris) throw invalidPostLogoutUri();
  }
  if (update.allowed_origins !== undefined) change.allowedOrigins = allowedOriginsOf(update.allowed_origins);
  // docs/api.md 17.3: the empty string removes the URI (the client gets no more logout tokens).
  if (update.backchannel_logout_uri !== undefined)
    change.backchannelLogoutUri =
      update.backchannel_logout_uri === '' ? null : backchannelLogoutUriOf(config, update.backchannel_logout_uri);
  return change;
}

/**
 * The rules that depend on the client: a confidential client's URIs as strict as at its
 * registration (no native apps' URIs), a public client without client_credentials
 * (docs/api.md 16.1).
 */
function checkChangeFor(client: OAuthClient, change: ClientChange): void {
  if (!isPublicClient(client)) {
    const strict = (uris: string[] | undefined) => uris === undefined || uris.every(isAllowedRedirectUri);
    if (!strict(change.redirectUris)) throw invalidRedirectUri();
    if (!strict(change.postLogoutRedirectUris)) throw invalidPostLogoutUri();
  }
  if (change.grantTypes) checkGrantTypesFor(client.tokenEndpointAuthMethod, change.grantTypes);
}

/** docs/api.md 9.11: changes what is given; the secret and the id stay. */
export async function updateClient(
  deps: ClientAdminDeps,
  admin: Identity,
  clientId: string,
  update: ClientUpdate,
): Promise<AdminClientView> {
  const change = clientChange(deps.config, update);
  const client = await findClient(deps, admin, clientId);
  checkChangeFor(client, change);
  if (Object.values(change).every((value) => value === undefined)) return viewOf(deps, client);
  const fields = Object.entries(change).flatMap(([field, value]) => (value === undefined ? [] : [field]));
  const updated = adminEvent(deps, admin, 'identity.client.updated', clientId, { clientId, changed: fields });
  const changed = await deps.store.emitting([updated]).oauthClients.update(client, change, isoNow(deps));
  if (!changed) throw notFound();
  deps.log.info('oauth_client_updated', { tenantId: admin.tenantId, actorId: admin.userId, clientId, fields });
  await clientChanged(deps, admin, 'oauth_client_updated', clientId);
  return viewOf(deps, changed);
}

/**
 * docs/api.md 9.12: deletes the client. Everything issued to it dies with it: its codes,
 * refresh tokens and access tokens are only ever redeemed, refreshed, introspected or
 * revoked by the client itself, which no longer authenticates; its id stays taken until
 * they have all expired.
 */
export async function deleteClient(deps: ClientAdminDeps, admin: Identity, clientId: string): Promise<void> {
  const client = await findClient(deps, admin, clientId);
  const now = epochSeconds(deps.clock);
  const event = adminEvent(deps, admin, 'identity.client.deleted', clientId, { clientId });
  const deleted = await deps.store.emitting([event]).oauthClients.delete(client, {
    deletedAt: isoNow(deps),
    reservedUntil: now + DELETED_CLIENT_ID_RESERVED_SECONDS,
  });
  if (!deleted) throw notFound();
  deps.log.info('oauth_client_deleted', { tenantId: admin.tenantId, actorId: admin.userId, clientId });
  await clientChanged(deps, admin, 'oauth_client_deleted', clientId);
}

/** POST .../secrets's body (docs/api.md 9.13). */
export interface SecretRotationRequest {
  client_secret: string;
  previous_secret_expires_in?: number | undefined;
}

/**
 * docs/api.md 9.13: the new secret becomes the client's; the one it replaces keeps
 * working for `previous_secret_expires_in` seconds (0: not at all), and any older one
 * stops. A request whose secret is already the current one (a retry) changes nothing and
 * answers the same.
 */
export async function rotateClientSecret(
  deps: ClientAdminDeps,
  admin: Identity,
  clientId: string,
  request: SecretRotationRequest,
): Promise<AdminClientView> {
  checkClientSecret(request.client_secret);
  const keepFor = request.previous_secret_expires_in ?? PREVIOUS_SECRET_DEFAULT_SECONDS;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const client = await findClient(deps, admin, clientId);
    // docs/api.md 16.1: a public client has no secret to rotate.
    if (isPublicClient(client) || client.secretHash === undefined) throw clientSecretErrors.publicClient();
    if ((await deps.clientSecretHasher.check(client.secretHash, request.client_secret)).matches) return viewOf(deps, client);
    const now = epochSeconds(deps.clock);
    const event = adminEvent(deps, admin, 'identity.client.secret_rotated', clientId, { clientId, previousSecretExpiresIn: keepFor });
    const rotated = await deps.store.emitting([event]).oauthClients.rotateSecret(client, {
      secretHash: await deps.clientSecretHasher.hash(request.client_secret),
      previous: keepFor > 0 ? { secretHash: client.secretHash, expiresAt: now + keepFor } : undefined,
      updatedAt: isoNow(deps),
    });
    if (rotated === 'gone') throw notFound();
    if (rotated !== 'changed') {
      deps.log.info('oauth_client_secret_rotated', {
        tenantId: admin.tenantId,
        actorId: admin.userId,
        clientId,
        previousSecretSeconds: keepFor,
      });
      await clientChanged(deps, admin, 'oauth_client_secret_rotated', clientId);
      return viewOf(deps, rotated);
    }
    await backOff(attempt);
  }
  throw new ServiceUnavailableError();
}
