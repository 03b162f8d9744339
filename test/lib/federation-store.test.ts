import { beforeAll, describe, expect, it } from 'vitest';
import type { Connection } from '../../lib/federation/connection';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';

describe('the federation store (lib/store/federation.ts)', () => {
  let deps: TestDeps;
  beforeAll(async () => {
    deps = await testDeps();
  });

  const connection = (tenantId: string): Connection => ({
    id: deps.random.id(),
    tenantId,
    type: 'saml',
    name: 'Okta',
    domains: ['example.com'],
    defaultRole: 'ANALYST',
    jitProvisioning: true,
    ssoRequired: false,
    enabled: true,
    createdAt: new Date().toISOString(),
    updatedAt: new Date().toISOString(),
    createdBy: 'admin',
    idpEntityId: 'https://idp.example.com',
    ssoUrl: 'https://idp.example.com/sso',
    signingCertificates: ['-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----'],
  });

  it('keeps a connection to its tenant: another tenant can neither change nor delete it', async () => {
    const tenantId = uniqueTenant('fed-store');
    const stored = connection(tenantId);
    expect(await deps.store.connections.create(stored)).toBe(true);
    expect(await deps.store.connections.find(stored.id)).toEqual(stored);
    const stranger = { id: stored.id, tenantId: uniqueTenant('fed-store') };
    expect(await deps.store.connections.update(stranger, { name: 'Mine', updatedAt: 'now' })).toBeUndefined();
    expect(await deps.store.connections.delete(stranger)).toBe(false);
    const changed = await deps.store.connections.update(stored, { enabled: false, roleMapping: undefined, updatedAt: 'later' });
    expect(changed).toMatchObject({ enabled: false, updatedAt: 'later', name: 'Okta' });
    expect(await deps.store.connections.delete(stored)).toBe(true);
    expect(await deps.store.connections.find(stored.id)).toBeUndefined();
  });

  it('verifies a domain for one tenant only, and frees it when that tenant deletes it', async () => {
    const [first, second] = [uniqueTenant('fed-store'), uniqueTenant('fed-store')];
    const domain = `${deps.random
      .token(6)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, 'x')}.example`;
    const pending = (tenantId: string) => ({ tenantId, domain, status: 'pending' as const, token: 't', createdAt: 'now' });
    expect(await deps.store.domains.create(pending(first))).toBe('created');
    expect(await deps.store.domains.create(pending(first))).toBe('exists');
    expect(await deps.store.domains.create(pending(second))).toBe('created');
    expect(await deps.store.domains.claimOf(domain)).toBeUndefined();

    const outcomes = await Promise.all([
      deps.store.domains.verify({ tenantId: first, domain }, 'then').catch(() => 'conflict'),
      deps.store.domains.verify({ tenantId: second, domain }, 'then').catch(() => 'conflict'),
    ]);
    expect(outcomes.filter((outcome) => outcome === 'verified')).toHaveLength(1);
    const holder = (await deps.store.domains.claimOf(domain))?.tenantId;
    const loser = holder === first ? second : first;
    expect(await deps.store.domains.verify({ tenantId: loser, domain }, 'again')).toBe('claimed');
    expect(await deps.store.domains.verify({ tenantId: holder as string, domain }, 'again')).toBe('verified');
    expect((await deps.store.domains.find(loser, domain))?.status).toBe('pending');

    // The loser deleting its pending domain leaves the holder's claim.
    expect(await deps.store.domains.delete(loser, domain)).toBe(true);
    expect((await deps.store.domains.claimOf(domain))?.tenantId).toBe(holder);
    expect(await deps.store.domains.delete(holder as string, domain)).toBe(true);
    expect(await deps.store.domains.claimOf(domain)).toBeUndefined();
    expect(await deps.store.domains.verify({ tenantId: holder as string, domain }, 'gone')).toBe('gone');
  });

  it('answers a pending federation request once, and never after it expired', async () => {
    const now = Math.floor(Date.now() / 1000);
    const request = (key: string, expiresAt: number) => ({
      key,
      tenantId: 't',
      connectionId: 'c',
      interactionId: 'i',
      browserHash: 'h',
      createdAt: now,
      expiresAt,
    });
    const key = deps.random.token(32);
    await deps.store.federationRequests.create(request(key, now + 600));
    const answers = await Promise.all([1, 2, 3].map(() => deps.store.federationRequests.consume(key, now)));
    expect(answers.filter(Boolean)).toEqual([expect.objectContaining({ key, interactionId: 'i' })]);
    const old = deps.random.token(32);
    await deps.store.federationRequests.create(request(old, now - 1));
    expect(await deps.store.federationRequests.consume(old, now)).toBeUndefined();
  });

  it('accepts a SAML assertion id once per connection', async () => {
    const id = `_${deps.random.token(16)}`;
    expect(await deps.store.samlAssertions.accept('conn-a', id, 9_999_999_999)).toBe(true);
    expect(await deps.store.samlAssertions.accept('conn-a', id, 9_999_999_999)).toBe(false);
    expect(await deps.store.samlAssertions.accept('conn-b', id, 9_999_999_999)).toBe(true);
  });

  it('links an identity to one user, and unlinks it only for that user', async () => {
    const tenantId = uniqueTenant('fed-store');
    expect(await deps.store.federatedIdentities.link(tenantId, 'c', 'sub-1', 'user-1', 'now')).toBe(true);
    expect(await deps.store.federatedIdentities.link(tenantId, 'c', 'sub-1', 'user-2', 'now')).toBe(false);
    expect(await deps.store.federatedIdentities.find(tenantId, 'c', 'sub-1')).toEqual({ userId: 'user-1' });
    expect(await deps.store.federatedIdentities.find(uniqueTenant('fed-store'), 'c', 'sub-1')).toBeUndefined();
    await deps.store.federatedIdentities.unlink(tenantId, 'c', 'sub-1', 'user-2');
    expect(await deps.store.federatedIdentities.find(tenantId, 'c', 'sub-1')).toEqual({ userId: 'user-1' });
    await deps.store.federatedIdentities.unlink(tenantId, 'c', 'sub-1', 'user-1');
    expect(await deps.store.federatedIdentities.find(tenantId, 'c', 'sub-1')).toBeUndefined();
  });
});
