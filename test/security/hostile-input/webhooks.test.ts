import fc from 'fast-check';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { webhookChanges } from '../../../lib/webhooks/webhooks';
import { type App, registerAdmin, testApp } from '../../helpers/app';
import { nearRealTime } from '../../helpers/clock';
import { testDeps, uniqueTenant } from '../../helpers/deps';
import { isFailureEnvelope } from '../../helpers/failures';
import type { Response } from '../../helpers/http';
import { createTable, scanTable } from '../../helpers/isolated-table';
import { anyValue, asText, nasty } from './mixed-requests';

/**
 * Hostile bodies and ids to the webhook routes (docs/api.md 17.2), sent by a real ADMIN:
 * every answer a 4xx in the envelope, never a 5xx, and the table unchanged. No URL here
 * is one a delivery may reach (loopback is allowed against DynamoDB Local, so none is a
 * loopback one), so no request can register a webhook.
 */
const RUNS = 80;

/** URLs aimed at the service's own network (also in the spellings WHATWG URL normalises), or not URLs a delivery may use. */
const refusedUrl = fc.oneof(
  nasty,
  fc.constantFrom(
    'http://169.254.169.254/latest/meta-data/',
    'https://169.254.169.254/',
    'https://[::ffff:169.254.169.254]/',
    'https://[fe80::1%25eth0]/',
    'https://10.0.0.1/hook',
    'https://0x0a.1/',
    'https://167772161/',
    'https://012.0.0.1/',
    'https://100.64.0.1/',
    'https://[fd00::1]/',
    'https://user:pass@93.184.216.34/',
    'http://93.184.216.34/',
    'file:///etc/passwd',
    'gopher://127.0.0.1:6379/_INFO',
    'javascript:alert(1)',
    'https://no-such-host.invalid/',
    `https://${'a'.repeat(3000)}.example/`,
    'https://0.0.0.0/',
    'https://255.255.255.255/',
  ),
);
const eventTypes = fc.oneof(
  anyValue,
  fc.array(fc.oneof(nasty, fc.constantFrom('identity.user.created', '*', 'identity.webhook.test', 'IDENTITY.USER.CREATED')), {
    maxLength: 5,
  }),
);
const bodies = fc.oneof(
  fc.record({ url: refusedUrl, events: eventTypes, description: fc.option(anyValue, { nil: undefined }) }, { requiredKeys: ['url'] }),
  fc.dictionary(fc.constantFrom('url', 'events', 'description', 'secret', 'tenantId', '__proto__'), anyValue, { maxKeys: 4 }),
  anyValue,
);

function expectRefusal(response: Response) {
  expect(response.status, JSON.stringify(response.body)).toBeGreaterThanOrEqual(400);
  expect(response.status).toBeLessThan(500);
  expect(isFailureEnvelope(response.body), JSON.stringify(response.body)).toBe(true);
}

describe('hostile input to the webhook routes', () => {
  const endpoint = inject('dynamodbEndpoint');
  const tableName = `hostile-webhooks-${Date.now()}`;
  let app: App;
  let token: string;
  let webhookId: string;
  const snapshot = async () => (await scanTable(endpoint, tableName)).filter((item) => !String(item.pk).includes('#AUDIT#'));

  beforeAll(async () => {
    await createTable(endpoint, tableName);
    const deps = nearRealTime(await testDeps({ TABLE_NAME: tableName }));
    app = testApp(deps);
    token = (await registerAdmin(app, uniqueTenant('hostile-webhooks'))).token;
    const created = await app.request('adminCreateWebhook', {
      token,
      body: { url: 'http://127.0.0.1:9/hook', events: ['identity.user.created'] },
    });
    expect(created.status).toBe(201);
    webhookId = created.body.data.webhook.id;
  });

  it('refuses every hostile POST /admin/webhooks and PATCH of a webhook, and changes nothing', async () => {
    const before = await snapshot();
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => expectRefusal(await app.request('adminCreateWebhook', { token, body: asText(body) }))),
      { numRuns: RUNS },
    );
    const ids = fc.oneof(nasty, fc.uuid(), fc.constant(webhookId));
    const patches = fc
      .oneof(
        fc.record({ url: refusedUrl }),
        fc.record({ events: eventTypes }),
        fc.dictionary(fc.constantFrom('url', 'events', 'secret', 'id', '__proto__'), anyValue, { maxKeys: 3 }),
        anyValue,
      )
      // A well-formed change without a URL is a change (of the real webhook): not hostile.
      .filter((body) => !webhookChanges.safeParse(body).success || (body as { url?: unknown }).url !== undefined);
    await fc.assert(
      fc.asyncProperty(ids, patches, async (id, body) =>
        expectRefusal(await app.request('adminUpdateWebhook', { token, pathParameters: { webhookId: id }, body: asText(body) })),
      ),
      { numRuns: RUNS },
    );
    expect(await snapshot()).toEqual(before);
  }, 120_000);

  it.each(['adminReadWebhook', 'adminDeleteWebhook', 'adminTestWebhook', 'adminListWebhookDeliveries'])(
    'answers hostile ids of %s with a 400 or 404',
    async (route) => {
      const before = await snapshot();
      await fc.assert(
        fc.asyncProperty(fc.oneof(nasty, fc.uuid()), async (id) => {
          const response = await app.request(route, { token, pathParameters: { webhookId: id } });
          expect([400, 404]).toContain(response.status);
          expectRefusal(response);
        }),
        { numRuns: 30 },
      );
      expect(await snapshot()).toEqual(before);
    },
  );
});
