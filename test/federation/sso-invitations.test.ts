import { beforeAll, describe, expect, it } from 'vitest';
import type { Connection } from '../../lib/federation/connection';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { federatedSignIn, storedConnection, verifiedDomain } from '../helpers/federation';
import { createClient, FORM, type TestClient } from '../helpers/oauth';

/*
 * An invitation to an address whose organization signs it in (docs/api.md 13.1, 14.1): it
 * cannot be accepted with a password or a passkey of ours; the hosted page makes the
 * account without one, and the first sign-in through the organization's IdP links to it.
 */
describe('invitations to an address of an organization that requires SSO (docs/api.md 14.1)', () => {
  let deps: TestDeps;
  let app: App;
  let tenantId: string;
  let adminToken: string;
  let domain: string;
  let connection: Connection;
  let client: TestClient;

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
    tenantId = uniqueTenant('sso-invite');
    adminToken = (await registerAdmin(app, tenantId)).token;
    client = await createClient(app, adminToken, tenantId, { scope: 'openid orders:read' });
    domain = await verifiedDomain(deps, tenantId);
    connection = await storedConnection(deps, tenantId, { ssoRequired: true, roleMapping: undefined, jitProvisioning: false });
  });

  const invite = async (email: string) => {
    const created = await app.request('adminCreateInvitation', { token: adminToken, body: { email, role: 'OPERATOR' } });
    expect(created.status).toBe(201);
    return /\/invitations\/(\S+)/.exec((await deps.outbox.emails(email)).at(-1)?.text ?? '')?.[1] ?? '';
  };

  it('refuses a password by JSON with 403 SSO_REQUIRED and leaves the invitation pending', async () => {
    const token = await invite(`json@${domain}`);
    const accepted = await app.request('acceptInvitation', { body: { token, username: 'json-sso', password: 'correct horse battery' } });
    expect(accepted).toMatchObject({
      status: 403,
      body: { success: false, error: 'Sign in with your organization', code: 'SSO_REQUIRED' },
    });
    expect(await deps.store.users.findByEmail(tenantId, `json@${domain}`)).toEqual([]);
    expect((await app.request('hostedInvitationPage', { pathParameters: { token } })).status).toBe(200);
  });

  it('makes the account without a credential on the hosted page; the IdP signs the invitee in to it with the invited role', async () => {
    const email = `page@${domain}`;
    const token = await invite(email);
    const shown = await app.request('hostedInvitationPage', { pathParameters: { token } });
    expect(String(shown.body)).toContain('Your organization signs you in');
    expect(String(shown.body)).not.toContain('name="password"');
    const origin = new URL(deps.config.issuer).origin;
    const post = (fields: Record<string, string>) =>
      app.request('hostedInvitationAccept', {
        pathParameters: { token },
        headers: { 'content-type': FORM, origin },
        body: new URLSearchParams(fields).toString(),
      });
    // A password typed anyway (a form of another page) is refused on the page.
    const withPassword = await post({ username: 'page-sso', password: 'correct horse battery' });
    expect(withPassword.status).toBe(403);
    expect(String(withPassword.body)).toContain('Sign in with your organization');
    const ready = await post({ username: 'page-sso' });
    expect(ready.status).toBe(200);
    expect(String(ready.body)).toContain('Your account is ready');
    expect(ready.cookies ?? []).toEqual([]);
    const [user] = await deps.store.users.findByEmail(tenantId, email);
    expect(user).toMatchObject({ username: 'page-sso', role: 'OPERATOR', emailVerified: true });
    expect(user?.passwordHash).toBeUndefined();
    // No JIT on this connection: the invited account is the one the IdP's identity links to.
    const signed = await federatedSignIn(deps, app, client, connection, { subject: 'idp|page', email, roles: [], mfa: false });
    expect(signed.idToken?.sub).toBe(user?.id);
  });
});
