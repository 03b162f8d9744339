import fc from 'fast-check';
import { decodeJwt } from 'jose';
import { beforeAll, describe, it } from 'vitest';
import { parseTotpSecret } from '../../../lib/mfa/totp';
import * as z from '../../../lib/zod';
import { registerStaff } from '../../helpers/app';
import { activateTotp } from '../../helpers/mfa';
import { anyValue, assertRefusesHostileRequests, type HostileTenant, hostileTenant, nasty, type Operation, realOr } from './mixed-requests';

/**
 * Hostile input to the MFA routes (enableMFA, verifyMFA, and the lifecycle of docs/api.md
 * 8.6), mixed with real sessions so that requests get past the authorizer
 * (mixed-requests.ts says how), and to `mfaMethod`/`mfaCode` at login for a user with
 * recovery codes.
 */
const PASSWORD = 'correct horse battery';
const E164 = /^\+[1-9][0-9]{6,14}$/;

describe('hostile input to the MFA routes', () => {
  let tenant: HostileTenant;
  let recoveryCodes: string[];
  beforeAll(async () => {
    tenant = await hostileTenant(`hostile-mfa-${Date.now()}`);
    // A user with active TOTP and recovery codes, for the second factor at login. Its own
    // session is never sent: a valid disable or a new set would rightly change the table.
    const user = await registerStaff(tenant.app, tenant.adminToken, {
      username: 'recovery-user',
      password: PASSWORD,
      role: 'ANALYST',
      tenantId: tenantOf(tenant),
    });
    const { code } = await activateTotp(tenant.app, tenant.deps, user.token);
    const login = await tenant.app.request('login', {
      body: { username: 'recovery-user', password: PASSWORD, tenantId: tenantOf(tenant), mfaCode: code() },
    });
    recoveryCodes = (await tenant.app.request('generateRecoveryCodes', { token: login.body.data.token })).body.data.codes;
  }, 60_000);

  /** A secret enableMFA must refuse for every method. */
  const invalidMfaSecret = anyValue.filter(
    (value) =>
      typeof value !== 'string' || (!parseTotpSecret(value) && !E164.test(value.trim()) && !z.email().safeParse(value.trim()).success),
  );

  const operations: Operation[] = [
    {
      route: 'enableMFA',
      fields: () => ({ method: fc.oneof(anyValue, fc.constantFrom('TOTP', 'SMS', 'EMAIL')), secret: invalidMfaSecret }),
      authorization: () => tenant.sessions(),
      rfc: false,
      alsoOk: [],
    },
    {
      route: 'verifyMFA',
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
    {
      route: 'listMFA',
      fields: () => ({ method: anyValue }),
      authorization: () => tenant.sessions(),
      rfc: false,
      alsoOk: [200],
    },
    {
      route: 'disableMFA',
      fields: () => ({ method: fc.oneof(anyValue, fc.constantFrom('TOTP', 'SMS', 'EMAIL', 'RECOVERY')) }),
      // The sessions' users have no active method: a valid request is 400 MFA method not enabled.
      nearValid: () => ({ method: 'TOTP' }),
      authorization: () => tenant.sessions(),
      rfc: false,
      alsoOk: [],
    },
    {
      route: 'generateRecoveryCodes',
      fields: () => ({ codes: anyValue }),
      authorization: () => tenant.sessions(),
      rfc: false,
      alsoOk: [],
    },
    {
      route: 'login',
      fields: () => ({
        username: realOr('recovery-user'),
        password: realOr(PASSWORD),
        tenantId: realOr(tenantOf(tenant)),
        mfaMethod: realOr('RECOVERY', 'TOTP', 'SMS'),
        // Recovery-code shapes: used or altered real codes, base32 look-alikes, hostile strings.
        mfaCode: fc.oneof(
          anyValue,
          nasty,
          fc.constantFrom(...recoveryCodes).map((code) => `${code.slice(0, -1)}${code.endsWith('a') ? 'b' : 'a'}`),
          fc.stringMatching(/^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/),
          fc.stringMatching(/^[A-Z0-9 -]{10,16}$/),
        ),
      }),
      nearValid: () => ({
        username: 'recovery-user',
        password: PASSWORD,
        tenantId: tenantOf(tenant),
        mfaMethod: 'RECOVERY',
        mfaCode: 'aaaa-aaaa-aaaa',
      }),
      authorization: () => fc.constant(undefined),
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

/** The hostile tenant's id, as its ADMIN's token names it. */
function tenantOf(tenant: HostileTenant): string {
  return String(decodeJwt(tenant.adminToken).tenantId);
}
