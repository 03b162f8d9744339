import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { AUTHORIZATION_CODE_KEPT_SECONDS, type AuthorizationCode } from '../oauth/authorization-code';
import type { OAuthGrant } from '../oauth/grant';
import { cancellationCodes, type Dynamo, isConditionalCheckFailed } from './dynamo';
import { keys } from './keys';
import { grantWrite } from './oauth-grants';
import { TTL_ATTRIBUTE } from './table';

export interface AuthorizationCodeStore {
  create(code: AuthorizationCode): Promise<void>;
  find(tenantId: string, codeHash: string): Promise<AuthorizationCode | undefined>;
  /**
   * Marks the code used and stores the grant issued from it, in one transaction: of
   * concurrent redemptions exactly one gets true, and no code is ever used without its
   * grant (nor a grant stored for a code used by someone else).
   */
  redeem(code: AuthorizationCode, grant: OAuthGrant, now: number): Promise<boolean>;
}

function toCode(item: Record<string, unknown> | undefined): AuthorizationCode | undefined {
  if (!item) return undefined;
  const { pk: _pk, sk: _sk, [TTL_ATTRIBUTE]: _ttl, useId: _useId, ...code } = item;
  return code as unknown as AuthorizationCode;
}

export function dynamoAuthorizationCodeStore({ doc, table }: Dynamo): AuthorizationCodeStore {
  return {
    async create(code) {
      try {
        await doc.send(
          new PutCommand({
            TableName: table,
            Item: { ...keys.authorizationCode(code.tenantId, code.hash), ...code, [TTL_ATTRIBUTE]: code.createdAt + AUTHORIZATION_CODE_KEPT_SECONDS },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
      } catch (error) {
        // The key is the hash of 256 random bits: a record already there is this write,
        // applied on an attempt whose answer was lost (the SDK retried it).
        if (!isConditionalCheckFailed(error)) throw error;
      }
    },

    async find(tenantId, codeHash) {
      const { Item } = await doc.send(
        new GetCommand({ TableName: table, Key: keys.authorizationCode(tenantId, codeHash), ConsistentRead: true }),
      );
      return toCode(Item);
    },

    async redeem(code, grant, now) {
      // A transaction the SDK retries after a lost answer is idempotent by its client
      // request token. Should a retry still meet its own result, the id random per call
      // that marks the use tells it apart from a redemption by another request.
      const useId = randomUUID();
      try {
        await doc.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Update: {
                  TableName: table,
                  Key: keys.authorizationCode(code.tenantId, code.hash),
                  UpdateExpression: 'SET usedAt = :now, useId = :useId',
                  ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(usedAt)',
                  ExpressionAttributeValues: { ':now': now, ':useId': useId },
                },
              },
              { Update: grantWrite(table, grant) },
            ],
          }),
        );
        return true;
      } catch (error) {
        const reason = cancellationCodes(error)?.[0];
        // A concurrent redemption of the same code is writing it: that one wins.
        if (reason === 'TransactionConflict') return false;
        if (reason !== 'ConditionalCheckFailed') throw error;
        const { Item } = await doc.send(
          new GetCommand({ TableName: table, Key: keys.authorizationCode(code.tenantId, code.hash), ConsistentRead: true }),
        );
        return Item?.useId === useId;
      }
    },
  };
}
