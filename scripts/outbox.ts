/**
 * Prints the last one-time codes sent to a user by SMS or EMAIL (MFA, password reset,
 * email verification) and the user's latest security notifications while `npm start`
 * runs: locally they go to an outbox in the table instead of SNS/SES (docs/guides/front-end.md,
 * MFA; docs/api.md 8.7-8.9).
 *
 *   npm run outbox -- --tenant acme --username alice [--method SMS|EMAIL]
 *   npm run outbox -- --email alice@example.com
 *
 * With `--email`: every email sent to that address in the last day (codes, notifications,
 * invitations with their absolute links, docs/api.md 13.1), oldest first, with its full text.
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
  const email = option(args, '--email');
  const tenantId = option(args, '--tenant');
  const username = option(args, '--username');
  const methods = option(args, '--method') ? [option(args, '--method')] : ['SMS', 'EMAIL'];
  const config = readConfig({
    ...process.env,
    TABLE_NAME: process.env.TABLE_NAME ?? 'identity-service-dev',
    DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT ?? 'http://127.0.0.1:8000',
  });
  const dynamo = createDynamo({ tableName: config.tableName, region: config.awsRegion, endpoint: config.dynamodbEndpoint });
  const at = (sentAt: number) => new Date(sentAt * 1000).toISOString();
  if (email) {
    const emails = await dynamoMfaOutbox(dynamo).emails(email);
    if (emails.length === 0) console.log(`No email sent to ${email} yet`);
    for (const { destination, sentAt, subject, text } of emails)
      console.log(`\nEmail to ${destination} at ${at(sentAt)}: ${subject}\n${text}`);
    return;
  }
  if (!tenantId || !username || methods.some((method) => method !== 'SMS' && method !== 'EMAIL')) {
    throw new Error('Usage: outbox --tenant ID --username NAME [--method SMS|EMAIL] | outbox --email ADDRESS');
  }
  const user = await dynamoUserStore(dynamo, cryptoRandom).findByUsername(tenantId, username);
  if (!user) throw new Error(`No user ${username} in tenant ${tenantId}`);
  const outbox = dynamoMfaOutbox(dynamo);
  let found = false;
  for (const method of methods as Array<'SMS' | 'EMAIL'>) {
    for (const purpose of ['mfa', 'reset', 'verify-email'] as const) {
      const message = await outbox.latest(tenantId, user.id, method, purpose);
      if (!message) continue;
      found = true;
      const what = purpose === 'mfa' ? '' : ` (${purpose})`;
      console.log(`${method}${what} to ${message.destination} at ${at(message.sentAt)}: ${message.code}`);
    }
  }
  if (!found) console.log(`No code sent to ${username} yet`);
  for (const { destination, sentAt, notification } of (await outbox.notifications(tenantId, user.id)).reverse()) {
    console.log(`\nNotification to ${destination} at ${at(sentAt)}: ${notification.subject}\n${notification.text}`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
