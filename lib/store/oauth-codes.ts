import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { AUTHORIZATION_CODE_KEPT_SECONDS, type AuthorizationCode } from '../oauth/authorization-code';
import { type Dynamo, isConditionalCheckFailed } from './dynamo';
import { keys } from './keys';
import { TTL_ATTRIBUTE } from './table';

export interface AuthorizationCodeStore {
  create(code: AuthorizationCode): Promise<void>;
  find(tenantId: string, codeHash: string): Promise<AuthorizationCode | undefined>;
  /** Marks the code used in one conditional write: of concurrent redemptions exactly one gets true. */
  consume(tenantId: string, codeHash: string, now: number): Promise<boolean>;
}

function toCode(item: Record<string, unknown> | undefined): AuthorizationCode | undefined {
  if (!item) return undefined;
  const { pk: _pk, sk: _sk, [TTL_ATTRIBUTE]: _ttl, ...code } = item;
  return code as unknown as AuthorizationCode;
}

export function dynamoAuthorizationCodeStore({ doc, table }: Dynamo): AuthorizationCodeStore {
  return {
    async create(code) {
      await doc.send(
        new PutCommand({
          TableName: table,
          Item: { ...keys.authorizationCode(code.tenantId, code.hash), ...code, [TTL_ATTRIBUTE]: code.createdAt + AUTHORIZATION_CODE_KEPT_SECONDS },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    },

    async find(tenantId, codeHash) {
      const { Item } = await doc.send(
        new GetCommand({ TableName: table, Key: keys.authorizationCode(tenantId, codeHash), ConsistentRead: true }),
      );
      return toCode(Item);
    },

    async consume(tenantId, codeHash, now) {
      try {
        await doc.send(
          new UpdateCommand({
            TableName: table,
            Key: keys.authorizationCode(tenantId, codeHash),
            UpdateExpression: 'SET usedAt = :now',
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(usedAt)',
            ExpressionAttributeValues: { ':now': now },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return false;
        throw error;
      }
    },
  };
}
