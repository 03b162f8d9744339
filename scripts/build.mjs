// Bundles every function (functions/*.ts) and script (scripts/*.ts) with esbuild into dist/.
import { readdirSync } from 'node:fs';
import { copyFile, rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { build } from 'esbuild';
import { functionBundleOptions } from './lib/function-bundles.mjs';

const entries = (dir) =>
  readdirSync(dir)
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))
    .map((name) => `${dir}/${name}`);

// ESM bundles that contain CommonJS dependencies need `require` for Node built-ins.
const banner = { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" };

// BUILD_DIR: another directory than dist/ (another build for the bench to measure: docs/performance.md).
const outRoot = process.env.BUILD_DIR || 'dist';
await rm(outRoot, { recursive: true, force: true });
const common = { bundle: true, platform: 'node', target: 'node22', logLevel: 'warning' };

// BUILD_DYNAMO_CLIENT=sdk: the functions on the SDK's DynamoDB client, as before the lean one,
// for the benchmark to compare (bench/sdk-dynamo-client.ts); never deployed.
const sdkClient = process.env.BUILD_DYNAMO_CLIENT === 'sdk';
const sdkDynamoClient = {
  name: 'sdk-dynamo-client',
  setup(plugin) {
    plugin.onResolve({ filter: /\/dynamo-client$/ }, (args) =>
      args.importer.endsWith('lib/store/dynamo.ts') ? { path: resolve('bench/sdk-dynamo-client.ts') } : undefined,
    );
  },
};

// The functions, bundled as scripts/lib/function-bundles.mjs says.
const functions = await build({
  ...common,
  ...functionBundleOptions,
  outExtension: { '.js': '.cjs' },
  entryPoints: entries('functions'),
  outdir: `${outRoot}/functions`,
  minify: true,
  sourcemap: 'linked',
  legalComments: 'none',
  external: [...functionBundleOptions.external, ...(sdkClient ? ['@aws-sdk/lib-dynamodb'] : [])],
  plugins: [...functionBundleOptions.plugins, ...(sdkClient ? [sdkDynamoClient] : [])],
  metafile: true,
});
// The common-password list, read beside the bundles on first use (lib/users/common-passwords.ts).
await copyFile('lib/users/common-passwords.txt', `${outRoot}/functions/common-passwords.txt`);
await build({
  ...common,
  format: 'esm',
  outExtension: { '.js': '.mjs' },
  banner,
  entryPoints: entries('scripts'),
  outdir: `${outRoot}/scripts`,
  packages: 'external',
});

if (process.argv.includes('--sizes')) {
  for (const [file, { bytes }] of Object.entries(functions.metafile.outputs)) {
    if (file.endsWith('.cjs')) console.log(`${(bytes / 1024).toFixed(1).padStart(7)} KB  ${file}`);
  }
}
