import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { constantEquals } from '../crypto/constant-equals';
import { ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from '../errors';
import type { Reply } from '../http/reply';
import type { Session } from '../sessions/session';
import type { User } from '../users/user';
import { currentBrowserSession, SESSION_COOKIE, sessionBoundToken, tenantOfCookie } from './browser-session';
import { beginPageSignIn, type HostedDeps } from './flow';
import { checkOrigin, cookiesOf } from './http';

/*
 * The pages of a signed-in person (docs/api.md 15.1): the account page, the tenant
 * console, the device page. They ride on the hosted pages' browser session; without one,
 * the tenant's hosted sign-in comes first and comes back to the page.
 */

/** A live browser session, its user, and the CSRF token its forms carry. */
export interface SignedInBrowser {
  session: Session;
  user: User;
  csrf: string;
}

/** The pages a sign-in may come back to: paths of ours, never another site's. */
const PAGE_PATH = /^\/(account|admin|device)(?=$|[/?])[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*$/;

/** A tenant id as the rest of the service accepts one in a query (docs/api.md 10.2). */
const TENANT = /^[A-Za-z0-9_-]{1,64}$/;

export const signInAgain = () => new UnauthorizedError('Sign in again', {}, { code: 'SIGN_IN_AGAIN' });
export const pageExpired = () => new ForbiddenError('This page expired', { code: 'PAGE_EXPIRED' });

/** Whether `returnTo` is a page a sign-in may come back to. */
export const isPagePath = (returnTo: string) => PAGE_PATH.test(returnTo) && !returnTo.includes('//');

/**
 * A page's GET (docs/api.md 15.1): the live browser session of the tenant named by
 * `?tenant=` (else the session cookie's tenant) with its CSRF token, or `{ reply }`: the
 * hosted sign-in page of that tenant, whose success comes back (303) to `returnTo`. No
 * tenant known at all: 400; a tenant that does not exist: 404.
 */
export async function browserForPage(
  deps: HostedDeps,
  event: APIGatewayProxyEventV2,
  returnTo: string,
): Promise<{ signedIn: SignedInBrowser } | { reply: Reply }> {
  if (!isPagePath(returnTo)) throw new ValidationError('Invalid page');
  const cookie = cookiesOf(event).get(SESSION_COOKIE);
  const named = event.queryStringParameters?.tenant;
  if (named !== undefined && !TENANT.test(named)) throw new ValidationError('Invalid tenant');
  const tenantId = named ?? tenantOfCookie(cookie);
  if (tenantId === undefined) throw new ValidationError('Open this page from your organization’s link', { code: 'TENANT_REQUIRED' });
  const current = await currentBrowserSession(deps, cookie, tenantId);
  const csrf = sessionBoundToken(cookie, 'csrf');
  if (current && csrf !== undefined) return { signedIn: { ...current, csrf } };
  if (!(await deps.store.tenants.find(tenantId))) throw new NotFoundError('Not found');
  return { reply: await beginPageSignIn(deps, tenantId, returnTo) };
}

/**
 * A page's POST (docs/api.md 15.1): the Origin is ours (else 403 `Cross-site request
 * refused`), the browser session is live (else 401 `Sign in again`), the form's CSRF token
 * is that session's (else 403 `This page expired`: a form of an earlier session).
 */
export async function browserForForm(deps: HostedDeps, event: APIGatewayProxyEventV2, csrf: string): Promise<SignedInBrowser> {
  checkOrigin(event, deps.config.issuer);
  const cookie = cookiesOf(event).get(SESSION_COOKIE);
  const tenantId = tenantOfCookie(cookie);
  const current = tenantId === undefined ? undefined : await currentBrowserSession(deps, cookie, tenantId);
  const expected = sessionBoundToken(cookie, 'csrf');
  if (!current || expected === undefined) throw signInAgain();
  if (!constantEquals(csrf, expected)) throw pageExpired();
  return { ...current, csrf: expected };
}
