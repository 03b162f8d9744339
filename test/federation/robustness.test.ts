import { beforeAll, describe, expect, inject, it } from 'vitest';
import { dynamoStores } from '../../lib/deps';
import type { Connection, FederatedClaims } from '../../lib/federation/connection';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { type FaultMode, faultPlan, faultyStores } from '../helpers/faulty-stores';
import { answerOf, federatedSignIn, setOff, storedConnection, verifiedDomain } from '../helpers/federation';
import { browserAuthorize, CookieJar } from '../helpers/hosted';
import { isServiceUnavailable } from '../helpers/http';
import { createTable, scanTable } from '../helpers/isolated-table';
import { losingAnswers, mentioning } from '../helpers/lost-answers';
import { createClient, type TestClient } from '../helpers/oauth';
import { halfWrittenState } from '../helpers/table-invariants';

/*
 * The writes of a federated sign-in (docs/api.md 14.3) under the suites every write
 * joins: concurrent answers, answers lost after DynamoDB applied a write, a fault at every
 * database call, and another tenant's connection. The protocol is left out (the IdP's
 * answer is what the test says); the OIDC and SAML suites break the protocols.
 */

const N = 8;

interface Federated {
  deps: TestDeps;
  app: App;
  tenantId: string;
  client: TestClient;
  connection: Connection;
}

async function federatedTenant(deps: TestDeps, app: App): Promise<Federated> {
  const tenantId = uniqueTenant('fed-robust');
  const admin = await registerAdmin(app, tenantId);
  const client = await createClient(app, admin.token, tenantId, { scope: 'openid orders:read' });
  await verifiedDomain(deps, tenantId);
  const connection = await storedConnection(deps, tenantId);
  return { deps, app, tenantId, client, connection };
}

const claimsOf = (tenantId: string, name: string): FederatedClaims => ({
  subject: `idp|${name}`,
  email: `${name}@${tenantId}.example`,
  roles: ['finance'],
  mfa: false,
});

/** A browser at the hosted sign-in that set off to the IdP: its jar and the pending request's key. */
async function atIdp({ deps, app, client, connection }: Federated) {
  const jar = new CookieJar();
  await browserAuthorize(app, jar, client, { scope: 'openid orders:read' });
  const { key } = await setOff(deps, jar, connection);
  return { jar, key };
}

const signedIn = (status: number) => status === 200 || status === 303;

describe('federated sign-in races (docs/api.md 14.3)', () => {
  let tenant: Federated;
  beforeAll(async () => {
    const deps = await testDeps();
    tenant = await federatedTenant(deps, testApp(deps));
  });

  it(`${N} answers to one pending request at once: exactly one signs in`, async () => {
    const { jar, key } = await atIdp(tenant);
    const claims = claimsOf(tenant.tenantId, 'once');
    const answers = await Promise.all(Array.from({ length: N }, () => answerOf(tenant.deps, jar, key, claims)));
    expect(answers.filter((answer) => signedIn(answer.status))).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 400)).toHaveLength(N - 1);
    expect(await tenant.deps.store.users.findByEmail(tenant.tenantId, claims.email as string)).toHaveLength(1);
  });

  it(`${N} first sign-ins of one new identity at once (${N} browsers): one account, every browser signed in to it`, async () => {
    const claims = claimsOf(tenant.tenantId, 'newcomer');
    const browsers = await Promise.all(Array.from({ length: N }, () => atIdp(tenant)));
    const answers = await Promise.all(browsers.map(({ jar, key }) => answerOf(tenant.deps, jar, key, claims)));
    expect(answers.map((answer) => answer.status).filter(signedIn)).toHaveLength(N);
    const users = await tenant.deps.store.users.findByEmail(tenant.tenantId, claims.email as string);
    expect(users.map((user) => user.role)).toEqual(['FINANCE']);
    expect(await tenant.deps.store.federatedIdentities.find(tenant.tenantId, tenant.connection.id, claims.subject)).toEqual({
      userId: users[0]?.id,
    });
  });
});

describe('federated sign-in writes retried after a lost answer (docs/api.md 14.3)', () => {
  let tenant: Federated;
  let dynamo: ReturnType<typeof losingAnswers>;
  beforeAll(async () => {
    dynamo = losingAnswers();
    const base = await testDeps();
    const deps = { ...base, store: dynamoStores(dynamo, base) } as TestDeps;
    nearRealTime(deps);
    tenant = await federatedTenant(deps, testApp(deps));
  });

  it('a lost answer of the pending request taken, then of the account created with its link: one sign-in, one account', async () => {
    const { jar, key } = await atIdp(tenant);
    const claims = claimsOf(tenant.tenantId, 'lost');
    dynamo.loseNext(mentioning('UpdateItemCommand', 'usedAt'));
    const taken = await answerOf(tenant.deps, jar, key, async () => {
      // The pending request's answer was lost and retried meanwhile; now the account's.
      dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'connectionId'));
      return claims;
    });
    expect(taken.status, String(taken.body).slice(0, 300)).toBe(200);
    expect(dynamo.lost()).toBe(2);
    expect(await tenant.deps.store.users.findByEmail(tenant.tenantId, claims.email as string)).toHaveLength(1);
    // Single use still holds.
    expect((await answerOf(tenant.deps, jar, key, claims)).status).toBe(400);
  });

  it('a lost answer of a link to an existing account: linked once, signed in', async () => {
    const claims = claimsOf(tenant.tenantId, 'linked');
    await federatedSignIn(tenant.deps, tenant.app, tenant.client, tenant.connection, claims);
    const user = (await tenant.deps.store.users.findByEmail(tenant.tenantId, claims.email as string))[0];
    await tenant.deps.store.federatedIdentities.unlink(tenant.tenantId, tenant.connection.id, claims.subject, user?.id ?? '');
    const { jar, key } = await atIdp(tenant);
    dynamo.loseNext(mentioning('PutItemCommand', 'FEDID'));
    const answer = await answerOf(tenant.deps, jar, key, claims);
    expect(signedIn(answer.status), String(answer.body).slice(0, 300)).toBe(true);
    expect(await tenant.deps.store.federatedIdentities.find(tenant.tenantId, tenant.connection.id, claims.subject)).toEqual({
      userId: user?.id,
    });
  });
});

describe('a database fault at every step of a federated sign-in (docs/api.md 14.3)', () => {
  const endpoint = inject('dynamodbEndpoint');
  const plan = faultPlan();
  const tableName = `fault-federation-${Date.now()}`;
  let tenant: Federated;
  let serial = 0;

  beforeAll(async () => {
    await createTable(endpoint, tableName);
    const deps = await testDeps({ TABLE_NAME: tableName });
    nearRealTime(deps);
    deps.store = faultyStores(deps.store, deps.mfaDelivery, plan).stores;
    tenant = await federatedTenant(deps, testApp(deps));
  });

  it('answers 503 or signs in, leaves nothing half-written, and a retry answers without a 5xx', async () => {
    const run = async () => {
      const at = await atIdp(tenant);
      return { ...at, claims: claimsOf(tenant.tenantId, `fault-${serial++}`) };
    };
    const clean = await run();
    plan.reset();
    expect(signedIn((await answerOf(tenant.deps, clean.jar, clean.key, clean.claims)).status)).toBe(true);
    const calls = [...plan.calls];
    expect(calls.length).toBeGreaterThan(5);
    for (let at = 1; at <= calls.length; at++) {
      for (const mode of ['before', 'after'] as FaultMode[]) {
        const fresh = await run();
        plan.arm(at, mode);
        const answer = await answerOf(tenant.deps, fresh.jar, fresh.key, fresh.claims);
        expect(plan.fired()).toBe(true);
        plan.disarm();
        const where = `${mode} call ${at} (${calls[at - 1]})`;
        expect(isServiceUnavailable(answer) || signedIn(answer.status), `${where}: ${answer.status}`).toBe(true);
        expect(halfWrittenState(await scanTable(endpoint, tableName)), where).toEqual([]);
        const again = await answerOf(tenant.deps, fresh.jar, fresh.key, fresh.claims);
        expect(again.status, where).toBeLessThan(500);
      }
    }
  }, 120_000);
});

describe('federation across tenants (docs/api.md 14.3)', () => {
  let deps: TestDeps;
  let ours: Federated;
  let theirs: Federated;
  beforeAll(async () => {
    deps = await testDeps();
    const app = testApp(deps);
    [ours, theirs] = await Promise.all([federatedTenant(deps, app), federatedTenant(deps, app)]);
  });

  it('another tenant’s connection never answers for this tenant’s sign-in', async () => {
    const jar = new CookieJar();
    await browserAuthorize(ours.app, jar, ours.client, { scope: 'openid orders:read' });
    // A pending request of this tenant's interaction, set off to the other tenant's connection.
    const { key } = await setOff(deps, jar, { ...theirs.connection, tenantId: ours.tenantId });
    const answer = await answerOf(deps, jar, key, claimsOf(theirs.tenantId, 'crosser'));
    expect(answer.status).toBe(400);
    expect(await deps.store.users.findByEmail(ours.tenantId, `crosser@${theirs.tenantId}.example`)).toEqual([]);
    expect(await deps.store.users.findByEmail(theirs.tenantId, `crosser@${theirs.tenantId}.example`)).toEqual([]);
  });

  it('GET /sso/begin refuses a connection of another tenant', async () => {
    const jar = new CookieJar();
    await browserAuthorize(ours.app, jar, ours.client);
    const answer = await ours.app.request('ssoBegin', {
      method: 'GET',
      headers: jar.header(),
      query: { connection: theirs.connection.id },
    });
    expect(answer.status).toBe(400);
    expect(String(answer.body)).toContain('Sign-in expired');
  });

  it('an identity of this tenant’s IdP with an address of the other tenant’s verified domain is not allowed', async () => {
    const greedy = await storedConnection(deps, ours.tenantId, { domains: [`${ours.tenantId}.example`, `${theirs.tenantId}.example`] });
    const signed = await federatedSignIn(deps, ours.app, ours.client, greedy, claimsOf(theirs.tenantId, 'victim'));
    expect(signed.refused?.status).toBe(403);
    expect(await deps.store.users.findByEmail(ours.tenantId, `victim@${theirs.tenantId}.example`)).toEqual([]);
  });
});
