import { beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../lib/audit/record';
import { type App, registerAdmin, registerStaff, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { connectionReset } from '../helpers/faulty-stores';
import { activateTotp } from '../helpers/mfa';
import { authorizationCode, createClient, newSecret, redeemCode } from '../helpers/oauth';

const PASSWORD = 'audited passphrase';
const NEW_PASSWORD = 'a brand new passphrase';
/** What the captured API Gateway event (test/fixtures) says of the caller. */
const SOURCE = { ipAddress: '203.0.113.10', userAgent: 'Mozilla/5.0' };
const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

interface Event {
  id: string;
  type: string;
  actor: { type: string; id: string | null };
  targetUserId: string | null;
  ipAddress: string | null;
  userAgent: string | null;
  outcome: string;
  details: object;
}

/**
 * The security changes beyond sign-in and administration (docs/api.md 9.8): each is an
 * event with its actor, target, outcome and allow-listed details, never a secret.
 */
describe('the audit trail of every security change (docs/api.md 9.8)', () => {
  let deps: TestDeps;
  let app: App;

  beforeAll(async () => {
    deps = nearRealTime(await testDeps());
    app = testApp(deps);
  });

  /** A tenant with its ADMIN alice, and a second ADMIN who reads the trail (alice's own sessions end in some steps). */
  async function tenant() {
    const tenantId = uniqueTenant('audit-wire');
    const alice = await registerAdmin(app, tenantId, 'alice', PASSWORD);
    const auditor = await registerStaff(app, alice.token, { username: 'auditor', password: PASSWORD, role: 'ADMIN', tenantId });
    const before = new Set((await trail(auditor.token)).map((event) => event.id));
    tick();
    /** The events recorded since the tenant was set up, oldest first (each step below is a tick later). */
    const since = async () => (await trail(auditor.token)).filter((event) => !before.has(event.id)).reverse();
    return { tenantId, alice, auditor, since };
  }

  /** Every event of the caller's tenant, newest first. */
  async function trail(token: string): Promise<Event[]> {
    const events: Event[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) {
      const response = await app.request('adminListAudit', { token, query: { limit: '100', ...(cursor ? { cursor } : {}) } });
      expect(response.status).toBe(200);
      events.push(...response.body.data.events);
      cursor = response.body.data.nextCursor ?? undefined;
      if (!cursor) return events;
    }
    throw new Error('the trail did not end');
  }

  const brief = (e: Event) => [e.type, e.actor, e.targetUserId, e.outcome, e.details];
  const tick = () => deps.clock.advance(1);

  it('records a client’s change, secret rotation and deletion by the ADMIN, with the client id and never a secret', async () => {
    const { tenantId, alice, since } = await tenant();
    const client = await createClient(app, alice.token, tenantId);
    tick();
    const clientPath = { clientId: client.clientId };
    const updated = await app.request('updateOAuth2Client', {
      token: alice.token,
      pathParameters: clientPath,
      body: { client_name: 'Till' },
    });
    expect(updated.status).toBe(200);
    tick();
    const secret = newSecret();
    const rotated = await app.request('rotateOAuth2ClientSecret', {
      token: alice.token,
      pathParameters: clientPath,
      body: { client_secret: secret },
    });
    expect(rotated.status).toBe(200);
    tick();
    expect((await app.request('deleteOAuth2Client', { token: alice.token, pathParameters: clientPath })).status).toBe(200);

    const events = await since();
    const byAlice = { type: 'user', id: alice.user.id };
    const details = { clientId: client.clientId };
    expect(events.map(brief)).toEqual([
      ['oauth_client_created', byAlice, null, 'success', details],
      ['oauth_client_updated', byAlice, null, 'success', details],
      ['oauth_client_secret_rotated', byAlice, null, 'success', details],
      ['oauth_client_deleted', byAlice, null, 'success', details],
    ]);
    for (const event of events) expect(event).toMatchObject(SOURCE);
    expect(JSON.stringify(events)).not.toContain(secret);
    expect(JSON.stringify(events)).not.toContain(client.clientSecret);
  });

  it('records the user ending a session, the other sessions and an app’s grant', async () => {
    const { tenantId, alice, since } = await tenant();
    const client = await createClient(app, alice.token, tenantId);
    const login = async () => (await app.request('login', { body: { username: 'alice', password: PASSWORD, tenantId } })).body.data;
    const second = await login();
    const third = await login();
    const sessions = (await app.request('listSessions', { token: alice.token })).body.data.sessions as Array<{
      id: string;
      current: boolean;
    }>;
    const current = sessions.find((session) => session.current)?.id;
    const secondId = (await app.request('listSessions', { token: second.token })).body.data.sessions.find(
      (session: { current: boolean }) => session.current,
    ).id;
    tick();
    expect((await app.request('revokeSession', { token: alice.token, pathParameters: { sessionId: secondId } })).status).toBe(200);
    tick();
    const issued = await authorizationCode(app, alice.token, client);
    const redeemed = await redeemCode(app, client, issued);
    expect(redeemed.status).toBe(200);
    const grantId = (await app.request('listGrants', { token: alice.token })).body.data.grants[0].id;
    tick();
    expect((await app.request('revokeGrant', { token: alice.token, pathParameters: { grantId } })).status).toBe(200);
    tick();
    expect(await app.request('revokeOtherSessions', { token: alice.token })).toMatchObject({ status: 200, body: { data: { revoked: 1 } } });

    const self = { type: 'user', id: alice.user.id };
    const events = (await since()).filter((event) => !['login_succeeded', 'oauth_client_created'].includes(event.type));
    expect(events.map(brief)).toEqual([
      ['session_revoked', self, alice.user.id, 'success', { sessionId: secondId }],
      ['grant_revoked', self, alice.user.id, 'success', { grantId }],
      ['other_sessions_revoked', self, alice.user.id, 'success', { sessionId: current, revoked: 1 }],
    ]);
    for (const event of events) expect(event).toMatchObject(SOURCE);
    const text = JSON.stringify(events);
    for (const token of [second.refreshToken, third.refreshToken, redeemed.body.refresh_token, issued.code])
      expect(text).not.toContain(token);
  });

  it('records reauthentication like sign-in, recovery codes generated and used, and a method removed', async () => {
    const { tenantId, alice, since } = await tenant();
    const totp = await activateTotp(app, deps, alice.token);
    const reauthenticate = (body: object) => app.request('reauthenticate', { token: alice.token, body });
    expect(await reauthenticate({ password: 'not the passphrase' })).toMatchObject({ status: 400, body: failure('Invalid credentials') });
    tick();
    expect((await reauthenticate({ password: PASSWORD, mfaMethod: 'TOTP', mfaCode: '000000' })).status).toBe(401);
    tick();
    const fresh = await reauthenticate({ password: PASSWORD, mfaMethod: 'TOTP', mfaCode: totp.code() });
    tick();
    expect(fresh.status).toBe(200);
    const token = fresh.body.data.token as string;
    const codes = (await app.request('generateRecoveryCodes', { token })).body.data.codes as string[];
    tick();
    expect(codes).toHaveLength(10);
    const recovered = await app.request('login', {
      body: { username: 'alice', password: PASSWORD, tenantId, mfaMethod: 'RECOVERY', mfaCode: codes[0] },
    });
    expect(recovered.status).toBe(200);
    tick();
    expect(await app.request('disableMFA', { token, body: { method: 'TOTP' } })).toMatchObject({ status: 200 });
    tick();

    const self = { type: 'user', id: alice.user.id };
    const target = alice.user.id;
    const events = (await since()).filter((event) => !event.type.startsWith('mfa_method_a') && event.type !== 'login_succeeded');
    const sessionId = expect.any(String);
    expect(events.map(brief)).toEqual([
      ['reauthentication_failed', self, target, 'failure', { reason: 'wrong_password' }],
      ['reauthentication_failed', self, target, 'failure', { reason: 'invalid_mfa_code', method: 'TOTP' }],
      ['reauthenticated', self, target, 'success', { sessionId, amr: ['pwd', 'otp'] }],
      ['recovery_codes_generated', self, target, 'success', {}],
      ['recovery_code_used', self, target, 'success', { remaining: 9 }],
      ['mfa_method_removed', self, target, 'success', { method: 'TOTP' }],
    ]);
    const text = JSON.stringify(events);
    for (const secret of [PASSWORD, totp.secret, ...codes]) expect(text).not.toContain(secret);
  });

  it('records a forgot-password request of a known account only, each reset refusal, the reset, and the email’s change and proof', async () => {
    const { tenantId, alice, since } = await tenant();
    expect((await app.request('emailSet', { token: alice.token, body: { email: 'alice@example.com' } })).status).toBe(200);
    tick();
    const verification = (await deps.outbox.latest(tenantId, alice.user.id, 'EMAIL', 'verify-email'))?.code ?? '';
    expect((await app.request('emailVerify', { token: alice.token, body: { code: wrong(verification) } })).status).toBe(400);
    tick();
    expect((await app.request('emailVerify', { token: alice.token, body: { code: verification } })).status).toBe(200);
    tick();
    const forgot = (username: string) => app.request('passwordForgot', { body: { username, tenantId } });
    const unknown = await forgot('nobody');
    tick();
    const known = await forgot('alice');
    tick();
    // The answer does not tell: the event is in the trail only.
    expect(unknown).toEqual(known);
    const code = (await deps.outbox.latest(tenantId, alice.user.id, 'EMAIL', 'reset'))?.code ?? '';
    const reset = (username: string, resetCode: string) =>
      app.request('passwordReset', { body: { username, tenantId, code: resetCode, newPassword: NEW_PASSWORD } });
    expect(await reset('nobody', '123456')).toMatchObject({ status: 400, body: failure('Invalid reset code') });
    tick();
    expect(await reset('alice', wrong(code))).toMatchObject({ status: 400, body: failure('Invalid reset code') });
    tick();
    expect((await reset('alice', code)).status).toBe(200);
    tick();

    const self = { type: 'user', id: alice.user.id };
    const anonymous = { type: 'user', id: null };
    const target = alice.user.id;
    const events = await since();
    expect(events.map(brief)).toEqual([
      ['email_changed', self, target, 'success', {}],
      ['email_verification_failed', self, target, 'failure', { reason: 'invalid_code' }],
      ['email_verified', self, target, 'success', {}],
      ['password_reset_requested', anonymous, target, 'success', { username: 'alice' }],
      ['password_reset_failed', anonymous, null, 'failure', { username: 'nobody', reason: 'invalid_code' }],
      ['password_reset_failed', anonymous, target, 'failure', { username: 'alice', reason: 'invalid_code' }],
      ['password_reset', anonymous, target, 'success', { username: 'alice' }],
    ]);
    for (const event of events) expect(event).toMatchObject(SOURCE);
    const text = JSON.stringify(events);
    for (const secret of [code, verification, NEW_PASSWORD, 'alice@example.com']) expect(text).not.toContain(secret);
  });

  it('keeps no control or bidirectional character of anonymous input: each becomes U+FFFD, in the details and the user agent', async () => {
    const { tenantId, since } = await tenant();
    const controls = ['\u0000', '\u0007', '\n', '\u001b', '\u007f', '\u0085', '\u009b', '\u061c', '\u200e', '\u200f'];
    const bidi = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'];
    const hostile = `alice${[...controls, ...bidi].join('')}nimda`;
    const answer = await app.request('login', { body: { username: hostile, password: 'wrong', tenantId } });
    expect(answer.status).toBe(401);
    // The user agent as API Gateway hands it over (the fixture's is plain).
    const source = { ipAddress: '203.0.113.10', userAgent: 'Evil\r\n\u202eAgent' };
    await recordEvent({ ...deps, source }, { tenantId, type: 'signed_out', actor: { type: 'user', id: null }, outcome: 'success' });
    const events = await since();
    const replaced = `alice${'\ufffd'.repeat(controls.length + bidi.length)}nimda`;
    expect(events.find((e) => e.type === 'login_failed')).toMatchObject({ details: { username: replaced, reason: 'unknown_user' } });
    expect(events.find((e) => e.type === 'signed_out')).toMatchObject({ userAgent: 'Evil\ufffd\ufffd\ufffdAgent' });
  });

  it('never fails an operation because its event could not be written', async () => {
    const { tenantId, alice } = await tenant();
    const client = await createClient(app, alice.token, tenantId);
    const audit = { ...deps.store.audit, record: async () => Promise.reject(connectionReset()) };
    const failing = testApp({ ...deps, store: { ...deps.store, audit } });
    const logged = deps.logs.length;
    const deleted = await failing.request('deleteOAuth2Client', { token: alice.token, pathParameters: { clientId: client.clientId } });
    expect(deleted).toMatchObject({ status: 200, body: { success: true, data: { message: 'OAuth2 client deleted' } } });
    const revoked = await failing.request('revokeOtherSessions', { token: alice.token });
    expect(revoked).toMatchObject({ status: 200, body: { success: true } });
    const lost = deps.logs.slice(logged).filter((line) => line.event === 'audit_event_lost');
    expect(lost.map((line) => [line.level, line.auditType])).toEqual([
      ['error', 'oauth_client_deleted'],
      ['error', 'other_sessions_revoked'],
    ]);
  });
});
