/** The methods of a store that can wait for its module: every one answers a promise. */
export type AsyncMethods<S> = { [K in keyof S]: (...args: never[]) => Promise<unknown> };

/**
 * A store whose module is loaded on the first call of one of its methods: a store's
 * module builds the schemas of its records at load, and every function's deps hold every
 * store, so loading them all up front cost each cold start what most functions never use
 * (docs/performance.md, Cold starts). Only for stores whose methods all answer a promise
 * (a method that builds part of another store's transaction is synchronous: that store
 * is built as it is). Once loaded, the store's own methods are handed out, and its keys
 * are its own (`{ ...store, find }` in tests).
 */
export function onFirstCall<S extends AsyncMethods<S>>(load: () => Promise<S>): S {
  let loaded: S | undefined;
  let loading: Promise<S> | undefined;
  const ready = () => {
    loading ??= load().then(
      (store) => (loaded = store),
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };
  return new Proxy({} as S, {
    get(_, method) {
      if (loaded) return Reflect.get(loaded, method);
      // Not a method of a store: `then` would make the store look like a promise.
      if (typeof method === 'symbol' || method === 'then') return undefined;
      return async (...args: unknown[]) => {
        const store = await ready();
        const call: unknown = Reflect.get(store, method);
        return Reflect.apply(call as (...args: unknown[]) => Promise<unknown>, store, args);
      };
    },
    ownKeys: () => (loaded ? Reflect.ownKeys(loaded) : []),
    getOwnPropertyDescriptor: (_, key) => (loaded ? Reflect.getOwnPropertyDescriptor(loaded, key) : undefined),
    has: (_, key) => (loaded ? key in loaded : false),
  });
}
