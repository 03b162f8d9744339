import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { type AdminUserView, listUsers, readUser } from '../../lib/admin/users';
import type { Identity } from '../../lib/caller';
import { cryptoRandom } from '../../lib/crypto/random';
import { dynamoStores } from '../../lib/deps';
import type { MfaMethod } from '../../lib/mfa/methods';
import type { Session } from '../../lib/sessions/session';
import { PutCommand } from '../../lib/store/commands';
import type { Dynamo } from '../../lib/store/dynamo';
import { keys } from '../../lib/store/keys';
import type { User } from '../../lib/users/user';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { localDynamo } from '../helpers/local-dynamo';

/**
 * docs/decisions/027-bounded-admin-lists.md: a page of users costs a bounded number of
 * DynamoDB round trips, whatever its size, and answers what reading each user alone does.
 */
const NOW = 1_900_000_000;

/** The stores on a client that counts every request it sends to DynamoDB (each try of a command). */
function countingDeps(base: TestDeps): { deps: TestDeps; sent: string[] } {
  const dynamo: Dynamo = localDynamo();
  const sent: string[] = [];
  dynamo.doc.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push(context.commandName ?? '');
      return next(args);
    },
    { step: 'deserialize', name: 'countRoundTrips' },
  );
  return { deps: { ...base, store: dynamoStores(dynamo, { random: cryptoRandom, clock: base.clock }) }, sent };
}

const userOf = (tenantId: string, i: number): User => ({
  id: `u-${String(i).padStart(3, '0')}-${randomBytes(4).toString('hex')}`,
  tenantId,
  shopId: 'shop-1',
  username: `staff-${i}`,
  role: i === 0 ? 'ADMIN' : 'OPERATOR',
  status: 'active',
  createdAt: new Date((NOW + i) * 1000).toISOString(),
});

const sessionOf = (user: User, createdAt: number): Session => ({
  id: randomBytes(12).toString('base64url'),
  tenantId: user.tenantId,
  userId: user.id,
  amr: ['pwd'],
  createdAt,
  expiresAt: createdAt + 3600,
  refreshHash: randomBytes(16).toString('hex'),
  refreshGeneration: 0,
  retired: {},
});

const identityOf = (admin: User): Identity => ({
  userId: admin.id,
  username: admin.username,
  role: admin.role,
  tenantId: admin.tenantId,
  shopId: admin.shopId,
  sessionId: 'session',
  amr: ['pwd'],
  authTime: NOW,
});

describe('GET /admin/users in a bounded number of round trips (docs/decisions/027-bounded-admin-lists.md)', () => {
  let deps: TestDeps;
  let tenantId: string;
  let users: User[];

  /** Enrolls a method; active after its first code when `activate`. */
  async function enroll(user: User, method: MfaMethod, activate: boolean) {
    const base = { tenantId: user.tenantId, userId: user.id, status: 'pending' as const, createdAt: NOW };
    if (method === 'TOTP') {
      await deps.store.mfa.enroll({ ...base, method, sealedSecret: 'sealed' }, NOW);
      if (activate) expect(await deps.store.mfa.acceptTimeStep(user.tenantId, user.id, 'sealed', 1, NOW)).toBe(true);
      return;
    }
    await deps.store.mfa.enroll({ ...base, method, destination: method === 'SMS' ? '+15550100' : 'a@example.com' }, NOW);
    if (!activate) return;
    await deps.store.mfa.issueCode(user.tenantId, user.id, method, { digest: 'code', sentAt: NOW, expiresAt: NOW + 300 });
    expect(await deps.store.mfa.consumeCode(user.tenantId, user.id, method, 'code', NOW)).toBe(true);
  }

  beforeAll(async () => {
    deps = await testDeps();
    tenantId = uniqueTenant('bounded');
    users = Array.from({ length: 120 }, (_, i) => userOf(tenantId, i));
    // The last written as before activity was kept (no mark): its sessions and methods are found the old way.
    const [admin, ...rest] = users as [User, ...User[]];
    const legacy = rest.pop() as User;
    await deps.store.users.create(admin, { createTenant: true });
    const { doc } = localDynamo();
    await doc.send(
      new PutCommand({
        TableName: deps.config.tableName,
        Item: { ...keys.user(tenantId, legacy.id), ...keys.tenantUser(tenantId, legacy.createdAt, legacy.id), ...legacy },
      }),
    );
    await doc.send(
      new PutCommand({ TableName: deps.config.tableName, Item: { ...keys.username(tenantId, legacy.username), userId: legacy.id } }),
    );
    for (const user of rest) await deps.store.users.create(user, { createTenant: false });
    await Promise.all(
      users.map(async (user, i) => {
        // Most signed in, some twice (the newest counts), a few never.
        if (i % 7 !== 3) await deps.store.sessions.create(sessionOf(user, NOW + 100 + i));
        if (i % 5 === 1) await deps.store.sessions.create(sessionOf(user, NOW + 500 + i));
        if (i % 4 === 1) await enroll(user, 'TOTP', true);
        if (i % 6 === 2) await enroll(user, 'SMS', i % 12 === 2);
        if (i % 9 === 4) await enroll(user, 'EMAIL', true);
      }),
    );
    await enroll(legacy, 'TOTP', true);
    await deps.store.sessions.create(sessionOf(legacy, NOW + 900));
    // Methods removed: disabled, and every factor reset by an ADMIN; the user's activity still names them.
    await enroll(users[10]!, 'TOTP', true);
    expect(await deps.store.mfa.disable(tenantId, users[10]!.id, 'TOTP', [])).toBe(true);
    await deps.store.tenantUsers.eraseMfa(tenantId, users[13]!.id);
  });

  it('answers a page of 100 users in at most 3 DynamoDB requests', async () => {
    const { deps: counted, sent } = countingDeps(deps);
    const page = await listUsers(counted, identityOf(users[0]!), { limit: 100 });
    expect(page.users).toHaveLength(100);
    expect(sent.length).toBeLessThanOrEqual(3);
    // The tenant index (the users with their activity), then the MFA methods they enrolled.
    expect(sent).toEqual(['QueryCommand', 'BatchGetItemCommand']);
  });

  it('reads the sessions of a user written before activity was kept with a query of its own', async () => {
    const { deps: counted, sent } = countingDeps(deps);
    const page = await listUsers(counted, identityOf(users[0]!), { limit: 100 });
    const last = await listUsers(counted, identityOf(users[0]!), { limit: 100, cursor: page.nextCursor ?? undefined });
    expect(last.users.map((user) => user.id)).toEqual(users.slice(100).map((user) => user.id));
    expect(sent.slice(2)).toEqual(['QueryCommand', 'QueryCommand', 'BatchGetItemCommand']);
  });

  it('answers each user as reading that user alone does: the same fields, order and cursor', async () => {
    const first = await listUsers(deps, identityOf(users[0]!), { limit: 100 });
    const second = await listUsers(deps, identityOf(users[0]!), { limit: 100, cursor: first.nextCursor ?? undefined });
    const listed = [...first.users, ...second.users];
    expect(listed.map((user) => user.id)).toEqual(users.map((user) => user.id));
    expect(second.nextCursor).toBeNull();
    const alone: AdminUserView[] = [];
    for (const user of users) alone.push(await readUser(deps, identityOf(users[0]!), user.id));
    expect(listed).toEqual(alone);
    // The page holds what the setup made: methods active, pending, removed; sessions newest first; none.
    expect(listed[1]).toMatchObject({ mfaMethods: ['TOTP'], lastLoginAt: new Date((NOW + 501) * 1000).toISOString() });
    expect(listed[119]).toMatchObject({ mfaMethods: ['TOTP'], lastLoginAt: new Date((NOW + 900) * 1000).toISOString() });
    expect(listed[2]).toMatchObject({ mfaMethods: ['SMS'] });
    expect(listed[3]).toMatchObject({ mfaMethods: [], lastLoginAt: null });
    expect(listed[4]).toMatchObject({ mfaMethods: ['EMAIL'] });
    expect(listed[8]).toMatchObject({ mfaMethods: [] });
    expect(listed[10]).toMatchObject({ mfaMethods: [] });
    expect(listed[13]).toMatchObject({ mfaMethods: [] });
    expect(listed[49]).toMatchObject({ mfaMethods: ['EMAIL', 'TOTP'] });
  });
});
