import { randomBytes } from 'node:crypto';
import type { DataKeySource } from '../../lib/mfa/secret-box';

/** One random data key, in memory only: the MFA key source of tests. */
export function memoryDataKeys(): DataKeySource {
  const key = randomBytes(32);
  const id = `mem${randomBytes(6).toString('base64url')}`;
  return {
    current: async () => ({ id, key }),
    async find(wanted) {
      if (wanted !== id) throw new Error('Unknown data key');
      return key;
    },
  };
}
