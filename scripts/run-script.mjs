// `node scripts/run-script.mjs NAME [ARGS...]` (`npm run outbox`, `keys`, `create-admin`,
// `openapi`): bundles scripts/NAME.ts alone into .build/scripts/NAME.mjs and runs it with
// ARGS. Never into dist/: `npm start` serves the functions from there, and a rebuild
// under a running server fails every function it loads meanwhile.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const [name, ...args] = process.argv.slice(2);
const source = `scripts/${name}.ts`;
if (!name || !/^[a-z0-9-]+$/.test(name) || !existsSync(source)) {
  console.error(`Usage: node scripts/run-script.mjs NAME [ARGS...], where scripts/NAME.ts exists (not: ${name ?? 'nothing'})`);
  process.exit(2);
}

const outDir = resolve('.build/scripts');
await mkdir(outDir, { recursive: true });
// Written aside, then renamed: two runs at once never load a half-written bundle.
const partial = join(outDir, `${name}.${randomUUID()}.tmp.mjs`);
await build({
  entryPoints: [source],
  outfile: partial,
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'esm',
  packages: 'external',
  logLevel: 'warning',
  // ESM bundles that contain CommonJS code need `require` for Node built-ins.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
});
const bundle = join(outDir, `${name}.mjs`);
await rename(partial, bundle);

// The script reads its arguments from process.argv, as when run as `node <bundle> ARGS`.
process.argv = [process.argv[0], bundle, ...args];
await import(pathToFileURL(bundle).href);
