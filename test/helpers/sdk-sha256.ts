import { createHash, createHmac } from 'node:crypto';
import type { SourceData } from '@smithy/types';

/**
 * The hash the SDK's signer (`@smithy/signature-v4`) takes, on node:crypto: a keyed one is
 * an HMAC. Tests recompute lib/sigv4.ts's signatures with that signer.
 */
export class Sha256 {
  private readonly hash;
  constructor(secret?: SourceData) {
    const key =
      secret === undefined || typeof secret === 'string'
        ? secret
        : ArrayBuffer.isView(secret)
          ? Buffer.from(secret.buffer, secret.byteOffset, secret.byteLength)
          : Buffer.from(secret);
    this.hash = key === undefined ? createHash('sha256') : createHmac('sha256', key);
  }
  update(data: string | Uint8Array) {
    this.hash.update(data);
  }
  async digest() {
    return new Uint8Array(this.hash.digest());
  }
  reset() {}
}
