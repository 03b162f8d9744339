import type { Random } from '../crypto/random';
import {
  DEVICE_CODE_KEPT_SECONDS,
  type DeviceApproval,
  type DeviceAuthorization,
  deviceAuthorizationSchema,
  SLOW_DOWN_STEP_SECONDS,
  userCodeClaimSchema,
} from '../oauth/device-code';
import type { OAuthGrant } from '../oauth/grant';
import { GetCommand, UpdateCommand } from './commands';
import type { Dynamo } from './dynamo';
import { keys } from './keys';
import { grantWrite } from './oauth-grants';
import { parseRecord } from './records';
import { TTL_ATTRIBUTE } from './table';
import { transactOnce, transactOnceOrReasons, writeOnce } from './write-once';

/** What a poll of the token endpoint found (RFC 8628 3.5): the authorization as it now is, or too early. */
export type PollOutcome = { paced: true; authorization: DeviceAuthorization } | { paced: false };

/** Device authorizations (docs/api.md 16.4) and the user codes that find them. */
export interface DeviceCodeStore {
  /**
   * Stores a new authorization and claims its user code, in one transaction: false when
   * the user code is in use by another live authorization (the caller draws another).
   */
  create(authorization: DeviceAuthorization, now: number): Promise<boolean>;
  /** The authorization of a device code (consistent read), or undefined; an expired one too (the caller checks). */
  find(tenantId: string, deviceCodeHash: string): Promise<DeviceAuthorization | undefined>;
  /**
   * The authorization a user code finds, whatever its tenant or state (two consistent
   * reads), or undefined for a code not in use.
   */
  findByUserCode(userCodeHash: string): Promise<DeviceAuthorization | undefined>;
  /**
   * One poll, in one conditional write (RFC 8628 3.5): not before `nextPollAt`, and the
   * next one not before `interval` seconds from now; the authorization as it is after it.
   * Too early: the interval grows by 5 seconds (a second write) and `paced` is false.
   */
  poll(authorization: Pick<DeviceAuthorization, 'tenantId' | 'deviceCodeHash'>, now: number): Promise<PollOutcome>;
  /**
   * The user's decision, in one conditional write: only while the authorization is
   * pending and not expired. False when it was decided meanwhile, or expired.
   */
  decide(authorization: DeviceAuthorization, decision: 'approved' | 'denied', approval: DeviceApproval, now: number): Promise<boolean>;
  /**
   * Marks an approved authorization redeemed and stores the grant issued from it, in one
   * transaction: of concurrent redemptions exactly one gets true.
   */
  redeem(authorization: DeviceAuthorization, grant: OAuthGrant, now: number): Promise<boolean>;
}

const toAuthorization = (item: Record<string, unknown> | undefined) => parseRecord(deviceAuthorizationSchema, 'device authorization', item);

export function dynamoDeviceCodeStore(dynamo: Dynamo, random: Random): DeviceCodeStore {
  const { doc, table } = dynamo;
  const find = async (tenantId: string, deviceCodeHash: string) => {
    const { Item } = await doc.send(
      new GetCommand({ TableName: table, Key: keys.deviceAuthorization(tenantId, deviceCodeHash), ConsistentRead: true }),
    );
    return toAuthorization(Item);
  };
  return {
    async create(authorization, now) {
      const { tenantId, deviceCodeHash, userCodeHash, expiresAt } = authorization;
      const result = await transactOnceOrReasons(dynamo, random, [
        {
          Update: {
            TableName: table,
            Key: keys.userCode(userCodeHash),
            UpdateExpression: 'SET tenantId = :tenant, deviceCodeHash = :device, expiresAt = :expires, #ttl = :expires',
            // A code whose authorization expired is free again, whether or not its TTL has removed it yet.
            ConditionExpression: 'attribute_not_exists(pk) OR expiresAt <= :now',
            ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
            ExpressionAttributeValues: { ':tenant': tenantId, ':device': deviceCodeHash, ':expires': expiresAt, ':now': now },
          },
        },
        {
          Put: {
            TableName: table,
            Item: {
              ...keys.deviceAuthorization(tenantId, deviceCodeHash),
              ...authorization,
              [TTL_ATTRIBUTE]: expiresAt + DEVICE_CODE_KEPT_SECONDS,
            },
            // The key is the hash of 256 random bits: another record under it is not possible.
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ]);
      if (result === true) return true;
      if (result[1] === 'ConditionalCheckFailed') throw new Error('Device code collision');
      return false;
    },

    find,

    async findByUserCode(userCodeHash) {
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: keys.userCode(userCodeHash), ConsistentRead: true }));
      const claim = parseRecord(userCodeClaimSchema, 'user code', Item);
      return claim && find(claim.tenantId, claim.deviceCodeHash);
    },

    async poll({ tenantId, deviceCodeHash }, now) {
      const Key = keys.deviceAuthorization(tenantId, deviceCodeHash);
      const { written, item } = await writeOnce(dynamo, random, {
        update: {
          Key,
          UpdateExpression: 'SET nextPollAt = #interval + :now',
          ConditionExpression: 'attribute_exists(pk) AND nextPollAt <= :now',
          ExpressionAttributeNames: { '#interval': 'interval' },
          ExpressionAttributeValues: { ':now': now },
          ReturnValues: 'ALL_NEW',
        },
      });
      const authorization = toAuthorization(item);
      if (written && authorization) return { paced: true, authorization };
      // Gone meanwhile (its TTL): nothing to slow down.
      if (!authorization) return { paced: false };
      // RFC 8628 3.5: `slow_down` adds 5 seconds to the interval, for this and every later poll.
      await doc.send(
        new UpdateCommand({
          TableName: table,
          Key,
          UpdateExpression: 'SET #interval = #interval + :step, nextPollAt = #interval + :later',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#interval': 'interval' },
          ExpressionAttributeValues: { ':step': SLOW_DOWN_STEP_SECONDS, ':later': now + SLOW_DOWN_STEP_SECONDS },
        }),
      );
      return { paced: false };
    },

    async decide(authorization, decision, approval, now) {
      const fields = Object.entries({ ...approval, decidedAt: now }).filter(([, value]) => value !== undefined);
      const { written } = await writeOnce(dynamo, random, {
        update: {
          Key: keys.deviceAuthorization(authorization.tenantId, authorization.deviceCodeHash),
          UpdateExpression: `SET ${['#status = :decision', ...fields.map((_, i) => `#f${i} = :f${i}`)].join(', ')}`,
          ConditionExpression: 'attribute_exists(pk) AND #status = :pending AND expiresAt > :now',
          ExpressionAttributeNames: { '#status': 'status', ...Object.fromEntries(fields.map(([name], i) => [`#f${i}`, name])) },
          ExpressionAttributeValues: {
            ':decision': decision,
            ':pending': 'pending',
            ':now': now,
            ...Object.fromEntries(fields.map(([, value], i) => [`:f${i}`, value])),
          },
        },
      });
      return written;
    },

    redeem: (authorization, grant, now) =>
      transactOnce(dynamo, random, [
        {
          Update: {
            TableName: table,
            Key: keys.deviceAuthorization(authorization.tenantId, authorization.deviceCodeHash),
            UpdateExpression: 'SET redeemedAt = :now, grantId = :grant',
            ConditionExpression: 'attribute_exists(pk) AND #status = :approved AND attribute_not_exists(redeemedAt)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':now': now, ':grant': grant.id, ':approved': 'approved' },
          },
        },
        { Update: grantWrite(table, grant) },
      ]),
  };
}
