import type { KMSClient } from '@aws-sdk/client-kms';
import type { DataKey, DataKeySource } from './secret-box';

/** The SDK is imported on first use, so functions that never touch MFA keep their cold start. */
type KmsClient = Pick<KMSClient, 'send'>;

/** Bound into every data key: KMS refuses to decrypt it for any other purpose. */
const KMS_CONTEXT = { purpose: 'identity-service-mfa' };
/** Data keys of other instances this instance has decrypted and keeps. */
const KMS_KEYS_KEPT = 256;

/**
 * AWS KMS envelope encryption: each Lambda instance asks KMS for a data key once
 * (GenerateDataKey) and stores the KMS-encrypted key as the id of everything it
 * seals; a value made by another instance costs one Decrypt, then is kept.
 */
export function kmsDataKeys(client: KmsClient, keyId: string): DataKeySource {
  let current: Promise<DataKey> | undefined;
  const known = new Map<string, Buffer>();
  const generate = async (): Promise<DataKey> => {
    const { GenerateDataKeyCommand } = await import('@aws-sdk/client-kms');
    const { CiphertextBlob, Plaintext } = await client.send(
      new GenerateDataKeyCommand({ KeyId: keyId, KeySpec: 'AES_256', EncryptionContext: KMS_CONTEXT }),
    );
    if (!CiphertextBlob || !Plaintext) throw new Error('KMS returned no data key');
    const id = Buffer.from(CiphertextBlob).toString('base64url');
    const key = Buffer.from(Plaintext);
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
      const { DecryptCommand } = await import('@aws-sdk/client-kms');
      const { Plaintext } = await client.send(
        new DecryptCommand({ KeyId: keyId, CiphertextBlob: Buffer.from(id, 'base64url'), EncryptionContext: KMS_CONTEXT }),
      );
      if (!Plaintext) throw new Error('KMS returned no plaintext');
      if (known.size >= KMS_KEYS_KEPT) known.delete(known.keys().next().value as string);
      const key = Buffer.from(Plaintext);
      known.set(id, key);
      return key;
    },
  };
}
