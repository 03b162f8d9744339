import type { Plugin } from 'esbuild';

/** scripts/lib/lazy-builtins.mjs: the Node built-ins a function's bundle loads on first use. */
export declare const builtinsOnFirstUse: Plugin;
