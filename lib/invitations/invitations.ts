import { decodePageCursor, encodePageCursor } from '../admin/page-cursor';
import { tenantShop } from '../admin/shops';
import { byAdmin, recordEvent } from '../audit/record';
import type { Identity, Role } from '../caller';
import { epochSeconds } from '../clock';
import { constantEquals } from '../crypto/constant-equals';
import { hashToken } from '../crypto/token-hash';
import type { Deps } from '../deps';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../errors';
import { newEvent } from '../events/event';
import { SsoRequiredError, ssoConnectionFor } from '../federation/sso-required';
import { newAccountPasskey } from '../passkeys/ceremonies';
import type { Amr } from '../sessions/session';
import type { FirstFactor } from '../sessions/sign-in';
import type { Invitation, InvitationFilter } from '../store/invitations';
import { isCommonPassword } from '../users/common-passwords';
import { userCreated } from '../users/events';
import { ROLES, type User } from '../users/user';
import { invitationEmail } from './email';

/*
 * Invitations (docs/api.md 13.1): an ADMIN (or a MANAGER, for the roles below theirs)
 * invites an address; the invitee follows the emailed link, chooses a username and a
 * password, and the account exists with the invited role and shop and a verified email.
 */

/** How long a link works (docs/api.md 13.1): 7 days from its sending or its last resend. */
export const INVITATION_TTL_SECONDS = 7 * 24 * 3600;
/** The page of a link: `/invitations/{token}` on the issuer's origin (docs/api.md 13.1). */
export const INVITATION_PATH = '/invitations/';

export const INVALID_INVITATION = 'Invalid invitation';
export const INVITATION_NOT_FOUND = 'Invitation not found';
export const INVITATION_PENDING = 'Invitation already pending';
export const INVITATION_NOT_PENDING = 'Invitation is not pending';
export const USER_EXISTS = 'User already exists';

export const invalidInvitation = () => new ValidationError(INVALID_INVITATION, { code: 'INVALID_INVITATION' });
const notFound = () => new NotFoundError(INVITATION_NOT_FOUND, { code: 'INVITATION_NOT_FOUND' });
const notPending = () => new ConflictError(INVITATION_NOT_PENDING, { code: 'INVITATION_NOT_PENDING' });

export type InvitationStatus = Invitation['status'] | 'expired';

/** An invitation as the admin routes answer with it (docs/api.md 13.1): never its token or hash. */
export interface InvitationView {
  id: string;
  email: string;
  role: Role;
  shopId: string;
  status: InvitationStatus;
  /** ISO 8601. */
  expiresAt: string;
  /** ISO 8601. */
  createdAt: string;
}

type InvitationDeps = Pick<Deps, 'config' | 'clock' | 'random' | 'log' | 'store' | 'source' | 'mfaDelivery'>;

type InvitationEventType = 'identity.invitation.created' | 'identity.invitation.resent' | 'identity.invitation.revoked';

/** An event of an ADMIN's (or MANAGER's) invitation (docs/events.md, The tenant's resources): never its address or link. */
const invitationEvent = (deps: InvitationDeps, inviter: Identity, invitation: Invitation, type: InvitationEventType, data = {}) =>
  newEvent(deps, {
    tenantId: invitation.tenantId,
    type,
    subject: invitation.id,
    actor: byAdmin(inviter).actor,
    data: { role: invitation.role, shopId: invitation.shopId, ...data },
  });

/** The roles only an ADMIN may invite; a MANAGER invites the others (docs/api.md 13.1). */
const ADMIN_ONLY: readonly Role[] = ['ADMIN', 'MANAGER'];

/** Whether `inviter` may invite (and list, resend, revoke invitations of) `role`. */
export const mayInvite = (inviter: Pick<Identity, 'role'>, role: Role) =>
  inviter.role === 'ADMIN' || (inviter.role === 'MANAGER' && !ADMIN_ONLY.includes(role));

/**
 * The permission check of the invitation routes, before validation (docs/api.md 2): an
 * ADMIN or a MANAGER of the tenant, and a MANAGER not for `requestedRole` ADMIN or
 * MANAGER; anyone else 403 `Permission denied`, anonymous callers included.
 */
export function inviterOf(caller: Identity | null, requestedRole?: unknown): Identity {
  if (!caller || (caller.role !== 'ADMIN' && caller.role !== 'MANAGER')) throw new ForbiddenError();
  if (caller.role === 'MANAGER' && typeof requestedRole === 'string' && ADMIN_ONLY.includes(requestedRole as Role))
    throw new ForbiddenError();
  return caller;
}

const iso = (epoch: number) => new Date(epoch * 1000).toISOString();

export function statusOf(invitation: Invitation, now: number): InvitationStatus {
  return invitation.status === 'pending' && invitation.expiresAt <= now ? 'expired' : invitation.status;
}

function viewOf(invitation: Invitation, now: number): InvitationView {
  return {
    id: invitation.id,
    email: invitation.email,
    role: invitation.role,
    shopId: invitation.shopId,
    status: statusOf(invitation, now),
    expiresAt: iso(invitation.expiresAt),
    createdAt: invitation.createdAt,
  };
}

/*
 * The token: `<tenant, base64url>.<invitation id>.<256 random bits>`. The tenant and id
 * find the record in one read (every key starts with its tenant); the record keeps only
 * the SHA-256 of the whole token, compared in constant time.
 */
const TOKEN = /^([A-Za-z0-9_-]{1,200})\.([0-9a-f-]{36})\.([A-Za-z0-9_-]{43})$/;

function tokenOf(tenantId: string, id: string, secret: string): string {
  return `${Buffer.from(tenantId, 'utf8').toString('base64url')}.${id}.${secret}`;
}

function parseToken(token: string): { tenantId: string; id: string } | undefined {
  const match = TOKEN.exec(token);
  if (!match?.[1] || !match[2]) return undefined;
  return { tenantId: Buffer.from(match[1], 'base64url').toString('utf8'), id: match[2] };
}

/** The link of a token: absolute, on the issuer's origin, as the hosted pages are. */
export const invitationLink = (deps: Pick<Deps, 'config'>, token: string) =>
  `${new URL(deps.config.issuer).origin}${INVITATION_PATH}${token}`;

/** Invitation ids are UUIDs: any other id is not found, like an unknown one, without a read. */
const INVITATION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function findOwn(deps: InvitationDeps, inviter: Identity, id: string): Promise<Invitation> {
  const invitation = INVITATION_ID.test(id) ? await deps.store.invitations.find(inviter.tenantId, id) : undefined;
  if (!invitation) throw notFound();
  if (!mayInvite(inviter, invitation.role)) throw new ForbiddenError();
  return invitation;
}

/** Emails the link; the log names the invitation, never the token, the link or the address. */
async function send(deps: InvitationDeps, invitation: Invitation, token: string): Promise<void> {
  const notification = await invitationEmail(deps, invitation, invitationLink(deps, token));
  await deps.mfaDelivery.send({
    tenantId: invitation.tenantId,
    invitationId: invitation.id,
    method: 'EMAIL',
    destination: invitation.email,
    notification,
  });
  deps.log.info('invitation_sent', { tenantId: invitation.tenantId, invitationId: invitation.id });
}

export interface InvitationRequest {
  email: string;
  role: Role;
  shopId?: string | undefined;
  username?: string | undefined;
}

/**
 * docs/api.md 13.1: a new pending invitation and its email. 400 `Unknown shop`, 409 `User
 * already exists` (a user of the tenant has the address), 409 `Invitation already pending`.
 * An email that cannot be sent (the tenant's invitation quota, 429) revokes the invitation
 * again: the address stays free for a later try.
 */
export async function createInvitation(deps: InvitationDeps, inviter: Identity, request: InvitationRequest): Promise<InvitationView> {
  const { tenantId } = inviter;
  if (!mayInvite(inviter, request.role)) throw new ForbiddenError();
  const [shopId, users] = await Promise.all([
    tenantShop(deps, tenantId, request.shopId),
    // The email index is eventually consistent: it answers a friendly 409, not a guarantee.
    deps.store.users.findByEmail(tenantId, request.email),
  ]);
  if (users.length > 0) throw new ConflictError(USER_EXISTS, { code: 'USER_EXISTS' });
  const now = epochSeconds(deps.clock);
  const id = deps.random.id();
  const token = tokenOf(tenantId, id, deps.random.token());
  const invitation: Invitation = {
    id,
    tenantId,
    email: request.email,
    role: request.role,
    shopId,
    ...(request.username === undefined ? {} : { username: request.username }),
    status: 'pending',
    tokenHash: hashToken(token),
    expiresAt: now + INVITATION_TTL_SECONDS,
    createdAt: new Date(deps.clock.now()).toISOString(),
    createdBy: inviter.userId,
  };
  const created = invitationEvent(deps, inviter, invitation, 'identity.invitation.created');
  if ((await deps.store.emitting([created]).invitations.create(invitation, now)) === 'pending_elsewhere')
    throw new ConflictError(INVITATION_PENDING, { code: 'INVITATION_PENDING' });
  try {
    await send(deps, invitation, token);
  } catch (error) {
    // The invitation existed for a moment: its events say so, and that it ended unsent.
    const unsent = invitationEvent(deps, inviter, invitation, 'identity.invitation.revoked', { reason: 'not_sent' });
    await deps.store.emitting([unsent]).invitations.revoke(invitation);
    throw error;
  }
  await recordEvent(deps, {
    ...byAdmin(inviter),
    type: 'invitation_created',
    outcome: 'success',
    details: { invitationId: id, role: invitation.role, shopId },
  });
  return viewOf(invitation, now);
}

/** Which invitations a page lists: those of one status, or the `open` ones (pending or expired: to send again or revoke). */
export type InvitationListStatus = InvitationStatus | 'open';

/** A status of the view in the stored terms: an expired invitation is a pending one past its expiry. */
function storedFilter(status: InvitationListStatus | undefined, now: number): InvitationFilter {
  switch (status) {
    case 'pending':
    case 'expired':
      return { status: 'pending', expiry: { now, past: status === 'expired' } };
    case 'open':
      return { status: 'pending' };
    default:
      return { status };
  }
}

/**
 * docs/api.md 13.1: a page of the tenant's invitations, newest first, of one status if
 * asked, and the cursor of the next; a MANAGER sees those of the roles they may invite.
 */
export async function listInvitations(
  deps: InvitationDeps,
  inviter: Identity,
  query: { status?: InvitationListStatus | undefined; limit: number; cursor?: string | undefined },
): Promise<{ invitations: InvitationView[]; nextCursor: string | null }> {
  const now = epochSeconds(deps.clock);
  const after = query.cursor === undefined ? undefined : decodePageCursor(inviter.tenantId, query.cursor);
  const page = await deps.store.invitations.list(inviter.tenantId, {
    limit: query.limit,
    after,
    ...storedFilter(query.status, now),
    withoutRoles: ROLES.filter((role) => !mayInvite(inviter, role)),
  });
  return {
    invitations: page.invitations.map((invitation) => viewOf(invitation, now)),
    nextCursor: page.next ? encodePageCursor(inviter.tenantId, page.next) : null,
  };
}

/**
 * docs/api.md 13.1: a new link for a pending invitation (expired ones included), valid 7
 * days; the old link is dead once the new one was sent (an email that cannot be sent
 * leaves the old link as it was). 409 `User already exists` when a user of the tenant has
 * its address now. 409 `Invitation is not pending` once accepted or revoked,
 * 409 `Invitation already pending` when the address was invited again since it expired.
 */
export async function resendInvitation(deps: InvitationDeps, inviter: Identity, id: string): Promise<InvitationView> {
  const invitation = await findOwn(deps, inviter, id);
  if (invitation.status !== 'pending') throw notPending();
  // As for a new invitation: the address may have become a user's since it was invited.
  if ((await deps.store.users.findByEmail(invitation.tenantId, invitation.email)).length > 0)
    throw new ConflictError(USER_EXISTS, { code: 'USER_EXISTS' });
  const now = epochSeconds(deps.clock);
  const token = tokenOf(invitation.tenantId, id, deps.random.token());
  const renewed = { ...invitation, tokenHash: hashToken(token), expiresAt: now + INVITATION_TTL_SECONDS };
  const resent = invitationEvent(deps, inviter, invitation, 'identity.invitation.resent');
  const outcome = await deps.store.emitting([resent]).invitations.renew(invitation, renewed.tokenHash, renewed.expiresAt, now);
  if (outcome === 'not_pending') throw notPending();
  if (outcome === 'pending_elsewhere') throw new ConflictError(INVITATION_PENDING, { code: 'INVITATION_PENDING' });
  try {
    await send(deps, renewed, token);
  } catch (error) {
    // No new link went out (429, 503): the old one must keep working.
    await deps.store.invitations.restore(invitation, renewed.tokenHash);
    throw error;
  }
  await recordEvent(deps, { ...byAdmin(inviter), type: 'invitation_resent', outcome: 'success', details: { invitationId: id } });
  return viewOf(renewed, now);
}

/**
 * docs/api.md 13.1: the link stops working. Revoking a revoked invitation again answers the
 * same; an accepted one 409. The invitation as it is now, revoked.
 */
export async function revokeInvitation(deps: InvitationDeps, inviter: Identity, id: string): Promise<InvitationView> {
  const invitation = await findOwn(deps, inviter, id);
  const now = epochSeconds(deps.clock);
  const asRevoked = viewOf({ ...invitation, status: 'revoked' }, now);
  if (invitation.status === 'revoked') return asRevoked;
  const revoked = invitationEvent(deps, inviter, invitation, 'identity.invitation.revoked', { reason: 'admin' });
  if (invitation.status !== 'pending' || (await deps.store.emitting([revoked]).invitations.revoke(invitation)) !== 'written') {
    // Accepted or revoked meanwhile: a revocation that lost the race to another one is done all the same.
    if ((await deps.store.invitations.find(inviter.tenantId, id))?.status !== 'revoked') throw notPending();
    return asRevoked;
  }
  deps.log.info('invitation_revoked', { tenantId: inviter.tenantId, actorId: inviter.userId, invitationId: id });
  await recordEvent(deps, { ...byAdmin(inviter), type: 'invitation_revoked', outcome: 'success', details: { invitationId: id } });
  return asRevoked;
}

/**
 * The pending, unexpired invitation of a link, the token's hash compared in constant
 * time; any other token (malformed, unknown, of another link, used, revoked, expired) is
 * 400 `Invalid invitation`, all alike.
 */
export async function invitationOfToken(deps: Pick<Deps, 'clock' | 'store'>, token: string): Promise<Invitation> {
  const parsed = parseToken(token);
  const invitation = parsed && (await deps.store.invitations.find(parsed.tenantId, parsed.id));
  if (!invitation || !constantEquals(invitation.tokenHash, hashToken(token))) throw invalidInvitation();
  if (statusOf(invitation, epochSeconds(deps.clock)) !== 'pending') throw invalidInvitation();
  return invitation;
}

/**
 * How the invitee signs in from now on: a password (docs/api.md 4.3 rules), a passkey
 * (the registration response to creation options of newAccountRegistrationOptions), or,
 * for an address whose organization signs it in (docs/api.md 14.1), that organization's
 * identity provider: the account is made without a credential of ours.
 */
export type Acceptance =
  | { username: string; password: string }
  | { username: string; credential: unknown }
  | { username: string; organization: true };

/** An accepted invitation: the new user, and the `amr` its first session gets. */
export interface Accepted {
  user: User;
  invitation: Invitation;
  amr: Amr[];
  passkeyId?: string | undefined;
}

/**
 * The user's credential: a password's hash, or a passkey to store once the user exists;
 * none for an address of an organization that signs its people in (docs/api.md 14.1),
 * which may have no credential of ours (403 `Sign in with your organization`).
 */
async function credentialOf(deps: AcceptDeps, invitation: Invitation, acceptance: Acceptance) {
  const organization = await ssoConnectionFor(deps, invitation.tenantId, invitation.email);
  if (organization && !('organization' in acceptance)) throw new SsoRequiredError(organization, invitation.email);
  if ('organization' in acceptance) {
    if (!organization) throw new ValidationError('Choose a password or a passkey', { code: 'VALIDATION_FAILED' });
    return { userId: deps.random.id(), amr: [] as Amr[] };
  }
  if ('password' in acceptance) {
    if (await isCommonPassword(acceptance.password)) throw new ValidationError('Password is too common', { code: 'PASSWORD_TOO_COMMON' });
    return { userId: deps.random.id(), passwordHash: await deps.hasher.hash(acceptance.password), amr: ['pwd'] as Amr[] };
  }
  const day = new Date(deps.clock.now()).toISOString().slice(0, 10);
  const { passkey, amr } = await newAccountPasskey(deps, invitation.tenantId, acceptance.credential, `Passkey ${day}`);
  return { userId: passkey.userId, passkey, amr };
}

type AcceptDeps = Pick<Deps, 'config' | 'clock' | 'random' | 'log' | 'store' | 'source' | 'hasher'>;

/** How often an acceptance is tried again when a concurrent transaction touched its items. */
const ATTEMPTS = 3;

/**
 * Accepts the invitation of `token` (docs/api.md 13.1): the account, with the invited role
 * and shop and the address verified, is created in one transaction with the invitation
 * marked used, on the condition that it is still pending, unexpired and of this token; of
 * two acceptances at once, exactly one creates an account, the other is 400 `Invalid
 * invitation`. The password follows the rules of register (400 `Password is too common`);
 * a taken username is 400 `Username already exists`. Returns the new user.
 */
export async function acceptInvitation(deps: AcceptDeps, token: string, acceptance: Acceptance): Promise<Accepted> {
  let invitation = await invitationOfToken(deps, token);
  const { userId, passwordHash, passkey, amr } = await credentialOf(deps, invitation, acceptance);
  const user: User = {
    id: userId,
    tenantId: invitation.tenantId,
    shopId: invitation.shopId,
    username: acceptance.username,
    role: invitation.role,
    email: invitation.email,
    emailVerified: true,
    ...(passwordHash === undefined ? {} : { passwordHash }),
    status: 'active',
    createdAt: new Date(deps.clock.now()).toISOString(),
  };
  const tokenHash = hashToken(token);
  for (let attempt = 0; ; attempt++) {
    const self = { type: 'user' as const, id: user.id };
    const accepted = newEvent(deps, {
      tenantId: invitation.tenantId,
      type: 'identity.invitation.accepted',
      subject: invitation.id,
      actor: self,
      data: { userId: user.id, role: user.role, shopId: user.shopId },
    });
    const events = [userCreated(deps, user, self, 'invitation'), accepted];
    const outcome = await deps.store.emitting(events).invitations.accept(invitation, tokenHash, user, epochSeconds(deps.clock));
    if (outcome === 'created') break;
    if (outcome === 'username_taken') throw new ValidationError('Username already exists', { code: 'USERNAME_TAKEN' });
    // A retry after a lost answer may find this very acceptance applied, still settling.
    const now = await deps.store.invitations.find(invitation.tenantId, invitation.id);
    if (now?.status === 'accepted' && now.acceptedUserId === user.id) break;
    if (outcome !== 'conflict' || attempt === ATTEMPTS - 1) throw invalidInvitation();
    // Another transaction touched the invitation: read it again (used by now, most likely).
    invitation = await invitationOfToken(deps, token);
  }
  // The passkey goes in once its user exists; its credential id is new (the ceremony's own).
  if (passkey && !(await deps.store.passkeys.register(passkey)))
    throw new ConflictError('Passkey already registered', { code: 'PASSKEY_ALREADY_REGISTERED' });
  deps.log.info('invitation_accepted', { tenantId: user.tenantId, invitationId: invitation.id, userId: user.id, role: user.role });
  await recordEvent(deps, {
    tenantId: user.tenantId,
    type: 'invitation_accepted',
    actor: { type: 'user', id: user.id },
    targetUserId: user.id,
    outcome: 'success',
    details: {
      invitationId: invitation.id,
      username: user.username,
      role: user.role,
      shopId: user.shopId,
      ...(passkey ? { passkeyId: passkey.id } : {}),
    },
  });
  return { user, invitation, amr, ...(passkey ? { passkeyId: passkey.id } : {}) };
}

/**
 * The first factor of the new account's sign-in (docs/api.md 13.1), which every door runs
 * through the one sign-in pipeline (lib/sessions/sign-in.ts): the acceptance, with the
 * password (`pwd`) or the passkey (as a passkey sign-in's `amr`) just chosen.
 */
export function acceptedFactor({ user, invitation, amr }: Accepted): FirstFactor {
  return { kind: 'invitation', user, amr, invitationId: invitation.id };
}
