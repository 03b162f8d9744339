/**
 * The stored peer's storage: an oidc-provider adapter (its documented `adapter` option)
 * on DynamoDB through the AWS SDK's document client, as a deployment of oidc-provider on
 * AWS would keep it. One table of its own: every model's records under `modelId`
 * (`Client:bench-client`), their payload, `expiresAt` as the TTL, and three indexes for
 * the lookups the adapter interface has (by `uid`, `grantId` and `userCode`), the layout
 * of the DynamoDB adapter contributed to oidc-provider's examples. Reads are strongly
 * consistent, as ours are: a deleted client fails on the next request here too.
 */
import { CreateTableCommand, type DynamoDBClient, ResourceInUseException } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';

type Payload = Record<string, unknown> & { uid?: string; grantId?: string; userCode?: string };

const INDEXES = { uid: 'uidIndex', grantId: 'grantIdIndex', userCode: 'userCodeIndex' } as const;

/** Creates the peer's table (on demand, one string key, the three indexes) unless it is there. */
export async function ensurePeerTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [{ AttributeName: 'modelId', KeyType: 'HASH' }],
        AttributeDefinitions: ['modelId', ...Object.keys(INDEXES)].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
        GlobalSecondaryIndexes: Object.entries(INDEXES).map(([attribute, name]) => ({
          IndexName: name,
          KeySchema: [{ AttributeName: attribute, KeyType: 'HASH' }],
          Projection: { ProjectionType: 'ALL' },
        })),
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
}

/** The adapter class oidc-provider constructs once per model (`Client`, `AccessToken`, `Session`, ...). */
export function dynamoAdapter(doc: DynamoDBDocumentClient, tableName: string) {
  return class DynamoAdapter {
    constructor(readonly model: string) {}

    private key(id: string) {
      return { modelId: `${this.model}:${id}` };
    }

    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      const expiresAt = expiresIn ? Math.floor(Date.now() / 1000) + expiresIn : undefined;
      const set: Record<string, unknown> = { ':payload': payload };
      if (expiresAt !== undefined) set[':expiresAt'] = expiresAt;
      for (const attribute of Object.keys(INDEXES) as Array<keyof typeof INDEXES>)
        if (payload[attribute] !== undefined) set[`:${attribute}`] = payload[attribute];
      const names = Object.keys(set).map((value) => value.slice(1));
      await doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: this.key(id),
          UpdateExpression: `SET ${names.map((name) => `#${name} = :${name}`).join(', ')}`,
          ExpressionAttributeNames: Object.fromEntries(names.map((name) => [`#${name}`, name])),
          ExpressionAttributeValues: set,
        }),
      );
    }

    async find(id: string): Promise<Payload | undefined> {
      const { Item } = await doc.send(new GetCommand({ TableName: tableName, Key: this.key(id), ConsistentRead: true }));
      // DynamoDB removes expired items within days: an expired one is not there.
      if (!Item || (typeof Item.expiresAt === 'number' && Item.expiresAt * 1000 <= Date.now())) return undefined;
      return Item.payload as Payload;
    }

    private async findBy(attribute: keyof typeof INDEXES, value: string): Promise<Payload | undefined> {
      const { Items } = await doc.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: INDEXES[attribute],
          KeyConditionExpression: '#attribute = :value',
          ExpressionAttributeNames: { '#attribute': attribute },
          ExpressionAttributeValues: { ':value': value },
          Limit: 1,
        }),
      );
      const modelId = Items?.[0]?.modelId;
      return typeof modelId === 'string' ? this.find(modelId.slice(this.model.length + 1)) : undefined;
    }

    findByUid(uid: string) {
      return this.findBy('uid', uid);
    }

    findByUserCode(userCode: string) {
      return this.findBy('userCode', userCode);
    }

    async consume(id: string): Promise<void> {
      await doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: this.key(id),
          UpdateExpression: 'SET #payload.#consumed = :now',
          ExpressionAttributeNames: { '#payload': 'payload', '#consumed': 'consumed' },
          ExpressionAttributeValues: { ':now': Math.floor(Date.now() / 1000) },
          ConditionExpression: 'attribute_exists(modelId)',
        }),
      );
    }

    async destroy(id: string): Promise<void> {
      await doc.send(new DeleteCommand({ TableName: tableName, Key: this.key(id) }));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      let start: Record<string, unknown> | undefined;
      do {
        const page = await doc.send(
          new QueryCommand({
            TableName: tableName,
            IndexName: INDEXES.grantId,
            KeyConditionExpression: 'grantId = :grantId',
            ExpressionAttributeValues: { ':grantId': grantId },
            ProjectionExpression: 'modelId',
            ExclusiveStartKey: start,
          }),
        );
        const keys = (page.Items ?? []).map((item) => ({ modelId: item.modelId }));
        for (let i = 0; i < keys.length; i += 25)
          await doc.send(
            new BatchWriteCommand({
              RequestItems: { [tableName]: keys.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } })) },
            }),
          );
        start = page.LastEvaluatedKey;
      } while (start);
    }
  };
}
