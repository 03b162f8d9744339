import type { App } from './app';
import type { Response } from './http';
import { FORM, pkcePair, type TestClient } from './oauth';

/** A browser's cookie jar for the hosted pages (docs/api.md 11.6): what Set-Cookie gave, sent back as `Cookie`. */
export class CookieJar {
  readonly cookies = new Map<string, string>();
  take(response: Response): Response {
    for (const line of response.cookies ?? []) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      if (/Max-Age=0\b/.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }
  header(): Record<string, string> {
    return this.cookies.size === 0 ? {} : { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
  }
}

/** The CSRF token of a hosted page's forms. */
export const csrfOf = (page: Response) => /name="csrf" value="([^"]+)"/.exec(String(page.body))?.[1] ?? '';

/** A browser's navigation to GET /oauth2/authorize (docs/api.md 11.5) for a client, PKCE included. */
export async function browserAuthorize(app: App, jar: CookieJar, client: TestClient, extra: Record<string, string> = {}) {
  const { verifier, challenge } = pkcePair();
  const response = await app.request('oauth2Authorize', {
    method: 'GET',
    headers: { accept: 'text/html,application/xhtml+xml', ...jar.header() },
    query: {
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      scope: 'orders:read',
      state: 'some-state',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...extra,
    },
  });
  return { response: jar.take(response), verifier, csrf: csrfOf(response) };
}

/** A hosted form posted from `origin` (the issuer's, as a browser on the page sends it). */
export async function postForm(
  app: App,
  jar: CookieJar,
  route: 'hostedSignIn' | 'hostedSecondFactor' | 'hostedConsent',
  fields: Record<string, string>,
  origin: string,
): Promise<Response> {
  const response = await app.request(route, {
    headers: { 'content-type': FORM, origin, ...jar.header() },
    body: new URLSearchParams(fields).toString(),
  });
  return jar.take(response);
}

/**
 * Where the "Continue to your organization" page (docs/api.md 14.3) sends the browser:
 * its meta refresh, which must be its link too. Undefined on any other page.
 */
export function continueLocation(page: Response): string | undefined {
  const body = String(page.body);
  const refresh = /<meta http-equiv="refresh" content="0;url=([^"]+)"/.exec(body)?.[1];
  const link = /<a href="([^"]+)">Continue<\/a>/.exec(body)?.[1];
  if (refresh === undefined || refresh !== link) return undefined;
  return refresh.replace(/&amp;/g, '&');
}
