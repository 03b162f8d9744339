import { unmarshall } from '@aws-sdk/util-dynamodb';
import { AWS_RETRIES, AWS_TIMEOUTS } from '../aws';
import type { AwsCredentials } from '../sigv4';
import { createDynamoClient, type DocumentClient } from './dynamo-client';

export interface DynamoSettings {
  tableName: string;
  region: string;
  /** DynamoDB Local's URL; unset in AWS. */
  endpoint?: string | undefined;
  /** Longer waits than production's (test/helpers/patient-stores.ts says when). */
  timeouts?: { connectionTimeoutMs: number; requestTimeoutMs: number } | undefined;
}

/** The document client and table every store shares. */
export interface Dynamo {
  doc: DocumentClient;
  table: string;
}

/** DynamoDB Local accepts any credentials. */
const LOCAL_CREDENTIALS: AwsCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };

/**
 * The function role's credentials, which Lambda puts in the environment. Elsewhere (a
 * script run with a profile) the SDK's default chain, loaded only then.
 */
export function lambdaCredentials(): () => Promise<AwsCredentials> {
  let fromChain: AwsCredentials | undefined;
  return async () => {
    const { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN } = process.env;
    if (AWS_ACCESS_KEY_ID && AWS_SECRET_ACCESS_KEY) {
      return { accessKeyId: AWS_ACCESS_KEY_ID, secretAccessKey: AWS_SECRET_ACCESS_KEY, sessionToken: AWS_SESSION_TOKEN };
    }
    if (!fromChain || (fromChain.expiration && fromChain.expiration.getTime() - Date.now() < 60_000)) {
      fromChain = await (await import('@aws-sdk/credential-provider-node')).defaultProvider()();
    }
    return fromChain;
  };
}

export function createDynamo(settings: DynamoSettings): Dynamo {
  const local = settings.endpoint !== undefined && settings.endpoint !== '';
  const doc = createDynamoClient({
    region: settings.region,
    endpoint: local ? settings.endpoint : undefined,
    credentials: local ? async () => LOCAL_CREDENTIALS : lambdaCredentials(),
    ...AWS_RETRIES,
    ...(settings.timeouts ?? AWS_TIMEOUTS),
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
  const reasons = (error as Error & { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? [];
  return reasons.map((reason) => reason.Code);
}
