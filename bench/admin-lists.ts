/**
 * The admin lists' round trips (docs/decisions/027-bounded-admin-lists.md): the listing the
 * bundles run, in this process on the bench's table through a client that counts each
 * request it sends to DynamoDB, and the lists' targets.
 */
import { listUsers } from '../lib/admin/users';
import { systemClock } from '../lib/clock';
import type { Config } from '../lib/config';
import { cryptoRandom } from '../lib/crypto/random';
import { dynamoStores } from '../lib/deps';
import { createLogger } from '../lib/log';
import { createDynamo } from '../lib/store/dynamo';
import type { Identity } from '../lib/tokens/access-token';
import { fixed } from './report';

/** The DynamoDB requests one page of `limit` users costs the listing (every try counted). */
export async function listRoundTrips(config: Config, admin: Identity, limit: number): Promise<number> {
  const dynamo = createDynamo({ tableName: config.tableName, region: config.awsRegion, endpoint: config.dynamodbEndpoint });
  let sent = 0;
  dynamo.doc.middlewareStack.add(
    (next) => async (args) => {
      sent++;
      return next(args);
    },
    { step: 'deserialize', name: 'countRoundTrips' },
  );
  const deps = {
    config,
    clock: systemClock,
    random: cryptoRandom,
    log: createLogger('error'),
    store: dynamoStores(dynamo, { random: cryptoRandom, clock: systemClock }),
  };
  const page = await listUsers(deps, admin, { limit });
  dynamo.doc.destroy();
  if (page.users.length !== limit) throw new Error(`the listing answered ${page.users.length} users, not ${limit}`);
  return sent;
}

/** A load result as the targets read it. */
interface Measured {
  p50Ms: number;
  non2xx: number;
  errors: number;
  wrong: number;
}

/** The targets of one admin list: at most 3 round trips per page, p50 ≤ 100 ms at `connections` concurrent requests, none failed. */
export function adminListTargets(name: string, result: Measured | undefined, roundTrips: number | undefined, connections: number) {
  if (!result) return [];
  const failed = result.non2xx + result.errors + result.wrong;
  return [
    {
      target: `${name}: ≤ 3 DynamoDB round trips per page`,
      // Counted with this commit's listing: not for another build (--functions-dir).
      figure: roundTrips === undefined ? 'not counted (--functions-dir)' : `${roundTrips}`,
      pass: roundTrips === undefined ? undefined : roundTrips <= 3,
    },
    {
      target: `${name}: p50 ≤ 100 ms at ${connections} concurrent requests, none failed`,
      figure: `${fixed(result.p50Ms, 1)} ms, ${failed} failed`,
      pass: result.p50Ms <= 100 && failed === 0,
    },
  ];
}
