import type { BuildOptions } from 'esbuild';

/** scripts/lib/function-bundles.mjs: the esbuild options every function is bundled with. */
export declare const functionBundleOptions: BuildOptions & {
  external: string[];
  plugins: NonNullable<BuildOptions['plugins']>;
};
