// How every function is bundled: scripts/build.mjs writes them with these options (and
// its output's own: minified, source maps), and test/lib/bundle-contents.test.ts bundles
// them the same way to check what they carry and what they load.
import { builtinsOnFirstUse } from './lazy-builtins.mjs';

export const functionBundleOptions = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  // The functions are CommonJS (`.cjs`, which Lambda and serverless-offline find for
  // `dist/functions/<name>.handler`). The external AWS SDK packages are CommonJS too: imported
  // from an ES module, Node lexes every one of their files for its named exports and checks
  // its format (cjs-module-lexer, ~35 files, about 90 ms here); required, it only runs them.
  // That more than halves a cold start (bench/cold-starts.ts, docs/performance.md).
  format: 'cjs',
  // import() of a package loaded on first use (lib/deps) becomes require(): through
  // import(), Node would run the ES module loader over the SDK's CommonJS build.
  supported: { 'dynamic-import': false },
  // Loaded from node_modules at run time, not bundled: the native Argon2 binding
  // (packaged per platform), bcryptjs (verifies imported bcrypt hashes, docs/api.md 13.2:
  // only the functions that check passwords ship it, on first use) and the AWS SDK's clients (part of the Lambda Node.js runtime,
  // loaded on first use: KMS, SNS, SES, Secrets Manager; the credential chain only
  // outside Lambda).
  // The SDK's marshalling (@aws-sdk/util-dynamodb, 10 KB) is bundled with the stores.
  external: ['@node-rs/argon2', 'bcryptjs', '@aws-sdk/client-*', '@aws-sdk/credential-provider-node', '@smithy/*'],
  // node:http and node:https load on first use (scripts/lib/lazy-builtins.mjs).
  plugins: [builtinsOnFirstUse],
};
