import { createHash, createHmac, hkdfSync } from 'node:crypto';
import { constantEquals } from '../crypto/constant-equals';
import type { Random } from '../crypto/random';
import type { Peppers } from '../oauth/client-secret';
import { normalizeUsername } from '../store/keys';

/**
 * OWASP's device cookies (docs/api.md 10): a successful login hands the browser or app a
 * token that names a device and is MACed for one (tenant, username). A later login of
 * that account presenting it has a failure budget of its own, so an attacker who locks
 * unknown sources out does not lock out the devices the user has signed in from.
 * The token is no credential: it only chooses which budget counts a password guess.
 */
export interface DeviceTokens {
  /** A new token for a device of the account, valid DEVICE_TOKEN_SECONDS from `now`. */
  issue(account: DeviceAccount, now: number): Promise<string>;
  /**
   * The device id of a token issued for this account and not expired; undefined for
   * anything else (none, malformed, another account's, a bad MAC, expired, or made under
   * a pepper no longer live): such a request is an unknown source.
   */
  verify(token: string | undefined, account: DeviceAccount, now: number): Promise<string | undefined>;
}

export interface DeviceAccount {
  tenantId: string;
  username: string;
}

/** About a year: a device that has not signed in for a year is unknown again. */
export const DEVICE_TOKEN_SECONDS = 365 * 24 * 3600;

const VERSION = 'd1';
/** A token is five short base64url parts; anything much longer is not one. */
const MAX_TOKEN_LENGTH = 256;
const PART = /^[A-Za-z0-9_-]+$/;

/** The MAC key of device tokens: a subkey of a pepper for this purpose only (RFC 5869). */
const subkey = (pepper: Buffer) => Buffer.from(hkdfSync('sha256', pepper, Buffer.alloc(0), `identity-service device token ${VERSION}`, 32));

/** A JSON array, so that no tenant id or username can shift into another part. */
const macInput = (keyId: string, account: DeviceAccount, deviceId: string, expiresAt: number) =>
  JSON.stringify([VERSION, keyId, account.tenantId, normalizeUsername(account.username), deviceId, expiresAt]);

/**
 * Device tokens `d1.<pepper id>.<device id>.<expires at>.<mac>`, MACed (HMAC-SHA-256)
 * under an HKDF subkey of the current client-secret pepper, the service's HMAC key
 * material (lib/oauth/client-secret.ts); rotating the pepper keeps older tokens valid
 * while their pepper is live.
 */
export function deviceTokens(load: () => Promise<Peppers>, random: Pick<Random, 'token'>): DeviceTokens {
  // Derived once per pepper id (a refresh re-reads the same peppers as new buffers).
  const subkeys = new Map<string, { pepper: Buffer; key: Buffer }>();
  const keyOf = (id: string, pepper: Buffer) => {
    const known = subkeys.get(id);
    if (known?.pepper.equals(pepper)) return known.key;
    const key = subkey(pepper);
    subkeys.set(id, { pepper, key });
    return key;
  };
  const mac = (id: string, pepper: Buffer, input: string) =>
    createHmac('sha256', keyOf(id, pepper)).update(input, 'utf8').digest('base64url');

  return {
    async issue(account, now) {
      const peppers = await load();
      const pepper = peppers.keys.get(peppers.current);
      if (!pepper) throw new Error('The current pepper is missing');
      const deviceId = random.token(16);
      const expiresAt = now + DEVICE_TOKEN_SECONDS;
      return [
        VERSION,
        peppers.current,
        deviceId,
        expiresAt,
        mac(peppers.current, pepper, macInput(peppers.current, account, deviceId, expiresAt)),
      ].join('.');
    },

    async verify(token, account, now) {
      if (!token || token.length > MAX_TOKEN_LENGTH) return undefined;
      const parts = token.split('.');
      const [version, keyId, deviceId, expires, presented] = parts;
      if (parts.length !== 5 || version !== VERSION || !keyId || !deviceId || !presented || !/^[0-9]{1,12}$/.test(expires ?? '')) {
        return undefined;
      }
      if (!PART.test(keyId) || !PART.test(deviceId)) return undefined;
      const expiresAt = Number(expires);
      if (expiresAt <= now) return undefined;
      const pepper = (await load()).keys.get(keyId);
      if (!pepper) return undefined;
      return constantEquals(mac(keyId, pepper, macInput(keyId, account, deviceId, expiresAt)), presented) ? deviceId : undefined;
    },
  };
}

/**
 * The name of the device cookie of one account: a short digest of (tenant, username), so
 * that a browser shared by several accounts keeps one cookie each and no name shows a
 * username. `__Secure-`: browsers accept it only with `Secure`, from a secure origin.
 */
export function deviceCookieName(account: DeviceAccount): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([account.tenantId, normalizeUsername(account.username)]), 'utf8')
    .digest('base64url')
    .slice(0, 16);
  return `__Secure-device-${digest}`;
}

/**
 * The paths a device cookie is sent to: each door that checks a password, and nothing else
 * (docs/api.md 10.1). The JSON login's and the hosted sign-in's are two cookies of one
 * name, each learnt by the door it was issued at.
 */
export const DEVICE_COOKIE_PATHS = { login: '/auth/login', hostedSignIn: '/oauth2/hosted/sign-in' } as const;

/** The `Set-Cookie` value of a device token: only for one door's route, never to scripts or other sites. */
export function deviceCookie(account: DeviceAccount, token: string, path: string = DEVICE_COOKIE_PATHS.login): string {
  return `${deviceCookieName(account)}=${token}; Max-Age=${DEVICE_TOKEN_SECONDS}; Path=${path}; Secure; HttpOnly; SameSite=Strict`;
}

/**
 * The device token a login request presents: the `X-Device-Token` header (API clients
 * that keep no cookies), else the account's device cookie.
 */
export function presentedDeviceToken(
  headers: Record<string, string | undefined>,
  cookies: readonly string[],
  account: DeviceAccount,
): string | undefined {
  const header = headers['x-device-token']?.trim();
  if (header) return header;
  const prefix = `${deviceCookieName(account)}=`;
  return cookies.find((cookie) => cookie.startsWith(prefix))?.slice(prefix.length);
}
