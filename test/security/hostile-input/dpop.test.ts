import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { type DpopKey, dpopKey, dpopProof } from '../../helpers/dpop';
import { authorizationCode, tokenRequest } from '../../helpers/oauth';
import { anyValue, type HostileTenant, hostileTenant, nasty } from './mixed-requests';

/**
 * Hostile DPoP proofs (docs/api.md 16.3) at the token endpoint and userinfo: random header
 * values, and proofs signed by a real key whose header or claims carry a hostile value
 * in one place. Each is refused with `invalid_dpop_proof` (400 at the token endpoint, 401
 * at userinfo), never a 5xx, and the table is unchanged: a refused proof records nothing.
 */
const RUNS = 120;

describe('hostile DPoP proofs', () => {
  let tenant: HostileTenant;
  let key: DpopKey;
  let boundToken: string;
  let tokenUrl: string;
  let userinfoUrl: string;

  beforeAll(async () => {
    tenant = await hostileTenant(`hostile-dpop-${Date.now()}`);
    key = await dpopKey();
    tokenUrl = `${tenant.deps.config.issuer}/oauth2/token`;
    userinfoUrl = `${tenant.deps.config.issuer}/oauth2/userinfo`;
    const issued = await authorizationCode(tenant.app, tenant.adminToken, tenant.client);
    const proof = await dpopProof(key, { htu: tokenUrl, iat: now() });
    const form = tokenRequest(tenant.client, {
      grant_type: 'authorization_code',
      code: issued.code,
      redirect_uri: tenant.client.redirectUri,
      code_verifier: issued.verifier,
    });
    boundToken = (await tenant.app.request('oauth2Token', { ...form, headers: { ...form.headers, dpop: proof } })).body.access_token;
  });

  const now = () => Math.floor(tenant.deps.clock.now() / 1000);

  /** One hostile value in one place of a proof otherwise right for `htu` and `htm`. */
  const hostileProof = (htu: string, htm: string, accessToken?: string) =>
    fc
      .oneof(
        // Not a proof at all.
        fc.oneof(nasty, fc.string({ unit: 'binary' }), fc.constantFrom('', ',', 'a.b.c', '..', 'e30.e30.', 'e30.e30.e30')),
        // A real signature over a hostile claim.
        fc
          .oneof(
            fc.record({ htm: anyValue.filter((value) => value !== htm) }),
            fc.record({ htu: anyValue.filter((value) => typeof value !== 'string' || !value.includes('/oauth2/')) }),
            fc.record({
              iat: fc.oneof(
                anyValue.filter((value) => typeof value !== 'number'),
                fc.integer({ max: now() - 61 }),
                fc.integer({ min: now() + 11 }),
              ),
            }),
            fc.record({
              jti: fc.oneof(
                fc.constant(''),
                fc.string({ minLength: 257 }),
                anyValue.filter((value) => typeof value !== 'string'),
              ),
            }),
            // Only where a token is sent: the token endpoint ignores `ath`.
            ...(accessToken ? [fc.record({ ath: anyValue })] : []),
          )
          .map((claims) => ({ claims })),
        // A real signature under a hostile header.
        fc
          .oneof(
            fc.record({ typ: anyValue.filter((value) => value !== 'dpop+jwt') }),
            fc.record({ jwk: fc.oneof(anyValue, fc.constant({ ...key.jwk, d: 'x' }), fc.constant({ ...key.jwk, x: 'AAAA' })) }),
            fc.record({ crit: anyValue }),
          )
          .map((header) => ({ header })),
      )
      .map((hostile) =>
        typeof hostile === 'string'
          ? async () => hostile
          : () => dpopProof(key, { htm, htu, iat: now(), ...(accessToken ? { accessToken } : {}) }, hostile),
      );

  it(`refuses ${RUNS} hostile proofs at the token endpoint with 400 invalid_dpop_proof, the table unchanged`, async () => {
    const before = await tenant.snapshot();
    const form = tokenRequest(tenant.client, { grant_type: 'client_credentials' });
    await fc.assert(
      fc.asyncProperty(hostileProof(tokenUrl, 'POST'), async (made) => {
        const dpop = await made();
        const answer = await tenant.app.request('oauth2Token', { ...form, headers: { ...form.headers, dpop } });
        expect([answer.status, answer.body.error], dpop).toEqual([400, 'invalid_dpop_proof']);
      }),
      { numRuns: RUNS },
    );
    expect(await tenant.snapshot()).toEqual(before);
  });

  it(`refuses ${RUNS} hostile proofs of a bound token at userinfo with 401, the table unchanged`, async () => {
    const before = await tenant.snapshot();
    await fc.assert(
      fc.asyncProperty(hostileProof(userinfoUrl, 'GET', boundToken), async (made) => {
        const dpop = await made();
        const answer = await tenant.app.request('userInfo', { method: 'GET', headers: { authorization: `DPoP ${boundToken}`, dpop } });
        expect(answer.status, dpop).toBe(401);
        expect(answer.headers['WWW-Authenticate'], dpop).toMatch(/^DPoP error="(invalid_dpop_proof|invalid_token)"/);
      }),
      { numRuns: RUNS },
    );
    expect(await tenant.snapshot()).toEqual(before);
  });
});
