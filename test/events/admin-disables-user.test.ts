import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from 'jose';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptDelivery } from '../../lib/deliveries/attempt';
import type { Delivery } from '../../lib/deliveries/delivery';
import { STAGE_MAKERS, STAGE_PLANNERS } from '../../lib/events/publishing';
import { BACKCHANNEL_LOGOUT_EVENT } from '../../lib/oauth/backchannel-logout';
import { type App, registerAdmin, registerStaff, testApp } from '../helpers/app';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { authorizationCode, createClient, redeemCode } from '../helpers/oauth';
import { type Published, publishedEvents } from '../helpers/published-events';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * Contract section 14 end to end (docs/api.md 17): an ADMIN disables a warehouse worker;
 * the platform hears it once on the bus, the merchant's ERP gets one signed webhook
 * (tried again after a 500 with the same webhook-id), and the partner app that holds the
 * worker's session gets one logout token. Through the real stream, publisher, planners
 * and request makers; attempts are driven here so the retry needs no 30-second wait.
 */
describe('an ADMIN disables a user: the platform hears it', () => {
  let deps: TestDeps;
  let app: App;
  let receiver: WebhookReceiver;
  let published: Published;
  const queued: Delivery[] = [];
  const tenantId = uniqueTenant('hears');

  beforeAll(async () => {
    deps = await testDeps({}, { streamed: true });
    app = testApp(deps);
    receiver = await startWebhookReceiver();
    published = await publishedEvents(deps, {
      planners: STAGE_PLANNERS,
      queue: { enqueue: async (deliveries) => void queued.push(...deliveries) },
    });
  });
  afterAll(async () => {
    await published.stop();
    await receiver.close();
  });

  it('one identity.user.disabled event, one signed webhook delivery retried with its id, one logout token', async () => {
    const admin = await registerAdmin(app, tenantId);
    const worker = await registerStaff(app, admin.token, {
      username: 'worker',
      password: 'a long unusual passphrase',
      role: 'OPERATOR',
      tenantId,
    });
    const hook = await app.request('adminCreateWebhook', {
      token: admin.token,
      body: { url: `${receiver.origin}/erp`, events: ['identity.user.disabled'], description: 'ERP' },
    });
    expect(hook.status).toBe(201);
    const secret = (hook.body.data as { secret: string }).secret;
    // The partner app holds the worker's session: a grant made through the code flow.
    const partner = await createClient(app, admin.token, tenantId, { scope: 'openid', grantTypes: 'authorization_code refresh_token' });
    const registered = await app.request('updateOAuth2Client', {
      token: admin.token,
      pathParameters: { clientId: partner.clientId },
      body: { backchannel_logout_uri: `${receiver.origin}/partner/logout` },
    });
    expect(registered.status).toBe(200);
    expect((await redeemCode(app, partner, await authorizationCode(app, worker.token, partner, { scope: 'openid' }))).status).toBe(200);

    receiver.behaviour.set('/erp', { status: 500 });
    const disabled = await app.request('adminUpdateUser', {
      token: admin.token,
      pathParameters: { userId: worker.user.id },
      body: { status: 'disabled' },
    });
    expect(disabled.status).toBe(200);

    // Exactly one event of the change on the bus.
    const [event] = await published.until((one) => one.tenantid === tenantId && one.type === 'identity.user.disabled');
    await new Promise((done) => setTimeout(done, 300));
    expect(published.events.filter((one) => one.tenantid === tenantId && one.type === 'identity.user.disabled')).toEqual([event]);
    expect(event).toMatchObject({ subject: worker.user.id, data: { actor: { type: 'user', id: admin.user.id }, endedSessions: 'all' } });

    // One webhook delivery and one logout delivery were planned for it.
    const mine = queued.filter((delivery) => delivery.tenantId === tenantId);
    const webhook = mine.filter((delivery) => delivery.kind === 'webhook');
    const logout = mine.filter((delivery) => delivery.kind === 'backchannel_logout');
    expect([webhook.length, logout.length]).toEqual([1, 1]);

    // The ERP answers 500, then 204: the same webhook-id, a later timestamp, both signed.
    const settings = { makers: STAGE_MAKERS, jitter: () => 0.5 };
    const retry = await attemptDelivery(deps, settings, webhook[0] as Delivery);
    expect(retry && retry.dueAt - deps.clock.now()).toBeLessThanOrEqual(30_000);
    receiver.behaviour.set('/erp', { status: 204 });
    deps.clock.advance(30);
    expect(await attemptDelivery(deps, settings, retry?.delivery as Delivery)).toBeUndefined();
    const [first, second] = await receiver.until('/erp', 2);
    const verify = (request: typeof first) =>
      new StandardWebhook(secret.replace(/^whsec_/, '')).verify(request?.body ?? '', request?.headers as Record<string, string>);
    expect(second?.headers['webhook-id']).toBe(first?.headers['webhook-id']);
    expect(Number(second?.headers['webhook-timestamp'])).toBeGreaterThan(Number(first?.headers['webhook-timestamp']));
    expect([verify(first), verify(second)]).toEqual([event, event]);

    // The partner app gets a logout token for the worker, signed by our keys.
    expect(await attemptDelivery(deps, settings, logout[0] as Delivery)).toBeUndefined();
    const [request] = await receiver.until('/partner/logout');
    const token = new URLSearchParams(request?.body).get('logout_token') ?? '';
    const jwks = createLocalJWKSet((await app.request('jwks')).body as JSONWebKeySet);
    const { payload, protectedHeader } = await jwtVerify(token, jwks, {
      issuer: deps.config.issuer,
      audience: partner.clientId,
      typ: 'logout+jwt',
    });
    expect(protectedHeader.typ).toBe('logout+jwt');
    expect(payload).toMatchObject({ sub: worker.user.id, events: { [BACKCHANNEL_LOGOUT_EVENT]: {} } });
    expect(payload.nonce).toBeUndefined();
  });

  it('a deleted user’s apps still get their logout token, though the grants are erased by then', async () => {
    const admin = await registerAdmin(app, uniqueTenant('hears-deleted'));
    const { tenantId: deletedTenant } = admin.user;
    const leaver = await registerStaff(app, admin.token, {
      username: 'leaver',
      password: 'a long unusual passphrase',
      role: 'OPERATOR',
      tenantId: deletedTenant,
    });
    const partner = await createClient(app, admin.token, deletedTenant, {
      scope: 'openid',
      grantTypes: 'authorization_code refresh_token',
    });
    await app.request('updateOAuth2Client', {
      token: admin.token,
      pathParameters: { clientId: partner.clientId },
      body: { backchannel_logout_uri: `${receiver.origin}/partner/deleted` },
    });
    expect((await redeemCode(app, partner, await authorizationCode(app, leaver.token, partner, { scope: 'openid' }))).status).toBe(200);
    expect((await app.request('adminDeleteUser', { token: admin.token, pathParameters: { userId: leaver.user.id } })).status).toBe(200);
    expect(await deps.store.oauthGrants.listBySubject(deletedTenant, leaver.user.id)).toEqual([]);

    const [event] = await published.until((one) => one.tenantid === deletedTenant && one.type === 'identity.user.deleted');
    expect(event).toMatchObject({ subject: leaver.user.id, data: { endedSessions: 'all' } });
    await new Promise((done) => setTimeout(done, 200));
    const logouts = queued.filter((delivery) => delivery.tenantId === deletedTenant && delivery.kind === 'backchannel_logout');
    expect(logouts).toEqual([
      expect.objectContaining({ target: partner.clientId, payload: expect.objectContaining({ sub: leaver.user.id }) }),
    ]);
    expect(await attemptDelivery(deps, { makers: STAGE_MAKERS }, logouts[0] as Delivery)).toBeUndefined();
    expect(await receiver.until('/partner/deleted')).toHaveLength(1);
  });
});
