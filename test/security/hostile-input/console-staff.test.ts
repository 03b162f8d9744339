import fc from 'fast-check';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { audit } from '../../../lib/console/admin/sections/audit';
import { invitations } from '../../../lib/console/admin/sections/invitations';
import { settings } from '../../../lib/console/admin/sections/settings';
import { staff } from '../../../lib/console/admin/sections/staff';
import type { Section } from '../../../lib/console/section';
import { type ConsoleBrowser, consoleBrowser } from '../../console/console-browser';
import { type App, registerAdmin, testApp } from '../../helpers/app';
import { nearRealTime } from '../../helpers/clock';
import { testDeps, uniqueTenant } from '../../helpers/deps';
import { createTable, scanTable } from '../../helpers/isolated-table';
import { nasty } from './mixed-requests';

/**
 * Hostile forms and queries to the tenant console's staff, invitations, audit trail and
 * settings (docs/api.md 15.3.1-15.3.4), sent by a real ADMIN's signed-in browser: every
 * form that its action's schema refuses is a 4xx page, every query an HTML page below 500,
 * and the table does not change (the clock stands still: the session's use writes the same).
 */
const RUNS = 60;

describe('hostile input to the tenant console: staff, invitations, audit, settings', () => {
  const endpoint = inject('dynamodbEndpoint');
  const tableName = `hostile-console-staff-${Date.now()}`;
  let app: App;
  let browser: ConsoleBrowser;
  let memberId: string;
  let invitationId: string;

  beforeAll(async () => {
    await createTable(endpoint, tableName);
    const deps = nearRealTime(await testDeps({ TABLE_NAME: tableName }));
    app = testApp(deps);
    const tenantId = uniqueTenant('hostile-console');
    const password = 'an admin passphrase';
    const { token } = await registerAdmin(app, tenantId, 'admin', password);
    const member = await app.request('register', { token, body: { username: 'member', password, role: 'OPERATOR', tenantId } });
    memberId = member.body.data.user.id;
    const invited = await app.request('adminCreateInvitation', { token, body: { email: 'invitee@example.com', role: 'ANALYST' } });
    invitationId = invited.body.data.invitation.id;
    browser = await consoleBrowser(app, new URL(deps.config.issuer).origin, tenantId, 'admin', password);
  });

  const field = () => fc.oneof(nasty, fc.constantFrom(memberId, invitationId, memberId.toUpperCase(), 'ADMIN', 'disabled', 'default'));
  const forms: Array<[Section, string, string[]]> = [
    [staff, 'role-shop', ['userId', 'role', 'shopId']],
    [staff, 'status', ['userId', 'status']],
    [staff, 'sign-out', ['userId']],
    [staff, 'reset-mfa', ['userId']],
    [staff, 'delete', ['userId']],
    [invitations, 'invite', ['email', 'role', 'shopId']],
    [invitations, 'resend', ['id']],
    [invitations, 'revoke', ['id']],
    [settings, 'save', ['displayName', 'logoUrl', 'accentColor']],
  ];

  it.each(forms.map(([section, action, names]) => [`${section.id}/${action}`, section, action, names] as const))(
    'answers every malformed %s form with a 4xx page and changes nothing',
    async (_, section, action, names) => {
      const schema = section.actions[action]?.form;
      if (!schema) throw new Error(`no action ${action}`);
      const before = await scanTable(endpoint, tableName);
      const forms = fc
        .dictionary(fc.constantFrom(...names, 'tenantId', 'extra', '__proto__'), field(), { maxKeys: names.length + 1 })
        // A valid form is not hostile: left to the functional tests. The form parser drops a
        // `__proto__` field, as the schema would see it.
        .filter((fields) => !schema.safeParse(Object.fromEntries(Object.entries(fields).filter(([name]) => name !== '__proto__'))).success);
      await fc.assert(
        fc.asyncProperty(forms, async (fields) => {
          const response = await browser.post(section.id, action, fields);
          expect(response.status, JSON.stringify(fields)).toBeGreaterThanOrEqual(400);
          expect(response.status).toBeLessThan(500);
          expect(String(response.headers['Content-Type'])).toContain('text/html');
        }),
        { numRuns: RUNS },
      );
      expect(await scanTable(endpoint, tableName)).toEqual(before);
    },
    120_000,
  );

  it.each([
    [staff, ['q', 'role', 'status', 'cursor', 'user', 'confirm']],
    [audit, ['type', 'user', 'cursor']],
    [invitations, ['cursor']],
  ] as const)('answers every hostile query of the %s page with a page below 500, its values as text', async (section, names) => {
    const before = await scanTable(endpoint, tableName);
    const queries = fc.dictionary(fc.constantFrom(...names, 'tenant'), nasty, { minKeys: 1, maxKeys: 3 });
    await fc.assert(
      fc.asyncProperty(queries, async (query) => {
        const response = await browser.page(section.id, query);
        expect(response.status, JSON.stringify(query)).toBeLessThan(500);
        expect(String(response.headers['Content-Type'])).toContain('text/html');
        expect(String(response.body)).not.toMatch(/<script>(?!'use strict')/);
      }),
      { numRuns: RUNS },
    );
    expect(await scanTable(endpoint, tableName)).toEqual(before);
  });
});
