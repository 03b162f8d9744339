/**
 * `npm start`: the whole API on http://localhost:3000 with an embedded DynamoDB Local
 * whose data stays under .data/. Creates the table and a signing key on first run. Ctrl-C stops everything.
 */
import { spawn } from 'node:child_process';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { defaultDeps } from '../lib/deps';
import { publishRecords } from '../lib/events/publish';
import { stagePublishing } from '../lib/events/publishing';
import { ensureTable } from '../lib/store/table-setup';
import { ensureKeysFile } from '../lib/tokens/signing-keys';
import { startDynamoDbLocal } from './dynamodb-local';
import { followStream } from './lib/local-stream';

const TABLE = process.env.TABLE_NAME ?? 'identity-service-dev';
const KEYS_FILE = process.env.SIGNING_KEYS_FILE ?? '.data/signing-keys.json';
const DB_PORT = Number(process.env.DYNAMODB_LOCAL_PORT ?? 8000);
/** Where the published events go locally (docs/api.md 17.1): `npm run events` prints them. */
const EVENTS_FILE = process.env.EVENTS_FILE ?? '.data/events.jsonl';
async function main() {
  const db = await startDynamoDbLocal({ port: DB_PORT, dataDir: '.data/dynamodb' });
  console.log(`DynamoDB Local on ${db.endpoint} (pid ${db.pid}), data in .data/dynamodb`);

  const client = new DynamoDBClient({
    endpoint: db.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  console.log(`Table ${TABLE}: ${await ensureTable(client, TABLE)}`);
  client.destroy();
  console.log(`Signing key ${KEYS_FILE}: ${await ensureKeysFile(KEYS_FILE, `local-${Date.now()}`)}`);

  const env = {
    ...process.env,
    DYNAMODB_ENDPOINT: db.endpoint,
    TABLE_NAME: TABLE,
    SIGNING_KEYS_SOURCE: 'file',
    SIGNING_KEYS_FILE: KEYS_FILE,
    // MFA codes go to the outbox in the table (docs/guides/front-end.md, MFA); TOTP secrets are sealed
    // with a key generated under .data/ on first use, as is the client-secret pepper.
    MFA_DELIVERY: 'outbox',
    MFA_KEY_SOURCE: 'file',
    MFA_KEY_FILE: process.env.MFA_KEY_FILE ?? '.data/mfa-key.json',
    AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
    // Domain verification asks these DNS servers (docs/api.md 14.2), e.g. a local one that answers TXT records.
    DNS_SERVERS: process.env.DNS_SERVERS ?? '',
    EVENTS_FILE,
  };
  const api = spawn(process.execPath, ['node_modules/.bin/serverless', 'offline', 'start', '--stage', 'dev'], { stdio: 'inherit', env });

  // The publisher, as the stream-triggered function runs in AWS, on the local table's stream.
  Object.assign(process.env, env);
  const deps = defaultDeps();
  const publishing = stagePublishing(deps);
  const stream = await followStream({
    endpoint: db.endpoint,
    tableName: TABLE,
    from: 'LATEST',
    checkpointFile: '.data/events-checkpoint.json',
    onRecords: (records) => publishRecords(deps, publishing, records),
    onError: (error) => console.error(`Event stream: ${error instanceof Error ? error.message : error}`),
  });
  console.log(`Events of the table's stream published to ${EVENTS_FILE} (npm run events)`);

  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    if (api.exitCode === null) api.kill('SIGTERM');
    await stream.stop();
    await db.stop();
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  api.on('exit', (code) => void stop(code ?? 0));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
