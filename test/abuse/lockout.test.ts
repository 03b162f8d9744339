import { randomInt } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { deviceCookieName, deviceTokens } from '../../lib/abuse/device-token';
import { sourceOf } from '../../lib/abuse/source-address';
import { cryptoRandom } from '../../lib/crypto/random';
import { parsePeppers } from '../../lib/oauth/client-secret';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { activateDelivered, activateTotp } from '../helpers/mfa';
import { createClient, tokenRequest } from '../helpers/oauth';

const PASSWORD = 'correct horse battery';
const DAY = 24 * 3600;

/** An address no other test uses (the per-source count is shared by the whole run). */
const freshAddress = () => `198.18.${randomInt(0, 256)}.${randomInt(1, 255)}`;

describe('docs/api.md 10: the lockout cannot be turned against the rightful user', () => {
  let deps: TestDeps;
  let app: App;

  beforeAll(async () => {
    // The per-source limit as configured by default (testDeps raises it for the rest of the suite).
    deps = await testDeps({ LOGIN_FAILURES_PER_SOURCE: '100' });
    nearRealTime(deps);
    app = testApp(deps);
  });

  /** A new tenant's ADMIN and a login from their own device (the device token it answers). */
  async function userOnKnownDevice(username = 'admin') {
    const tenantId = uniqueTenant('lockout');
    await registerAdmin(app, tenantId, username, PASSWORD);
    const signedIn = await app.request('login', { body: { username, password: PASSWORD, tenantId }, sourceIp: freshAddress() });
    expect(signedIn.status).toBe(200);
    const deviceToken: string = signedIn.body.data.deviceToken;
    const login = (password: string, options: { deviceToken?: string; cookie?: string; sourceIp?: string } = {}) =>
      app.request('login', {
        body: { username, password, tenantId },
        sourceIp: options.sourceIp ?? freshAddress(),
        headers: {
          ...(options.deviceToken ? { 'x-device-token': options.deviceToken } : {}),
          ...(options.cookie ? { cookie: options.cookie } : {}),
        },
      });
    return { tenantId, username, deviceToken, login };
  }

  const locked = (retryAfter: string | RegExp = /^\d+$/) => ({
    status: 429,
    headers: expect.objectContaining({ 'Retry-After': typeof retryAfter === 'string' ? retryAfter : expect.stringMatching(retryAfter) }),
    body: failure('Too many failed attempts'),
  });

  it('lets the user on a known device sign in while an attacker hammers the account from unknown sources', async () => {
    const { tenantId, username, deviceToken, login } = await userOnKnownDevice();
    // 30 guesses from 30 addresses, going on long after the lockout.
    const answers = [];
    for (let i = 0; i < 30; i++) {
      answers.push((await login(`guess-${i}`)).status);
      deps.clock.advance(10);
    }
    expect(answers).toEqual([...Array(5).fill(401), ...Array(25).fill(429)]);
    // Unknown sources are locked out, the right password too.
    expect(await login(PASSWORD)).toEqual(locked());
    // The known device signs in, by header (API clients) and by cookie (browsers).
    const byHeader = await login(PASSWORD, { deviceToken });
    expect(byHeader.status).toBe(200);
    expect(byHeader.body.data.deviceToken).not.toBe(deviceToken);
    const cookie = `other=1; ${deviceCookieName({ tenantId, username })}=${byHeader.body.data.deviceToken}`;
    expect((await login(PASSWORD, { cookie })).status).toBe(200);
    expect(deps.logs).toContainEqual(expect.objectContaining({ event: 'login_locked', tenantId, username, source: 'unknown' }));
  });

  it('gives each known device a budget of its own: 5 failures lock that device only', async () => {
    const { deviceToken, login } = await userOnKnownDevice();
    const other = (await login(PASSWORD)).body.data.deviceToken as string;
    for (let i = 0; i < 5; i++) expect((await login(`typo-${i}`, { deviceToken })).status).toBe(401);
    expect(await login(PASSWORD, { deviceToken })).toEqual(locked('900'));
    // Neither the other device nor unknown sources paid for it.
    expect((await login(PASSWORD, { deviceToken: other })).status).toBe(200);
    expect((await login(PASSWORD)).status).toBe(200);
    deps.clock.advance(900);
    expect((await login(PASSWORD, { deviceToken })).status).toBe(200);
  });

  it('locks unknown sources out for longer and longer: 15 minutes, then 2 hours, then a day', async () => {
    const { deviceToken, login } = await userOnKnownDevice();
    const guessFive = async () => {
      for (let i = 0; i < 5; i++) expect((await login(`guess-${i}`)).status).toBe(401);
    };
    await guessFive();
    expect(await login(PASSWORD)).toEqual(locked('900'));
    deps.clock.advance(900);
    await guessFive();
    // 10 in 2 hours: until the 2-hour window (opened 900 s ago) ends.
    expect(await login(PASSWORD)).toEqual(locked(String(2 * 3600 - 900)));
    deps.clock.advance(2 * 3600 - 900);
    await guessFive();
    deps.clock.advance(900);
    await guessFive();
    // 20 in a day: until the day that began with the first guess ends.
    expect(await login(PASSWORD)).toEqual(locked(String(DAY - 2 * 3600 - 900)));
    expect((await login(PASSWORD, { deviceToken })).status).toBe(200);
  });

  it('treats a tampered, foreign, expired or unkeyed device token as an unknown source', async () => {
    const alice = await userOnKnownDevice('alice');
    const bob = await userOnKnownDevice('bob');
    const expiring = alice.deviceToken;
    const otherPeppers = deviceTokens(
      async () => parsePeppers(JSON.stringify({ current: 'test-1', peppers: { 'test-1': cryptoRandom.token(32) } }), 'utf8', 'test'),
      cryptoRandom,
    );
    const forged = await otherPeppers.issue({ tenantId: alice.tenantId, username: 'alice' }, Math.floor(deps.clock.now() / 1000));
    const fresh = (await alice.login(PASSWORD, { deviceToken: alice.deviceToken })).body.data.deviceToken as string;
    const lastChar = fresh.at(-1) === 'A' ? 'B' : 'A';
    const tampered = [
      ['another account', bob.deviceToken],
      ['another tenant, same username', (await userOnKnownDevice('alice')).deviceToken],
      ['a bad MAC', `${fresh.slice(0, -1)}${lastChar}`],
      ['a later expiry', fresh.replace(/\.(\d+)\./, (_, at: string) => `.${Number(at) + 1}.`)],
      ['another key', forged],
      ['garbage', 'd1.x.y.z'],
      ['an oversized header', 'd1.'.padEnd(4096, 'x')],
    ] as const;
    for (let i = 0; i < 5; i++) expect((await alice.login(`guess-${i}`)).status).toBe(401);
    for (const [what, deviceToken] of tampered) expect(await alice.login(PASSWORD, { deviceToken }), what).toEqual(locked());
    expect((await alice.login(PASSWORD, { deviceToken: fresh })).status).toBe(200);

    // A year and a second later the first token has expired (the windows have passed too).
    deps.clock.advance(365 * DAY + 1);
    for (let i = 0; i < 5; i++) expect((await alice.login(`guess-${i}`)).status).toBe(401);
    expect(await alice.login(PASSWORD, { deviceToken: expiring })).toEqual(locked());
    nearRealTime(deps);
  });

  it('answers 429 Too many requests to an address after 100 failures in 15 minutes, across accounts, and to no other', async () => {
    const flooder = freshAddress();
    const tenantId = uniqueTenant('flood');
    const { deviceToken, login } = await userOnKnownDevice();
    // 100 guesses spread over 25 usernames (4 each: no account lockout).
    for (let i = 0; i < 100; i++) {
      const answer = await app.request('login', { body: { username: `user-${i % 25}`, password: 'x', tenantId }, sourceIp: flooder });
      expect(answer.status).toBe(401);
    }
    const refused = await app.request('login', { body: { username: 'user-0', password: 'x', tenantId }, sourceIp: flooder });
    expect(refused).toEqual({
      status: 429,
      headers: expect.objectContaining({ 'Retry-After': '900' }),
      body: failure('Too many requests'),
    });
    // The right password of a known device from that address too: the address is refused before anything is checked.
    expect((await login(PASSWORD, { deviceToken, sourceIp: flooder })).status).toBe(429);
    // Every other address is unaffected.
    expect((await login('wrong')).body).toEqual(failure('Invalid credentials'));
    expect((await login(PASSWORD)).status).toBe(200);
    deps.clock.advance(900);
    expect((await login(PASSWORD, { sourceIp: flooder })).status).toBe(200);
    expect(deps.logs).toContainEqual(expect.objectContaining({ event: 'login_source_limited', tenantId, username: 'user-0' }));
  });

  it('counts an IPv6 network (/64) as one source', () => {
    expect(sourceOf('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(sourceOf('2001:0db8:0001:0002:ffff:1:2:3')).toBe('2001:db8:1:2::/64');
    expect(sourceOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(sourceOf('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(sourceOf('192.0.2.1')).toBe('192.0.2.1');
    expect(sourceOf('not an address')).toBeUndefined();
    expect(sourceOf(undefined)).toBeUndefined();
  });

  it('gives MFA codes one budget per user across methods: guesses spread over three methods share it, escalating', async () => {
    const tenantId = uniqueTenant('mfa-budget');
    const { token, user } = await registerAdmin(app, tenantId, 'alice', PASSWORD);
    const { code } = await activateTotp(app, deps, token);
    // An address of its own: this file's per-source limit (100) would otherwise count the
    // failures of every file that logs in from the fixture's one address.
    const sourceIp = freshAddress();
    const stepUp = await app.request('login', { body: { username: 'alice', password: PASSWORD, tenantId, mfaCode: code() }, sourceIp });
    expect(stepUp.status).toBe(200);
    await activateDelivered(app, deps, stepUp.body.data.token, user.id, 'SMS', '+15550100200');
    deps.clock.advance(30);
    await activateDelivered(app, deps, stepUp.body.data.token, user.id, 'EMAIL', 'alice@example.com');
    deps.clock.advance(30);
    const guess = (mfaMethod: string) =>
      app.request('login', { body: { username: 'alice', password: PASSWORD, tenantId, mfaMethod, mfaCode: '000000' }, sourceIp });
    for (const method of ['TOTP', 'SMS', 'EMAIL', 'TOTP', 'SMS']) expect((await guess(method)).body).toEqual(failure('Invalid MFA code'));
    for (const method of ['TOTP', 'SMS', 'EMAIL']) expect(await guess(method)).toEqual(locked('900'));
    deps.clock.advance(900);
    for (const method of ['EMAIL', 'TOTP', 'SMS', 'EMAIL', 'TOTP']) expect((await guess(method)).body).toEqual(failure('Invalid MFA code'));
    // 10 in 2 hours: the longer window holds every method.
    for (const method of ['TOTP', 'SMS', 'EMAIL']) expect(await guess(method)).toEqual(locked(String(2 * 3600 - 900)));
    expect(deps.logs).toContainEqual(expect.objectContaining({ event: 'mfa_locked', tenantId, userId: user.id }));
  });

  it('limits failed client authentications per source: a guessing source tests no secret, others are not affected', async () => {
    const limited = await testDeps({ CLIENT_AUTH_FAILURES_PER_SOURCE: '3' });
    nearRealTime(limited);
    const limitedApp = testApp(limited);
    const tenantId = uniqueTenant('client-guess');
    const { token } = await registerAdmin(limitedApp, tenantId, 'admin', PASSWORD);
    const client = await createClient(limitedApp, token, tenantId, { grantTypes: 'client_credentials' });
    const guesser = freshAddress();
    const request = (secret: string, sourceIp: string) =>
      limitedApp.request('oauth2Token', {
        ...tokenRequest({ ...client, clientSecret: secret }, { grant_type: 'client_credentials' }),
        sourceIp,
      });
    for (let guess = 0; guess < 3; guess++) {
      const refused = await request(`wrong-${guess}-${'x'.repeat(40)}`, guesser);
      expect([refused.status, refused.body.error]).toEqual([401, 'invalid_client']);
    }
    // The source is past its limit: even the right secret is not tested (429, Retry-After).
    const blocked = await request(client.clientSecret, guesser);
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual({ error: 'invalid_request', error_description: 'Too many requests' });
    expect(Number(blocked.headers['Retry-After'])).toBeGreaterThan(0);
    // The client itself, from its own address, is not affected: the limit is the source's, not the client's.
    expect((await request(client.clientSecret, freshAddress())).status).toBe(200);
    // Unknown clients count too, and revocation and introspection share the count.
    const other = freshAddress();
    for (let guess = 0; guess < 3; guess++) {
      await limitedApp.request('introspect', {
        ...tokenRequest({ ...client, clientId: `nobody-${guess}` }, { token: 'x' }),
        sourceIp: other,
      });
    }
    expect((await request(client.clientSecret, other)).status).toBe(429);
    limited.clock.advance(15 * 60);
    expect((await request(client.clientSecret, guesser)).status).toBe(200);
  });
});
