/**
 * Creates the first ADMIN of a tenant that anonymous registration may not claim (the
 * configured default tenant), or of any new tenant, directly in the table.
 *
 *   ADMIN_PASSWORD=... npm run create-admin -- --tenant default --username admin [--email a@b.c] [--shop shop-1]
 *
 * Uses the same configuration as the functions (TABLE_NAME, DYNAMODB_ENDPOINT, AWS_REGION;
 * locally TABLE_NAME=identity-service-dev DYNAMODB_ENDPOINT=http://127.0.0.1:8000 while
 * `npm start` runs). The password comes from the environment, never the command line.
 */
import { defaultDeps } from '../lib/deps';
import { shopId as shopIdRule, tenantId as tenantIdRule, username as usernameRule } from '../lib/http/schemas';
import { createUser } from '../lib/users/register';
import { option } from './lib/cli';

async function main(args: string[]) {
  const tenantId = option(args, '--tenant');
  const username = option(args, '--username');
  const password = process.env.ADMIN_PASSWORD;
  if (!tenantId || !username || !password) {
    throw new Error('Usage: ADMIN_PASSWORD=... create-admin --tenant ID --username NAME [--email ADDRESS] [--shop ID]');
  }
  if (password.length < 6 || password.length > 128) throw new Error('ADMIN_PASSWORD must have 6 to 128 characters');
  // The rules of register (docs/api.md 10.2): an ADMIN of a tenant id login refuses could never sign in.
  const shop = option(args, '--shop');
  for (const [name, rule, value] of [
    ['--tenant', tenantIdRule, tenantId],
    ['--username', usernameRule, username],
    ['--shop', shopIdRule, shop ?? 'default'],
  ] as const) {
    const problem = rule.safeParse(value).error?.issues[0]?.message;
    if (problem) throw new Error(`${name}: ${problem}`);
  }
  const deps = defaultDeps();
  const user = await createUser(deps, null, {
    tenantId,
    username,
    password,
    role: 'ADMIN',
    email: option(args, '--email'),
    shopId: shop,
  });
  console.log(`Created ADMIN ${user.username} (${user.id}) of tenant ${user.tenantId}`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
