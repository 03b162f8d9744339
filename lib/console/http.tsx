import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { VNode } from 'preact';
import type { AppError } from '../errors';
import { accentStylesheet, type Branding, logoOrigin } from '../hosted/branding';
import { SESSION_COOKIE, tenantOfCookie } from '../hosted/browser-session';
import { cookiesOf, hashSource } from '../hosted/http';
import { renderPage } from '../hosted/pages';
import { noStore, type OperationDoc } from '../http/operation-doc';
import type { Reply } from '../http/reply';
import { translator } from './i18n';
import { languageOf } from './language';
import { ConsoleLayout } from './layout';
import { FRAME_SCRIPTS } from './scripts';
import { CONSOLE_STYLESHEET } from './stylesheet';

/**
 * The headers of every page of the account page and the console (docs/api.md 15.1), as
 * the hosted pages' (docs/api.md 11.8): nothing loads but the page, its stylesheet and
 * accent (by hash), its inline scripts (by hash) and images of the tenant's logo's origin;
 * forms post to our origin only; no framing, no caching.
 */
function pageHeaders(branding: Branding | undefined, scripts: readonly string[]): Record<string, string> {
  const accent = accentStylesheet(branding?.accentColor);
  const styles = [CONSOLE_STYLESHEET, ...(accent === undefined ? [] : [accent])].map(hashSource).join(' ');
  const logo = logoOrigin(branding?.logoUrl);
  const policy = [
    "default-src 'none'",
    `style-src ${styles}`,
    ...(logo === undefined ? [] : [`img-src ${logo}`]),
    ...(scripts.length ? [`script-src ${scripts.map(hashSource).join(' ')}`] : []),
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Security-Policy': policy,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    // Not `no-referrer`: under it a browser sends `Origin: null` with the page's own forms.
    'Referrer-Policy': 'same-origin',
  };
}

export interface ConsolePageOptions {
  branding?: Branding | undefined;
  /** The scripts the page runs besides the frame's. */
  scripts?: readonly string[] | undefined;
  cookies?: string[] | undefined;
  headers?: Record<string, string> | undefined;
}

/** The reply of a page: `render` gets every script the page runs, for its `<script>` elements. */
export function consolePage(statusCode: number, render: (scripts: readonly string[]) => VNode, options: ConsolePageOptions = {}): Reply {
  const scripts = [...FRAME_SCRIPTS, ...(options.scripts ?? [])];
  return {
    statusCode,
    headers: { ...pageHeaders(options.branding, scripts), ...options.headers },
    html: renderPage(render(scripts)),
    ...(options.cookies?.length ? { cookies: options.cookies } : {}),
  };
}

/** The page of a request to go back to: a POST's section page, a GET's own URL. */
function pageOfRequest(event: APIGatewayProxyEventV2): string {
  const path = event.rawPath ?? '/';
  if (event.requestContext?.http?.method !== 'POST') return event.rawQueryString ? `${path}?${event.rawQueryString}` : path;
  return path.split('/').slice(0, -1).join('/') || '/';
}

/** Where a signed-out browser signs in again to come back: the page, of the tenant of its (dead) session. */
function signInAgainLink(event: APIGatewayProxyEventV2): string {
  const back = new URL(pageOfRequest(event), 'https://page.invalid');
  const tenant = tenantOfCookie(cookiesOf(event).get(SESSION_COOKIE));
  if (tenant !== undefined && !back.searchParams.has('tenant')) back.searchParams.set('tenant', tenant);
  return `${back.pathname}${back.search}`;
}

/**
 * An error as a page of the frame (docs/api.md 15.1), in the request's language: "Sign in
 * again" with a link through the sign-in back to the page; "This page expired" with a link
 * that loads it again; a refusal (403), a page that is not there (404); anything else with
 * its message. The 500 and 503 that stand for an unexpected error say nothing more.
 */
export function consoleErrorPage(error: AppError, event: APIGatewayProxyEventV2, unexpected: boolean): Reply {
  const language = languageOf(event);
  const t = translator(language);
  const code: string = error.code;
  const home = event.rawPath?.startsWith('/admin') ? '/admin' : '/account';
  let title = t('errorPage:title');
  let message = t(`errors:${code}`, { defaultValue: error.message });
  let link: { href: string; label: string } | undefined = { href: home, label: t('errorPage:backHome') };
  if (code === 'SIGN_IN_AGAIN') {
    title = t('errorPage:signInAgainTitle');
    message = t('errorPage:signInAgain');
    link = { href: signInAgainLink(event), label: t('errorPage:signInAgainLink') };
  } else if (code === 'PAGE_EXPIRED') {
    title = t('errorPage:expiredTitle');
    message = t('errorPage:expired');
    link = { href: pageOfRequest(event), label: t('errorPage:expiredLink') };
  } else if (code === 'CROSS_SITE_REQUEST') {
    title = t('errorPage:forbiddenTitle');
    message = t('errorPage:crossSite');
  } else if (error.statusCode === 403) {
    title = t('errorPage:forbiddenTitle');
    message = t('errorPage:forbidden');
  } else if (error.statusCode === 404) {
    title = t('errorPage:notFoundTitle');
    message = t('errorPage:notFound');
  } else if (unexpected || error.statusCode >= 500) {
    message = t('errorPage:unexpected');
  }
  const branding: Branding = { name: t(home === '/admin' ? 'console:adminTitle' : 'console:accountTitle') };
  return consolePage(
    error.statusCode,
    (scripts) => (
      <ConsoleLayout t={t} language={language} branding={branding} title={title} areaTitle={branding.name} scripts={scripts}>
        <p class="error" role="alert">
          {message}
        </p>
        {link ? (
          <p>
            <a href={link.href}>{link.label}</a>
          </p>
        ) : null}
      </ConsoleLayout>
    ),
    { headers: error.headers },
  );
}

/** What makes a route a page of the account page or the console: lib/http/page-handler.ts's, with this error page. */
export const consoleRoute = { identity: 'none', page: true, formatError: consoleErrorPage } as const;

/** What a page of a console answers its GET (docs/api.md 15.1), for docs/openapi.json. */
export const consolePageAnswers: OperationDoc['answers'] = [
  { status: 200, description: 'The page; without a browser session, the tenant’s hosted sign-in page first.', headers: noStore },
];

/** What a form of a console answers (docs/api.md 15.1), for docs/openapi.json. */
export const consoleActionAnswers: OperationDoc['answers'] = [
  { status: 303, description: 'Done: back to the section, with a message shown once.', headers: { Location: undefined, ...noStore } },
  { status: 200, description: 'Done: a secret shown once, on a page of its own.', headers: noStore },
];
