import type { Random } from '../crypto/random';
import { AUTHORIZATION_CODE_KEPT_SECONDS, type AuthorizationCode, authorizationCodeSchema } from '../oauth/authorization-code';
import type { OAuthGrant } from '../oauth/grant';
import { GetCommand } from './commands';
import type { Dynamo } from './dynamo';
import { keys } from './keys';
import { grantWrite } from './oauth-grants';
import { parseRecord } from './records';
import { TTL_ATTRIBUTE } from './table';
import { transactOnce, writeOnce } from './write-once';

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

const toCode = (item: Record<string, unknown> | undefined) => parseRecord(authorizationCodeSchema, 'authorization code', item);

export function dynamoAuthorizationCodeStore(dynamo: Dynamo, random: Random): AuthorizationCodeStore {
  const { doc, table } = dynamo;
  return {
    async create(code) {
      const { written } = await writeOnce(dynamo, random, {
        put: {
          Item: {
            ...keys.authorizationCode(code.tenantId, code.hash),
            ...code,
            [TTL_ATTRIBUTE]: code.createdAt + AUTHORIZATION_CODE_KEPT_SECONDS,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      });
      // The key is the hash of 256 random bits: another record under it is not possible.
      if (!written) throw new Error('Authorization code collision');
    },

    async find(tenantId, codeHash) {
      const { Item } = await doc.send(
        new GetCommand({ TableName: table, Key: keys.authorizationCode(tenantId, codeHash), ConsistentRead: true }),
      );
      return toCode(Item);
    },

    redeem: (code, grant, now) =>
      transactOnce(dynamo, random, [
        {
          Update: {
            TableName: table,
            Key: keys.authorizationCode(code.tenantId, code.hash),
            UpdateExpression: 'SET usedAt = :now',
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(usedAt)',
            ExpressionAttributeValues: { ':now': now },
          },
        },
        { Update: grantWrite(table, grant) },
      ]),
  };
}
