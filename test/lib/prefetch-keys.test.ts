import { describe, expect, it } from 'vitest';
import type { Deps } from '../../lib/deps';
import { type KeyProvider, prefetchKeys } from '../../lib/tokens/signing-keys';
import { type AppRequest, registerAdmin, testApp } from '../helpers/app';
import { testDeps, uniqueTenant } from '../helpers/deps';

/** A WebAuthn assertion of the right shape that verifies nothing (a refused passkey sign-in). */
const BAD_ASSERTION = {
  id: 'AAAA',
  rawId: 'AAAA',
  type: 'public-key',
  response: {
    clientDataJSON: Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: 'AAAA', origin: 'http://localhost:3000' })).toString(
      'base64url',
    ),
    authenticatorData: 'AAAA',
    signature: 'AAAA',
  },
};

/** The deps with every store method call and every signing-key load written down, in order. */
function recording(deps: Deps, order: string[]): Deps {
  const store = new Proxy(deps.store, {
    get(stores, name) {
      const one: unknown = Reflect.get(stores, name);
      if (typeof one !== 'object' || one === null) return one;
      return new Proxy(one, {
        get(target, method) {
          const value: unknown = Reflect.get(target, method);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            order.push(`store.${String(name)}.${String(method)}`);
            return value.apply(target, args);
          };
        },
      });
    },
  });
  const keys: KeyProvider = {
    load: () => {
      order.push('keys');
      return deps.keys.load();
    },
  };
  return { ...deps, store, keys };
}

/** docs/performance.md, Cold starts: the functions that answer a token they sign start reading the keys as a request arrives. */
describe('prefetchKeys', () => {
  it('starts one read, at the first call only, and leaves its failure to the load that waits', async () => {
    let loads = 0;
    const unreadable: KeyProvider = {
      load: async () => {
        loads += 1;
        throw new Error('unreadable');
      },
    };
    const prefetch = prefetchKeys(unreadable);
    prefetch();
    prefetch();
    // A rejection left unhandled would fail this file (vitest reports it).
    await new Promise((resolve) => setImmediate(resolve));
    expect(loads).toBe(1);
    await expect(unreadable.load()).rejects.toThrow('unreadable');
  });

  /** For each function a request that passes validation: the read starts only then. */
  const valid = (tenantId: string, token: string): Array<[string, AppRequest]> => [
    ['login', { body: { tenantId, username: 'nobody', password: 'not the password' } }],
    ['register', { body: { tenantId: uniqueTenant(), username: 'first', password: 'correct horse battery', role: 'ADMIN' } }],
    ['refreshToken', { body: { refreshToken: 'not-a-refresh-token' } }],
    ['oauth2Token', { body: { grant_type: 'client_credentials', client_id: 'no-such-client', client_secret: 'nope' } }],
    ['passkeyAuthentication', { body: { tenantId, credential: BAD_ASSERTION } }],
    ['acceptInvitation', { body: { token: 'not-an-invitation', username: 'newcomer', password: 'correct horse battery' } }],
    ['reauthenticate', { token, body: { password: 'not the password' } }],
  ];

  /** Not what runs before the handler: the authorizer's session read, register's authorize hook (its tenant). */
  const handlerSteps = (step: string) => step !== 'store.sessions.findWithOwner' && step !== 'store.tenants.exists';

  it('each function that answers a token it signs starts the read with its handler, at its first valid request only', async () => {
    const order: string[] = [];
    const deps = recording(await testDeps(), order);
    const tenantId = uniqueTenant();
    const { token } = await registerAdmin(testApp(deps), tenantId, 'alice', 'correct horse battery');
    for (const [name, request] of valid(tenantId, token)) {
      order.length = 0;
      const app = testApp(deps);
      // Refused by validation: nothing is started.
      await app.request(name, { ...request, body: {} });
      expect(order.filter(handlerSteps), name).toEqual([]);
      await app.request(name, request);
      expect(order.filter(handlerSteps)[0], name).toBe('keys');
      order.length = 0;
      await app.request(name, request);
      expect(order.filter((step) => step === 'keys').length, name).toBeLessThanOrEqual(1);
      expect(order[0], name).not.toBe('keys');
    }
  });

  it('answers only once the read it started is done, also when the request fails', async () => {
    const base = await testDeps();
    let release = () => {};
    let done = false;
    const slow: KeyProvider = {
      load: async () => {
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        done = true;
        return base.keys.load();
      },
    };
    const app = testApp({ ...base, keys: slow });
    let answered = false;
    const answering = app.request('refreshToken', { body: { refreshToken: 'not-a-refresh-token' } }).then((response) => {
      answered = true;
      return response;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect([answered, done]).toEqual([false, false]);
    release();
    expect((await answering).status).toBe(401);
    expect(done).toBe(true);
  });

  it("a sign-in starts the keys' read before its first round trip, and answers as before", async () => {
    const order: string[] = [];
    const deps = recording(await testDeps(), order);
    const app = testApp(deps);
    const tenantId = uniqueTenant();
    await registerAdmin(app, tenantId, 'alice', 'correct horse battery');
    order.length = 0;
    const login = testApp(deps);
    const answer = await login.request('login', { body: { tenantId, username: 'alice', password: 'correct horse battery' } });
    expect(answer.status).toBe(200);
    // Started before the first store call, and awaited again only where the token is signed.
    expect(order[0]).toBe('keys');
    expect(order.indexOf('keys', 1)).toBeGreaterThan(order.findIndex((step) => step.startsWith('store.')));
  });
});
