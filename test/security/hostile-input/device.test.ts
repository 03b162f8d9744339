import fc from 'fast-check';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { type App, registerAdmin, testApp } from '../../helpers/app';
import { nearRealTime } from '../../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../../helpers/deps';
import { DEVICE_GRANT, deviceBrowser, deviceCodes, openDevicePage, pollToken } from '../../helpers/device';
import type { CookieJar } from '../../helpers/hosted';
import { createTable, scanTable } from '../../helpers/isolated-table';
import { createClient, FORM, type TestClient, tokenRequest } from '../../helpers/oauth';
import { asText, nasty } from './mixed-requests';

/**
 * Hostile input to the device authorization grant (docs/api.md 16.4): user codes typed on
 * the device page and in its link, device codes at the token endpoint, and form bodies of
 * any shape. Never a 5xx, never markup of the input in a page, nothing changed but the
 * window of wrong codes (whose job is counting them); a real pending code stays pending.
 */
const RUNS = 150;

describe('hostile input to the device grant', () => {
  const endpoint = inject('dynamodbEndpoint');
  const tableName = `device-hostile-${Date.now()}`;
  let deps: TestDeps;
  let app: App;
  let origin: string;
  let device: TestClient;
  let browser: { jar: CookieJar; csrf: string };
  let pending: Awaited<ReturnType<typeof deviceCodes>>;
  /**
   * The table but the counters of wrong codes and of failed client authentications, the
   * audit trail, and when the browser session was last used (each form uses it).
   */
  const snapshot = async () =>
    (await scanTable(endpoint, tableName))
      .filter((item) => item.sk !== 'ATTEMPTS' && !String(item.pk).includes('#AUDIT'))
      .map(({ seenAt: _seen, lastUsedAt: _used, writeId: _marker, ...item }) => item);

  beforeAll(async () => {
    await createTable(endpoint, tableName);
    deps = nearRealTime(await testDeps({ TABLE_NAME: tableName }));
    app = testApp(deps);
    origin = new URL(deps.config.issuer).origin;
    const tenantId = uniqueTenant('hostile-device');
    const admin = await registerAdmin(app, tenantId, 'admin', 'correct horse battery');
    device = await createClient(app, admin.token, tenantId, { grantTypes: DEVICE_GRANT, scope: 'orders:read' });
    browser = await deviceBrowser(app, origin, tenantId, 'admin', 'correct horse battery');
    pending = await deviceCodes(app, device);
  });

  /** A user code that is not one: any string, or a real code's letters changed, cut or padded. */
  const userCode = fc.oneof(
    nasty,
    fc.constantFrom('BCDF-GHJ', 'BCDF-GHJKL', 'AEIO-UAEI', 'bcdf ghjk 1', '1234-5678', 'BCDF\u2010GHJK', 'ＢＣＤＦ-ＧＨＪＫ'),
    fc.string({ minLength: 8, maxLength: 8, unit: fc.constantFrom(...'BCDFGHJKLMNPQRSTVWXZ') }),
  );

  it('answers hostile user codes on the device page with the form again, or the limit, and changes nothing', async () => {
    const before = await snapshot();
    let window = 0;
    await fc.assert(
      fc.asyncProperty(userCode, fc.constantFrom(undefined, 'allow', 'deny'), async (code, decision) => {
        const fields = { csrf: browser.csrf, user_code: asText(code).slice(0, 64), ...(decision ? { decision } : {}) };
        const response = await app.request('hostedDeviceForm', {
          headers: { 'content-type': FORM, origin, ...browser.jar.header() },
          body: new URLSearchParams(fields).toString(),
        });
        expect([400, 429]).toContain(response.status);
        expect(String(response.body)).not.toContain('<script>');
        expect(response.headers['Content-Security-Policy']).toContain("default-src 'none'");
        // The window of wrong codes refuses until it ends: move on so that the next cases are looked up.
        if (response.status === 429 && ++window) deps.clock.set(deps.clock.now() + 15 * 60 * 1000);
      }),
      { numRuns: RUNS },
    );
    nearRealTime(deps);
    expect(await snapshot()).toEqual(before);
    expect(window).toBeGreaterThan(0);
    expect((await pollToken(app, device, pending.device_code)).body.error).toBe('authorization_pending');
  });

  it('fills the link’s code into the form only when it is a code, escaped', async () => {
    await fc.assert(
      fc.asyncProperty(userCode, async (code) => {
        const page = await openDevicePage(app, browser.jar, { user_code: asText(code).slice(0, 64) });
        expect([200, 400]).toContain(page.status);
        expect(String(page.body)).not.toContain('<script>');
        expect(String(page.body)).not.toMatch(/value="[^"]*[<>][^"]*"/);
      }),
      { numRuns: RUNS },
    );
  });

  it('answers hostile device codes and form bodies with a 4xx in RFC format', async () => {
    const before = await snapshot();
    await fc.assert(
      fc.asyncProperty(nasty, async (code) => {
        const answer = await app.request('oauth2Token', tokenRequest(device, { grant_type: DEVICE_GRANT, device_code: asText(code) }));
        expect([400, 413]).toContain(answer.status);
        expect(['invalid_grant', 'invalid_request']).toContain(answer.body.error);
        const form = await app.request('hostedDeviceForm', {
          headers: { 'content-type': FORM, origin, ...browser.jar.header() },
          body: asText(code),
        });
        expect([400, 401, 403, 413]).toContain(form.status);
      }),
      { numRuns: RUNS },
    );
    expect(await snapshot()).toEqual(before);
  });
});
