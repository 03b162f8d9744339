// Bundles every function (functions/*.ts) and script (scripts/*.ts) with esbuild into dist/.
import { readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { build } from 'esbuild';

const entries = (dir) =>
  readdirSync(dir)
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))
    .map((name) => `${dir}/${name}`);

// ESM bundles that contain CommonJS dependencies need `require` for Node built-ins.
const banner = { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" };

await rm('dist', { recursive: true, force: true });
const common = { bundle: true, platform: 'node', target: 'node20', format: 'esm', outExtension: { '.js': '.mjs' }, banner, logLevel: 'warning' };

const functions = await build({
  ...common,
  entryPoints: entries('functions'),
  outdir: 'dist/functions',
  minify: true,
  sourcemap: 'linked',
  legalComments: 'none',
  // Loaded from node_modules at run time, not bundled: the native Argon2 binding
  // (packaged per platform), the AWS SDK (part of the Lambda Node.js runtime) and
  // the common-password list (loaded by register on first use).
  external: ['@node-rs/argon2', '@aws-sdk/*', '@smithy/*', '@zxcvbn-ts/language-common'],
  metafile: true,
});
await build({ ...common, entryPoints: entries('scripts'), outdir: 'dist/scripts', packages: 'external' });

if (process.argv.includes('--sizes')) {
  for (const [file, { bytes }] of Object.entries(functions.metafile.outputs)) {
    if (file.endsWith('.mjs')) console.log(`${(bytes / 1024).toFixed(1).padStart(7)} KB  ${file}`);
  }
}
