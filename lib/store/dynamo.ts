import { type CancellationReason, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { awsClientSettings } from '../aws';

export interface DynamoSettings {
  tableName: string;
  region: string;
  /** DynamoDB Local's URL; unset in AWS. */
  endpoint?: string | undefined;
}

/** The document client and table every store shares. */
export interface Dynamo {
  doc: DynamoDBDocumentClient;
  table: string;
}

export function createDynamo(settings: DynamoSettings): Dynamo {
  const client = new DynamoDBClient({
    ...awsClientSettings(settings.region),
    endpoint: settings.endpoint,
    // DynamoDB Local accepts any credentials; in AWS the function's role provides them.
    ...(settings.endpoint ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
  return { doc, table: settings.tableName };
}

export function isConditionalCheckFailed(error: unknown): error is Error & { Item?: Record<string, unknown> } {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/** The item a failed conditional write returned (ReturnValuesOnConditionCheckFailure: ALL_OLD). */
export function oldItemOf(error: { Item?: Record<string, unknown> }): Record<string, unknown> | undefined {
  // The document client does not unmarshall items carried by errors.
  return error.Item ? unmarshall(error.Item as Parameters<typeof unmarshall>[0]) : undefined;
}

/**
 * For a cancelled transaction, which of its items failed their condition
 * (by position in the request); undefined for any other error.
 */
export function failedConditions(error: unknown): boolean[] | undefined {
  return cancellationCodes(error)?.map((code) => code === 'ConditionalCheckFailed');
}

/**
 * For a cancelled transaction, why each of its items was refused (by position:
 * `ConditionalCheckFailed`, `TransactionConflict` with a concurrent write, `None`);
 * undefined for any other error.
 */
export function cancellationCodes(error: unknown): Array<string | undefined> | undefined {
  if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') return undefined;
  const reasons = (error as Error & { CancellationReasons?: CancellationReason[] }).CancellationReasons ?? [];
  return reasons.map((reason) => reason.Code);
}
