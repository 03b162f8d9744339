import type { Plugin } from 'esbuild';

/** scripts/lib/zod-json-schema-stub.mjs: zod's JSON Schema generation left out of the function bundles. */
export declare const zodWithoutJsonSchema: Plugin;
