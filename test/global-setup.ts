import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../scripts/dynamodb-local';
import { createTable } from './helpers/isolated-table';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    tableName: string;
  }
}

/** Starts one in-memory DynamoDB Local for the run, creates the table, and stops it (by PID) at the end. */
export default async function setup(project: TestProject) {
  const db = await startDynamoDbLocal({ shortLived: true });
  const tableName = 'identity-test';
  await createTable(db.endpoint, tableName);
  project.provide('dynamodbEndpoint', db.endpoint);
  project.provide('tableName', tableName);
  return () => db.stop();
}
