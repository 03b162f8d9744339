/**
 * Prints the last one-time code sent to a user by SMS or EMAIL while `npm start` runs:
 * locally codes go to an outbox in the table instead of SNS/SES (README, MFA).
 *
 *   npm run outbox -- --tenant acme --username alice [--method SMS|EMAIL]
 *
 * Reads DynamoDB Local (DYNAMODB_ENDPOINT, default http://127.0.0.1:8000; TABLE_NAME,
 * default identity-service-dev). There is no outbox in AWS.
 */
import { readConfig } from '../lib/config';
import { cryptoRandom } from '../lib/crypto/random';
import { createDynamo } from '../lib/store/dynamo';
import { dynamoMfaOutbox } from '../lib/store/mfa';
import { dynamoUserStore } from '../lib/store/users';
import { option } from './lib/cli';

async function main(args: string[]) {
  const tenantId = option(args, '--tenant');
  const username = option(args, '--username');
  const methods = option(args, '--method') ? [option(args, '--method')] : ['SMS', 'EMAIL'];
  if (!tenantId || !username || methods.some((method) => method !== 'SMS' && method !== 'EMAIL')) {
    throw new Error('Usage: outbox --tenant ID --username NAME [--method SMS|EMAIL]');
  }
  const config = readConfig({
    ...process.env,
    TABLE_NAME: process.env.TABLE_NAME ?? 'identity-service-dev',
    DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT ?? 'http://127.0.0.1:8000',
  });
  const dynamo = createDynamo({ tableName: config.tableName, region: config.awsRegion, endpoint: config.dynamodbEndpoint });
  const user = await dynamoUserStore(dynamo, cryptoRandom).findByUsername(tenantId, username);
  if (!user) throw new Error(`No user ${username} in tenant ${tenantId}`);
  const outbox = dynamoMfaOutbox(dynamo);
  let found = false;
  for (const method of methods as Array<'SMS' | 'EMAIL'>) {
    const message = await outbox.latest(tenantId, user.id, method);
    if (!message) continue;
    found = true;
    console.log(`${method} to ${message.destination} at ${new Date(message.sentAt * 1000).toISOString()}: ${message.code}`);
  }
  if (!found) console.log(`No code sent to ${username} yet`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
