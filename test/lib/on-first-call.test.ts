import { describe, expect, it } from 'vitest';
import { onFirstCall } from '../../lib/store/on-first-call';

interface Counter {
  add(n: number): Promise<number>;
  total(): Promise<number>;
}

/** A store loaded on first call, and how many times its module was loaded. */
function lazyCounter() {
  let loads = 0;
  let sum = 0;
  const store = onFirstCall<Counter>(async () => {
    loads += 1;
    return {
      add: async (n) => (sum += n),
      total: async () => sum,
    };
  });
  return { store, loads: () => loads };
}

describe('onFirstCall', () => {
  it('loads the store on the first call of a method, once, and answers as the store does', async () => {
    const { store, loads } = lazyCounter();
    expect(loads()).toBe(0);
    const add = store.add;
    expect(loads()).toBe(0);
    expect(await Promise.all([add(1), store.add(2), store.total()])).toEqual([1, 3, 3]);
    expect(loads()).toBe(1);
    expect(await store.total()).toBe(3);
    expect(loads()).toBe(1);
  });

  it('is not taken for a promise before it is loaded', async () => {
    const { store, loads } = lazyCounter();
    expect(await Promise.resolve(store)).toBe(store);
    expect('then' in store).toBe(false);
    expect(loads()).toBe(0);
  });

  it('once loaded, has the store’s keys: a test can replace one method of it', async () => {
    const { store } = lazyCounter();
    expect(Object.keys({ ...store })).toEqual([]);
    await store.add(5);
    const replaced: Counter = { ...store, total: async () => -1 };
    expect(Object.keys(replaced).sort()).toEqual(['add', 'total']);
    expect(await replaced.add(1)).toBe(6);
    expect(await replaced.total()).toBe(-1);
  });

  it('passes a failing load on to the call, and tries again at the next', async () => {
    let attempts = 0;
    const store = onFirstCall<Pick<Counter, 'total'>>(async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('module not found');
      return { total: async () => 7 };
    });
    await expect(store.total()).rejects.toThrow('module not found');
    expect(await store.total()).toBe(7);
  });
});
