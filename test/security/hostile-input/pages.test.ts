import fc from 'fast-check';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { type App, registerAdmin, registerStaff, testApp } from '../../helpers/app';
import { nearRealTime } from '../../helpers/clock';
import { postAction, signedInJar } from '../../helpers/console';
import { type TestDeps, testDeps, uniqueTenant } from '../../helpers/deps';
import { type CookieJar, csrfOf } from '../../helpers/hosted';
import { createTable, scanTable } from '../../helpers/isolated-table';
import { nasty } from './mixed-requests';

/**
 * Hostile forms to the account page (docs/api.md 15.1, 15.2), sent by a signed-in browser
 * of our origin with its CSRF token: any value in any field of any form, unknown fields,
 * unknown sections and actions. Every answer is a page (never a 5xx), what was sent comes
 * back as text only, and nothing in the table changes.
 */
const RUNS = 150;
const PASSWORD = 'a hostile page passphrase';

/** Each form that changes something only once its values are right; a hostile value leaves it unchanged. */
const FORMS: Array<[string, string, string[]]> = [
  ['profile', 'email', ['email']],
  ['profile', 'verify-email', ['code']],
  ['password', 'change', ['currentPassword', 'newPassword']],
  ['security', 'verify', ['method', 'code']],
  ['security', 'disable', ['method']],
  ['security', 'sms', ['phone']],
  ['passkeys', 'add', ['credential', 'name']],
  ['passkeys', 'remove', ['id']],
  ['sessions', 'revoke', ['sessionId']],
  ['apps', 'revoke', ['grantId']],
  ['security', 'confirm', ['password', 'method', 'code']],
  ['security', 'confirm-passkey', ['credential']],
];

describe('hostile input to the account page’s forms', () => {
  const endpoint = inject('dynamodbEndpoint');
  const tableName = `hostile-pages-${Date.now()}`;
  let deps: TestDeps;
  let app: App;
  let origin: string;
  let jar: CookieJar;
  let csrf: string;

  beforeAll(async () => {
    await createTable(endpoint, tableName);
    deps = nearRealTime(await testDeps({ TABLE_NAME: tableName }));
    app = testApp(deps);
    origin = new URL(deps.config.issuer).origin;
    const tenantId = uniqueTenant('hostile-pages');
    const admin = await registerAdmin(app, tenantId, 'admin', PASSWORD);
    await registerStaff(app, admin.token, { username: 'member', password: PASSWORD, role: 'OPERATOR', tenantId });
    const signedIn = await signedInJar(app, origin, 'account', { tenantId, username: 'member', password: PASSWORD });
    jar = signedIn.jar;
    csrf = csrfOf(signedIn.page);
  });

  /** The table but the browser session's last use, which every page moves. */
  /**
   * The table but the browser session's last use (every page moves it), the refusals'
   * audit events and lockout counters (a refused passkey counts against its source), and the WebAuthn challenges the passkeys section
   * offers each time it is shown (as the hosted passkeys page does, docs/api.md 11.11).
   */
  const records = async () =>
    (await scanTable(endpoint, tableName))
      .map(({ seenAt: _, ...item }) => item)
      .filter((item) => !/#(AUDIT|LOGIN|WEBAUTHN)#|^SOURCE#/.test(String(item.pk)));

  it('answers every hostile form with a page, echoes nothing as markup, and changes nothing', async () => {
    const before = await records();
    const form = fc.oneof(
      fc.constantFrom(...FORMS).chain(([section, action, fields]) =>
        fc.record({
          section: fc.constant(section),
          action: fc.constant(action),
          values: fc
            .tuple(...fields.map(() => fc.oneof(nasty, fc.constant('<script>alert(1)</script>'))))
            .map((values) => Object.fromEntries(fields.map((field, index) => [field, values[index] ?? '']))),
        }),
      ),
      fc.record({ section: nasty, action: nasty, values: fc.dictionary(nasty, nasty, { maxKeys: 3 }) }),
    );
    await fc.assert(
      fc.asyncProperty(form, async ({ section, action, values }) => {
        const fields = Object.fromEntries(Object.entries(values).filter(([name]) => name !== 'csrf'));
        const response = await postAction(app, jar, 'account', { section, action }, { ...fields, csrf }, origin);
        expect(response.status, String(response.body).slice(0, 300)).toBeLessThan(500);
        expect([200, 303, 400, 401, 403, 404, 409, 429]).toContain(response.status);
        if (response.status !== 303) {
          expect(response.headers['Content-Type']).toBe('text/html; charset=utf-8');
          expect(String(response.body)).not.toContain('<script>alert(1)');
        }
      }),
      { numRuns: RUNS },
    );
    expect(await records()).toEqual(before);
  }, 180_000);
});
