import type { Random } from '../crypto/random';
import type { Device } from '../sessions/device';
import { type FamilyRecord, type FamilyRef, type Rotation, rotationChanges, type TokenFamilyStore } from '../token-families/refresh-family';
import type { Dynamo } from './dynamo';
import type { Key } from './keys';
import { writeOnce } from './write-once';

/**
 * The rotation of every refresh-token family (sessions and OAuth grants) on DynamoDB:
 * one conditional write that moves the current refresh token to its successor only
 * if the presented one is current, the family live and its client the presenter. The
 * store only reports what the write met; the rules (reuse, revocation) are the
 * domain's (lib/token-families).
 */
export function dynamoFamilyRotation<R extends FamilyRecord>(
  dynamo: Dynamo,
  random: Random,
  family: { key: (ref: FamilyRef) => Key; parse: (item: Record<string, unknown> | undefined) => R | undefined },
): TokenFamilyStore<R>['rotate'] {
  return async (ref: FamilyRef, rotation: Rotation) => {
    const change = rotationChanges(rotation);
    // The presenter's device rides on the rotation: a refresh stays one write (docs/api.md 8.3).
    const device = deviceUpdate(rotation.device ?? {});
    const { written, item } = await writeOnce(dynamo, random, {
      update: {
        Key: family.key(ref),
        UpdateExpression:
          `SET refreshHash = :next, refreshGeneration = :nextGeneration, refreshedAt = :now, retired.#retiring = :presented${device.set}` +
          (change.forgotten ? ' REMOVE retired.#forgotten' : ''),
        ConditionExpression:
          'refreshHash = :presented AND refreshGeneration = :generation AND attribute_not_exists(revokedAt) AND expiresAt > :now AND ' +
          (ref.clientId === undefined ? 'attribute_not_exists(clientId)' : 'clientId = :client'),
        ExpressionAttributeNames: { '#retiring': change.retiring, ...(change.forgotten ? { '#forgotten': change.forgotten } : {}) },
        ExpressionAttributeValues: {
          ':next': change.refreshHash,
          ':nextGeneration': change.refreshGeneration,
          ':generation': rotation.generation,
          ':presented': change.retired,
          ':now': rotation.now,
          ...device.values,
          ...(ref.clientId === undefined ? {} : { ':client': ref.clientId }),
        },
        ReturnValues: 'ALL_NEW',
      },
    });
    return { applied: written, record: family.parse(item) };
  };
}

/** The attributes of a session's device (lib/sessions/device.ts) as a `SET` clause continuation and its values. */
export function deviceUpdate(device: Device): { set: string; values: Record<string, string> } {
  const fields = Object.entries({ userAgent: device.userAgent, ipAddress: device.ipAddress }).filter(
    (entry): entry is [string, string] => entry[1] !== undefined,
  );
  return {
    set: fields.map(([name]) => `, ${name} = :${name}`).join(''),
    values: Object.fromEntries(fields.map(([name, value]) => [`:${name}`, value])),
  };
}
