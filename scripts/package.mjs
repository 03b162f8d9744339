// `npm run package -- [--stage STAGE]`: the deployment artifacts in .serverless/, for
// Lambda's nodejs22.x on arm64. Builds the bundles, installs the runtime packages the
// bundles leave out (the native Argon2 binding for linux-arm64 and bcryptjs) into dist/node_modules, then runs `serverless package` (no AWS credentials needed).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const stage = args[args.indexOf('--stage') + 1] && args.includes('--stage') ? args[args.indexOf('--stage') + 1] : 'dev';
const run = (command, commandArgs, options = {}) => execFileSync(command, commandArgs, { stdio: 'inherit', ...options });

run(process.execPath, ['scripts/build.mjs']);

const { dependencies } = JSON.parse(readFileSync('package.json', 'utf8'));
const runtime = ['@node-rs/argon2', 'bcryptjs'].map((name) => `${name}@${dependencies[name]}`);
const staging = '.build/runtime-arm64';
rmSync(staging, { recursive: true, force: true });
mkdirSync(staging, { recursive: true });
writeFileSync(join(staging, 'package.json'), JSON.stringify({ name: 'runtime', version: '1.0.0', private: true }));
run(
  'npm',
  ['install', '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', '--os=linux', '--cpu=arm64', '--libc=glibc', ...runtime],
  {
    cwd: staging,
  },
);
cpSync(join(staging, 'node_modules'), 'dist/node_modules', { recursive: true });

run(process.execPath, ['node_modules/.bin/serverless', 'package', '--stage', stage]);
