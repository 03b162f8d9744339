/**
 * The SDK's DynamoDB client behind lib/store/dynamo-client.ts's interface, for the
 * benchmark only: `BUILD_DYNAMO_CLIENT=sdk BUILD_DIR=.build/dist-sdk npm run build`
 * builds the functions with it (as they were before the lean client of docs/decisions/001-lean-dynamodb-client.md), so that
 * `npm run bench -- --functions-dir .build/dist-sdk/functions` compares the two builds.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { DocumentCommand } from '../lib/store/commands';
import type { DocumentClient, DynamoClientSettings } from '../lib/store/dynamo-client';

const SDK_COMMANDS = {
  GetItem: GetCommand,
  PutItem: PutCommand,
  UpdateItem: UpdateCommand,
  DeleteItem: DeleteCommand,
  Query: QueryCommand,
  BatchGetItem: BatchGetCommand,
  BatchWriteItem: BatchWriteCommand,
  TransactWriteItems: TransactWriteCommand,
} as const;

export function createDynamoClient(settings: DynamoClientSettings): DocumentClient {
  const client = new DynamoDBClient({
    region: settings.region,
    endpoint: settings.endpoint,
    maxAttempts: settings.maxAttempts,
    credentials: settings.credentials,
    requestHandler: new NodeHttpHandler({
      connectionTimeout: settings.connectionTimeoutMs,
      requestTimeout: settings.requestTimeoutMs,
      throwOnRequestTimeout: true,
    }),
  });
  const doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  return {
    async send<Output>(command: DocumentCommand<unknown, Output>): Promise<Output> {
      const Command = SDK_COMMANDS[command.operation as keyof typeof SDK_COMMANDS];
      // The same input shapes, typed apart: any, in the benchmark only.
      return (await doc.send(new Command(command.input as any) as any)) as Output;
    },
    middlewareStack: { add: () => undefined, remove: () => false },
    destroy: () => doc.destroy(),
  };
}
