import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_FAILED_CODES } from '../../lib/mfa/code-check';
import { renderNotification, type SecurityEvent } from '../../lib/notifications/messages';
import { notifyUser } from '../../lib/notifications/notify';
import { UpdateCommand } from '../../lib/store/commands';
import { keys } from '../../lib/store/keys';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { localDynamo } from '../helpers/local-dynamo';
import { activateTotp } from '../helpers/mfa';
import { verifiedEmail } from '../helpers/recovery';

const PASSWORD = 'correct horse battery';

describe('security notifications (docs/api.md 8.9)', () => {
  let deps: TestDeps;
  let app: App;

  beforeAll(async () => {
    deps = nearRealTime(await testDeps());
    app = testApp(deps);
  });

  async function newUser(email: string | null = 'alice@example.com') {
    const tenantId = uniqueTenant('notify');
    const { token, user } = await registerAdmin(app, tenantId, 'alice', PASSWORD);
    if (email) await verifiedEmail(app, deps, token, tenantId, user.id, email);
    const events = async () =>
      (await deps.outbox.notifications(tenantId, user.id)).map((sent) => [sent.notification.event, sent.destination]);
    return { tenantId, token, userId: user.id, events };
  }

  it('tells the verified address of a password change, with no secret in it', async () => {
    const { token, tenantId, userId, events } = await newUser();
    const newPassword = 'a brand new passphrase';
    expect((await app.request('changePassword', { token, body: { currentPassword: PASSWORD, newPassword } })).status).toBe(200);
    expect(await events()).toEqual([['password-changed', 'alice@example.com']]);
    const [sent] = await deps.outbox.notifications(tenantId, userId);
    expect(sent?.notification.subject).toBe('Identity Service: Your password was changed');
    expect(JSON.stringify(sent)).not.toContain(newPassword);
    expect(JSON.stringify(sent)).not.toContain(PASSWORD);
  });

  it('tells of a password reset, a method added, the account locked, and an email change (to the old address)', async () => {
    const { tenantId, token, userId, events } = await newUser();
    const { code } = await activateTotp(app, deps, token);
    expect(await events()).toEqual([['mfa-added', 'alice@example.com']]);

    for (let attempt = 0; attempt < 5; attempt++) await app.request('login', { body: { username: 'alice', password: 'wrong', tenantId } });
    expect((await events())[0]).toEqual(['account-locked', 'alice@example.com']);
    // Refused attempts while locked tell nobody again.
    await app.request('login', { body: { username: 'alice', password: 'wrong', tenantId } });
    expect(await events()).toHaveLength(2);

    deps.clock.advance(61);
    await app.request('passwordForgot', { body: { username: 'alice', tenantId } });
    const resetCode = (await deps.outbox.latest(tenantId, userId, 'EMAIL', 'reset'))?.code;
    const reset = await app.request('passwordReset', {
      body: { username: 'alice', tenantId, code: resetCode, newPassword: 'a brand new passphrase', mfaCode: code() },
    });
    expect(reset.status).toBe(200);
    expect((await events())[0]).toEqual(['password-reset', 'alice@example.com']);

    const login = await app.request('login', {
      body: { username: 'alice', password: 'a brand new passphrase', tenantId, mfaCode: code(1) },
    });
    expect(login.status).toBe(200);
    deps.clock.advance(1);
    expect((await app.request('emailSet', { token: login.body.data.token, body: { email: 'new@example.com' } })).status).toBe(200);
    expect((await events())[0]).toEqual(['email-changed', 'alice@example.com']);
    const [changed] = await deps.outbox.notifications(tenantId, userId);
    expect(changed?.notification.text).toContain('n***@example.com');
  });

  it('tells of recovery codes generated and used, and of a method removed (docs/api.md 8.6)', async () => {
    const { tenantId, token, events } = await newUser();
    const { code } = await activateTotp(app, deps, token);
    const stepUp = await app.request('login', { body: { username: 'alice', password: PASSWORD, tenantId, mfaCode: code() } });
    const otpToken = stepUp.body.data.token as string;
    const generated = await app.request('generateRecoveryCodes', { token: otpToken });
    expect(generated.status).toBe(200);
    expect((await events())[0]).toEqual(['recovery-codes-generated', 'alice@example.com']);
    const [first] = generated.body.data.codes as string[];
    // The outbox lists newest first, to the second.
    deps.clock.advance(1);
    const recovered = await app.request('login', {
      body: { username: 'alice', password: PASSWORD, tenantId, mfaMethod: 'RECOVERY', mfaCode: first },
    });
    expect(recovered.status).toBe(200);
    expect((await events())[0]).toEqual(['recovery-codes-used', 'alice@example.com']);
    const [used] = await deps.outbox.notifications(tenantId, stepUp.body.data.user.id);
    expect(used?.notification.text).toContain('9');
    expect(JSON.stringify(used)).not.toContain(first);
    deps.clock.advance(1);
    const removed = await app.request('disableMFA', { token: recovered.body.data.token, body: { method: 'TOTP' } });
    expect(removed.status).toBe(200);
    expect((await events())[0]).toEqual(['mfa-removed', 'alice@example.com']);
    expect((await events()).map(([event]) => event)).toEqual([
      'mfa-removed',
      'recovery-codes-used',
      'recovery-codes-generated',
      'mfa-added',
    ]);
  });

  it('tells of an MFA method locked by the 100th wrong code, once', async () => {
    const { tenantId, token, userId, events } = await newUser();
    const { code } = await activateTotp(app, deps, token);
    const dynamo = localDynamo();
    await dynamo.doc.send(
      new UpdateCommand({
        TableName: dynamo.table,
        Key: keys.mfaMethod(tenantId, userId, 'TOTP'),
        UpdateExpression: 'SET failedCodes = :count',
        ExpressionAttributeValues: { ':count': MAX_FAILED_CODES - 1 },
      }),
    );
    const wrong = String((Number(code()) + 1) % 1_000_000).padStart(6, '0');
    const login = () => app.request('login', { body: { username: 'alice', password: PASSWORD, tenantId, mfaCode: wrong } });
    expect((await login()).body).toEqual(failure('Invalid MFA code'));
    expect((await events())[0]).toEqual(['mfa-locked', 'alice@example.com']);
    expect((await login()).body).toEqual(failure('MFA method locked'));
    expect((await events()).filter(([event]) => event === 'mfa-locked')).toHaveLength(1);
  });

  it('tells nobody without a verified address, and a failure to notify fails nothing', async () => {
    const unverified = await newUser(null);
    await app.request('emailSet', { token: unverified.token, body: { email: 'unverified@example.com' } });
    const change = await app.request('changePassword', {
      token: unverified.token,
      body: { currentPassword: PASSWORD, newPassword: 'a brand new passphrase' },
    });
    expect(change.status).toBe(200);
    expect(await unverified.events()).toEqual([]);
    expect(deps.logText()).toContain('"event":"notification_skipped"');

    const { token } = await newUser();
    const sending = deps.mfaDelivery;
    deps.mfaDelivery = {
      send: async () => {
        throw new Error('SES is down');
      },
    };
    try {
      const changed = await app.request('changePassword', {
        token,
        body: { currentPassword: PASSWORD, newPassword: 'a brand new passphrase' },
      });
      expect(changed.body).toEqual({ success: true, data: { message: 'Password changed' } });
    } finally {
      deps.mfaDelivery = sending;
    }
    expect(deps.logText()).toContain('"event":"notification_failed"');
  });

  it("is counted by the notification quotas, apart from codes: a user's spent code quota leaves notices going", async () => {
    const quotaDeps = nearRealTime(await testDeps({ SEND_QUOTA_PER_USER: '1', NOTIFY_QUOTA_PER_USER: '5' }));
    const quotaApp = testApp(quotaDeps);
    const tenantId = uniqueTenant('notify');
    const { user } = await registerAdmin(quotaApp, tenantId, 'alice', PASSWORD);
    const recipient = { tenantId, id: user.id, email: 'alice@example.com', emailVerified: true };
    // The user's one code of the hour.
    await quotaDeps.mfaDelivery.send({ tenantId, userId: user.id, method: 'EMAIL', destination: 'alice@example.com', code: '123456' });
    // A second apart: the outbox keeps one notice per user, second and event.
    for (let i = 0; i < 5; i++) {
      quotaDeps.clock.advance(1);
      await notifyUser(quotaDeps, recipient, { kind: 'password-changed' });
    }
    expect(quotaDeps.logText()).not.toContain('"event":"notification_failed"');
    await notifyUser(quotaDeps, recipient, { kind: 'password-reset' });
    const events = (await quotaDeps.outbox.notifications(tenantId, user.id)).map((sent) => sent.notification.event);
    expect(events).toEqual(Array(5).fill('password-changed'));
    expect(quotaDeps.logText()).toContain('"event":"notification_failed"');
  });

  it.each<SecurityEvent>([
    { kind: 'password-changed' },
    { kind: 'password-reset' },
    { kind: 'mfa-added', method: 'TOTP' },
    { kind: 'mfa-removed', method: 'SMS' },
    { kind: 'mfa-locked', method: 'EMAIL' },
    { kind: 'recovery-codes-generated' },
    { kind: 'recovery-codes-used', remaining: 9 },
    { kind: 'account-locked' },
    { kind: 'email-changed', to: 'n***@example.com' },
  ])('renders $kind as plain text and escaped HTML of the same sentences', (event) => {
    const rendered = renderNotification(event, 'Acme <ID>', new Date('2026-11-23T08:00:00Z'));
    expect(rendered.event).toBe(event.kind);
    expect(rendered.subject).toMatch(/^Acme <ID>: /);
    expect(rendered.text).toContain('Time: 2026-11-23 08:00 UTC.');
    expect(rendered.html).toContain('<p>Acme &lt;ID&gt;</p>');
    expect(rendered.html).not.toContain('<ID>');
    for (const sentence of rendered.text.split('\n\n').slice(0, -1)) expect(rendered.html).toContain(sentence.replace(/'/g, '&#39;'));
  });
});
