import { epochSeconds } from '../clock';
import { hashToken } from '../crypto/token-hash';
import type { Deps } from '../deps';
import type { PendingEvent } from '../events/event';
import type { Device } from '../sessions/device';
import { connectionOf } from '../sessions/live-session';
import { BROWSER_IDLE_SECONDS, isLiveFor } from '../sessions/liveness';
import type { Amr, Session } from '../sessions/session';
import { newSession } from '../sessions/sessions';
import type { User } from '../users/user';
import { hostCookie } from './http';

/** The browser session's cookie (docs/api.md 11.6). */
export const SESSION_COOKIE = '__Host-session';
/** A browser session is over this long after its sign-in, used or not. */
export const BROWSER_MAX_AGE_SECONDS = 12 * 3600;

const SEGMENT = /^[A-Za-z0-9_-]{16,128}$/;

/**
 * The cookie's value: `<tenant, base64url>.<session id>.<secret>`, opaque to the browser;
 * the session record keeps only the secret's hash (`browserHash`).
 */
function formatValue(tenantId: string, sessionId: string, secret: string): string {
  return `${Buffer.from(tenantId, 'utf8').toString('base64url')}.${sessionId}.${secret}`;
}

function parseValue(value: string): { tenantId: string; sessionId: string; secret: string } | undefined {
  const [tenant, sessionId, secret, ...rest] = value.split('.');
  if (rest.length > 0 || !tenant || !sessionId || !secret || !SEGMENT.test(sessionId) || !SEGMENT.test(secret)) return undefined;
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(tenant)) return undefined;
  return { tenantId: Buffer.from(tenant, 'base64url').toString('utf8'), sessionId, secret };
}

/**
 * Starts the browser session of a user who just signed in (docs/api.md 11.6): a session
 * record like every other (listed by GET /auth/sessions, revocable, of the user's
 * generations), with a new id and the hash of the cookie's secret. Its refresh token is
 * never handed out. Returns the session and its Set-Cookie.
 */
export async function startBrowserSession(
  deps: Pick<Deps, 'config' | 'clock' | 'random' | 'store'>,
  user: User,
  amr: Amr[],
  device: Device,
  origin: Pick<Session, 'idp'> = {},
  /** The events the session's write carries (a sign-in's success, docs/events.md). */
  published: (sessionId: string) => PendingEvent[] = () => [],
): Promise<{ session: Session; cookie: string }> {
  const secret = deps.random.token();
  const { session } = newSession(deps, user, amr, device, {
    ...(origin.idp === undefined ? {} : { idp: origin.idp }),
    browserHash: hashToken(secret),
    seenAt: epochSeconds(deps.clock),
    maxAgeSeconds: BROWSER_MAX_AGE_SECONDS,
  });
  await deps.store.emitting(published(session.id)).sessions.create(session);
  return { session, cookie: hostCookie(SESSION_COOKIE, formatValue(user.tenantId, session.id, secret), BROWSER_MAX_AGE_SECONDS) };
}

/** The Set-Cookie that removes the browser session's cookie. */
export const endedSessionCookie = () => hostCookie(SESSION_COOKIE, '', 0);

/**
 * The live browser session of the cookie in `tenantId`, and its user: the secret matches,
 * the session is not revoked, expired or idle (one conditional write that is also the
 * check), and it is live for its user (lib/sessions/liveness.ts, docs/api.md 3). Its use
 * is recorded (the idle timeout counts from it). Undefined for no cookie, a malformed
 * one, another tenant's or a dead session.
 */
export async function currentBrowserSession(
  deps: Pick<Deps, 'clock' | 'store'>,
  cookie: string | undefined,
  tenantId: string,
): Promise<{ session: Session; user: User } | undefined> {
  const parsed = cookie ? parseValue(cookie) : undefined;
  if (!parsed || parsed.tenantId !== tenantId) return undefined;
  const now = epochSeconds(deps.clock);
  const session = await deps.store.sessions.touchBrowser(
    { tenantId, id: parsed.sessionId },
    hashToken(parsed.secret),
    now,
    now - BROWSER_IDLE_SECONDS,
  );
  if (!session) return undefined;
  const [user, connection] = await Promise.all([deps.store.users.findById(tenantId, session.userId), connectionOf(deps, session)]);
  if (!user || !isLiveFor(user, session, now, connection)) return undefined;
  return { session, user };
}

/** The tenant a browser session cookie names, whatever the state of its session; undefined for a malformed one. */
export function tenantOfCookie(cookie: string | undefined): string | undefined {
  return cookie ? parseValue(cookie)?.tenantId : undefined;
}

/**
 * A CSRF token bound to the browser session (docs/api.md 11.12): derived from the
 * cookie's secret, which only that browser holds and which the table keeps only as
 * another hash (`purpose` keeps the two apart). A page of another site can neither read
 * nor compute it. Undefined for a malformed cookie.
 */
export function sessionBoundToken(cookie: string | undefined, purpose: string): string | undefined {
  const parsed = cookie ? parseValue(cookie) : undefined;
  return parsed ? hashToken(`${purpose}.${parsed.secret}`) : undefined;
}

/**
 * The live browser session of the cookie in the cookie's own tenant, for the pages that
 * belong to no interaction (docs/api.md 11.11), with the CSRF token of their forms: a hash
 * of the cookie's secret, which only this browser holds (the record keeps another hash of
 * it, so the table does not give the token away).
 */
export async function browserSessionOfCookie(
  deps: Pick<Deps, 'clock' | 'store'>,
  cookie: string | undefined,
): Promise<{ session: Session; user: User; csrf: string } | undefined> {
  const tenantId = tenantOfCookie(cookie);
  const csrf = sessionBoundToken(cookie, 'csrf');
  if (tenantId === undefined || csrf === undefined) return undefined;
  const current = await currentBrowserSession(deps, cookie, tenantId);
  return current && { ...current, csrf };
}
