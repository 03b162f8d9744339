import { readFile, writeFile } from 'node:fs/promises';
import type { StreamRecord } from '../../lib/events/publish';
import { signPost } from '../../lib/sigv4';

/**
 * Reads a DynamoDB Local table's stream as Lambda's event source mapping reads the real
 * one (docs/api.md 17.1): every shard in order, a batch at a time, handed to the same
 * `onRecords` as the function's handler. A batch it reports as failed is read again from
 * that record after a pause, as Lambda retries; with `checkpointFile`, where each shard
 * was read up to survives a restart (`npm start`).
 */
export interface StreamFollower {
  /** Stops reading after the batch in hand. */
  stop(): Promise<void>;
}

export interface FollowOptions {
  endpoint: string;
  tableName: string;
  onRecords(records: StreamRecord[]): Promise<{ batchItemFailures: Array<{ itemIdentifier: string }> }>;
  /** Where to start a shard with no checkpoint: its newest records only (LATEST) or all it still holds (TRIM_HORIZON). */
  from: 'LATEST' | 'TRIM_HORIZON';
  checkpointFile?: string | undefined;
  intervalMs?: number | undefined;
  /** How long a failed batch waits before it is read again. */
  retryMs?: number | undefined;
  onError?: ((error: unknown) => void) | undefined;
}

interface Shard {
  ShardId: string;
}

async function call<T>(endpoint: string, target: string, body: Record<string, unknown>): Promise<T> {
  const url = new URL(endpoint);
  const text = JSON.stringify(body);
  const headers = signPost(
    { host: url.host, headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': target }, body: text },
    { region: 'us-east-1', service: 'dynamodb' },
    { accessKeyId: 'local', secretAccessKey: 'local' },
  );
  const response = await fetch(url, { method: 'POST', headers, body: text });
  const answer = (await response.json()) as T & { __type?: string; message?: string };
  if (!response.ok) throw new Error(`${target}: ${answer.__type ?? response.status} ${answer.message ?? ''}`);
  return answer;
}

const streams = (operation: string) => `DynamoDBStreams_20120810.${operation}`;

export async function followStream(options: FollowOptions): Promise<StreamFollower> {
  const { endpoint, tableName } = options;
  const interval = options.intervalMs ?? 200;
  const { Table } = await call<{ Table: { LatestStreamArn?: string } }>(endpoint, 'DynamoDB_20120810.DescribeTable', {
    TableName: tableName,
  });
  const streamArn = Table.LatestStreamArn;
  if (!streamArn) throw new Error(`Table ${tableName} has no stream`);
  const checkpoints: Record<string, string> = options.checkpointFile
    ? await readFile(options.checkpointFile, 'utf8')
        .then((text) => JSON.parse(text) as Record<string, string>)
        .catch(() => ({}))
    : {};
  const iterators = new Map<string, string | null>();
  let stopped = false;

  const iteratorAt = async (shardId: string, type: string, sequenceNumber?: string) =>
    (
      await call<{ ShardIterator: string }>(endpoint, streams('GetShardIterator'), {
        StreamArn: streamArn,
        ShardId: shardId,
        ShardIteratorType: type,
        ...(sequenceNumber ? { SequenceNumber: sequenceNumber } : {}),
      })
    ).ShardIterator;

  const discover = async () => {
    const { StreamDescription } = await call<{ StreamDescription: { Shards: Shard[] } }>(endpoint, streams('DescribeStream'), {
      StreamArn: streamArn,
    });
    for (const { ShardId } of StreamDescription.Shards) {
      if (iterators.has(ShardId)) continue;
      const checkpoint = checkpoints[ShardId];
      iterators.set(
        ShardId,
        checkpoint ? await iteratorAt(ShardId, 'AFTER_SEQUENCE_NUMBER', checkpoint) : await iteratorAt(ShardId, options.from),
      );
    }
  };

  const readShard = async (shardId: string, iterator: string) => {
    const { Records, NextShardIterator } = await call<{ Records: StreamRecord[]; NextShardIterator?: string }>(
      endpoint,
      streams('GetRecords'),
      {
        ShardIterator: iterator,
        Limit: 100,
      },
    );
    if (Records.length === 0) return iterators.set(shardId, NextShardIterator ?? null);
    const { batchItemFailures } = await options.onRecords(Records);
    const [failed] = batchItemFailures;
    if (failed) {
      await new Promise((done) => setTimeout(done, options.retryMs ?? 1000));
      return iterators.set(shardId, await iteratorAt(shardId, 'AT_SEQUENCE_NUMBER', failed.itemIdentifier));
    }
    const last = Records.at(-1)?.dynamodb?.SequenceNumber;
    if (last) checkpoints[shardId] = last;
    if (options.checkpointFile) await writeFile(options.checkpointFile, JSON.stringify(checkpoints));
    return iterators.set(shardId, NextShardIterator ?? null);
  };

  await discover();
  const loop = (async () => {
    for (let round = 0; !stopped; round++) {
      try {
        if (round % 25 === 24) await discover();
        for (const [shardId, iterator] of iterators) if (iterator && !stopped) await readShard(shardId, iterator);
      } catch (error) {
        options.onError?.(error);
      }
      await new Promise((done) => setTimeout(done, interval));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
