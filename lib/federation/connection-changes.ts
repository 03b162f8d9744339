import { byAdmin, recordEvent } from '../audit/record';
import type { Config } from '../config';
import { NotFoundError, ValidationError } from '../errors';
import { adminEvent } from '../events/by-admin';
import type { ConnectionChange } from '../store/federation';
import type { Identity } from '../tokens/access-token';
import { type ConnectionPatch, type NewConnection, OIDC_ONLY, SAML_ONLY } from './admin-input';
import { sealClientSecret } from './client-secret';
import { type Connection, connectionView } from './connection';
import { type AdminDeps, CONNECTION_NOT_FOUND, type ConnectionView, tenantConnection } from './connections';
import { type IdpMetadata, MetadataError, parseIdpMetadata, pemCertificate } from './metadata';

/*
 * docs/api.md 14.1: creating and changing a connection: its IdP's URLs as the stage allows
 * them, SAML metadata parsed, an OIDC client secret sealed.
 */

/** docs/api.md 14.1: what the OIDC connection asks for when the ADMIN names no scopes. */
const DEFAULT_SCOPES = ['openid', 'email', 'profile'];

/** Loopback hosts, where plain http is allowed under `npm start` (RFC 8252 7.3's list). */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** A refusal of one field, as the schemas word theirs (docs/api.md 2). */
const invalid = (path: string, message: string) => new ValidationError(`${path}: ${message}`, { fields: [{ path, message }] });

/** An IdP URL as the stage allows it: https, or http on a loopback host under `npm start` (docs/api.md 14.1). */
function idpUrl(config: Pick<Config, 'loopbackIdentityProviders'>, path: string, value: string): string {
  const url = new URL(value);
  if (url.protocol === 'https:') return value;
  if (config.loopbackIdentityProviders && url.protocol === 'http:' && LOOPBACK.has(url.hostname)) return value;
  throw invalid(path, 'Invalid URL: expected an absolute https URL');
}

/** `openid` first, then the rest in the order given, each once. */
const scopesOf = (scopes: string[] | undefined) => (scopes ? [...new Set(['openid', ...scopes])] : DEFAULT_SCOPES);

/** The IdP of a SAML connection: from its metadata, or from the fields that say the same. */
function samlIdp(
  config: Pick<Config, 'loopbackIdentityProviders'>,
  source: { metadataXml?: string; entityId?: string; ssoUrl?: string; signingCertificates?: string[] },
): Partial<IdpMetadata> {
  let idp: Partial<IdpMetadata>;
  try {
    if (source.metadataXml !== undefined) idp = parseIdpMetadata(source.metadataXml);
    else
      idp = {
        entityId: source.entityId,
        ssoUrl: source.ssoUrl,
        signingCertificates: source.signingCertificates && [...new Set(source.signingCertificates.map(pemCertificate))],
      };
  } catch (error) {
    if (error instanceof MetadataError)
      throw invalid(source.metadataXml !== undefined ? 'metadataXml' : 'signingCertificates', error.message);
    throw error;
  }
  if (idp.ssoUrl !== undefined) {
    if (!URL.canParse(idp.ssoUrl) || !/^https?:/i.test(idp.ssoUrl)) throw invalid('ssoUrl', 'Invalid URL: expected an absolute https URL');
    idpUrl(config, 'ssoUrl', idp.ssoUrl);
  }
  return idp;
}

const unique = (domains: string[]) => [...new Set(domains)];

/** docs/api.md 14.1: a new connection of the ADMIN's tenant; an OIDC client secret is stored sealed. */
export async function createConnection(deps: AdminDeps, admin: Identity, input: NewConnection): Promise<ConnectionView> {
  const now = new Date(deps.clock.now()).toISOString();
  const base = {
    id: deps.random.id(),
    tenantId: admin.tenantId,
    name: input.name,
    domains: unique(input.domains),
    roleMapping: input.roleMapping,
    defaultRole: input.defaultRole,
    jitProvisioning: input.jitProvisioning,
    ssoRequired: input.ssoRequired,
    enabled: input.enabled ?? true,
    createdAt: now,
    updatedAt: now,
    createdBy: admin.userId,
  };
  let connection: Connection;
  if (input.type === 'oidc') {
    connection = {
      ...base,
      type: 'oidc',
      issuer: idpUrl(deps.config, 'issuer', input.issuer),
      clientId: input.clientId,
      clientSecretSealed: await sealClientSecret(deps, base, input.clientSecret),
      scopes: scopesOf(input.scopes),
      roleClaim: input.roleClaim,
    };
  } else {
    const idp = samlIdp(deps.config, input) as IdpMetadata;
    connection = {
      ...base,
      type: 'saml',
      idpEntityId: idp.entityId,
      ssoUrl: idp.ssoUrl,
      signingCertificates: idp.signingCertificates,
      roleAttribute: input.roleAttribute,
    };
  }
  // Ids are random UUIDs: a taken one is not expected, and nothing was written.
  const created = adminEvent(deps, admin, 'identity.connection.created', connection.id, {
    connectionId: connection.id,
    name: connection.name,
    type: connection.type,
  });
  if (!(await deps.store.emitting([created]).connections.create(withoutUndefined(connection)))) throw new Error('Connection id collision');
  deps.log.info('connection_created', { tenantId: admin.tenantId, actorId: admin.userId, connectionId: connection.id });
  await recordEvent(deps, {
    ...byAdmin(admin),
    type: 'connection_created',
    outcome: 'success',
    details: { connectionId: connection.id, name: connection.name },
  });
  return connectionView(connection, deps.config.issuer);
}

/** DynamoDB's document client refuses undefined attributes. */
function withoutUndefined<T extends object>(record: T): T {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as T;
}

/** The stored change a PATCH makes to the connection (its type's fields only). */
async function changeOf(deps: AdminDeps, connection: Connection, patch: ConnectionPatch): Promise<Omit<ConnectionChange, 'updatedAt'>> {
  const foreign = (connection.type === 'oidc' ? SAML_ONLY : OIDC_ONLY).find((field) => patch[field] !== undefined);
  if (foreign) throw invalid(foreign, `Not a field of a ${connection.type} connection`);
  const common = {
    name: patch.name,
    domains: patch.domains && unique(patch.domains),
    defaultRole: patch.defaultRole,
    jitProvisioning: patch.jitProvisioning,
    ssoRequired: patch.ssoRequired,
    enabled: patch.enabled,
  };
  // null removes the optional field (the store removes what is set to undefined).
  const removable = <K extends 'roleMapping' | 'roleClaim' | 'roleAttribute'>(field: K) =>
    patch[field] === undefined ? {} : { [field]: patch[field] ?? undefined };
  if (connection.type === 'oidc') {
    return {
      ...defined(common),
      ...removable('roleMapping'),
      ...removable('roleClaim'),
      ...defined({
        issuer: patch.issuer === undefined ? undefined : idpUrl(deps.config, 'issuer', patch.issuer),
        clientId: patch.clientId,
        clientSecretSealed: patch.clientSecret === undefined ? undefined : await sealClientSecret(deps, connection, patch.clientSecret),
        scopes: patch.scopes === undefined ? undefined : scopesOf(patch.scopes),
      }),
    };
  }
  const idp = samlIdp(deps.config, patch);
  return {
    ...defined(common),
    ...removable('roleMapping'),
    ...removable('roleAttribute'),
    ...defined({ idpEntityId: idp.entityId, ssoUrl: idp.ssoUrl, signingCertificates: idp.signingCertificates }),
  };
}

/** The fields that are set. */
const defined = <T extends object>(fields: T): Partial<T> =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;

/**
 * docs/api.md 14.1: changes the tenant's connection; a new client secret replaces the old
 * one. Disabling it is this write alone: its sessions end at their next request.
 */
export async function updateConnection(deps: AdminDeps, admin: Identity, id: string, patch: ConnectionPatch): Promise<ConnectionView> {
  const connection = await tenantConnection(deps, admin.tenantId, id);
  const change = await changeOf(deps, connection, patch);
  const changed = Object.entries(patch).flatMap(([field, value]) => (value === undefined ? [] : [field]));
  const event = adminEvent(deps, admin, 'identity.connection.updated', id, { connectionId: id, changed });
  const updated = await deps.store
    .emitting([event])
    .connections.update(connection, { ...change, updatedAt: new Date(deps.clock.now()).toISOString() });
  if (!updated) throw new NotFoundError(CONNECTION_NOT_FOUND, { code: 'CONNECTION_NOT_FOUND' });
  deps.log.info('connection_updated', { tenantId: admin.tenantId, actorId: admin.userId, connectionId: id, fields: Object.keys(patch) });
  await recordEvent(deps, {
    ...byAdmin(admin),
    type: 'connection_updated',
    outcome: 'success',
    details: { connectionId: id, name: updated.name },
  });
  return connectionView(updated, deps.config.issuer);
}
