import { recordEvent } from '../audit/record';
import { epochSeconds } from '../clock';
import { hashToken } from '../crypto/token-hash';
import type { Deps } from '../deps';
import { UnauthorizedError } from '../errors';
import { newEvent, type PendingEvent } from '../events/event';
import { rotateRefreshToken } from '../token-families/refresh-family';
import { type Identity, signAccessToken } from '../tokens/access-token';
import { epochOf, signInEpochOf, type User, type UserSummary, userSummary } from '../users/user';
import type { Device } from './device';
import { connectionOf } from './live-session';
import { isLiveFor } from './liveness';
import { formatRefreshToken, parseRefreshToken } from './refresh-token';
import type { Amr, Session } from './session';

/** The Auth payload of the contract (docs/api.md 5.2). */
export interface AuthPayload {
  token: string;
  refreshToken: string;
  /** Seconds until `token` expires, so a client schedules its refresh without decoding the JWT. */
  expiresIn: number;
  user: UserSummary;
  /** login and a new tenant's registration (docs/api.md 10): the device token of the browser or app that signed in. */
  deviceToken?: string;
}

type SessionDeps = Pick<Deps, 'config' | 'clock' | 'random' | 'store' | 'keys'>;

/** The identity a session gives its user, as an access token of it carries it (docs/api.md 3). */
export function identityOf(user: User, session: Session): Identity {
  return {
    userId: user.id,
    username: user.username,
    role: user.role,
    tenantId: user.tenantId,
    shopId: user.shopId,
    sessionId: session.id,
    amr: session.amr,
    authTime: session.authTime ?? session.createdAt,
    ...(session.idp === undefined ? {} : { idp: session.idp }),
  };
}

/** A new access token of the session for its user (docs/api.md 3). */
export async function issueAccessToken(
  deps: Pick<Deps, 'config' | 'clock' | 'random' | 'keys'>,
  user: User,
  session: Session,
): Promise<string> {
  const { config, random, clock } = deps;
  const { token } = await signAccessToken(
    await deps.keys.load(),
    { issuer: config.issuer, audience: config.accessTokenAudience, ttlSeconds: config.accessTokenTtlSeconds },
    identityOf(user, session),
    random.id(),
    epochSeconds(clock),
  );
  return token;
}

async function authPayload(deps: SessionDeps, user: User, session: Session, refreshToken: string): Promise<AuthPayload> {
  return {
    token: await issueAccessToken(deps, user, session),
    refreshToken,
    expiresIn: deps.config.accessTokenTtlSeconds,
    user: userSummary(user),
  };
}

/**
 * A new session record of an authenticated user and its first refresh token; `extra`
 * makes it a browser session (lib/hosted/browser-session.ts). Written by the caller.
 */
export function newSession(
  deps: Pick<Deps, 'config' | 'clock' | 'random'>,
  user: User,
  amr: Amr[],
  device: Device = {},
  extra: Pick<Session, 'browserHash' | 'seenAt' | 'idp'> & { maxAgeSeconds?: number } = {},
): { session: Session; refreshToken: string } {
  const now = epochSeconds(deps.clock);
  const sessionId = deps.random.token(16);
  const refreshToken = formatRefreshToken({ tenantId: user.tenantId, sessionId, generation: 0, secret: deps.random.token() });
  const { maxAgeSeconds = deps.config.sessionMaxAgeSeconds, ...browser } = extra;
  const session: Session = {
    id: sessionId,
    tenantId: user.tenantId,
    userId: user.id,
    amr,
    createdAt: now,
    authTime: now,
    userEpoch: epochOf(user),
    signInEpoch: signInEpochOf(user),
    expiresAt: now + maxAgeSeconds,
    refreshHash: hashToken(refreshToken),
    refreshGeneration: 0,
    retired: {},
    ...(device.userAgent === undefined ? {} : { userAgent: device.userAgent }),
    ...(device.ipAddress === undefined ? {} : { ipAddress: device.ipAddress }),
    ...browser,
  };
  return { session, refreshToken };
}

/**
 * Starts a session for an authenticated user, recording the device it came from, and
 * issues its first tokens; the session's write carries the `published` events of its id
 * (a sign-in's success, docs/events.md).
 */
export async function startSession(
  deps: SessionDeps,
  user: User,
  amr: Amr[],
  device: Device = {},
  origin: Pick<Session, 'idp'> = {},
  published: (sessionId: string) => PendingEvent[] = () => [],
): Promise<AuthPayload> {
  const { session, refreshToken } = newSession(deps, user, amr, device, origin.idp === undefined ? {} : { idp: origin.idp });
  await deps.store.emitting(published(session.id)).sessions.create(session);
  return authPayload(deps, user, session, refreshToken);
}

/**
 * Exchanges a refresh token for a new pair (rotation). A retired token presented
 * again revokes the whole session; the user is re-read so role changes show now.
 * The rotation's one write also records the device and, as `refreshedAt`, the last use.
 */
export async function refreshSession(
  deps: SessionDeps & Pick<Deps, 'log' | 'source'>,
  presented: string,
  device: Device = {},
): Promise<AuthPayload> {
  const invalid = () => new UnauthorizedError('Invalid refresh token', {}, { code: 'INVALID_REFRESH_TOKEN' });
  const parsed = parseRefreshToken(presented);
  if (!parsed) throw invalid();
  const { tenantId, sessionId, generation } = parsed;
  const now = epochSeconds(deps.clock);
  const next = formatRefreshToken({ tenantId, sessionId, generation: generation + 1, secret: deps.random.token() });

  const family = { tenantId, id: sessionId };
  // Whoever presented a reused token is unknown: the service detected the reuse and ends the session.
  const reuseEnds = (record: Session) =>
    deps.store.emitting([
      newEvent(deps, {
        tenantId,
        type: 'identity.session.revoked',
        subject: record.userId,
        actor: { type: 'system', id: null },
        data: { reason: 'refresh_token_reused', endedSessions: [sessionId] },
      }),
    ]).sessions;
  const rotation = { generation, presentedHash: hashToken(presented), nextHash: hashToken(next), now, device };
  const result = await rotateRefreshToken(deps.store.sessions, family, rotation, reuseEnds);
  if (result.outcome === 'reused') {
    deps.log.warn('refresh_token_reuse_detected', { tenantId, userId: result.record.userId, sessionId });
    await recordEvent(deps, {
      tenantId,
      type: 'refresh_token_reused',
      // Whoever presented it is unknown: the service detected the reuse and revoked the session.
      actor: { type: 'system', id: null },
      targetUserId: result.record.userId,
      outcome: 'failure',
      details: { sessionId },
    });
    throw invalid();
  }
  if (result.outcome !== 'rotated') {
    deps.log.info('refresh_failed', { tenantId, sessionId });
    throw invalid();
  }
  const session = result.record;
  const [user, connection] = await Promise.all([deps.store.users.findById(tenantId, session.userId), connectionOf(deps, session)]);
  if (!user || !isLiveFor(user, session, now, connection)) {
    await deps.store.sessions.revoke(family, now, 'user_inactive');
    throw invalid();
  }
  deps.log.info('refresh_succeeded', { tenantId, userId: user.id, sessionId });
  return authPayload(deps, user, session, next);
}
