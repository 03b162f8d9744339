import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { GrantType, OAuthClient } from '../oauth/client';
import { type Dynamo, isConditionalCheckFailed } from './dynamo';
import { keys } from './keys';

export interface OAuthClientStore {
  /** Stores a new client in one conditional write: `exists` if its id is taken, in any tenant. */
  create(client: OAuthClient): Promise<'created' | 'exists'>;
  find(clientId: string): Promise<OAuthClient | undefined>;
}

function toClient(item: Record<string, unknown> | undefined): OAuthClient | undefined {
  if (!item) return undefined;
  return {
    clientId: item.clientId as string,
    tenantId: item.tenantId as string,
    secretHash: item.secretHash as string,
    redirectUris: item.redirectUris as string[],
    grantTypes: item.grantTypes as GrantType[],
    scopes: item.scopes as string[],
    createdAt: item.createdAt as string,
    createdBy: item.createdBy as string,
  };
}

export function dynamoOAuthClientStore({ doc, table }: Dynamo): OAuthClientStore {
  return {
    async create(client) {
      try {
        await doc.send(
          new PutCommand({
            TableName: table,
            Item: { ...keys.oauthClient(client.clientId), ...client },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return 'created';
      } catch (error) {
        if (isConditionalCheckFailed(error)) return 'exists';
        throw error;
      }
    },

    async find(clientId) {
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: keys.oauthClient(clientId), ConsistentRead: true }));
      return toClient(Item);
    },
  };
}
