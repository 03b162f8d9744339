import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { decodeJwt } from 'jose';
import * as client from 'openid-client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, registerAdmin, registerStaff } from '../helpers/app';
import { type BrowserStack, startBrowserStack } from '../helpers/browser';
import { uniqueTenant } from '../helpers/deps';
import { DEVICE_GRANT } from '../helpers/device';
import { createClient, type TestClient } from '../helpers/oauth';

/**
 * The device authorization grant (docs/api.md 16.4) end to end: openid-client 6, a
 * relying party we did not write, is the shared scanner (`initiateDeviceAuthorization`,
 * `pollDeviceAuthorizationGrant` over real HTTP, unchanged); a person in Debian's chromium
 * (test/helpers/browser.ts) opens the link the scanner shows, signs in on the hosted page,
 * checks the code and allows it. The local issuer is plain http, so the library gets its
 * documented switch for that (`allowInsecureRequests`); no check is turned off.
 */
describe('device authorization grant (openid-client and chromium)', () => {
  let stack: BrowserStack;
  let app: App;
  let tenantId: string;
  let scanner: TestClient;
  let rp: client.Configuration;
  const password = 'a long unusual passphrase';

  beforeAll(async () => {
    stack = await startBrowserStack();
    app = stack.app;
    tenantId = uniqueTenant('device-e2e');
    const admin = await registerAdmin(app, tenantId, 'admin', password);
    await registerStaff(app, admin.token, { username: 'picker', password, role: 'OPERATOR', tenantId });
    scanner = await createClient(app, admin.token, tenantId, { grantTypes: `${DEVICE_GRANT} refresh_token`, scope: 'openid orders:read' });
    const named = await app.request('updateOAuth2Client', {
      token: admin.token,
      pathParameters: { clientId: scanner.clientId },
      body: { client_name: 'Warehouse scanner' },
    });
    expect(named.status).toBe(200);
    rp = await client.discovery(new URL(stack.issuer), scanner.clientId, undefined, client.ClientSecretBasic(scanner.clientSecret), {
      execute: [client.allowInsecureRequests],
    });
    // The stack's clock stands still unless moved: each request of the scanner's finds it at real time.
    rp[client.customFetch] = (url, options) => {
      stack.deps.clock.set(Date.now());
      return fetch(url, options as RequestInit);
    };
  });

  afterAll(async () => {
    await stack?.close();
  });

  /** axe-core in the page (run by the debugger protocol, which the page's CSP does not govern): serious or critical findings. */
  async function accessibilityProblems(page: Page) {
    const source = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    await page.evaluate(source);
    const violations = await page.evaluate(async () => {
      const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; impact: string }> }> } }).axe;
      return (await axe.run()).violations.map(({ id, impact }) => ({ id, impact }));
    });
    return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  }

  it('gives the scanner tokens once a signed-in person allows its code in the browser', async () => {
    const authorization = await client.initiateDeviceAuthorization(rp, { scope: 'openid orders:read' });
    expect(authorization.verification_uri).toBe(`${stack.issuer}/device?tenant=${tenantId}`);
    expect(authorization.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    // The scanner polls (after the interval) while the person signs in and allows it.
    const polling = client.pollDeviceAuthorizationGrant(rp, authorization);

    const context = await stack.context();
    const page = await context.newPage();
    await page.goto(String(authorization.verification_uri_complete));
    await page.fill('input[name=username]', 'picker');
    await page.fill('input[name=password]', password);
    await page.click('button[type=submit]');
    await page.waitForURL(`${stack.issuer}/device?**`);
    expect(await page.inputValue('input[name=user_code]')).toBe(authorization.user_code);
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.click('button[type=submit]');
    await page.getByRole('heading', { name: 'Allow Warehouse scanner?' }).waitFor();
    expect(await page.textContent('main')).toContain(authorization.user_code);
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.click('button[name=decision][value=allow]');
    await page.getByRole('heading', { name: 'Device connected' }).waitFor();

    const tokens = await polling;
    expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'openid orders:read' });
    const sessionId = (await context.cookies(stack.issuer)).find((cookie) => cookie.name === '__Host-session')?.value.split('.')[1];
    expect(tokens.claims()).toMatchObject({ iss: stack.issuer, aud: scanner.clientId, sid: sessionId });
    expect(decodeJwt(tokens.access_token)).toMatchObject({ client_id: scanner.clientId, scope: 'openid orders:read' });
    // The scanner keeps working without the person: its refresh token.
    const refreshed = await client.refreshTokenGrant(rp, String(tokens.refresh_token));
    expect(refreshed.access_token).toEqual(expect.any(String));
    await context.close();
  }, 30_000);
});
