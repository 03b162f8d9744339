import { createHash } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { VNode } from 'preact';
import type * as z from 'zod';
import { AppError, ForbiddenError, ValidationError } from '../errors';
import { isTransient } from '../http/respond';
import type { Logger } from '../log';
import { ErrorPage, renderPage, STYLESHEET } from './pages';

type Result = APIGatewayProxyStructuredResultV2;

/** The most a form of the hosted pages may weigh (a password of 1024 characters and the rest). */
const MAX_FORM_BYTES = 8 * 1024;

const hashSource = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
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

/** A hosted page as the Lambda result. */
export function page(statusCode: number, content: VNode, options: PageOptions = {}): Result {
  return {
    statusCode,
    headers: { ...pageHeaders(options.redirectUri, options.scripts), ...options.headers },
    body: renderPage(content),
    ...(options.cookies?.length ? { cookies: options.cookies } : {}),
  };
}

/** A redirect of the browser: 303 after a form (RFC 9110 15.4.4), else 302. */
export function browserRedirect(location: string, options: { afterForm?: boolean; cookies?: string[] } = {}): Result {
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

/** A form body parsed by `schema`; 400 `Invalid form body` otherwise (never naming what the body held). */
export function formOf<S extends z.ZodType>(event: APIGatewayProxyEventV2, schema: S): z.output<S> {
  const type = event.headers?.['content-type'] ?? '';
  const raw = event.body === undefined ? '' : event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  const invalid = () => new ValidationError('Invalid form body', { code: 'INVALID_FORM' });
  if (!type.toLowerCase().startsWith('application/x-www-form-urlencoded') || raw.length > MAX_FORM_BYTES) throw invalid();
  const params = new URLSearchParams(raw);
  const fields: Record<string, string> = {};
  for (const [name, value] of params) {
    // A repeated field is ambiguous: refused rather than guessed.
    if (Object.hasOwn(fields, name)) throw invalid();
    fields[name] = value;
  }
  const parsed = schema.safeParse(fields);
  if (!parsed.success) throw invalid();
  return parsed.data;
}

/**
 * The Lambda handler of a hosted page: an AppError becomes the error page with its status
 * and message (docs/api.md 11.9), anything else is logged and answered 500, or 503 when a
 * dependency is down; its text never leaves.
 */
export function pageHandler(deps: { log: Logger }, handle: (event: APIGatewayProxyEventV2, log: Logger) => Promise<Result>) {
  return async (event: APIGatewayProxyEventV2): Promise<Result> => {
    const log = deps.log.child({ requestId: event.requestContext?.requestId });
    try {
      return await handle(event, log);
    } catch (error) {
      if (error instanceof AppError) return page(error.statusCode, <ErrorPage message={error.message} />, { headers: error.headers });
      const transient = isTransient(error);
      log.error(transient ? 'dependency_unavailable' : 'unhandled_error', { error });
      return transient
        ? page(503, <ErrorPage message="Service unavailable" />, { headers: { 'Retry-After': '1' } })
        : page(500, <ErrorPage message="Internal server error" />);
    }
  };
}
