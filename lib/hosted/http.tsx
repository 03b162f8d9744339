import { createHash } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { VNode } from 'preact';
import { type AppError, ForbiddenError } from '../errors';
import type { Reply } from '../http/reply';
import { ErrorPage, renderPage, STYLESHEET } from './pages';

/** A CSP source that allows one inline style or script: the hash of its text (CSP Level 3, 2.3.1). */
export const hashSource = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
const styleHash = hashSource(STYLESHEET);

/**
 * Where a form may post, its answer's redirect included (browsers apply `form-action` to
 * the redirects that follow a submission): our origin, and the client's redirect URI's.
 */
function formTargets(redirectUri: string | undefined): string {
  if (!redirectUri) return "'self'";
  const url = new URL(redirectUri);
  return `'self' ${url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol}`;
}

/**
 * The headers of every hosted page (docs/api.md 11.8): nothing loads but the page and its
 * stylesheet (and the page's own inline scripts, allowed by their hashes: docs/api.md
 * 11.11), no framing, no caching.
 */
function pageHeaders(redirectUri?: string, scripts: string[] = []): Record<string, string> {
  const scriptSources = scripts.length ? `; script-src ${scripts.map(hashSource).join(' ')}` : '';
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Security-Policy': `default-src 'none'; style-src ${styleHash}; form-action ${formTargets(redirectUri)}; frame-ancestors 'none'; base-uri 'none'${scriptSources}`,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    // Not `no-referrer`: under it a browser sends `Origin: null` with the page's own forms.
    'Referrer-Policy': 'same-origin',
  };
}

export interface PageOptions {
  /** The redirect URI the page's forms may end on. */
  redirectUri?: string | undefined;
  cookies?: string[];
  headers?: Record<string, string>;
  /** The text of each inline script the page runs (none unless it offers passkeys). */
  scripts?: string[];
}

/** A hosted page as the route's reply. */
export function page(statusCode: number, content: VNode, options: PageOptions = {}): Reply {
  return {
    statusCode,
    headers: { ...pageHeaders(options.redirectUri, options.scripts), ...options.headers },
    html: renderPage(content),
    ...(options.cookies?.length ? { cookies: options.cookies } : {}),
  };
}

/** A redirect of the browser: 303 after a form (RFC 9110 15.4.4), else 302. */
export function browserRedirect(location: string, options: { afterForm?: boolean; cookies?: string[] } = {}): Reply {
  return {
    statusCode: options.afterForm ? 303 : 302,
    headers: { Location: location, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' },
    ...(options.cookies?.length ? { cookies: options.cookies } : {}),
  };
}

/** The request's cookies by name (payload 2.0 `cookies`, or a `Cookie` header); the first of a repeated name wins. */
export function cookiesOf(event: APIGatewayProxyEventV2): Map<string, string> {
  const pairs = event.cookies ?? (event.headers?.cookie ?? '').split(';');
  const cookies = new Map<string, string>();
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const name = pair.slice(0, at).trim();
    if (!cookies.has(name)) cookies.set(name, pair.slice(at + 1).trim());
  }
  return cookies;
}

/** A `__Host-` cookie (docs/api.md 11.6): host-only, path `/`, HTTPS only, never read by scripts, sent on top-level navigations. */
export function hostCookie(name: `__Host-${string}`, value: string, maxAgeSeconds: number): string {
  return `${name}=${value}; Path=/; Max-Age=${maxAgeSeconds}; Secure; HttpOnly; SameSite=Lax`;
}

/**
 * The Origin check of every hosted POST (docs/api.md 11.8, OWASP CSRF Prevention): the
 * browser says the form came from our own origin. A missing Origin is refused too:
 * every browser this serves sends one with a POST.
 */
export function checkOrigin(event: APIGatewayProxyEventV2, issuer: string): void {
  if (event.headers?.origin !== new URL(issuer).origin) throw crossSite();
}

export const crossSite = () => new ForbiddenError('Cross-site request refused', { code: 'CROSS_SITE_REQUEST' });

/**
 * What makes a route of lib/http/handler.ts a hosted page (docs/api.md 11.8, 11.9): no
 * caller identity but the browser's cookies, a form body, and every error as the error
 * page with its status and message; the 500 and 503 that stand for an unexpected error
 * say no more than the envelope would.
 */
export const hostedPage = {
  identity: 'none',
  page: true,
  formatError: (error: AppError) => page(error.statusCode, <ErrorPage message={error.message} />, { headers: error.headers }),
} as const;
