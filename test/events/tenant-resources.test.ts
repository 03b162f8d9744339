import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server';
import { cloudEvent, emits } from '../helpers/event-matchers';
import { eventCount, lastEvents } from '../helpers/events';
import { oidcConnection } from '../helpers/federation-admin';
import { createClient, newSecret } from '../helpers/oauth';
import { type Published, publishedEvents } from '../helpers/published-events';
import { scimTokenOf } from '../helpers/scim';
import { secretsIn } from '../helpers/secret-search';

/** The secrets a text must not hold, labelled by position. */
const known = (...values: string[]) => values.map((value, i) => ({ label: `secret ${i}`, value }));

const PASSWORD = 'tenant resources passphrase';

/** The events of the tenant and what it administers (docs/events.md, The tenant's resources). */
describe('events of the tenant’s resources', () => {
  let deps: TestDeps;
  let published: Published;
  let app: App;
  let dns: TestDnsServer;
  const tenantId = uniqueTenant('ev-res');
  let token: string;
  let byAdmin: { type: 'user'; id: string };

  const event = (...args: Parameters<typeof cloudEvent> extends [unknown, unknown, ...infer Rest] ? Rest : never) =>
    cloudEvent(deps, tenantId, ...args);
  const status = async <R extends { status: number; body: unknown }>(response: Promise<R>, expected: number): Promise<R> => {
    const answered = await response;
    expect(answered.status, JSON.stringify(answered.body)).toBe(expected);
    return answered;
  };

  beforeAll(async () => {
    dns = await startDnsServer();
    deps = nearRealTime(await testDeps({ DNS_SERVERS: dns.address }, { streamed: true }));
    app = testApp(deps);
    published = await publishedEvents(deps);
    const admin = await registerAdmin(app, tenantId, 'admin', PASSWORD);
    token = admin.token;
    byAdmin = { type: 'user', id: admin.user.id };
  });
  afterAll(async () => {
    await published.stop();
    await dns.close();
  });

  it('the tenant updated: the names of the settings changed, not their values', async () => {
    const update = () => app.request('adminUpdateTenant', { token, body: { displayName: 'Acme Shops', accentColor: '#112233' } });
    await emits(deps, tenantId, tenantId, () => status(update(), 200), [
      event('identity.tenant.updated', tenantId, byAdmin, { changed: ['displayName', 'accentColor'] }),
    ]);
  });

  it('a shop created; a taken shop id (409) emits nothing', async () => {
    const create = () => app.request('adminCreateShop', { token, body: { shopId: 'ev-res-shop', name: 'Hamburg' } });
    await emits(deps, tenantId, 'ev-res-shop', () => status(create(), 201), [
      event('identity.shop.created', 'ev-res-shop', byAdmin, { shopId: 'ev-res-shop', name: 'Hamburg' }),
    ]);
    await emits(deps, tenantId, 'ev-res-shop', () => status(create(), 409), []);
  });

  it('a client created, updated, its secret rotated, deleted: never the secret', async () => {
    const client = await createClient(app, token, tenantId);
    const { clientId } = client;
    const path = { pathParameters: { clientId } };
    expect(await lastEvents(deps, tenantId, clientId)).toEqual([event('identity.client.created', clientId, byAdmin, { clientId })]);
    const update = () => app.request('updateOAuth2Client', { token, ...path, body: { client_name: 'Till', scope: 'orders:read' } });
    await emits(deps, tenantId, clientId, () => status(update(), 200), [
      event('identity.client.updated', clientId, byAdmin, { clientId, changed: ['clientName', 'scopes'] }),
    ]);
    const secret = newSecret();
    const rotate = () =>
      app.request('rotateOAuth2ClientSecret', { token, ...path, body: { client_secret: secret, previous_secret_expires_in: 60 } });
    await emits(deps, tenantId, clientId, () => status(rotate(), 200), [
      event('identity.client.secret_rotated', clientId, byAdmin, { clientId, previousSecretExpiresIn: 60 }),
    ]);
    // The same secret again is a retry: it changes nothing.
    await emits(deps, tenantId, clientId, () => status(rotate(), 200), []);
    expect(secretsIn(JSON.stringify(await lastEvents(deps, tenantId, clientId)), known(secret, client.clientSecret))).toEqual([]);
    const remove = () => app.request('deleteOAuth2Client', { token, ...path });
    await emits(deps, tenantId, clientId, () => status(remove(), 200), [event('identity.client.deleted', clientId, byAdmin, { clientId })]);
    await emits(deps, tenantId, clientId, () => status(remove(), 404), []);
  });

  it('an invitation created, resent, accepted (with its user created), another revoked; never the address or link', async () => {
    const invite = async (email: string) =>
      (await status(app.request('adminCreateInvitation', { token, body: { email, role: 'OPERATOR' } }), 201)).body.data.invitation
        .id as string;
    const email = `invited.${tenantId}@example.com`;
    const id = await invite(email);
    const data = { role: 'OPERATOR', shopId: deps.config.defaultShopId };
    expect(await lastEvents(deps, tenantId, id)).toEqual([event('identity.invitation.created', id, byAdmin, data)]);
    await emits(deps, tenantId, id, () => status(app.request('adminResendInvitation', { token, pathParameters: { id } }), 200), [
      event('identity.invitation.resent', id, byAdmin, data),
    ]);
    const link = /\/invitations\/(\S+)/.exec((await deps.outbox.emails(email)).at(-1)?.text ?? '')?.[1] ?? '';
    const accepted = await status(app.request('acceptInvitation', { body: { token: link, username: 'invitee', password: PASSWORD } }), 201);
    const userId: string = accepted.body.data.user.id;
    const self = { type: 'user' as const, id: userId };
    expect(await lastEvents(deps, tenantId, id)).toEqual([
      event('identity.invitation.accepted', id, self, { userId, role: 'OPERATOR', shopId: deps.config.defaultShopId }),
    ]);
    // The user's outbox last carried the new session's sign-in: the creation is read off the stream.
    const created = await published.until((one) => one.subject === userId && one.type === 'identity.user.created');
    expect(created).toEqual([
      event('identity.user.created', userId, self, {
        username: 'invitee',
        role: 'OPERATOR',
        shopId: deps.config.defaultShopId,
        via: 'invitation',
      }),
    ]);
    expect(secretsIn(JSON.stringify(await lastEvents(deps, tenantId, id)), known(link, email))).toEqual([]);
    // Accepted: it cannot be revoked (409), and nothing is emitted.
    await emits(deps, tenantId, id, () => status(app.request('adminRevokeInvitation', { token, pathParameters: { id } }), 409), []);

    const other = await invite(`other.${tenantId}@example.com`);
    const revoke = () => app.request('adminRevokeInvitation', { token, pathParameters: { id: other } });
    await emits(deps, tenantId, other, () => status(revoke(), 200), [
      event('identity.invitation.revoked', other, byAdmin, { ...data, reason: 'admin' }),
    ]);
    // Revoked again: the same answer, no second event.
    await emits(deps, tenantId, other, () => status(revoke(), 200), []);
  });

  it('a SCIM token created and deleted: never the token', async () => {
    const { id, token: scimToken } = await scimTokenOf(app, token, 'Okta');
    expect(await lastEvents(deps, tenantId, id)).toEqual([event('identity.scim_token.created', id, byAdmin, { name: 'Okta' })]);
    expect(secretsIn(JSON.stringify(await lastEvents(deps, tenantId, id)), known(scimToken))).toEqual([]);
    const remove = () => app.request('adminDeleteScimToken', { token, pathParameters: { tokenId: id } });
    await emits(deps, tenantId, id, () => status(remove(), 200), [event('identity.scim_token.deleted', id, byAdmin)]);
    await emits(deps, tenantId, id, () => status(remove(), 404), []);
  });

  it('a connection created, updated and deleted: never its client secret', async () => {
    const body = oidcConnection([`${tenantId}.example`]);
    const created = await status(app.request('adminCreateConnection', { token, body }), 201);
    const id: string = created.body.data.connection.id;
    expect(await lastEvents(deps, tenantId, id)).toEqual([
      event('identity.connection.created', id, byAdmin, { connectionId: id, name: 'Acme Okta', type: 'oidc' }),
    ]);
    const update = () =>
      app.request('adminUpdateConnection', {
        token,
        pathParameters: { id },
        body: { clientSecret: 'a-new-client-secret-9f8e7d6c', enabled: false },
      });
    await emits(deps, tenantId, id, () => status(update(), 200), [
      event('identity.connection.updated', id, byAdmin, { connectionId: id, changed: ['enabled', 'clientSecret'] }),
    ]);
    expect(
      secretsIn(JSON.stringify(await lastEvents(deps, tenantId, id)), known('a-new-client-secret-9f8e7d6c', body.clientSecret)),
    ).toEqual([]);
    const remove = () => app.request('adminDeleteConnection', { token, pathParameters: { id } });
    await emits(deps, tenantId, id, () => status(remove(), 200), [
      event('identity.connection.deleted', id, byAdmin, { connectionId: id, name: 'Acme Okta' }),
    ]);
    await emits(deps, tenantId, id, () => status(remove(), 404), []);
  });

  it('a domain added, verified and deleted; a refused verification emits nothing', async () => {
    const domain = `${uniqueTenant('ev-corp')}.example`;
    const added = await status(app.request('adminAddDomain', { token, body: { domain } }), 201);
    expect(await lastEvents(deps, tenantId, domain)).toEqual([event('identity.domain.added', domain, byAdmin, { domain })]);
    const verify = () => app.request('adminVerifyDomain', { token, pathParameters: { domain } });
    await emits(deps, tenantId, domain, () => status(verify(), 400), []);
    const { name, value } = added.body.data.verification;
    dns.txt.set(name, [value]);
    await emits(deps, tenantId, domain, () => status(verify(), 200), [event('identity.domain.verified', domain, byAdmin, { domain })]);
    // Verified already: answered without a write.
    await emits(deps, tenantId, domain, () => status(verify(), 200), []);
    const remove = () => app.request('adminDeleteDomain', { token, pathParameters: { domain } });
    await emits(deps, tenantId, domain, () => status(remove(), 200), [event('identity.domain.deleted', domain, byAdmin, { domain })]);
    await emits(deps, tenantId, domain, () => status(remove(), 404), []);
    expect(await eventCount(deps, tenantId, domain)).toBe(3);
  });
});
