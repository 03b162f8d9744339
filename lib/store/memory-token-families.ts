import { type FamilyRecord, type FamilyRef, isLive, rotationChanges, type TokenFamilyStore } from '../token-families/refresh-family';

/**
 * The in-memory twin of the DynamoDB family rotation (lib/store/token-families): the
 * same condition and the same changes, for fast tests of the rules. `put` stores a
 * family as a create would.
 */
export function memoryTokenFamilies<R extends FamilyRecord>(): TokenFamilyStore<R> & { put(ref: FamilyRef, record: R): void } {
  const families = new Map<string, R>();
  const keyOf = ({ tenantId, id }: FamilyRef) => `${tenantId}\u0000${id}`;
  const copy = (record: R | undefined): R | undefined => (record === undefined ? undefined : structuredClone(record));
  return {
    put(ref, record) {
      families.set(keyOf(ref), copy(record) as R);
    },

    async rotate(ref, rotation) {
      const record = families.get(keyOf(ref));
      const current =
        record !== undefined &&
        record.refreshHash === rotation.presentedHash &&
        record.refreshGeneration === rotation.generation &&
        isLive(record, rotation.now) &&
        record.clientId === ref.clientId;
      if (!current) return { applied: false, record: copy(record) };
      const change = rotationChanges(rotation);
      const retired = { ...record.retired, [change.retiring]: change.retired };
      if (change.forgotten) delete retired[change.forgotten];
      const next = {
        ...record,
        refreshHash: change.refreshHash,
        refreshGeneration: change.refreshGeneration,
        refreshedAt: rotation.now,
        retired,
      };
      families.set(keyOf(ref), next);
      return { applied: true, record: copy(next) };
    },

    async revoke(ref, now, reason) {
      const record = families.get(keyOf(ref));
      if (record && record.revokedAt === undefined) families.set(keyOf(ref), { ...record, revokedAt: now, revokedReason: reason });
    },
  };
}
