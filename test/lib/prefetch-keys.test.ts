import { describe, expect, it } from 'vitest';
import type { Deps } from '../../lib/deps';
import { type KeyProvider, prefetchKeys } from '../../lib/tokens/signing-keys';
import { registerAdmin, testApp } from '../helpers/app';
import { testDeps, uniqueTenant } from '../helpers/deps';

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

  it.each(['login', 'register', 'refreshToken', 'oauth2Token', 'passkeyAuthentication', 'acceptInvitation', 'reauthenticate'])(
    '%s starts reading the keys before anything else, at its first request only',
    async (name) => {
      const order: string[] = [];
      const app = testApp(recording(await testDeps(), order));
      // Bodies that are refused: the read starts as the request arrives, before validation.
      await app.request(name, { body: {} });
      await app.request(name, { body: {} });
      expect(order.filter((step) => step === 'keys')).toEqual(['keys']);
      expect(order[0]).toBe('keys');
    },
  );

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
