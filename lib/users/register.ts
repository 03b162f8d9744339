import { tenantShop } from '../admin/shops';
import { recordEvent } from '../audit/record';
import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { ForbiddenError, ValidationError } from '../errors';
import { CANONICAL_ID, NOT_CANONICAL_ID } from '../http/schemas';
import type { Device } from '../sessions/device';
import { type AuthPayload, startSession } from '../sessions/sessions';
import type { Identity } from '../tokens/access-token';
import { isCommonPassword } from './common-passwords';
import { sendEmailVerification } from './email';
import { userCreated } from './events';
import { type Role, type User, userSummary } from './user';

export interface RegisterRequest {
  username: string;
  password: string;
  role: Role;
  tenantId: string;
  shopId?: string | undefined;
  email?: string | undefined;
}

/**
 * docs/api.md 4.3, who may register whom: an ADMIN into their own tenant, anyone else
 * with an identity nobody; without identity, only the first user of a new tenant.
 * The configured default tenant counts as existing: its first ADMIN is created by an
 * operator (scripts/create-admin.ts), never by whoever registers first.
 * Decided before the body is validated (only the tenant id is read).
 */
export async function authorizeRegistration(
  deps: Pick<Deps, 'store' | 'config'>,
  caller: Identity | null,
  /** The body's tenant id if it is a valid one; an invalid one is refused by validation next. */
  tenantId: string | undefined,
): Promise<void> {
  if (caller) {
    if (caller.role !== 'ADMIN' || caller.tenantId !== tenantId) throw new ForbiddenError();
    return;
  }
  if (tenantId === undefined) return;
  if (tenantId === deps.config.defaultTenantId || (await deps.store.tenants.exists(tenantId))) throw new ForbiddenError();
}

/**
 * Stores a new user after the registration rules: a caller-less registration creates
 * the tenant and must be of an ADMIN; common passwords are refused.
 */
export async function createUser(
  deps: Pick<Deps, 'config' | 'clock' | 'random' | 'store' | 'hasher' | 'log' | 'source'>,
  caller: Identity | null,
  request: RegisterRequest,
): Promise<User> {
  const createTenant = caller === null;
  // Only a new tenant's id must be canonical (docs/api.md 10.2): older tenants keep theirs.
  if (createTenant && !CANONICAL_ID.test(request.tenantId)) {
    throw new ValidationError(`tenantId: ${NOT_CANONICAL_ID}`, { fields: [{ path: 'tenantId', message: NOT_CANONICAL_ID }] });
  }
  if (createTenant && request.role !== 'ADMIN')
    throw new ValidationError('The first user of a tenant must have role ADMIN', { code: 'FIRST_USER_MUST_BE_ADMIN' });
  if (await isCommonPassword(request.password)) throw new ValidationError('Password is too common', { code: 'PASSWORD_TOO_COMMON' });

  // A new tenant is created with its shop; an ADMIN names one of the tenant's (read while the hash is made).
  const [shopId, passwordHash] = await Promise.all([
    createTenant ? (request.shopId ?? deps.config.defaultShopId) : tenantShop(deps, request.tenantId, request.shopId),
    deps.hasher.hash(request.password),
  ]);
  const user: User = {
    id: deps.random.id(),
    tenantId: request.tenantId,
    shopId,
    username: request.username,
    role: request.role,
    email: request.email,
    ...(request.email === undefined ? {} : { emailVerified: false }),
    passwordHash,
    status: 'active',
    createdAt: new Date(deps.clock.now()).toISOString(),
  };
  // An ADMIN registers someone of their tenant; without a caller, the user registers themselves.
  const created = userCreated(deps, user, { type: 'user', id: caller?.userId ?? user.id }, caller ? 'admin' : 'registration');
  const outcome = await deps.store.emitting([created]).users.create(user, { createTenant });
  if (outcome === 'tenant_exists') throw new ForbiddenError();
  if (outcome === 'username_taken') throw new ValidationError('Username already exists', { code: 'USERNAME_TAKEN' });

  deps.log.info('user_registered', {
    tenantId: user.tenantId,
    userId: user.id,
    username: user.username,
    role: user.role,
    registeredBy: caller?.userId ?? 'self',
    newTenant: createTenant,
  });
  await recordEvent(deps, {
    tenantId: user.tenantId,
    type: 'user_registered',
    actor: { type: 'user', id: caller?.userId ?? user.id },
    targetUserId: user.id,
    outcome: 'success',
    details: { username: user.username, role: user.role, shopId: user.shopId, newTenant: createTenant },
  });
  return user;
}

/**
 * The code that verifies a registered email address (docs/api.md 8.8). The user exists
 * by now: a failure to send is logged, and the user asks again with PUT /auth/email.
 */
async function verifyRegisteredEmail(deps: Deps, user: User, email: string): Promise<void> {
  try {
    await sendEmailVerification(deps, user, email);
  } catch (error) {
    deps.log.warn('email_verification_not_sent', {
      tenantId: user.tenantId,
      userId: user.id,
      error: error instanceof Error ? error.name : 'unknown',
    });
  }
}

/**
 * register (docs/api.md 4.3): a new user. The anonymous bootstrap gets a session of its
 * own; an ADMIN registering someone else gets none of theirs (a live session of another
 * user would be a silent impersonation): empty `token` and `refreshToken`, as the
 * original design's placeholder strings, and `expiresIn` 0.
 */
export async function register(deps: Deps, caller: Identity | null, request: RegisterRequest, device: Device = {}): Promise<AuthPayload> {
  const user = await createUser(deps, caller, request);
  if (user.email) await verifyRegisteredEmail(deps, user, user.email);
  if (caller) return { token: '', refreshToken: '', expiresIn: 0, user: userSummary(user) };
  // The bootstrap signed in from this device: it gets a device token as a login does (docs/api.md 10).
  const [payload, deviceToken] = await Promise.all([
    startSession(deps, user, ['pwd'], device),
    deps.deviceTokens.issue({ tenantId: user.tenantId, username: user.username }, epochSeconds(deps.clock)),
  ]);
  return { ...payload, deviceToken };
}
