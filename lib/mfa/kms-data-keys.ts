import type { DataKey, DataKeySource } from './secret-box';

/**
 * One call of KMS's JSON protocol: the operation and its input as KMS takes them (binary
 * members in base64), the answer's JSON out. lib/deps sends it without the SDK
 * (`awsJsonCall`, docs/decisions/036-lean-secret-reads.md); tests pass a fake.
 */
export type KmsCall = (operation: 'GenerateDataKey' | 'Decrypt', input: Record<string, unknown>) => Promise<Record<string, unknown>>;

/** Bound into every data key: KMS refuses to decrypt it for any other purpose. */
const KMS_CONTEXT = { purpose: 'identity-service-mfa' };
/** Data keys of other instances this instance has decrypted and keeps. */
const KMS_KEYS_KEPT = 256;

/** A binary member of KMS's answer (base64 in JSON). */
function blob(answer: Record<string, unknown>, member: string): Buffer {
  const value = answer[member];
  if (typeof value !== 'string' || value === '') throw new Error(`KMS returned no ${member}`);
  return Buffer.from(value, 'base64');
}

/**
 * AWS KMS envelope encryption: each Lambda instance asks KMS for a data key once
 * (GenerateDataKey) and stores the KMS-encrypted key as the id of everything it
 * seals; a value made by another instance costs one Decrypt, then is kept.
 */
export function kmsDataKeys(kms: KmsCall, keyId: string): DataKeySource {
  let current: Promise<DataKey> | undefined;
  const known = new Map<string, Buffer>();
  const generate = async (): Promise<DataKey> => {
    const answer = await kms('GenerateDataKey', { KeyId: keyId, KeySpec: 'AES_256', EncryptionContext: KMS_CONTEXT });
    const id = blob(answer, 'CiphertextBlob').toString('base64url');
    const key = blob(answer, 'Plaintext');
    known.set(id, key);
    return { id, key };
  };
  return {
    current() {
      current ??= generate().catch((error: unknown) => {
        current = undefined;
        throw error;
      });
      return current;
    },
    async find(id) {
      const cached = known.get(id);
      if (cached) return cached;
      const answer = await kms('Decrypt', {
        KeyId: keyId,
        CiphertextBlob: Buffer.from(id, 'base64url').toString('base64'),
        EncryptionContext: KMS_CONTEXT,
      });
      const key = blob(answer, 'Plaintext');
      if (known.size >= KMS_KEYS_KEPT) known.delete(known.keys().next().value as string);
      known.set(id, key);
      return key;
    },
  };
}
