import type { TestProject } from 'vitest/node';
import { type DynamoDbLocal, startDynamoDbLocal } from '../scripts/dynamodb-local';
import { createTable } from './helpers/isolated-table';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    tableName: string;
  }
}

/**
 * The run's one DynamoDB Local, shared by the projects' setups (each project loads this
 * file in a module graph of its own; the process is one), and how many projects use it.
 */
const shared = globalThis as typeof globalThis & { identityTestDb?: { db: Promise<DynamoDbLocal>; users: number } };

/**
 * Starts one in-memory DynamoDB Local for the run (on the first project's setup), gives
 * each project a table of its own on it, and stops it (by PID) after the last project.
 * A table per project: the browser and stack projects meet a table without the service-wide
 * windows (send quotas, budgets) that the functions filled, as when each had its JVM.
 */
export default async function setup(project: TestProject) {
  shared.identityTestDb ??= { db: startDynamoDbLocal({ shortLived: true }), users: 0 };
  const running = shared.identityTestDb;
  running.users++;
  const db = await running.db;
  const tableName = `identity-test-${project.name || 'root'}`;
  await createTable(db.endpoint, tableName, { stream: true });
  project.provide('dynamodbEndpoint', db.endpoint);
  project.provide('tableName', tableName);
  return async () => {
    running.users--;
    if (running.users > 0) return;
    shared.identityTestDb = undefined;
    await db.stop();
  };
}
