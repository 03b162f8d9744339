import { decodeJwt } from 'jose';
import { Secret, TOTP } from 'otpauth';
import { expect } from 'vitest';
import type { App } from './app';
import type { TestDeps } from './deps';

/** A fresh 160-bit base32 secret, as an authenticator app or a front end makes one. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/**
 * An authenticator app, configured on its own (not through lib/mfa): RFC 6238 with
 * SHA-1, 6 digits, 30 s. `offset` is in time steps from the test clock's now.
 */
export function authenticator(deps: TestDeps, secret: string) {
  const totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
  return (offset = 0) => totp.generate({ timestamp: deps.clock.now() + offset * 30_000 });
}

/** Enrolls TOTP for the caller and activates it with a code; returns the code generator. */
export async function activateTotp(app: App, deps: TestDeps, token: string, secret = newTotpSecret()) {
  const enabled = await app.request('enableMFA', { token, body: { method: 'TOTP', secret } });
  expect(enabled.status).toBe(200);
  const code = authenticator(deps, secret);
  const verified = await app.request('verifyMFA', { token, body: { method: 'TOTP', code: code() } });
  expect(verified.status).toBe(200);
  // The next code of this secret must be of a later step.
  deps.clock.advance(30);
  return { secret, code };
}

/** Enrolls SMS or EMAIL for the caller and activates it with the code from the outbox. */
export async function activateDelivered(
  app: App,
  deps: TestDeps,
  token: string,
  userId: string,
  method: 'SMS' | 'EMAIL',
  destination: string,
) {
  const enabled = await app.request('enableMFA', { token, body: { method, secret: destination } });
  expect(enabled.status).toBe(200);
  const sent = await deps.outbox.latest(String(decodeJwt(token).tenantId), userId, method);
  expect(sent).toBeDefined();
  const verified = await app.request('verifyMFA', { token, body: { method, code: sent?.code } });
  expect(verified.status).toBe(200);
}
