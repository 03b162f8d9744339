/**
 * Half-written state in a scan of the table, as a list of findings (empty when whole):
 * users and their username records in pairs, tenants with their first user, refresh
 * token families (sessions, OAuth grants) with a current token newer than every
 * retired one, MFA methods with what their status needs, OAuth clients with a whole
 * secret (or, deleted, with none), SCIM externalIds with their uniqueness records.
  }
 * retired one, MFA methods with what their status needs, recovery codes only beside an
 * active method (docs/api.md 8.6).
 */
export function halfWrittenState(items: Array<Record<string, unknown>>): string[] {
  const findings: string[] = [];
  const users = items.filter((item) => item.sk === 'PROFILE');
  const usernames = items.filter((item) => item.sk === 'USERNAME');
  const userIds = new Set(users.map((user) => String(user.id)));
  for (const record of usernames) if (!userIds.has(String(record.userId))) findings.push(`username record without its user: ${record.pk}`);
  const named = new Set(usernames.map((record) => String(record.userId)));
  for (const user of users) if (!named.has(String(user.id))) findings.push(`user without its username record: ${user.id}`);
  // A SCIM externalId and its uniqueness record (docs/api.md 13.3) exist in pairs.
  const externalIds = items.filter((item) => item.sk === 'EXTERNALID');
  const byId = new Map(users.map((user) => [String(user.id), user]));
  for (const record of externalIds) {
    const owner = byId.get(String(record.userId));
    if (!owner || !String(record.pk).endsWith(`#EXTERNALID#${String(owner.externalId).replace(/%/g, '%25').replace(/#/g, '%23')}`))
      findings.push(`externalId record without its user: ${record.pk}`);
  }
  const claimed = new Set(externalIds.map((record) => String(record.userId)));
  for (const user of users)
    if (user.externalId !== undefined && !claimed.has(String(user.id))) findings.push(`externalId without its record: ${user.id}`);
  for (const tenant of items.filter((item) => item.sk === 'TENANT'))
    if (!userIds.has(String(tenant.createdBy))) findings.push(`tenant without its first user: ${tenant.pk}`);
  for (const family of items.filter((item) => item.sk === 'SESSION' || (item.sk === 'GRANT' && item.refreshHash !== undefined))) {
    const generation = Number(family.refreshGeneration);
    if (!Number.isInteger(generation) || typeof family.refreshHash !== 'string')
      findings.push(`${family.sk} without a current refresh token: ${family.pk}`);
    for (const retired of Object.keys((family.retired as Record<string, string>) ?? {})) {
      if (Number(retired.slice(1)) >= generation)
        findings.push(`${family.sk} with a retired token not older than its current one: ${family.pk}`);
    }
  }
  for (const method of items.filter((item) => String(item.sk).startsWith('METHOD#'))) {
    if (method.status === 'active' && method.activatedAt === undefined)
      findings.push(`active MFA method without activation time: ${method.pk}`);
    if (method.method === 'TOTP' && typeof method.sealedSecret !== 'string') findings.push(`TOTP method without its secret: ${method.pk}`);
  }
  // A tenant's webhook count (docs/api.md 17.2) is written with each webhook's creation and deletion.
  for (const count of items.filter((item) => item.sk === 'COUNT' && String(item.pk).endsWith('#WEBHOOKS'))) {
    const webhooks = items.filter((item) => item.pk === count.pk && String(item.sk).startsWith('WEBHOOK#')).length;
    if (Number(count.count) !== webhooks) findings.push(`webhook count ${count.count} of ${webhooks} webhooks: ${count.pk}`);
  }
  for (const client of items.filter((item) => item.sk === 'CLIENT')) {
    const isPublic = client.tokenEndpointAuthMethod === 'none';
    if (client.deletedAt === undefined && !isPublic && typeof client.secretHash !== 'string')
      findings.push(`OAuth client without a secret: ${client.pk}`);
    if (isPublic && (client.secretHash !== undefined || client.previousSecretHash !== undefined))
      findings.push(`public OAuth client with a secret: ${client.pk}`);
    // docs/api.md 16.2: the origin index lists at least every origin a live client lists.
    for (const origin of client.deletedAt === undefined && Array.isArray(client.allowedOrigins) ? client.allowedOrigins : []) {
      const entry = items.find((item) => item.sk === 'CLIENTS' && item.pk === `CORS_ORIGIN#${String(origin)}`);
      const listed = entry?.clientIds instanceof Set ? entry.clientIds : new Set();
      if (!listed.has(client.clientId)) findings.push(`allowed origin missing from the origin index: ${client.pk} ${String(origin)}`);
    }
    if ((client.previousSecretHash === undefined) !== (client.previousSecretExpiresAt === undefined))
      findings.push(`OAuth client with half a previous secret: ${client.pk}`);
    if (client.deletedAt !== undefined && (client.secretHash !== undefined || client.gsi1pk !== undefined))
      findings.push(`deleted OAuth client with a secret or an index entry: ${client.pk}`);
  }
  for (const recovery of items.filter((item) => item.sk === 'RECOVERY')) {
    const active = items.some((item) => item.pk === recovery.pk && String(item.sk).startsWith('METHOD#') && item.status === 'active');
    if (!active) findings.push(`recovery codes without an active method: ${recovery.pk}`);
  }
  // A device authorization and its user code are written together; a redeemed one has its grant (docs/api.md 16.4).
  const devices = items.filter((item) => item.sk === 'DEVICECODE');
  const userCodes = new Set(items.filter((item) => item.sk === 'USERCODE').map((item) => String(item.deviceCodeHash)));
  const deviceHashes = new Set(devices.map((item) => String(item.deviceCodeHash)));
  const grantIds = new Set(items.filter((item) => item.sk === 'GRANT' && item.clientId !== undefined).map((item) => String(item.id)));
  for (const device of devices) {
    if (!userCodes.has(String(device.deviceCodeHash))) findings.push(`device authorization without its user code: ${device.pk}`);
    if (device.redeemedAt !== undefined && !grantIds.has(String(device.grantId)))
      findings.push(`redeemed device authorization without its grant: ${device.pk}`);
  }
  for (const code of items.filter((item) => item.sk === 'USERCODE'))
    if (!deviceHashes.has(String(code.deviceCodeHash))) findings.push(`user code without its device authorization: ${code.pk}`);
  // A federated identity (docs/api.md 14.3) is linked to a user that exists: made with it, erased with it.
  for (const link of items.filter((item) => item.sk === 'FEDID'))
    if (!userIds.has(String(link.userId))) findings.push(`federated identity without its user: ${link.pk}`);
  // Invitations (docs/api.md 13.1): an address's pending record names a pending invitation,
  // a pending invitation holds its address, an accepted one made its user.
  const invitations = new Map(items.filter((item) => item.sk === 'INVITATION').map((item) => [String(item.id), item]));
  const held = new Set<string>();
  for (const record of items.filter((item) => item.sk === 'PENDING')) {
    held.add(String(record.invitationId));
    if (invitations.get(String(record.invitationId))?.status !== 'pending')
      findings.push(`pending address record without its pending invitation: ${record.pk}`);
  }
  for (const invitation of invitations.values()) {
    if (invitation.status === 'pending' && !held.has(String(invitation.id)))
      findings.push(`pending invitation without its address record: ${invitation.pk}`);
    if (invitation.status === 'accepted' && !userIds.has(String(invitation.acceptedUserId)))
      findings.push(`accepted invitation without its user: ${invitation.pk}`);
  }
  // Domains (docs/api.md 14.2): a claim is taken in the transaction that marks its tenant's
  // record verified, and freed before that record is deleted.
  const verified = new Set(
    items
      .filter((item) => String(item.sk).startsWith('DOMAIN#') && item.status === 'verified')
      .map((item) => `${String(item.tenantId)} ${String(item.domain)}`),
  );
  for (const claim of items.filter((item) => item.sk === 'CLAIM' && String(item.pk).startsWith('DOMAIN#')))
    if (!verified.has(`${String(claim.tenantId)} ${String(claim.domain)}`))
      findings.push(`domain claim without its verified domain: ${claim.pk}`);
  // Connections (docs/api.md 14.1): an OIDC connection holds its sealed client secret.
  for (const connection of items.filter((item) => item.sk === 'CONNECTION'))
    if (connection.type === 'oidc' && typeof connection.clientSecretSealed !== 'string')
      findings.push(`OIDC connection without its client secret: ${connection.pk}`);
  // A user's activity (docs/decisions/027-bounded-admin-lists.md) names every MFA method the user
  // holds and the start of their newest session: written in the transactions that store them.
  for (const user of users.filter((item) => item.activityKept === true)) {
    const named = user.mfaEnrolled instanceof Set ? user.mfaEnrolled : new Set();
    const owned = (item: Record<string, unknown>) => item.tenantId === user.tenantId && item.userId === user.id;
    for (const method of items.filter((item) => String(item.sk).startsWith('METHOD#') && owned(item)))
      if (!named.has(method.method)) findings.push(`MFA method missing from its user's activity: ${method.pk} ${String(method.method)}`);
    for (const session of items.filter((item) => item.sk === 'SESSION' && owned(item)))
      if (!(Number(user.lastSessionAt) >= Number(session.createdAt)))
        findings.push(`session newer than its user's activity: ${session.pk}`);
  }
  return findings;
}
