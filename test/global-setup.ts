import type { TestProject } from 'vitest/node';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureTable } from '../lib/store/table';
import { startDynamoDbLocal } from '../scripts/dynamodb-local';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    tableName: string;
  }
}

/** Starts one in-memory DynamoDB Local for the run, creates the table, and stops it (by PID) at the end. */
export default async function setup(project: TestProject) {
  const db = await startDynamoDbLocal();
  const tableName = 'identity-test';
  const client = new DynamoDBClient({
    endpoint: db.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await ensureTable(client, tableName);
  client.destroy();
  project.provide('dynamodbEndpoint', db.endpoint);
  project.provide('tableName', tableName);
  return () => db.stop();
}
