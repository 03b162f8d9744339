// Bundles every function (functions/*.ts) and script (scripts/*.ts) with esbuild into dist/.
import { readdirSync } from 'node:fs';
import { copyFile, rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { build } from 'esbuild';
import { builtinsOnFirstUse } from './lib/lazy-builtins.mjs';

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

// The functions are CommonJS (`.cjs`, which Lambda and serverless-offline find for
// `dist/functions/<name>.handler`). The external AWS SDK packages are CommonJS too: imported
// from an ES module, Node lexes every one of their files for its named exports and checks
// its format (cjs-module-lexer, ~35 files, about 90 ms here); required, it only runs them.
// That more than halves a cold start (bench/cold-starts.ts, docs/performance.md).
const functions = await build({
  ...common,
  format: 'cjs',
  outExtension: { '.js': '.cjs' },
  // import() of a package loaded on first use (lib/deps) becomes require(): through
  // import(), Node would run the ES module loader over the SDK's CommonJS build.
  supported: { 'dynamic-import': false },
  entryPoints: entries('functions'),
  outdir: `${outRoot}/functions`,
  minify: true,
  sourcemap: 'linked',
  legalComments: 'none',
  // Loaded from node_modules at run time, not bundled: the native Argon2 binding
  // (packaged per platform), bcryptjs (verifies imported bcrypt hashes, docs/api.md 13.2:
  // only the functions that check passwords ship it, on first use) and the AWS SDK's clients (part of the Lambda Node.js runtime,
  // loaded on first use: KMS, SNS, SES, Secrets Manager; the credential chain only
  // outside Lambda).
  // The SDK's marshalling (@aws-sdk/util-dynamodb, 10 KB) is bundled with the stores.
  external: [
    '@node-rs/argon2',
    'bcryptjs',
    '@aws-sdk/client-*',
    '@aws-sdk/credential-provider-node',
    '@smithy/*',
    ...(sdkClient ? ['@aws-sdk/lib-dynamodb'] : []),
  ],
  // node:http loads on first use (scripts/lib/lazy-builtins.mjs).
  plugins: [builtinsOnFirstUse, ...(sdkClient ? [sdkDynamoClient] : [])],
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
