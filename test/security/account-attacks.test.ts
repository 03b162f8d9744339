import { describe, expect, inject, it } from 'vitest';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { activateTotp, newTotpSecret } from '../helpers/mfa';
import { patientStores } from '../helpers/patient-stores';

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

describe('account enumeration', () => {
  it('answers unknown users and wrong passwords alike, in times whose medians differ by less than 20%', async () => {
    // The production Argon2id cost: the time of the hash (or of the dummy one) is the subject.
    const deps = await testDeps({}, { productionHashing: true });
    const app = testApp(deps);
    const tenantId = uniqueTenant();
    await registerAdmin(app, tenantId, 'known-user', 'the right passphrase');
    const unknown: number[] = [];
    const wrong: number[] = [];
    const time = async (username: string, into: number[]) => {
      const started = performance.now();
      const response = await app.request('login', { body: { username, password: 'a wrong passphrase', tenantId } });
      into.push(performance.now() - started);
      expect(response).toMatchObject({ status: 401, body: failure('Invalid credentials') });
    };
    // Warm up, then alternate so that drift in the machine's load hits both alike.
    await time('known-user', []);
    await time('nobody-0', []);
    for (let i = 0; i < 50; i++) {
      deps.clock.advance(24 * 3600 + 1); // new windows of every length of the budget each round (docs/api.md 10)
      await time(`nobody-${i}`, unknown);
      await time('known-user', wrong);
    }
    const [u, w] = [median(unknown), median(wrong)];
    if (process.env.SHOW_TIMINGS) console.log({ unknownMedianMs: u, wrongPasswordMedianMs: w });
    expect(Math.abs(u - w) / Math.max(u, w)).toBeLessThan(0.2);
  }, 60_000);
});

describe('lockout across Lambda instances', () => {
  it('counts failures of every instance together, locks all of them, and ends for all when the window passes', async () => {
    // Two instances: their own dependencies and clock, one table.
    const [one, two] = [await testDeps(), await testDeps()];
    nearRealTime(one, two);
    const apps = [testApp(one), testApp(two)];
    const tenantId = uniqueTenant();
    await registerAdmin(apps[0] as App, tenantId, 'target', 'the right passphrase');
    const attempt = (index: number, password: string) =>
      (apps[index % 2] as App).request('login', { body: { username: 'target', password, tenantId } });
    for (let i = 0; i < 5; i++) expect((await attempt(i, `guess ${i}`)).status).toBe(401);
    for (const index of [0, 1]) {
      const locked = await attempt(index, 'the right passphrase');
      expect(locked).toMatchObject({
        status: 429,
        headers: { 'Retry-After': '900' },
        body: failure('Too many failed attempts'),
      });
    }
    one.clock.advance(15 * 60);
    two.clock.advance(15 * 60);
    expect((await attempt(1, 'the right passphrase')).status).toBe(200);
    expect((await attempt(0, 'the right passphrase')).status).toBe(200);
  });

  it('lets no more than 5 of 50 concurrent guesses spread over two instances reach the password check', async () => {
    const instances = [await testDeps(), await testDeps()] as const;
    nearRealTime(...instances);
    for (const deps of instances) deps.store = patientStores(inject('dynamodbEndpoint'), inject('tableName'));
    const apps = instances.map((deps) => testApp(deps));
    const tenantId = uniqueTenant();
    await registerAdmin(apps[0] as App, tenantId, 'target', 'the right passphrase');
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (apps[i % 2] as App).request('login', { body: { username: 'target', password: `guess ${i}`, tenantId } }),
      ),
    );
    expect(answers.filter((r) => r.status === 401)).toHaveLength(5);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(45);
  });
});

describe('account enumeration through other channels', () => {
  /** The parts of an answer an attacker sees, without what differs per request anyway. */
  const visible = (response: { status: number; headers: Record<string, string>; body: unknown }) => ({
    status: response.status,
    headers: response.headers,
    body: response.body,
  });

  it('answers a known and an unknown username alike: wrong password, lockout, anonymous registration, MFA', async () => {
    const deps = await testDeps();
    nearRealTime(deps);
    const app = testApp(deps);
    const tenantId = uniqueTenant();
    const admin = await registerAdmin(app, tenantId, 'known-user', 'the right passphrase');
    // The known user has MFA: a wrong password must still not reveal it.
    await activateTotp(app, deps, admin.token, newTotpSecret());
    const login = (username: string, password: string) => app.request('login', { body: { username, password, tenantId } });

    expect(visible(await login('known-user', 'a wrong passphrase'))).toEqual(visible(await login('unknown-user', 'a wrong passphrase')));
    for (let i = 0; i < 5; i++) {
      await login('known-user', `wrong ${i}`);
      await login('unknown-user', `wrong ${i}`);
    }
    const [known, unknown] = [await login('known-user', 'the right passphrase'), await login('unknown-user', 'the right passphrase')];
    expect(known.status).toBe(429);
    expect(visible(known)).toEqual(visible(unknown));

    const register = (username: string) =>
      app.request('register', { body: { username, password: 'a strong passphrase', role: 'ADMIN', tenantId } });
    expect(visible(await register('known-user'))).toEqual(visible(await register('unknown-user')));
    expect((await register('known-user')).status).toBe(403);
  });
});
