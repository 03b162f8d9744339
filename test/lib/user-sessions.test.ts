import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { UpdateCommand } from '../../lib/store/commands';
import { keys } from '../../lib/store/keys';
import { EMAIL_INDEX, OWNER_INDEX } from '../../lib/store/table';
import { ensureTable } from '../../lib/store/table-setup';
import { registerAdmin, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { localClient, localDynamo } from '../helpers/local-dynamo';
import { authorizationCode, createClient, tokenRequest } from '../helpers/oauth';

const PASSWORD = 'correct horse battery';

describe("a user's sessions and grants", () => {
  let deps: TestDeps;
  let app: ReturnType<typeof testApp>;
  const dynamo = () => localDynamo();

  beforeAll(async () => {
    deps = nearRealTime(await testDeps());
    app = testApp(deps);
  });

  /** An ADMIN with two sessions (registration and a login), an OAuth client and a grant with a refresh token. */
  async function userWithSessionsAndGrant() {
    const tenantId = uniqueTenant('owner');
    const first = await registerAdmin(app, tenantId, 'owner', PASSWORD);
    const second = (await app.request('login', { body: { username: 'owner', password: PASSWORD, tenantId } })).body.data;
    const client = await createClient(app, first.token, tenantId);
    const { code, verifier } = await authorizationCode(app, first.token, client);
    const grant = (
      await app.request(
        'oauth2Token',
        tokenRequest(client, { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: verifier }),
      )
    ).body;
    return { tenantId, userId: first.user.id as string, first, second, client, grant };
  }

  const setUser = (tenantId: string, userId: string, fields: Record<string, unknown>) =>
    dynamo().doc.send(
      new UpdateCommand({
        TableName: inject('tableName'),
        Key: keys.user(tenantId, userId),
        UpdateExpression: `SET ${Object.keys(fields)
          .map((_name, i) => `#f${i} = :f${i}`)
          .join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(Object.keys(fields).map((name, i) => [`#f${i}`, name])),
        ExpressionAttributeValues: Object.fromEntries(Object.values(fields).map((value, i) => [`:f${i}`, value])),
      }),
    );

  it("carries the user's current role and shop on the next request, whatever the token says", async () => {
    const { tenantId, userId, first } = await userWithSessionsAndGrant();
    await setUser(tenantId, userId, { role: 'ANALYST', shopId: 'shop-2' });
    const me = await app.request('me', { token: first.token });
    expect(me.body.data.user).toMatchObject({ userId, role: 'ANALYST', shopId: 'shop-2' });
    // The stale ADMIN claim in the token no longer opens ADMIN routes.
    expect(
      await app.request('createOAuth2Client', {
        token: first.token,
        body: {
          client_id: 'x-client',
          client_secret: 'y'.repeat(40),
          redirect_uri: 'https://a.example/cb',
          grant_types: 'client_credentials',
        },
      }),
    ).toMatchObject({
      status: 403,
      body: failure('Permission denied'),
    });
  });

  it("refuses every session of a disabled user on its next request, and its grants' tokens", async () => {
    const { tenantId, userId, first, second, client, grant } = await userWithSessionsAndGrant();
    await setUser(tenantId, userId, { status: 'disabled' });
    for (const token of [first.token, second.token]) {
      expect(await app.request('me', { token })).toMatchObject({ status: 401, body: failure('Unauthorized') });
    }
    const introspected = await app.request('introspect', tokenRequest(client, { token: grant.access_token }));
    expect(introspected.body).toEqual({ active: false });
  });

  it('revokes every session and grant but the kept session in one step, and lists them newest first', async () => {
    const { tenantId, userId, first, second, client, grant } = await userWithSessionsAndGrant();
    const listed = await deps.store.sessions.listByUser(tenantId, userId);
    expect(listed.map((session) => session.userId)).toEqual([userId, userId]);
    expect(listed[0]!.createdAt).toBeGreaterThanOrEqual(listed[1]!.createdAt);
    expect((await deps.store.oauthGrants.listBySubject(tenantId, userId)).map((g) => g.clientId)).toEqual([client.clientId]);

    const user = await deps.store.users.findById(tenantId, userId);
    const keep = String(decodeJwt(second.token).sid);
    expect(await deps.store.users.revokeSessions(user!, { keepSessionId: keep })).toBe(true);
    // A second revocation from the same stale read is refused: the caller reads again.
    expect(await deps.store.users.revokeSessions(user!)).toBe(false);

    expect(await app.request('me', { token: first.token })).toMatchObject({ status: 401 });
    expect(await app.request('refreshToken', { body: { refreshToken: first.refreshToken } })).toMatchObject({
      status: 401,
      body: failure('Invalid refresh token'),
    });
    expect(await app.request('me', { token: second.token })).toMatchObject({ status: 200 });
    expect((await app.request('refreshToken', { body: { refreshToken: second.refreshToken } })).status).toBe(200);

    expect((await app.request('introspect', tokenRequest(client, { token: grant.access_token }))).body).toEqual({ active: false });
    const refreshed = await app.request(
      'oauth2Token',
      tokenRequest(client, { grant_type: 'refresh_token', refresh_token: grant.refresh_token }),
    );
    expect(refreshed).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('refuses to keep a session of another user', async () => {
    const a = await userWithSessionsAndGrant();
    const b = await userWithSessionsAndGrant();
    const user = await deps.store.users.findById(a.tenantId, a.userId);
    const otherSession = String(decodeJwt(b.first.token).sid);
    expect(await deps.store.users.revokeSessions(user!, { keepSessionId: otherSession })).toBe(false);
    expect(await app.request('me', { token: a.first.token })).toMatchObject({ status: 200 });
  });
});

describe('the indexes of an older table', () => {
  // A table made before the email index (DynamoDB Local builds an added index in the
  // background, which on a busy machine takes long: the last one added is not waited for).
  it('get the index they lack, and are left alone once they have it', async () => {
    const client = localClient();
    const tableName = `old-table-${Date.now()}`;
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
          { AttributeName: OWNER_INDEX.partitionKey, AttributeType: 'S' },
          { AttributeName: OWNER_INDEX.sortKey, AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [
          {
            IndexName: OWNER_INDEX.name,
            KeySchema: [
              { AttributeName: OWNER_INDEX.partitionKey, KeyType: 'HASH' },
              { AttributeName: OWNER_INDEX.sortKey, KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          },
        ],
      }),
    );
    expect(await ensureTable(client, tableName)).toBe('indexed');
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    expect(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName).sort()).toEqual([OWNER_INDEX.name, EMAIL_INDEX.name].sort());
    expect(await ensureTable(client, tableName)).toBe('exists');
    client.destroy();
  });
});
