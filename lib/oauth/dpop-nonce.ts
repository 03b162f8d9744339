import { createHmac, hkdfSync } from 'node:crypto';
import { constantEquals } from '../crypto/constant-equals';
import type { Peppers } from './client-secret';

/**
 * Server nonces of DPoP proofs (RFC 9449 8, docs/api.md 16.3), stateless: a nonce is a
 * time step and its MAC, so any instance checks any other's without a table. A nonce
 * is good during its step and the next one (5 to 10 minutes).
 */
export interface DpopNonces {
  /** The nonce of the current step: what `DPoP-Nonce` hands out. */
  current(now: number): Promise<string>;
  /** Whether `nonce` is one of ours of the current or the previous step. */
  isLive(nonce: string, now: number): Promise<boolean>;
}

/** The length of a step, in seconds. */
export const DPOP_NONCE_STEP_SECONDS = 300;

const VERSION = 'n1';
const NONCE = /^n1\.(\d{1,12})\.([A-Za-z0-9_-]{22})$/;

/** The MAC key of nonces: a subkey of the current pepper for this purpose only (RFC 5869). */
const subkey = (pepper: Buffer) => Buffer.from(hkdfSync('sha256', pepper, Buffer.alloc(0), `identity-service dpop nonce ${VERSION}`, 32));

/**
 * Nonces `n1.<step>.<mac>` (RFC 9449's NQCHAR only), MACed with HMAC-SHA-256 (128 bits
 * kept) under an HKDF subkey of the current client-secret pepper, the service's HMAC key
 * material (lib/oauth/client-secret.ts). After a rotation of the pepper an older nonce is
 * refused and the client is given a new one (`use_dpop_nonce`), as after its step ends.
 */
export function dpopNonces(load: () => Promise<Peppers>): DpopNonces {
  const keys = new WeakMap<Buffer, Buffer>();
  const keyOf = async () => {
    const peppers = await load();
    const pepper = peppers.keys.get(peppers.current);
    if (!pepper) throw new Error('The current pepper is missing from the pepper document');
    const known = keys.get(pepper);
    if (known) return known;
    const key = subkey(pepper);
    keys.set(pepper, key);
    return key;
  };
  const mac = (key: Buffer, step: number) =>
    createHmac('sha256', key).update(`${VERSION}.${step}`).digest().subarray(0, 16).toString('base64url');
  const stepOf = (now: number) => Math.floor(now / DPOP_NONCE_STEP_SECONDS);
  return {
    async current(now) {
      const step = stepOf(now);
      return `${VERSION}.${step}.${mac(await keyOf(), step)}`;
    },
    async isLive(nonce, now) {
      const match = NONCE.exec(nonce);
      if (!match) return false;
      const step = Number(match[1]);
      const current = stepOf(now);
      if (step !== current && step !== current - 1) return false;
      return constantEquals(mac(await keyOf(), step), String(match[2]));
    },
  };
}
