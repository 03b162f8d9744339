import { type AuditDeps, bySelf, recordEvent } from '../audit/record';
import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { NotFoundError, UnauthorizedError } from '../errors';
import { selfEvent } from '../events/self';
import { isLive } from '../token-families/refresh-family';
import type { Identity } from '../tokens/access-token';
import { isOfCurrentEpoch } from '../users/user';
import type { OAuthClient } from './client';
import type { OAuthGrant } from './grant';

export const GRANT_NOT_FOUND = 'Grant not found';

/** An app the user authorized, as the user sees it (docs/api.md 8.4): never a token or its hash. */
export interface GrantView {
  id: string;
  clientId: string;
  clientName: string;
  scope: string;
  /** ISO 8601. */
  createdAt: string;
  /** The last refresh, else the authorization. */
  lastUsedAt: string;
}

type GrantDeps = Pick<Deps, 'store' | 'clock' | 'log'>;

const iso = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString();

/** A client's display name; until clients are registered with one, its id. */
const nameOf = (client: OAuthClient): string =>
  'clientName' in client && typeof client.clientName === 'string' && client.clientName ? client.clientName : client.clientId;

/**
 * docs/api.md 8.4: the caller's live OAuth grants (authorization-code grants, newest
 * first, from the owner index): not revoked or expired, of the user's current session
 * generation, of a client that still exists in the caller's tenant.
 */
export async function listGrants(deps: GrantDeps, identity: Identity): Promise<{ grants: GrantView[] }> {
  const { tenantId, userId } = identity;
  const now = epochSeconds(deps.clock);
  const [user, listed] = await Promise.all([
    deps.store.users.findById(tenantId, userId),
    deps.store.oauthGrants.listBySubject(tenantId, userId),
  ]);
  if (!user) throw new UnauthorizedError();
  const live = listed.filter(
    (grant: OAuthGrant) =>
      grant.kind === 'authorization_code' && grant.subject === userId && isLive(grant, now) && isOfCurrentEpoch(user, grant),
  );
  const clientIds = [...new Set(live.map((grant) => grant.clientId))];
  const clients = new Map(
    await Promise.all(clientIds.map(async (clientId) => [clientId, await deps.store.oauthClients.find(clientId)] as const)),
  );
  const grants: GrantView[] = [];
  for (const grant of live) {
    const client = clients.get(grant.clientId);
    if (client?.tenantId !== tenantId) continue;
    grants.push({
      id: grant.id,
      clientId: grant.clientId,
      clientName: nameOf(client),
      scope: grant.scope.join(' '),
      createdAt: iso(grant.createdAt),
      lastUsedAt: iso(Math.max(grant.createdAt, grant.refreshedAt ?? 0)),
    });
  }
  return { grants };
}

/**
 * docs/api.md 8.4: revokes a grant the caller gave, in one conditional write on the grant
 * and its subject: its refresh token and every access token of it stop working (refresh
 * answers `Invalid grant`, introspection `active: false`). Unknown and another user's: 404
 * `Grant not found`; one already revoked answers as revoked (idempotent).
 */
export async function revokeGrant(deps: GrantDeps & AuditDeps, identity: Identity, grantId: string): Promise<void> {
  const { tenantId, userId } = identity;
  // Read for its client, which the event names; the write below is what checks the grant is the caller's.
  const grant = await deps.store.oauthGrants.find(tenantId, grantId);
  const event = selfEvent(deps, identity, 'identity.grant.revoked', {
    reason: 'revoked',
    grantId,
    ...(grant ? { clientId: grant.clientId } : {}),
  });
  const revoked = await deps.store
    .emitting([event])
    .oauthGrants.revokeOfSubject({ tenantId, id: grantId }, userId, epochSeconds(deps.clock), 'revoked_by_user');
  if (!revoked) throw new NotFoundError(GRANT_NOT_FOUND, { code: 'GRANT_NOT_FOUND' });
  deps.log.info('grant_revoked', { tenantId, userId, grantId, sessionId: identity.sessionId });
  await recordEvent(deps, { ...bySelf(identity), type: 'grant_revoked', outcome: 'success', details: { grantId } });
}
