/**
 * Primary keys of the single table. Every key starts with its tenant, and in every
 * caller-supplied part `%` and `#` are escaped so that a `#` in a tenant id or
 * username can never forge another record's key. Other characters stay as they are,
 * which keeps keys within DynamoDB's 2048-byte limit for parts of up to 128 characters.
 */
const part = (value: string) => value.replace(/%/g, '%25').replace(/#/g, '%23');

/** Where a page of a tenant's list ended (its users, its invitations): the time and id its index entry is sorted by. */
export interface IndexPosition {
  createdAt: string;
  id: string;
}

/**
 * The position in a LastEvaluatedKey of an index entry `<kind>#<createdAt>#<id>` (the
 * `gsi1sk` of keys.tenantUser and keys.tenantInvitation), the escaping of `id` undone.
 */
export function indexPositionOf(kind: 'USER' | 'INVITATION', key: Record<string, unknown>): IndexPosition | undefined {
  const sortKey = typeof key.gsi1sk === 'string' ? key.gsi1sk : '';
  if (!sortKey.startsWith(`${kind}#`)) return undefined;
  const match = /^([^#]+)#(.+)$/.exec(sortKey.slice(kind.length + 1));
  if (!match?.[1] || !match[2]) return undefined;
  return { createdAt: match[1], id: match[2].replace(/%23/g, '#').replace(/%25/g, '%') };
}

/** Usernames are unique per tenant regardless of case and Unicode form. */
export function normalizeUsername(username: string): string {
  return username.normalize('NFKC').toLowerCase();
}

/** Email addresses compare regardless of case and Unicode form, as usernames do (docs/api.md 13). */
export function normalizeEmail(email: string): string {
  return email.normalize('NFKC').toLowerCase();
}

/** An item's primary key (a type, not an interface: it is an `Item`, e.g. to delete by). */
export type Key = {
  pk: string;
  sk: string;
};

const tenantPrefix = (tenantId: string) => `T#${part(tenantId)}`;
const tenantUsersPartition = (tenantId: string) => `${tenantPrefix(tenantId)}#USERS`;
const tenantClientsPartition = (tenantId: string) => `${tenantPrefix(tenantId)}#CLIENTS`;
const mfaPartition = (tenantId: string, userId: string) => `${tenantPrefix(tenantId)}#MFA#${part(userId)}`;
const auditPartition = (tenantId: string, shard: number) => `${tenantPrefix(tenantId)}#AUDIT#${shard}`;
const auditUserPartition = (tenantId: string, userId: string) => `${tenantPrefix(tenantId)}#AUDITUSER#${part(userId)}`;
const auditPosition = (time: number, id: string) => `EVENT#${String(time).padStart(15, '0')}#${part(id)}`;

export const keys = {
  /** The grants a deleted user held, by id, client and session only, kept a day for back-channel logout (docs/api.md 17.3). */
  logoutTargets: (tenantId: string, userId: string): Key => ({ pk: `${tenantPrefix(tenantId)}#LOGOUTS#${part(userId)}`, sk: 'LOGOUTS' }),
  /**
   * The event outbox of one subject (a user, a client, a connection...) of a tenant
   * (docs/events.md): the write of a change updates it with the change's events, and the
   * table's stream carries each update out in order.
   */
  events: (tenantId: string, subject: string): Key => ({ pk: `${tenantPrefix(tenantId)}#EVENTS#${part(subject)}`, sk: 'EVENTS' }),
  tenant: (tenantId: string): Key => ({ pk: tenantPrefix(tenantId), sk: 'TENANT' }),
  /** Uniqueness record of a username; holds the user id. */
  username: (tenantId: string, username: string): Key => ({
    pk: `${tenantPrefix(tenantId)}#USERNAME#${part(normalizeUsername(username))}`,
    sk: 'USERNAME',
  }),
  user: (tenantId: string, userId: string): Key => ({ pk: `${tenantPrefix(tenantId)}#USER#${part(userId)}`, sk: 'PROFILE' }),
  session: (tenantId: string, sessionId: string): Key => ({
    pk: `${tenantPrefix(tenantId)}#SESSION#${part(sessionId)}`,
    sk: 'SESSION',
  }),
  /**
   * A window of the login budget of unknown sources (tier 0 is the 15-minute window, its
   * key unchanged; longer windows are tiers 1, 2, ...), or a known device's own budget.
   */
  loginAttempts: (tenantId: string, username: string, tier = 0): Key => ({
    pk: `${tenantPrefix(tenantId)}#LOGIN#${part(normalizeUsername(username))}`,
    sk: tier === 0 ? 'ATTEMPTS' : `ATTEMPTS#${tier}`,
  }),
  /** The failed-login budget of one device (docs/api.md 10), beside the account's own. */
  deviceAttempts: (tenantId: string, username: string, deviceId: string): Key => ({
    pk: `${tenantPrefix(tenantId)}#LOGIN#${part(normalizeUsername(username))}`,
    sk: `DEVICE#${part(deviceId)}`,
  }),
  /** Failed logins from one source address, across tenants (docs/api.md 10). */
  sourceAttempts: (address: string): Key => ({ pk: `SOURCE#${part(address)}`, sk: 'ATTEMPTS' }),
  /** The failed OAuth client authentications of one source address (docs/api.md 10.1). */
  clientSourceAttempts: (address: string): Key => ({ pk: `SOURCE#${part(address)}`, sk: 'ATTEMPTS#CLIENT' }),
  /**
   * An OAuth client. The one key without a tenant: the token endpoint learns the
   * client id before any tenant, so client ids are unique across tenants and the
   * record names its tenant (README.md, Deviations from the contract).
   */
  oauthClient: (clientId: string): Key => ({ pk: `CLIENT#${part(clientId)}`, sk: 'CLIENT' }),
  /**
   * The clients that list a web origin for CORS (docs/api.md 16.2), across tenants: a
   * preflight names no client and no tenant. A hint kept ahead of the clients, which
   * stay the truth (lib/store/oauth-clients.ts).
   */
  corsOrigin: (origin: string): Key => ({ pk: `CORS_ORIGIN#${part(origin)}`, sk: 'CLIENTS' }),
  /**
   * A connection to a tenant's identity provider (docs/api.md 14.1). Like an OAuth client,
   * its key has no tenant: the SAML ACS URL names only the connection, so connection ids
   * are unique across tenants and the record names its tenant.
   */
  connection: (connectionId: string): Key => ({ pk: `CONNECTION#${part(connectionId)}`, sk: 'CONNECTION' }),
  /** The tenant index entry of a connection (the owner index, `gsi1`): one query lists a tenant's connections. */
  tenantConnection: (tenantId: string, createdAt: string, connectionId: string) => ({
    gsi1pk: `${tenantPrefix(tenantId)}#CONNECTIONS`,
    gsi1sk: `CONNECTION#${createdAt}#${part(connectionId)}`,
  }),
  tenantConnectionsPartition: (tenantId: string) => `${tenantPrefix(tenantId)}#CONNECTIONS`,
  /** A domain of a tenant (docs/api.md 14.2); a tenant's domains share one partition, listed consistently. */
  tenantDomain: (tenantId: string, domain: string): Key => ({ pk: `${tenantPrefix(tenantId)}#DOMAINS`, sk: `DOMAIN#${part(domain)}` }),
  tenantDomainsPartition: (tenantId: string) => `${tenantPrefix(tenantId)}#DOMAINS`,
  /** The one tenant a domain is verified for (docs/api.md 14.2): a key of no tenant, so one tenant can hold it. */
  domainClaim: (domain: string): Key => ({ pk: `DOMAIN#${part(domain)}`, sk: 'CLAIM' }),
  /** A federated identity (connection, IdP subject) linked to a user (docs/api.md 14.3), by the digest of the subject. */
  federatedIdentity: (tenantId: string, connectionId: string, subjectDigest: string): Key => ({
    pk: `${tenantPrefix(tenantId)}#FEDID#${part(connectionId)}#${part(subjectDigest)}`,
    sk: 'FEDID',
  }),
  /** A sign-in sent to an identity provider and not back yet (docs/api.md 14.3), by the digest of its state or request id. */
  federationRequest: (keyDigest: string): Key => ({ pk: `FEDREQ#${part(keyDigest)}`, sk: 'FEDREQ' }),
  /** A SAML assertion id seen from a connection (docs/api.md 14.5), kept until the assertion expires: accepted once. */
  samlAssertion: (connectionId: string, idDigest: string): Key => ({
    pk: `SAMLASSERTION#${part(connectionId)}#${part(idDigest)}`,
    sk: 'ASSERTION',
  }),
  /** A DPoP proof's `jti` seen with a key, under the caller's tenant (docs/api.md 16.3), kept while the proof is acceptable: accepted once. */
  dpopProof: (tenantId: string, jkt: string, jtiDigest: string): Key => ({
    pk: `${tenantPrefix(tenantId)}#DPOP#${part(jkt)}#${part(jtiDigest)}`,
    sk: 'DPOP',
  }),
  /** An authorization code, by the hash of the code, under the tenant of its client. */
  authorizationCode: (tenantId: string, codeHash: string): Key => ({
    pk: `${tenantPrefix(tenantId)}#OAUTHCODE#${part(codeHash)}`,
    sk: 'CODE',
  }),
  /** A device authorization (docs/api.md 16.4), by the hash of its device code, under the tenant of its client. */
  deviceAuthorization: (tenantId: string, deviceCodeHash: string): Key => ({
    pk: `${tenantPrefix(tenantId)}#DEVICECODE#${part(deviceCodeHash)}`,
    sk: 'DEVICECODE',
  }),
  /**
   * A user code in use (docs/api.md 16.4), by its hash: a key of no tenant, because the
   * person typing it may be signed in to any tenant, and a code is in use once at a time.
   */
  userCode: (userCodeHash: string): Key => ({ pk: `USERCODE#${part(userCodeHash)}`, sk: 'USERCODE' }),
  /** The wrong user codes one signed-in user entered (docs/api.md 16.4). */
  userCodeAttempts: (tenantId: string, userId: string): Key => ({
    pk: `${tenantPrefix(tenantId)}#USERCODES#${part(userId)}`,
    sk: 'ATTEMPTS',
  }),
  /** A pending browser sign-in (docs/api.md 11.5), under the tenant of its client. */
  interaction: (tenantId: string, id: string): Key => ({ pk: `${tenantPrefix(tenantId)}#INTERACTION#${part(id)}`, sk: 'INTERACTION' }),
  /** An OAuth grant (a family of tokens), under the tenant of its client. */
  oauthGrant: (tenantId: string, grantId: string): Key => ({ pk: `${tenantPrefix(tenantId)}#GRANT#${part(grantId)}`, sk: 'GRANT' }),
  /**
   * The revocation of one stateless access token (a client_credentials token has no
   * grant record), by its `jti`, under the tenant of its client; kept until the token expires.
   */
  revokedAccessToken: (tenantId: string, jti: string): Key => ({ pk: `${tenantPrefix(tenantId)}#REVOKEDJTI#${part(jti)}`, sk: 'REVOKED' }),
  /**
   * The owner index (lib/store/table.ts) entry of what a user owns: their sessions and
   * grants, listed newest first by one query on the index.
   */
  ownedBy: (tenantId: string, userId: string, kind: 'SESSION' | 'GRANT' | 'PASSKEY' | 'FEDID', createdAt: number, id: string) => ({
    gsi1pk: `${tenantPrefix(tenantId)}#OWNER#${part(userId)}`,
    gsi1sk: `${kind}#${String(createdAt).padStart(12, '0')}#${part(id)}`,
  }),
  /**
   * A passkey (docs/api.md 12), by its id (the digest of its credential id), under its
   * tenant: one credential id is registered once per tenant, and a sign-in finds it by one read.
   */
  passkey: (tenantId: string, id: string): Key => ({ pk: `${tenantPrefix(tenantId)}#PASSKEY#${part(id)}`, sk: 'PASSKEY' }),
  /** A WebAuthn challenge (docs/api.md 12), single use, under the tenant it was issued for. */
  webauthnChallenge: (tenantId: string, challenge: string): Key => ({
    pk: `${tenantPrefix(tenantId)}#WEBAUTHN#${part(challenge)}`,
    sk: 'CHALLENGE',
  }),
  /** The owner index partition of a user's sessions and grants. */
  ownerPartition: (tenantId: string, userId: string) => `${tenantPrefix(tenantId)}#OWNER#${part(userId)}`,
  /**
   * A send quota's window (lib/abuse/send-quota.ts): per user or tenant under the tenant;
   * per destination digest, for all new tenants together and for the whole service under
   * no tenant, since a number pumped through many tenants is still one number.
   */
  sendQuota: (tenantId: string, scope: SendScope, id: string): Key =>
    scope === 'global' ||
    scope === 'destination' ||
    scope === 'newTenants' ||
    scope === 'notificationDestination' ||
    scope === 'notificationGlobal'
      ? { pk: `SENDS#${scope.toUpperCase()}#${part(id)}`, sk: 'QUOTA' }
      : { pk: `${tenantPrefix(tenantId)}#SENDS#${scope.toUpperCase()}#${part(id)}`, sk: 'QUOTA' },
  /** Everything MFA of one user shares a partition, so one query lists the user's methods. */
  mfaPartition,
  /** One MFA method (TOTP, SMS, EMAIL) of a user. */
  mfaMethod: (tenantId: string, userId: string, method: string): Key => ({
    pk: mfaPartition(tenantId, userId),
    sk: `METHOD#${part(method)}`,
  }),
  /** A user's recovery codes (docs/api.md 8.6): one record, the digests of the unused codes. */
  mfaRecoveryCodes: (tenantId: string, userId: string): Key => ({ pk: mfaPartition(tenantId, userId), sk: 'RECOVERY' }),
  /** A window (tier) of the user's budget of wrong codes, shared by every method (the MFA lockout). */
  mfaAttempts: (tenantId: string, userId: string, tier: number): Key => ({
    pk: mfaPartition(tenantId, userId),
    sk: `ATTEMPTS#ALL#${tier}`,
  }),
  /** The local outbox's last code for a user and method (local development only). */
  mfaOutbox: (tenantId: string, userId: string, method: string): Key => ({
    pk: mfaPartition(tenantId, userId),
    sk: `OUTBOX#${part(method)}`,
  }),
  /** The local outbox's notifications of a user, in the order they were sent (local development only). */
  outboxNotification: (tenantId: string, userId: string, sentAt: number, event: string): Key => ({
    pk: mfaPartition(tenantId, userId),
    sk: `OUTBOX#NOTICE#${String(sentAt).padStart(12, '0')}#${part(event)}`,
  }),
  outboxNotificationPrefix: 'OUTBOX#NOTICE#',
  /**
   * A password reset code (docs/api.md 8.7), by the username asked for: an unknown
   * username gets the same record (of nobody) as a known one, so the work is the same.
   */
  passwordReset: (tenantId: string, username: string): Key => ({
    pk: `${tenantPrefix(tenantId)}#RESET#${part(normalizeUsername(username))}`,
    sk: 'RESET',
  }),
  /** The attempt counter of reset codes tried for a username, across the codes it is sent. */
  resetAttempts: (tenantId: string, username: string): Key => ({
    pk: `${tenantPrefix(tenantId)}#RESET#${part(normalizeUsername(username))}`,
    sk: 'ATTEMPTS',
  }),
  /** The reset codes sent for a username at the request of unknown sources (docs/api.md 8.7). */
  resetRequests: (tenantId: string, username: string): Key => ({
    pk: `${tenantPrefix(tenantId)}#RESET#${part(normalizeUsername(username))}`,
    sk: 'REQUESTS',
  }),
  /** The code that verifies a user's email address (docs/api.md 8.8). */
  emailVerification: (tenantId: string, userId: string): Key => ({
    pk: `${tenantPrefix(tenantId)}#USER#${part(userId)}`,
    sk: 'EMAILVERIFY',
  }),
  /**
   * The tenant index entry of a user (the owner index, `gsi1`): one query lists a
   * tenant's users, oldest first, page by page (docs/api.md 9.1).
   */
  tenantUser: (tenantId: string, createdAt: string, userId: string) => ({
    gsi1pk: tenantUsersPartition(tenantId),
    gsi1sk: `USER#${createdAt}#${part(userId)}`,
  }),
  /** The index partition of a tenant's users. */
  tenantUsersPartition,
  /** The email index (lib/store/table.ts) entry of a user's profile that holds `email`. */
  userEmail: (tenantId: string, email: string) => ({ gsi2pk: `${tenantPrefix(tenantId)}#EMAIL#${part(normalizeEmail(email))}` }),
  /**
   * The tenant index entry of an OAuth client (the owner index, `gsi1`, on the client
   * record): one query lists a tenant's clients, oldest first (docs/api.md 9.9).
   */
  tenantClient: (tenantId: string, createdAt: string, clientId: string) => ({
    gsi1pk: tenantClientsPartition(tenantId),
    gsi1sk: `CLIENT#${createdAt}#${part(clientId)}`,
  }),
  /** The index partition of a tenant's OAuth clients. */
  tenantClientsPartition,
  /**
   * A shop of a tenant (docs/api.md 9.7). A tenant's shops share one partition: they are
   * few and rarely written, and one query lists them consistently.
   */
  shop: (tenantId: string, shopId: string): Key => ({ pk: `${tenantPrefix(tenantId)}#SHOPS`, sk: `SHOP#${part(shopId)}` }),
  /** The partition of a tenant's shops. */
  shopsPartition: (tenantId: string) => `${tenantPrefix(tenantId)}#SHOPS`,
  /**
   * An audit event (docs/api.md 9.8), in one of the tenant's `shards` write partitions, so
   * that a busy tenant's events do not all share one partition key; the sort key orders
   * them by time (then id) in every partition.
   */
  auditEvent: (tenantId: string, shard: number, time: number, id: string): Key => ({
    pk: auditPartition(tenantId, shard),
    sk: auditPosition(time, id),
  }),
  /** One write partition of a tenant's audit events. */
  auditPartition,
  /** Where an event sorts among the others (its sort key, and a listing's position). */
  auditPosition,
  /** The owner index entry of an event about a user: one query lists a user's events, newest first. */
  auditOfUser: (tenantId: string, userId: string, time: number, id: string) => ({
    gsi1pk: auditUserPartition(tenantId, userId),
    gsi1sk: auditPosition(time, id),
  }),
  /** The owner index partition of the events about one user. */
  auditUserPartition,
  /** An invitation (docs/api.md 13.1), by its id. */
  invitation: (tenantId: string, id: string): Key => ({ pk: `${tenantPrefix(tenantId)}#INVITATION#${part(id)}`, sk: 'INVITATION' }),
  /**
   * The pending invitation of an email address in a tenant: holds its id and expiry, so
   * that one address has one pending invitation at a time (one conditional write).
   */
  pendingInvitation: (tenantId: string, email: string): Key => ({
    pk: `${tenantPrefix(tenantId)}#INVITEE#${part(normalizeEmail(email))}`,
    sk: 'PENDING',
  }),
  /** The tenant index entry of an invitation (`gsi1`): one query lists a tenant's invitations, newest first. */
  tenantInvitation: (tenantId: string, createdAt: string, id: string) => ({
    gsi1pk: `${tenantPrefix(tenantId)}#INVITATIONS`,
    gsi1sk: `INVITATION#${createdAt}#${part(id)}`,
  }),
  tenantInvitationsPartition: (tenantId: string) => `${tenantPrefix(tenantId)}#INVITATIONS`,
  /** The local outbox's messages to one email address, in the order they were sent (local development only). */
  outboxAddress: (address: string, sentAt: number, id: string): Key => ({
    pk: `OUTBOX#ADDRESS#${part(normalizeEmail(address))}`,
    sk: `MESSAGE#${String(sentAt).padStart(12, '0')}#${part(id)}`,
  }),
  outboxAddressPartition: (address: string) => `OUTBOX#ADDRESS#${part(normalizeEmail(address))}`,
  /** The uniqueness record of a SCIM `externalId` in a tenant (docs/api.md 13.3); holds the user id. */
  externalId: (tenantId: string, externalId: string): Key => ({
    pk: `${tenantPrefix(tenantId)}#EXTERNALID#${part(externalId)}`,
    sk: 'EXTERNALID',
  }),
  /** A SCIM token of a tenant (docs/api.md 13.3): a tenant's few tokens share one partition. */
  scimToken: (tenantId: string, tokenId: string): Key => ({ pk: `${tenantPrefix(tenantId)}#SCIMTOKENS`, sk: `TOKEN#${part(tokenId)}` }),
  /** The partition of a tenant's SCIM tokens. */
  scimTokensPartition: (tenantId: string) => `${tenantPrefix(tenantId)}#SCIMTOKENS`,
  /** The request budget of one SCIM token (docs/api.md 13.3). */
  scimRequests: (tenantId: string, tokenId: string): Key => ({
    pk: `${tenantPrefix(tenantId)}#SCIMTOKENS`,
    sk: `REQUESTS#${part(tokenId)}`,
  }),
};

/** What a send quota counts (lib/abuse/send-quota.ts); `global` counts the whole service. */
export type SendScope =
  | 'destination'
  | 'user'
  | 'tenant'
  | 'newTenants'
  | 'global'
  /** Security notifications are counted apart from codes (lib/abuse/send-quota.ts). */
  | 'notificationUser'
  | 'notificationDestination'
  | 'notificationGlobal'
  /** Invitation emails, per tenant (docs/api.md 13.1). */
  | 'invitationTenant';

/** A tenant's webhooks and their number (docs/api.md 17.2). */
export const webhookKeys = {
  partition: (tenantId: string) => `${tenantPrefix(tenantId)}#WEBHOOKS`,
  webhook: (tenantId: string, webhookId: string): Key => ({ pk: `${tenantPrefix(tenantId)}#WEBHOOKS`, sk: `WEBHOOK#${part(webhookId)}` }),
  count: (tenantId: string): Key => ({ pk: `${tenantPrefix(tenantId)}#WEBHOOKS`, sk: 'COUNT' }),
  /** The delivery log of one target (a webhook, a client's back-channel logout URI), newest first by first attempt. */
  deliveries: (tenantId: string, kind: string, target: string) => `${tenantPrefix(tenantId)}#DELIVERIES#${part(kind)}#${part(target)}`,
  delivery: (tenantId: string, kind: string, target: string, firstAttemptAt: number, deliveryId: string): Key => ({
    pk: `${tenantPrefix(tenantId)}#DELIVERIES#${part(kind)}#${part(target)}`,
    sk: `DELIVERY#${String(firstAttemptAt).padStart(15, '0')}#${part(deliveryId)}`,
  }),
};
