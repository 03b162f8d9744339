import type { App } from './app';
import { CookieJar, csrfOf, postForm } from './hosted';
import type { Response } from './http';
import { FORM, form, type TestClient, tokenRequest } from './oauth';

/** The grant type of RFC 8628 3.4. */
export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** POST /oauth2/device_authorization for `client` (docs/api.md 16.4). */
export function deviceAuthorization(app: App, client: TestClient, scope?: string) {
  return app.request('oauth2DeviceAuthorization', form({ client_id: client.clientId, client_secret: client.clientSecret, scope }));
}

/** The codes of a new device authorization; throws unless 200. */
export async function deviceCodes(app: App, client: TestClient, scope?: string) {
  const response = await deviceAuthorization(app, client, scope);
  if (response.status !== 200) throw new Error(`device authorization failed: ${JSON.stringify(response.body)}`);
  return response.body as { device_code: string; user_code: string; verification_uri_complete: string; interval: number };
}

/** One poll of the token endpoint with a device code. */
export const pollToken = (app: App, client: TestClient, deviceCode: string) =>
  app.request('oauth2Token', tokenRequest(client, { grant_type: DEVICE_GRANT, device_code: deviceCode }));

/** A browser signed in to `tenantId` through the device page's sign-in, at the device page: its jar and the page. */
export async function deviceBrowser(app: App, origin: string, tenantId: string, username: string, password: string) {
  const jar = new CookieJar();
  const signInPage = jar.take(await openDevicePage(app, jar, { tenant: tenantId }));
  const back = await postForm(app, jar, 'hostedSignIn', { csrf: csrfOf(signInPage), username, password }, origin);
  if (back.status !== 303) throw new Error(`sign-in failed: ${back.status} ${String(back.body)}`);
  const page = await openDevicePage(app, jar);
  return { jar, page, csrf: csrfOf(page) };
}

/** GET /device as a browser navigation. */
export async function openDevicePage(app: App, jar: CookieJar, query: Record<string, string> = {}): Promise<Response> {
  return jar.take(await app.request('hostedDevicePage', { method: 'GET', headers: { accept: 'text/html', ...jar.header() }, query }));
}

/** POST /device from the page (the issuer's origin). */
export async function postDeviceForm(app: App, jar: CookieJar, origin: string, fields: Record<string, string>): Promise<Response> {
  const response = await app.request('hostedDeviceForm', {
    headers: { 'content-type': FORM, origin, ...jar.header() },
    body: new URLSearchParams(fields).toString(),
  });
  return jar.take(response);
}
