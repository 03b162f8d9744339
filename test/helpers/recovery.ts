import { expect } from 'vitest';
import type { App } from './app';
import type { TestDeps } from './deps';

/** Sets the caller's email address (PUT /auth/email) and verifies it with the code from the outbox. */
export async function verifiedEmail(app: App, deps: TestDeps, token: string, tenantId: string, userId: string, email: string) {
  const set = await app.request('emailSet', { token, body: { email } });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  const sent = await deps.outbox.latest(tenantId, userId, 'EMAIL', 'verify-email');
  const verified = await app.request('emailVerify', { token, body: { code: sent?.code } });
  expect(verified.status, JSON.stringify(verified.body)).toBe(200);
}
