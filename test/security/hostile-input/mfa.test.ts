import fc from 'fast-check';
import { beforeAll, describe, it } from 'vitest';
import * as z from 'zod';
import { parseTotpSecret } from '../../../lib/mfa/totp';
import { anyValue, assertRefusesHostileRequests, type HostileTenant, hostileTenant, type Operation } from './mixed-requests';

/**
 * Hostile input to the MFA routes (enableMFA, verifyMFA), mixed with real sessions so
 * that requests get past the authorizer (mixed-requests.ts says how).
 */
const E164 = /^\+[1-9][0-9]{6,14}$/;

describe('hostile input to enableMFA and verifyMFA', () => {
  let tenant: HostileTenant;
  beforeAll(async () => {
    tenant = await hostileTenant(`hostile-mfa-${Date.now()}`);
  });

  /** A secret enableMFA must refuse for every method. */
  const invalidMfaSecret = anyValue.filter(
    (value) =>
      typeof value !== 'string' || (!parseTotpSecret(value) && !E164.test(value.trim()) && !z.email().safeParse(value.trim()).success),
  );

  const operations: Operation[] = [
    {
      route: 'mfaEnable',
      fields: () => ({ method: fc.oneof(anyValue, fc.constantFrom('TOTP', 'SMS', 'EMAIL')), secret: invalidMfaSecret }),
      authorization: () => tenant.sessions(),
      rfc: false,
      alsoOk: [],
    },
    {
      route: 'mfaVerify',
      fields: () => ({
        method: fc.oneof(anyValue, fc.constantFrom('TOTP', 'SMS', 'EMAIL')),
        code: fc.oneof(
          anyValue,
          fc.integer({ min: 0, max: 999_999 }).map((n) => String(n).padStart(6, '0')),
        ),
      }),
      nearValid: () => ({ method: 'TOTP', code: '000000' }),
      authorization: () => tenant.sessions(),
      rfc: false,
      alsoOk: [],
    },
  ];

  it.each(operations.map((operation) => [operation.route, operation] as const))(
    'answers every malformed %s request with a 4xx and changes nothing',
    async (_, operation) => {
      await assertRefusesHostileRequests(tenant, operation);
    },
    180_000,
  );
});
