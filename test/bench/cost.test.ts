import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { billedMs, capacityProxy, chooseMemory, functionSettings, HASHING_MB } from '../../bench/cost';
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '../../lib/store/commands';
import { localDynamo } from '../helpers/local-dynamo';

const serverlessYml = readFileSync('serverless.yml', 'utf8');

describe('memory sizes (docs/decisions/030-memory-sizes.md)', () => {
  const functions = functionSettings(serverlessYml);

  it('reads every function of serverless.yml with its size, the provider default where it sets none', () => {
    expect(functions.length).toBeGreaterThan(100);
    expect(functions.find((f) => f.bundle === 'authorizer')).toMatchObject({ functionName: 'authorizer', memoryMB: 256, hashes: false });
    expect(functions.find((f) => f.bundle === 'login')).toMatchObject({ memoryMB: 1024, hashes: true, kms: true, secretReads: 2 });
  });

  it('gives 1024 MB to every function that hashes passwords and to the bulk import, 256 MB to the others', () => {
    const large = functions.filter((f) => f.memoryMB === HASHING_MB).map((f) => f.bundle);
    expect(large.sort()).toEqual([...functions.filter((f) => f.hashes).map((f) => f.bundle), 'admin-import-users'].sort());
    expect(functions.filter((f) => f.memoryMB !== HASHING_MB).every((f) => f.memoryMB === 256)).toBe(true);
  });

  it.each([
    // Peak RSS MiB, hashes, size: what the rule gives.
    ['a function of 70 MiB', 'me', 70, false, 256],
    ['one of 160 MiB (over 60% of 256)', 'me', 160, false, 512],
    ['one that hashes, however small', 'login', 90, true, 1024],
    ['the bulk import', 'admin-import-users', 70, false, 1024],
  ])('chooses for %s', (_, bundle, rss, hashes, size) => {
    expect(chooseMemory(bundle, rss, hashes).sizeMB).toBe(size);
  });

  it('bills CPU stretched by the share of a vCPU, and the waits on DynamoDB, rounded up to the ms', () => {
    expect(billedMs(0.5, 1, 1769)).toBe(5); // 0.5 + 4
    expect(billedMs(0.5, 1, 256)).toBe(8); // 0.5 × 6.91 + 4 = 7.45
    expect(billedMs(10, 0, 3538)).toBe(10); // never faster than one vCPU
  });
});

describe('the capacity proxy in front of DynamoDB Local', () => {
  let proxy: Awaited<ReturnType<typeof capacityProxy>>;
  beforeAll(async () => {
    proxy = await capacityProxy(inject('dynamodbEndpoint'));
  });
  afterAll(() => proxy.close());

  it("counts round trips, commands, read and write units by DynamoDB's rules, and outbox writes", async () => {
    const { doc, table } = localDynamo({ endpoint: proxy.endpoint });
    const pk = `COST#${randomUUID()}`;
    proxy.take();
    // 3,000 bytes: 3 write units, 1 read unit (4 KB) read consistently.
    await doc.send(new PutCommand({ TableName: table, Item: { pk, sk: 'BIG', text: 'x'.repeat(3000) } }));
    const read = await doc.send(new GetCommand({ TableName: table, Key: { pk, sk: 'BIG' }, ConsistentRead: true }));
    // A transaction of two small items: 2 × 2 write units; one of them an outbox item.
    await doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: table, Item: { pk, sk: 'SMALL' } } },
          {
            Update: {
              TableName: table,
              Key: { pk: `${pk}#EVENTS#subject`, sk: 'EVENTS' },
              UpdateExpression: 'SET #n = :n',
              ExpressionAttributeNames: { '#n': 'n' },
              ExpressionAttributeValues: { ':n': 1 },
            },
          },
        ],
      }),
    );
    // A refused conditional write still costs a write unit.
    await expect(
      doc.send(
        new UpdateCommand({
          TableName: table,
          Key: { pk, sk: 'ABSENT' },
          UpdateExpression: 'SET #n = :n',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#n': 'n' },
          ExpressionAttributeValues: { ':n': 1 },
        }),
      ),
    ).rejects.toThrow();
    const traffic = proxy.take();

    expect(read.Item?.text).toHaveLength(3000);
    expect(traffic).toEqual({
      roundTrips: 4,
      readUnits: 1,
      writeUnits: 3 + 4 + 1,
      outboxWrites: 1,
      refusedWrites: 1,
      commands: { PutItem: 1, GetItem: 1, TransactWriteItems: 1, UpdateItem: 1 },
    });
    doc.destroy();
  });

  it('hands the client the answer it asked for, without the capacity it did not ask for', async () => {
    const { doc, table } = localDynamo({ endpoint: proxy.endpoint });
    const answer = await doc.send(new GetCommand({ TableName: table, Key: { pk: `COST#${randomUUID()}`, sk: 'NONE' } }));
    expect(answer).toEqual({});
    doc.destroy();
  });
});
