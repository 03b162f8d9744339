import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { AuditDetails } from '../audit/events';
import { recordEvent } from '../audit/record';
import { epochSeconds } from '../clock';
import { constantEquals } from '../crypto/constant-equals';
import { hashToken } from '../crypto/token-hash';
import { ServiceUnavailableError } from '../errors';
import { browserSignIn, type HostedDeps, interactionClient, signedIn } from '../hosted/flow';
import { cookiesOf } from '../hosted/http';
import type { Reply } from '../http/reply';
import type { Amr } from '../sessions/session';
import { signInEvent } from '../sessions/sign-in';
import type { FederationRequest } from '../store/federation';
import { userCreated } from '../users/events';
import { ROLES, type Role, type User } from '../users/user';
import type { Connection, FederatedClaims } from './connection';
import { endedFederationCookie, FEDERATION_COOKIE } from './cookie';
import { isVerifiedDomainOf } from './discovery';
import { type FederationFailure, FederationRefused, pageError } from './refusal';

export { type FederationFailure, FederationRefused } from './refusal';

/*
 * The return of a federated sign-in (docs/api.md 14.3), whatever the protocol: the
 * pending request is taken once, by the browser that set off; the IdP's answer is checked
 * by the protocol (lib/federation/oidc.ts, saml.ts); then the tenant's rules (a verified
 * domain, linking or provisioning, role mapping) and the one sign-in pipeline. Every
 * refusal ends on the error page, creates nothing, and is audited in the tenant's trail
 * when the tenant is known.
 */

/** The answer of an IdP as its route received it: the key of the pending request, and the connection its URL names (SAML). */
export interface FederationAnswer {
  key: string | undefined;
  connectionId?: string | undefined;
}

/** Checks the IdP's answer for the connection and the pending request: the claims, or FederationRefused. */
export type VerifyAnswer = (connection: Connection, pending: FederationRequest) => Promise<FederatedClaims>;

type CompleteDeps = HostedDeps;

/**
 * The role a sign-in gives (docs/api.md 14.3): with a role mapping, the first of ROLES
 * (the most privileged) that one of the IdP's values maps to, else the default role;
 * without one, undefined (the user's role stays as the tenant set it).
 */
export function mappedRole(connection: Pick<Connection, 'roleMapping' | 'defaultRole'>, values: readonly string[]): Role | undefined {
  const mapping = connection.roleMapping;
  if (!mapping) return undefined;
  const given = new Set(values.flatMap((value) => (Object.hasOwn(mapping, value) ? [mapping[value] as Role] : [])));
  return ROLES.find((role) => given.has(role)) ?? connection.defaultRole;
}

/**
 * The account of the identity (docs/api.md 14.3): the user linked to (connection,
 * subject); at the first sign-in the tenant's one user with this verified email, linked
 * now; else, with JIT provisioning, a new user linked in the same transaction. Undefined:
 * no account for this user.
 */
async function accountOf(
  deps: CompleteDeps,
  connection: Connection,
  claims: FederatedClaims & { email: string },
): Promise<{ user: User; created: boolean } | undefined> {
  const { tenantId, id: connectionId } = connection;
  const now = new Date(deps.clock.now()).toISOString();
  for (let attempt = 0; attempt < 3; attempt++) {
    const link = await deps.store.federatedIdentities.find(tenantId, connectionId, claims.subject);
    if (link) {
      const user = await deps.store.users.findById(tenantId, link.userId);
      if (user) return { user, created: false };
      // The user was deleted: the identity is free again.
      await deps.store.federatedIdentities.unlink(tenantId, connectionId, claims.subject, link.userId);
      continue;
    }
    const sameEmail = (await deps.store.users.findByEmail(tenantId, claims.email)).filter((user) => user.emailVerified === true);
    if (sameEmail.length === 1) {
      const [user] = sameEmail as [User];
      if (await deps.store.federatedIdentities.link(tenantId, connectionId, claims.subject, user.id, now)) return { user, created: false };
      continue; // Linked by a concurrent sign-in meanwhile: read the link.
    }
    // Two accounts with the address (possible only through an ADMIN's edits): none is chosen.
    if (sameEmail.length > 1 || !connection.jitProvisioning) return undefined;
    const user = await provision(deps, connection, claims, now);
    if (user) return { user, created: true };
  }
  throw new ServiceUnavailableError();
}

/** A new user of the identity (docs/api.md 14.3), linked in the same transaction; undefined when a concurrent sign-in linked it first. */
async function provision(deps: CompleteDeps, connection: Connection, claims: FederatedClaims & { email: string }, now: string) {
  const { tenantId, id: connectionId } = connection;
  const tenant = await deps.store.tenants.find(tenantId);
  const email = claims.email.trim().toLowerCase();
  const base: User = {
    id: deps.random.id(),
    tenantId,
    shopId: tenant?.defaultShopId ?? deps.config.defaultShopId,
    // The address names the account; another account already named so gets a suffix.
    username: email,
    role: mappedRole(connection, claims.roles) ?? connection.defaultRole,
    status: 'active',
    email,
    emailVerified: true,
    createdAt: now,
    updatedAt: now,
  };
  for (const username of [email, `${email}~${deps.random.token(4).toLowerCase()}`]) {
    const user = { ...base, username };
    const created = userCreated(deps, user, { type: 'system', id: null }, 'federation');
    const result = await deps.store.emitting([created]).federatedIdentities.createLinked(user, connectionId, claims.subject);
    if (result === 'created') {
      deps.log.info('user_provisioned', { tenantId, userId: user.id, connectionId, role: user.role });
      await recordEvent(deps, {
        tenantId,
        type: 'user_provisioned',
        actor: { type: 'system', id: null },
        targetUserId: user.id,
        outcome: 'success',
        details: { role: user.role, connectionId },
      });
      return user;
    }
    if (result !== 'username_taken') return undefined;
  }
  return undefined;
}

/**
 * Re-applies the IdP's role (docs/api.md 14.3: with a role mapping the IdP is the source
 * of truth), but never takes the tenant's last active ADMIN away: that needs an ADMIN.
 */
async function applyRole(deps: CompleteDeps, connection: Connection, user: User, values: readonly string[]): Promise<User> {
  let current = user;
  for (let attempt = 0; attempt < 3; attempt++) {
    const role = mappedRole(connection, values);
    if (role === undefined || role === current.role) return current;
    if (current.role === 'ADMIN' && (await deps.store.tenantUsers.otherActiveAdmins(current.tenantId, current.id)).length === 0) {
      deps.log.warn('federated_role_kept', { tenantId: current.tenantId, userId: current.id, reason: 'last_admin' });
      return current;
    }
    if (await deps.store.tenantUsers.change(current, { role }, { revoke: false })) {
      deps.log.info('federated_role_applied', { tenantId: current.tenantId, userId: current.id, role, connectionId: connection.id });
      await recordEvent(deps, {
        tenantId: current.tenantId,
        type: 'admin_user_changed',
        actor: { type: 'system', id: null },
        targetUserId: current.id,
        outcome: 'success',
        details: { role, connectionId: connection.id },
      });
      return { ...current, role };
    }
    const again = await deps.store.users.findById(current.tenantId, current.id);
    if (!again) return current;
    current = again;
  }
  throw new ServiceUnavailableError();
}

/**
 * Completes a federated sign-in (docs/api.md 14.3): the pending request (once, from the
 * browser that set off, its connection enabled and of its tenant), the IdP's answer
 * (`verify`), an email at one of the connection's verified domains, the account (linked
 * or provisioned, its role re-mapped), then the sign-in pipeline with amr `fed` (and
 * `mfa` when the IdP asserted it) and the session's `idp`, and consent or the code.
 */
export async function completeFederation(
  deps: CompleteDeps,
  event: APIGatewayProxyEventV2,
  answer: FederationAnswer,
  verify: VerifyAnswer,
): Promise<Reply> {
  const now = epochSeconds(deps.clock);
  const ended = [endedFederationCookie()];
  let tenantId: string | undefined;
  let connectionId = answer.connectionId;
  let claimed: Pick<FederatedClaims, 'email'> = {};
  const refuse = async (reason: FederationFailure, user?: User, detail?: string): Promise<never> => {
    deps.log.warn('federated_sign_in_refused', { tenantId, connectionId, reason, ...(detail ? { detail } : {}) });
    if (tenantId !== undefined) {
      const details: AuditDetails = { reason: `federation_${reason}`, ...(connectionId ? { connectionId } : {}) };
      await signInEvent(deps, tenantId, user?.username ?? claimed.email, user, 'login_failed', details);
    }
    throw pageError(reason);
  };

  // An answer for a connection (SAML names it in the URL): its tenant's trail records a
  // refusal, and the connection read here is the one checked below (one read, alongside).
  const [named, pending] = await Promise.all([
    connectionId === undefined ? undefined : deps.store.connections.find(connectionId),
    answer.key ? deps.store.federationRequests.consume(answer.key, now) : undefined,
  ]);
  if (named) tenantId = named.tenantId;
  if (!pending || (connectionId !== undefined && pending.connectionId !== connectionId)) return refuse('expired');
  tenantId = pending.tenantId;
  connectionId = pending.connectionId;
  const secret = cookiesOf(event).get(FEDERATION_COOKIE);
  if (!secret || !constantEquals(hashToken(secret), pending.browserHash)) return refuse('wrong_browser');
  const [connection, interaction] = await Promise.all([
    named ?? deps.store.connections.find(pending.connectionId),
    deps.store.interactions.find(pending.tenantId, pending.interactionId),
  ]);
  if (!connection?.enabled || connection.tenantId !== pending.tenantId) return refuse('connection_disabled');
  if (interaction?.stage !== 'sign_in' || interaction.expiresAt <= now) return refuse('expired');
  const client = await interactionClient(deps, interaction);

  let claims: FederatedClaims;
  try {
    claims = await verify(connection, pending);
  } catch (error) {
    if (error instanceof FederationRefused) return refuse(error.reason, undefined, error.detail);
    throw error;
  }
  claimed = { email: claims.email };
  const email = claims.email;
  // An IdP's admin can mint any address: only the tenant's verified domains count (docs/api.md 14.2).
  if (email === undefined || !(await isVerifiedDomainOf(deps, connection, email))) return refuse('domain_not_allowed');
  const account = await accountOf(deps, connection, { ...claims, email });
  if (!account) return refuse('no_account');
  const user = account.created ? account.user : await applyRole(deps, connection, account.user, claims.roles);
  if (user.status !== 'active') return refuse('no_account', user, 'disabled');

  const amr: Amr[] = claims.mfa ? ['fed', 'mfa'] : ['fed'];
  const signed = await browserSignIn(deps, event, interaction, {
    firstFactor: { kind: 'federated', user, amr, connectionId: connection.id },
  });
  return signedIn(deps, { interaction, client }, signed, deps.random.token(32), { newCsrf: true, cookies: ended });
}
