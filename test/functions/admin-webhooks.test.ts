import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, registerAdmin, registerStaff, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { lastEvents } from '../helpers/events';
import { failure } from '../helpers/failures';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const noStore = expect.objectContaining({ 'Cache-Control': 'no-store' });
const notFound = { status: 404, headers: expect.anything(), body: failure('Webhook not found', 'NOT_FOUND') };
const invalidUrl = { status: 400, headers: expect.anything(), body: failure('Invalid webhook URL', 'INVALID_WEBHOOK_URL') };

describe('tenant administration: webhooks (docs/api.md 17.2)', () => {
  let deps: TestDeps;
  let app: App;
  let receiver: WebhookReceiver;
  let admin: { token: string; user: { id: string } };
  const tenantId = uniqueTenant('webhooks');

  beforeAll(async () => {
    deps = nearRealTime(await testDeps());
    app = testApp(deps);
    receiver = await startWebhookReceiver();
    admin = await registerAdmin(app, tenantId);
  });
  afterAll(() => receiver.close());

  const create = (body: Record<string, unknown>, token = admin.token) => app.request('adminCreateWebhook', { token, body });

  it('creates a webhook and shows its secret once; reads, lists, changes and deletes it', async () => {
    const created = await create({
      url: `${receiver.origin}/crud`,
      events: ['identity.user.created', 'identity.user.created'],
      description: ' Billing ',
    });
    const webhook = {
      id: expect.any(String),
      url: `${receiver.origin}/crud`,
      events: ['identity.user.created'],
      description: 'Billing',
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    };
    expect(created).toEqual({
      status: 201,
      headers: noStore,
      body: { success: true, data: { webhook, secret: expect.stringMatching(SECRET) } },
    });
    const { id } = created.body.data.webhook;
    const params = { webhookId: id };

    expect(await app.request('adminReadWebhook', { token: admin.token, pathParameters: params })).toEqual({
      status: 200,
      headers: noStore,
      body: { success: true, data: { webhook: created.body.data.webhook } },
    });
    expect((await app.request('adminListWebhooks', { token: admin.token })).body.data.webhooks).toContainEqual(created.body.data.webhook);

    const changed = await app.request('adminUpdateWebhook', {
      token: admin.token,
      pathParameters: params,
      body: { events: ['identity.user.deleted'] },
    });
    expect(changed).toEqual({
      status: 200,
      headers: noStore,
      body: {
        success: true,
        data: { webhook: { ...created.body.data.webhook, events: ['identity.user.deleted'], updatedAt: expect.stringMatching(ISO) } },
      },
    });
    const [updated] = await lastEvents(deps, tenantId, id);
    expect(updated).toMatchObject({
      type: 'identity.webhook.updated',
      subject: id,
      data: { changed: ['events'], events: ['identity.user.deleted'] },
    });

    expect(await app.request('adminDeleteWebhook', { token: admin.token, pathParameters: params })).toEqual({
      status: 200,
      headers: noStore,
      body: { success: true, data: { message: 'Webhook deleted' } },
    });
    const [deleted] = await lastEvents(deps, tenantId, id);
    expect(deleted).toMatchObject({
      type: 'identity.webhook.deleted',
      subject: id,
      tenantid: tenantId,
      data: { actor: { type: 'user', id: admin.user.id } },
    });
    expect(await app.request('adminReadWebhook', { token: admin.token, pathParameters: params })).toEqual(notFound);
    expect(await app.request('adminDeleteWebhook', { token: admin.token, pathParameters: params })).toEqual(notFound);
    const trail = await app.request('adminListAudit', { token: admin.token, query: { limit: '10' } });
    const audited = trail.body.data.events.filter((event: { details: { webhookId?: string } }) => event.details.webhookId === id);
    // Events of one second are ordered by their random ids: compare them as a set.
    expect(
      audited.map((event: { type: string; outcome: string; actor: unknown }) => [event.type, event.outcome, event.actor]).sort(),
    ).toEqual(
      ['webhook_created', 'webhook_deleted', 'webhook_updated'].map((type) => [type, 'success', { type: 'user', id: admin.user.id }]),
    );
  });

  it('emits identity.webhook.created with its types, never its URL or secret', async () => {
    const created = await create({ url: `${receiver.origin}/token?key=hush`, events: ['identity.login.failed'] });
    const events = await lastEvents(deps, tenantId, created.body.data.webhook.id);
    expect(events).toEqual([
      expect.objectContaining({
        type: 'identity.webhook.created',
        data: { events: ['identity.login.failed'], actor: { type: 'user', id: admin.user.id } },
      }),
    ]);
    expect(JSON.stringify(events)).not.toContain('hush');
    expect(JSON.stringify(events)).not.toContain(created.body.data.secret);
    await app.request('adminDeleteWebhook', { token: admin.token, pathParameters: { webhookId: created.body.data.webhook.id } });
  });

  it.each([
    ['a URL that is not https', { url: 'ftp://example.com/hook' }],
    ['http to a public host', { url: 'http://93.184.216.34/hook' }],
    ['credentials in the URL', { url: 'https://user:pass@93.184.216.34/hook' }],
    ['a private address', { url: 'https://10.0.0.1/hook' }],
    ['the metadata service', { url: 'https://169.254.169.254/latest/meta-data' }],
    ['an IPv4-mapped private address', { url: 'https://[::ffff:192.168.1.1]/hook' }],
    ['a unique-local IPv6 address', { url: 'https://[fd00::1]/hook' }],
    ['a host that does not resolve', { url: 'https://no-such-host.invalid/hook' }],
    ['not a URL', { url: 'hook' }],
  ])('answers 400 Invalid webhook URL for %s', async (_, body) => {
    expect(await create({ events: ['identity.user.created'], ...body })).toEqual(invalidUrl);
  });

  it.each([
    ['no events', { events: [] }, 'events: Too small: expected array to have >=1 items'],
    ['an unknown type', { events: ['identity.user.exploded'] }, 'events.0: Invalid option: expected one of'],
    ['the test type', { events: ['identity.webhook.test'] }, 'events.0: Invalid option: expected one of'],
    ['a wildcard', { events: ['*'] }, 'events.0: Invalid option: expected one of'],
    ['an unknown member', { events: ['identity.user.created'], secret: 'mine' }, 'body: Unrecognized key: "secret"'],
  ])('answers 400 for %s', async (_, body, message) => {
    const response = await create({ url: `${receiver.origin}/x`, ...body });
    expect(response.status).toBe(400);
    expect(response.body.error).toContain(message);
  });

  it('answers 403 to a user who is not an ADMIN of the tenant, and changes nothing', async () => {
    const staff = await registerStaff(app, admin.token, {
      username: 'staff',
      password: 'correct horse battery',
      role: 'MANAGER',
      tenantId,
    });
    const denied = { status: 403, headers: expect.anything(), body: failure('Permission denied') };
    expect(await create({ url: `${receiver.origin}/x`, events: ['identity.user.created'] }, staff.token)).toEqual(denied);
    expect(await app.request('adminListWebhooks', { token: staff.token })).toEqual(denied);
  });

  it('refuses the webhook past the tenant’s tenth, also when they are asked for at once', async () => {
    const other = await registerAdmin(app, uniqueTenant('webhook-limit'));
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => create({ url: `${receiver.origin}/limit`, events: ['identity.user.created'] }, other.token)),
    );
    expect(answers.filter((one) => one.status === 201)).toHaveLength(10);
    expect(answers.filter((one) => one.status !== 201)).toEqual([
      { status: 409, headers: expect.anything(), body: failure('Webhook limit reached', 'WEBHOOK_LIMIT_REACHED') },
      { status: 409, headers: expect.anything(), body: failure('Webhook limit reached', 'WEBHOOK_LIMIT_REACHED') },
    ]);
    // Which of the twelve lost the race is up to the database: delete one that won.
    const first = answers.find((one) => one.status === 201);
    await app.request('adminDeleteWebhook', { token: other.token, pathParameters: { webhookId: first?.body.data.webhook.id } });
    expect((await create({ url: `${receiver.origin}/limit`, events: ['identity.user.created'] }, other.token)).status).toBe(201);
  });

  it('sends a signed test event and answers its outcome, which the delivery log lists', async () => {
    const created = await create({ url: `${receiver.origin}/test-ok`, events: ['identity.user.created'] });
    const { id } = created.body.data.webhook;
    const tested = await app.request('adminTestWebhook', { token: admin.token, pathParameters: { webhookId: id } });
    const delivery = {
      id: expect.stringMatching(/^msg_/),
      eventId: expect.any(String),
      eventType: 'identity.webhook.test',
      attempts: 1,
      status: 'delivered',
      lastStatus: 204,
      lastError: null,
      firstAttemptAt: expect.stringMatching(ISO),
      lastAttemptAt: expect.stringMatching(ISO),
      nextAttemptAt: null,
    };
    expect(tested).toEqual({ status: 200, headers: noStore, body: { success: true, data: { delivery } } });
    const [request] = await receiver.until('/test-ok');
    const verified = new StandardWebhook(created.body.data.secret.replace(/^whsec_/, '')).verify(
      request?.body ?? '',
      request?.headers as Record<string, string>,
    );
    expect(verified).toMatchObject({ type: 'identity.webhook.test', subject: id, tenantid: tenantId });
    expect(request?.headers['webhook-id']).toBe(tested.body.data.delivery.id);

    receiver.behaviour.set('/test-fail', { status: 500 });
    await app.request('adminUpdateWebhook', {
      token: admin.token,
      pathParameters: { webhookId: id },
      body: { url: `${receiver.origin}/test-fail` },
    });
    const failed = await app.request('adminTestWebhook', { token: admin.token, pathParameters: { webhookId: id } });
    expect(failed.body.data.delivery).toEqual({ ...delivery, status: 'failed', lastStatus: 500 });
    expect(
      (await app.request('adminListWebhookDeliveries', { token: admin.token, pathParameters: { webhookId: id } })).body.data.deliveries,
    ).toEqual(expect.arrayContaining([tested.body.data.delivery, failed.body.data.delivery]));
  });

  it('answers 404 for another tenant’s webhook, as for one that never existed', async () => {
    const created = await create({ url: `${receiver.origin}/mine`, events: ['identity.user.created'] });
    const params = { webhookId: created.body.data.webhook.id };
    const other = await registerAdmin(app, uniqueTenant('webhook-other'));
    for (const route of ['adminReadWebhook', 'adminDeleteWebhook', 'adminTestWebhook', 'adminListWebhookDeliveries']) {
      expect(await app.request(route, { token: other.token, pathParameters: params })).toEqual(notFound);
    }
    expect(
      await app.request('adminUpdateWebhook', { token: other.token, pathParameters: params, body: { description: 'mine now' } }),
    ).toEqual(notFound);
    expect((await app.request('adminReadWebhook', { token: admin.token, pathParameters: params })).body.data.webhook).toEqual(
      created.body.data.webhook,
    );
  });
});
