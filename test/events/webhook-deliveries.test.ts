import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDeliverableAddress } from '../../lib/deliveries/addresses';
import { attemptDelivery } from '../../lib/deliveries/attempt';
import type { Delivery } from '../../lib/deliveries/delivery';
import { localDeliveryQueue } from '../../lib/deliveries/local-queue';
import { FIRST_RETRY_MS, nextAttemptAt, RETRY_WINDOW_MS } from '../../lib/deliveries/schedule';
import { ATTEMPT_LIMITS, sendAttempt } from '../../lib/deliveries/send';
import { consumeDeliveries, MAX_DELAY_SECONDS, type SqsSender, sqsDeliveryQueue } from '../../lib/deliveries/sqs-queue';
import { newEvent } from '../../lib/events/event';
import type { Identity } from '../../lib/tokens/access-token';
import { webhookPlanner, webhookRequest } from '../../lib/webhooks/deliveries';
import { createWebhook, deleteWebhook } from '../../lib/webhooks/webhooks';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server';
import { type Published, publishedEvents } from '../helpers/published-events';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

const makers = { webhook: webhookRequest };
const verify = (secret: string, request: { body: string; headers: Record<string, unknown> }) =>
  new StandardWebhook(secret.replace(/^whsec_/, '')).verify(request.body, request.headers as Record<string, string>);

describe('webhook deliveries (docs/api.md 17.2)', () => {
  let deps: TestDeps;
  let receiver: WebhookReceiver;
  const tenantId = uniqueTenant('deliveries');
  const admin = { tenantId, userId: 'admin-1' } as Identity;
  const webhookTo = (path: string, events = ['identity.user.created'] as const) =>
    createWebhook(deps, admin, { url: `${receiver.origin}${path}`, events: [...events] });
  /** The deliveries the planner makes of one new event of the tenant. */
  const plan = async (type: 'identity.user.created' = 'identity.user.created', tenant = tenantId) =>
    webhookPlanner(deps, [
      { ...newEvent(deps, { tenantId: tenant, type, subject: 'user-1', actor: { type: 'system', id: null } }), sequence: '1' },
    ]);
  const logOf = (webhookId: string, tenant = tenantId) => deps.store.deliveryLog.list(tenant, 'webhook', webhookId, 50);

  beforeAll(async () => {
    deps = await testDeps({}, { streamed: true });
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver.close());

  it('plans one delivery per subscribed webhook, whose request is the event, signed (Standard Webhooks)', async () => {
    const subscribed = await webhookTo('/signed');
    const other = await webhookTo('/other', ['identity.user.deleted'] as never);
    const deliveries = await plan();
    expect(deliveries).toEqual([
      {
        id: expect.stringMatching(/^msg_/),
        kind: 'webhook',
        tenantId,
        target: subscribed.webhook.id,
        payload: expect.objectContaining({ type: 'identity.user.created' }),
        attempt: 1,
        firstAttemptAt: deps.clock.now(),
      },
    ]);
    const [delivery] = deliveries as [Delivery];
    expect(await attemptDelivery(deps, { makers }, delivery)).toBeUndefined();
    const [request] = await receiver.until('/signed');
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json',
      'webhook-id': delivery.id,
      'user-agent': expect.stringMatching(/^identity-service-webhooks/),
    });
    expect(verify(subscribed.secret, request as never)).toEqual(delivery.payload);
    expect(() => verify(other.secret, request as never)).toThrow();
    expect(await logOf(subscribed.webhook.id)).toEqual([
      expect.objectContaining({
        id: delivery.id,
        eventId: delivery.payload.id,
        status: 'delivered',
        attempts: 1,
        lastStatus: 204,
        lastError: null,
      }),
    ]);
  });

  it('tries again after a 500 with the same webhook-id and a fresh timestamp, the first retry within 30 s', async () => {
    const { webhook, secret } = await webhookTo('/flaky');
    receiver.behaviour.set('/flaky', { status: 500 });
    const [delivery] = (await plan()).filter((one) => one.target === webhook.id) as [Delivery];
    const next = await attemptDelivery(deps, { makers, jitter: () => 0.999 }, delivery);
    expect(next).toEqual({ delivery: { ...delivery, attempt: 2 }, dueAt: expect.any(Number) });
    expect((next?.dueAt ?? 0) - deps.clock.now()).toBeLessThanOrEqual(FIRST_RETRY_MS);
    expect(await logOf(webhook.id)).toEqual([
      expect.objectContaining({
        status: 'retrying',
        attempts: 1,
        lastStatus: 500,
        nextAttemptAt: new Date(next?.dueAt ?? 0).toISOString(),
      }),
    ]);

    receiver.behaviour.set('/flaky', { status: 200 });
    deps.clock.advance(30);
    expect(await attemptDelivery(deps, { makers }, next?.delivery as Delivery)).toBeUndefined();
    const [first, second] = await receiver.until('/flaky', 2);
    expect(second?.headers['webhook-id']).toBe(first?.headers['webhook-id']);
    expect(Number(second?.headers['webhook-timestamp']) - Number(first?.headers['webhook-timestamp'])).toBe(30);
    expect(verify(secret, second as never)).toEqual(delivery.payload);
    expect(await logOf(webhook.id)).toEqual([
      expect.objectContaining({ status: 'delivered', attempts: 2, lastStatus: 200, nextAttemptAt: null }),
    ]);
  });

  it('keeps trying with growing waits for 24 hours after the first attempt, then parks the delivery as failed', async () => {
    const waits: number[] = [];
    let at = 0;
    for (let attempt = 1; ; attempt++) {
      const due = nextAttemptAt({ attempt, firstAttemptAt: 0 }, at, 0.5);
      if (due === undefined) break;
      waits.push(due - at);
      at = due;
    }
    expect(waits[0]).toBeLessThanOrEqual(FIRST_RETRY_MS);
    expect(waits).toEqual([...waits].sort((a, b) => a - b));
    expect(at).toBeLessThanOrEqual(RETRY_WINDOW_MS);
    expect(at).toBeGreaterThan(RETRY_WINDOW_MS - 3600_000);

    const { webhook } = await webhookTo('/down');
    receiver.behaviour.set('/down', { status: 503 });
    const [delivery] = (await plan()).filter((one) => one.target === webhook.id) as [Delivery];
    deps.clock.advance(24 * 3600 - 10);
    expect(await attemptDelivery(deps, { makers }, { ...delivery, attempt: 31 })).toBeUndefined();
    expect(await logOf(webhook.id)).toEqual([
      expect.objectContaining({ status: 'failed', attempts: 31, lastStatus: 503, nextAttemptAt: null }),
    ]);
  });

  it('ends a delivery whose webhook was deleted or no longer subscribes', async () => {
    const { webhook } = await webhookTo('/gone');
    const [delivery] = (await plan()).filter((one) => one.target === webhook.id) as [Delivery];
    await deleteWebhook(deps, admin, webhook.id);
    expect(await attemptDelivery(deps, { makers }, delivery)).toBeUndefined();
    expect(receiver.received.filter((one) => one.path === '/gone')).toEqual([]);
  });

  describe('what a receiver can do to an attempt', () => {
    it('a redirect is a failed attempt, never followed', async () => {
      receiver.behaviour.set('/redirect', { redirectTo: `${receiver.origin}/elsewhere` });
      expect(await sendAttempt(deps.config, { url: `${receiver.origin}/redirect`, headers: {}, body: '{}' })).toEqual({
        delivered: false,
        status: 307,
      });
      expect(receiver.received.filter((one) => one.path === '/elsewhere')).toEqual([]);
    });

    it('an endless answer is read to 64 KiB and cut', async () => {
      receiver.behaviour.set('/endless', 'endless');
      const started = Date.now();
      expect(await sendAttempt(deps.config, { url: `${receiver.origin}/endless`, headers: {}, body: '{}' })).toEqual({
        delivered: true,
        status: 200,
      });
      expect(Date.now() - started).toBeLessThan(ATTEMPT_LIMITS.totalMs);
    });

    it('a receiver that never answers costs the attempt its time limit', async () => {
      receiver.behaviour.set('/hang', 'hang');
      const started = Date.now();
      const outcome = await sendAttempt(
        deps.config,
        { url: `${receiver.origin}/hang`, headers: {}, body: '{}' },
        { ...ATTEMPT_LIMITS, totalMs: 300 },
      );
      expect(outcome).toEqual({ delivered: false, error: 'timeout' });
      expect(Date.now() - started).toBeLessThan(1000);
    });

    it('a receiver that refuses connections is a failed attempt', async () => {
      const closed = await startWebhookReceiver();
      await closed.close();
      expect(await sendAttempt(deps.config, { url: `${closed.origin}/x`, headers: {}, body: '{}' })).toEqual({
        delivered: false,
        error: 'connection_failed',
      });
    });

    it('a tenant whose receiver hangs does not hold another tenant’s deliveries', async () => {
      const slowTenant = uniqueTenant('deliveries-slow');
      receiver.behaviour.set('/slow-tenant', 'hang');
      await createWebhook(deps, { tenantId: slowTenant, userId: 'admin-2' } as Identity, {
        url: `${receiver.origin}/slow-tenant`,
        events: ['identity.user.created'],
      });
      const { webhook } = await webhookTo('/quick-tenant');
      const queue = localDeliveryQueue(deps, {
        makers,
        send: (settings, request) => sendAttempt(settings, request, { ...ATTEMPT_LIMITS, totalMs: 2000 }),
      });
      await queue.enqueue([...(await plan('identity.user.created', slowTenant)), ...(await plan())]);
      const started = Date.now();
      await receiver.until('/quick-tenant');
      // The quick receiver's delivery is logged (just after its answer) while the slow one still hangs.
      let logged = await logOf(webhook.id);
      while (logged.length === 0 && Date.now() - started < 1000) logged = await logOf(webhook.id);
      expect(Date.now() - started).toBeLessThan(1000);
      expect(logged).toEqual([expect.objectContaining({ status: 'delivered' })]);
      queue.stop();
    });
  });

  describe('the SSRF rules', () => {
    it.each([
      ['127.0.0.1', 'loopback'],
      ['10.1.2.3', 'RFC 1918'],
      ['172.16.0.1', 'RFC 1918'],
      ['192.168.1.1', 'RFC 1918'],
      ['169.254.169.254', 'the metadata service'],
      ['100.64.0.1', 'CGNAT'],
      ['0.0.0.0', 'this network'],
      ['224.0.0.1', 'multicast'],
      ['255.255.255.255', 'broadcast'],
      ['::1', 'IPv6 loopback'],
      ['fe80::1', 'IPv6 link-local'],
      ['fd12:3456::1', 'unique-local'],
      ['ff02::1', 'IPv6 multicast'],
      ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
      ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata service (hex)'],
      ['64:ff9b::a00:1', 'NAT64 of RFC 1918'],
    ])('refuses %s (%s)', (address) => {
      expect(isDeliverableAddress(address, false)).toBe(false);
    });

    it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('accepts the public address %s', (address) => {
      expect(isDeliverableAddress(address, false)).toBe(true);
    });

    it('re-checks the host at every attempt, and connects to the address it checked (DNS rebinding)', async () => {
      let dns: TestDnsServer | undefined;
      try {
        dns = await startDnsServer();
        const strict = { ...deps, config: { ...deps.config, dnsServers: [dns.address], loopbackIdentityProviders: false } };
        dns.addresses.set('hooks.example.test', ['93.184.216.34']);
        const { webhook } = await createWebhook(strict, admin, {
          url: `https://hooks.example.test:${receiver.port}/rebound`,
          events: ['identity.user.created'],
        });
        expect(webhook.url).toBe(`https://hooks.example.test:${receiver.port}/rebound`);
        for (const rebound of ['127.0.0.1', '10.0.0.1', '::ffff:169.254.169.254']) {
          dns.addresses.set('hooks.example.test', rebound.includes(':') ? ['93.184.216.34', rebound] : [rebound]);
          expect(await sendAttempt(strict.config, { url: webhook.url, headers: {}, body: '{}' })).toEqual({
            delivered: false,
            error: 'address_refused',
          });
        }
        expect(receiver.received.filter((one) => one.path === '/rebound')).toEqual([]);
        // The connection goes to the address the check resolved (the system resolver knows no
        // such host): loopback, allowed against DynamoDB Local, with the URL's host name kept.
        dns.addresses.set('pinned.example.test', ['127.0.0.1']);
        const pinned = { ...deps.config, dnsServers: [dns.address] };
        const url = `http://pinned.example.test:${receiver.port}/pinned`;
        expect(await sendAttempt(pinned, { url, headers: {}, body: '{}' })).toEqual({ delivered: true, status: 204 });
        expect((await receiver.until('/pinned'))[0]?.headers.host).toBe(`pinned.example.test:${receiver.port}`);
      } finally {
        await dns?.close();
      }
    });
  });

  describe('the SQS queue', () => {
    const sent: Array<{ QueueUrl?: string; Entries?: Array<{ MessageBody?: string; DelaySeconds?: number }> }> = [];
    const sqs: SqsSender = {
      async send(command) {
        sent.push(command.input);
        return { Failed: [] };
      },
    };

    it('sends a delivery due later than 15 minutes on by hops, and queues the next attempt of a failed one', async () => {
      const queue = sqsDeliveryQueue(sqs, 'https://sqs.example/queue', deps.clock);
      const { webhook } = await webhookTo('/sqs');
      receiver.behaviour.set('/sqs', { status: 500 });
      const [delivery] = (await plan()).filter((one) => one.target === webhook.id) as [Delivery];
      const records = [
        { messageId: 'later', body: JSON.stringify({ delivery, dueAt: deps.clock.now() + 3600_000 }) },
        { messageId: 'now', body: JSON.stringify({ delivery, dueAt: deps.clock.now() }) },
        { messageId: 'junk', body: '{"not":"a delivery"}' },
      ];
      expect(await consumeDeliveries(deps, { makers, jitter: () => 0 }, queue, records)).toEqual({ batchItemFailures: [] });
      const messages = sent.flatMap((one) => one.Entries ?? []).map((entry) => ({ ...entry, body: JSON.parse(entry.MessageBody ?? '') }));
      expect(messages).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ DelaySeconds: MAX_DELAY_SECONDS, body: { delivery, dueAt: deps.clock.now() + 3600_000 } }),
          expect.objectContaining({
            DelaySeconds: FIRST_RETRY_MS / 2000,
            body: { delivery: { ...delivery, attempt: 2 }, dueAt: deps.clock.now() + FIRST_RETRY_MS / 2 },
          }),
        ]),
      );
      expect(messages).toHaveLength(2);
    });
  });

  it('end to end: a change of a webhook reaches a receiver subscribed to it, signed, through the stream and the queue', async () => {
    // Earlier tests moved the clock a day on: a receiver checks the timestamp against its own clock.
    deps.clock.set(Math.floor(Date.now() / 1000) * 1000);
    const queue = localDeliveryQueue(deps, { makers });
    const published: Published = await publishedEvents(deps, { planners: [webhookPlanner], queue });
    try {
      const { webhook, secret } = await createWebhook(deps, admin, { url: `${receiver.origin}/e2e`, events: ['identity.webhook.deleted'] });
      const doomed = await webhookTo('/doomed');
      await deleteWebhook(deps, admin, doomed.webhook.id);
      const [request] = await receiver.until('/e2e', 1, 15_000);
      expect(verify(secret, request as never)).toMatchObject({
        type: 'identity.webhook.deleted',
        subject: doomed.webhook.id,
        tenantid: tenantId,
        sequence: '2',
      });
      await queue.settled();
      expect((await logOf(webhook.id))[0]).toMatchObject({ status: 'delivered', eventType: 'identity.webhook.deleted' });
    } finally {
      queue.stop();
      await published.stop();
    }
  });
});
