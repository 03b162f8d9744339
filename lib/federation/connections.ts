import { byAdmin, recordEvent } from '../audit/record';
import type { Deps } from '../deps';
import { NotFoundError } from '../errors';
import { adminEvent } from '../events/by-admin';
import type { Identity } from '../tokens/access-token';
import { type Connection, connectionView } from './connection';

/*
 * docs/api.md 14.1: the tenant's connections as its ADMIN reads and deletes them. Creating
 * and changing one (which parses SAML metadata) is lib/federation/connection-changes.ts, so
 * that the other routes' bundles leave the XML parser out.
 */

export const CONNECTION_NOT_FOUND = 'Connection not found';
export const CONNECTION_DELETED = 'Connection deleted';

export type AdminDeps = Pick<Deps, 'config' | 'clock' | 'random' | 'log' | 'store' | 'source' | 'mfaSecrets'>;

export type ConnectionView = ReturnType<typeof connectionView>;

/** The tenant's connection; another tenant's is not found, like an unknown one. */
export async function tenantConnection(deps: Pick<Deps, 'store'>, tenantId: string, id: string): Promise<Connection> {
  const connection = await deps.store.connections.find(id);
  if (!connection || connection.tenantId !== tenantId) throw new NotFoundError(CONNECTION_NOT_FOUND, { code: 'CONNECTION_NOT_FOUND' });
  return connection;
}

/** docs/api.md 14.1: the tenant's connections, oldest first; never a secret. */
export async function listConnections(deps: Pick<Deps, 'store' | 'config'>, admin: Identity): Promise<ConnectionView[]> {
  return (await deps.store.connections.listByTenant(admin.tenantId)).map((connection) => connectionView(connection, deps.config.issuer));
}

/** docs/api.md 14.1. */
export async function readConnection(deps: Pick<Deps, 'store' | 'config'>, admin: Identity, id: string): Promise<ConnectionView> {
  return connectionView(await tenantConnection(deps, admin.tenantId, id), deps.config.issuer);
}

/** docs/api.md 14.1: deletes the tenant's connection; its sessions end at their next request. */
export async function deleteConnection(deps: AdminDeps, admin: Identity, id: string): Promise<void> {
  const connection = await tenantConnection(deps, admin.tenantId, id);
  // False: gone since the read, by another DELETE or by this one's own write retried after
  // its answer was lost. Deleted either way; the event is the write's that deleted it.
  const deleted = adminEvent(deps, admin, 'identity.connection.deleted', id, { connectionId: id, name: connection.name });
  await deps.store.emitting([deleted]).connections.delete(connection);
  deps.log.info('connection_deleted', { tenantId: admin.tenantId, actorId: admin.userId, connectionId: id });
  await recordEvent(deps, {
    ...byAdmin(admin),
    type: 'connection_deleted',
    outcome: 'success',
    details: { connectionId: id, name: connection.name },
  });
}
