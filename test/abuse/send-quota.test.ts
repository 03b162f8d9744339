import { describe, expect, inject, it } from 'vitest';
import { NEW_TENANT_SECONDS, quotaDelivery, type SendQuotas } from '../../lib/abuse/send-quota';
import type { CodeMessage, DeliveryMessage, InvitationMessage, NotificationMessage } from '../../lib/mfa/delivery';
import { dynamoAttemptCounter } from '../../lib/store/login-attempts';
import { registerAdmin, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { testClock, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { createTable } from '../helpers/isolated-table';
import { LAMBDA_SETTINGS } from '../helpers/lambda-env';
import { localDynamo } from '../helpers/local-dynamo';

const QUOTAS: SendQuotas = {
  destination: 3,
  user: 4,
  tenant: 6,
  global: 8,
  newTenant: 2,
  newTenants: 5,
  notificationUser: 5,
  invitationTenant: 3,
  notificationDestination: 7,
  notificationGlobal: 12,
};
/** Tenants created long ago, or a day minus a minute ago. */
const established = { createdAt: async () => 0 };

describe('send quotas (every message the delivery port sends)', () => {
  let sent: DeliveryMessage[];
  let send: (message: Partial<CodeMessage>) => Promise<unknown>;
  let clock: ReturnType<typeof testClock>;

  /** The quotas on a table of their own: the global quota counts every message of the service. */
  async function quotaOn(tenants: { createdAt: (tenantId: string) => Promise<number | undefined> } = established) {
    const tableName = `quotas-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
    await createTable(inject('dynamodbEndpoint'), tableName);
    sent = [];
    clock = testClock();
    const delivery = quotaDelivery(
      { send: async (message) => void sent.push(message) },
      dynamoAttemptCounter(localDynamo({ tableName })),
      clock,
      QUOTAS,
      tenants,
    );
    const base: CodeMessage = { tenantId: 't1', userId: 'u1', method: 'SMS', destination: '+15550000001', code: '123456' };
    send = (message) => delivery.send({ ...base, ...message });
    notify = (message) => delivery.send({ ...notice, ...message });
    invite = (message) => delivery.send({ ...invitation, ...message });
  }

  let invite: (message: Partial<InvitationMessage>) => Promise<unknown>;
  const invitation: InvitationMessage = {
    tenantId: 't1',
    invitationId: 'i1',
    method: 'EMAIL',
    destination: 'bob@example.com',
    notification: { event: 'invitation', subject: 'You are invited', text: 'Join.', html: '<p>Join.</p>' },
  };

  let notify: (message: Partial<NotificationMessage>) => Promise<unknown>;
  const notice: NotificationMessage = {
    tenantId: 't1',
    userId: 'u1',
    method: 'EMAIL',
    destination: 'alice@example.com',
    notification: { event: 'password-changed', subject: 'Your password was changed', text: 'Changed.', html: '<p>Changed.</p>' },
  };
  const outcome = (sending: Promise<unknown>) =>
    sending.then(
      () => 'sent',
      (error: { statusCode?: number }) => String(error.statusCode),
    );

  const refused = (retryAfter: number) => ({
    statusCode: 429,
    message: 'Too many requests',
    headers: { 'Retry-After': String(retryAfter) },
  });

  it('refuses the 4th message to one destination within the hour, whatever the tenant and user', async () => {
    await quotaOn();
    const destination = `+1555${Date.now() % 10_000_000}`;
    for (const [tenantId, userId] of [
      ['a', 'u1'],
      ['b', 'u2'],
      ['c', 'u3'],
    ])
      await send({ tenantId, userId, destination });
    await expect(send({ tenantId: 'd', userId: 'u4', destination })).rejects.toMatchObject(refused(3600));
    expect(sent).toHaveLength(3);
    clock.advance(3600);
    await send({ tenantId: 'd', userId: 'u4', destination });
    expect(sent).toHaveLength(4);
  });

  it('refuses the 5th message for one user, and the 7th for one tenant, within the hour', async () => {
    await quotaOn();
    const tenantId = uniqueTenant('quota');
    for (let i = 0; i < 4; i++) await send({ tenantId, userId: 'busy', destination: `+1555000${i}${tenantId.length}` });
    await expect(send({ tenantId, userId: 'busy', destination: '+15559990001' })).rejects.toMatchObject(refused(3600));
    await send({ tenantId, userId: 'other', destination: '+15559990002' });
    await send({ tenantId, userId: 'third', destination: '+15559990003' });
    await expect(send({ tenantId, userId: 'fourth', destination: '+15559990004' })).rejects.toMatchObject({ statusCode: 429 });
    expect(sent.map((message) => ('userId' in message ? message.userId : undefined))).toEqual([
      'busy',
      'busy',
      'busy',
      'busy',
      'other',
      'third',
    ]);
  });

  it('stops every message of the service at the global quota (the circuit breaker)', async () => {
    await quotaOn();
    const outcomes: string[] = [];
    for (let i = 0; i < 12; i++) {
      outcomes.push(
        await send({ tenantId: `g${i}`, userId: `g${i}`, destination: `+1666000${i}` }).then(
          () => 'sent',
          (error: { statusCode?: number }) => String(error.statusCode),
        ),
      );
    }
    expect(outcomes).toEqual([...Array(8).fill('sent'), ...Array(4).fill('429')]);
  });

  it("counts notifications apart: codes that filled a user's and an address's quotas leave its notices going", async () => {
    await quotaOn();
    const tenantId = uniqueTenant('notices');
    const destination = `${tenantId}@example.com`;
    for (let i = 0; i < 3; i++) await send({ tenantId, userId: 'alice', method: 'EMAIL', destination });
    expect(await outcome(send({ tenantId, userId: 'alice', method: 'EMAIL', destination }))).toBe('429');
    expect(await outcome(notify({ tenantId, userId: 'alice', destination }))).toBe('sent');
    expect(sent.map((message) => ('notification' in message ? 'notice' : 'code'))).toEqual(['code', 'code', 'code', 'notice']);
  });

  it('keeps notices going when the codes of the whole service hit their circuit breaker, and notices spend none of it', async () => {
    await quotaOn();
    for (let i = 0; i < 5; i++)
      expect(await outcome(notify({ tenantId: `n${i}`, userId: `n${i}`, destination: `n${i}@example.com` }))).toBe('sent');
    const codes = [];
    for (let i = 0; i < 9; i++) codes.push(await outcome(send({ tenantId: `c${i}`, userId: `c${i}`, destination: `+1888000${i}` })));
    // All 8 codes of the global quota went out: the 5 notices took none of it.
    expect(codes).toEqual([...Array(8).fill('sent'), '429']);
    expect(await outcome(notify({ tenantId: 'n9', userId: 'n9', destination: 'n9@example.com' }))).toBe('sent');
  });

  it("bounds notices per user, per address, and for the whole service above any one address's bound", async () => {
    await quotaOn();
    // One user: 5 an hour.
    const user = [];
    for (let i = 0; i < 6; i++) user.push(await outcome(notify({ userId: 'busy', destination: `busy${i}@example.com` })));
    expect(user).toEqual([...Array(5).fill('sent'), '429']);
    // One address shared by many users: 7 an hour.
    const shared = [];
    for (let i = 0; i < 8; i++) shared.push(await outcome(notify({ userId: `s${i}`, destination: 'shared@example.com' })));
    expect(shared).toEqual([...Array(7).fill('sent'), '429']);
    // The whole service: 12 an hour, all sent above: every other address waits for the hour.
    expect(await outcome(notify({ userId: 'late', destination: 'late@example.com' }))).toBe('429');
    clock.advance(3600);
    expect(await outcome(notify({ userId: 'late', destination: 'late@example.com' }))).toBe('sent');
  });

  it('gives a tenant younger than a day its smaller quota, and all of them one pool, apart from established tenants', async () => {
    // Tenants named `new-*` were created a minute ago; the others long ago.
    const tenants = { born: 0, createdAt: async (tenantId: string) => (tenantId.startsWith('new-') ? tenants.born : 0) };
    await quotaOn(tenants);
    tenants.born = Math.floor(clock.now() / 1000) - 60;
    const outcome = (message: Partial<CodeMessage>) =>
      send(message).then(
        () => 'sent',
        (error: { statusCode?: number }) => String(error.statusCode),
      );
    // One new tenant: 2 an hour (not 6).
    const one = [];
    for (let i = 0; i < 3; i++) one.push(await outcome({ tenantId: 'new-a', userId: `a${i}`, destination: `+1777000${i}` }));
    expect(one).toEqual(['sent', 'sent', '429']);
    // All new tenants together: 5 an hour (2 spent above).
    const pool = [];
    for (let i = 0; i < 5; i++) pool.push(await outcome({ tenantId: `new-${i}`, userId: `p${i}`, destination: `+1777100${i}` }));
    expect(pool).toEqual(['sent', 'sent', 'sent', '429', '429']);
    // An established tenant is not held by the new tenants' pool.
    expect(await outcome({ tenantId: 'old', userId: 'o1', destination: '+17772000' })).toBe('sent');
    // A day after its creation a tenant is established: its own quota (6), no pool.
    clock.advance(NEW_TENANT_SECONDS);
    const later = [];
    for (let i = 0; i < 3; i++) later.push(await outcome({ tenantId: 'new-a', userId: `l${i}`, destination: `+1777300${i}` }));
    expect(later).toEqual(['sent', 'sent', 'sent']);
  });

  it('counts invitation emails in the service-wide window, and those of new tenants in their windows and pool', async () => {
    const tenants = { born: 0, createdAt: async (tenantId: string) => (tenantId.startsWith('new-') ? tenants.born : 0) };
    await quotaOn(tenants);
    tenants.born = Math.floor(clock.now() / 1000) - 60;
    // One new tenant: 2 an hour (its new-tenant window), below its invitation window of 3.
    const one = [];
    for (let i = 0; i < 3; i++)
      one.push(await outcome(invite({ tenantId: 'new-a', invitationId: `a${i}`, destination: `a${i}@example.com` })));
    expect(one).toEqual(['sent', 'sent', '429']);
    // All new tenants together: 5 an hour (2 spent above), whether codes or invitations.
    const pool = [];
    for (let i = 0; i < 4; i++)
      pool.push(await outcome(invite({ tenantId: `new-${i}`, invitationId: `p${i}`, destination: `p${i}@example.com` })));
    expect(pool).toEqual(['sent', 'sent', 'sent', '429']);
    expect(await outcome(send({ tenantId: 'new-9', userId: 'p9', destination: '+17774009' }))).toBe('429');
    // The whole service: 8 an hour, 5 spent above; established tenants' invitations spend the rest.
    const service = [];
    for (let i = 0; i < 4; i++)
      service.push(await outcome(invite({ tenantId: `old-${i}`, invitationId: `o${i}`, destination: `o${i}@example.com` })));
    expect(service).toEqual(['sent', 'sent', 'sent', '429']);
    expect(await outcome(send({ tenantId: 'old-9', userId: 'o9', destination: '+17775009' }))).toBe('429');
    expect(sent).toHaveLength(8);
  });
});

describe('SMS pumping from fresh anonymous tenants', () => {
  it("delivers at most the new tenants' pool of 200 attempts to numbered destinations, and keeps established tenants sending", async () => {
    // On a table of its own (the pool and the global quota count the whole service). The
    // defaults scaled down by five (pool 100 → 20, global 2,000 → 400, docs/api.md 10):
    // ten attempts per message of the pool, as with 1,000 attempts at the defaults, and the
    // global quota still above every attempt, so the pool is what stops them.
    const tableName = `pumping-${Date.now()}`;
    await createTable(inject('dynamodbEndpoint'), tableName);
    const deps = nearRealTime(
      await testDeps({
        TABLE_NAME: tableName,
        SEND_QUOTA_GLOBAL: '400',
        SEND_QUOTA_PER_DESTINATION: '5',
        SEND_QUOTA_NEW_TENANTS: '20',
        SEND_QUOTA_PER_NEW_TENANT: '10',
      }),
    );
    const app = testApp(deps);
    const shop = await registerAdmin(app, uniqueTenant('shop'));
    deps.clock.advance(NEW_TENANT_SECONDS);
    const { token: shopToken } = (
      await app.request('login', { body: { username: 'admin', password: 'correct horse battery', tenantId: shop.user.tenantId } })
    ).body.data;

    const answers: number[] = [];
    for (let batch = 0; batch < 8; batch++) {
      const statuses = await Promise.all(
        Array.from({ length: 25 }, async (_, i) => {
          const n = batch * 25 + i;
          const { token } = await registerAdmin(app, uniqueTenant('pump'));
          const secret = `+1555${String(n).padStart(7, '0')}`;
          return (await app.request('enableMFA', { token, body: { method: 'SMS', secret } })).status;
        }),
      );
      answers.push(...statuses);
    }
    const delivered = answers.filter((status) => status === 200).length;
    if (process.env.SHOW_FIGURES) console.log({ attempts: answers.length, delivered });
    expect(delivered).toBe(20);
    expect(answers.filter((status) => status === 429)).toHaveLength(180);
    // The platform's established tenant still sends.
    expect((await app.request('enableMFA', { token: shopToken, body: { method: 'SMS', secret: '+15559876543' } })).status).toBe(200);
  }, 180_000);
});

describe('SMS countries (MFA_SMS_COUNTRIES)', () => {
  it('refuses a number outside the allowed prefixes with 400 and sends nothing; allows one inside', async () => {
    const deps = nearRealTime(await testDeps({ MFA_SMS_COUNTRIES: '+44,+49' }));
    const app = testApp(deps);
    const { token, user } = await registerAdmin(app, uniqueTenant('countries'));
    expect(await app.request('enableMFA', { token, body: { method: 'SMS', secret: '+15551234567' } })).toMatchObject({
      status: 400,
      body: failure('Phone number country not allowed'),
    });
    expect(await deps.outbox.latest(user.tenantId, user.id, 'SMS')).toBeUndefined();
    expect((await app.request('enableMFA', { token, body: { method: 'SMS', secret: '+447700900123' } })).status).toBe(200);
    expect((await deps.outbox.latest(user.tenantId, user.id, 'SMS'))?.destination).toBe('+447700900123');
  });

  it('is +1 in AWS Lambda when unset, any country locally, and refuses what is not a prefix', async () => {
    const { readConfig } = await import('../../lib/config');
    const aws = {
      AWS_LAMBDA_FUNCTION_NAME: 'f',
      ...LAMBDA_SETTINGS,
      MFA_DELIVERY: 'aws',
      MFA_EMAIL_FROM: 'a@example.com',
      MFA_KEY_SOURCE: 'kms',
      KMS_KEY_ID: 'k',
    };
    expect(readConfig(aws).mfa.smsCountries).toEqual(['+1']);
    expect(readConfig({}).mfa.smsCountries).toBe('any');
    expect(() => readConfig({ MFA_SMS_COUNTRIES: '44' })).toThrow(
      'Environment variable MFA_SMS_COUNTRIES must list E.164 prefixes like +1,+44, got "44"',
    );
  });
});

describe('send quotas through enableMFA', () => {
  it('answers 429 Too many requests once one destination had its 5 codes in an hour, and sends nothing more', async () => {
    const deps = nearRealTime(await testDeps({ SEND_QUOTA_PER_DESTINATION: '5' }));
    const app = testApp(deps);
    const destination = `+1555${String(Date.now()).slice(-7)}`;
    const answers: number[] = [];
    for (let i = 0; i < 6; i++) {
      const { token } = await registerAdmin(app, uniqueTenant('pump'));
      answers.push((await app.request('enableMFA', { token, body: { method: 'SMS', secret: destination } })).status);
    }
    expect(answers).toEqual([200, 200, 200, 200, 200, 429]);
  });
});
