// A cold process's first secret read, through the SDK's Secrets Manager client (as before
// decision 036) and through lib/secrets/secrets-manager.ts (as the functions bundle it),
// against a fake Secrets Manager on loopback; beside an empty Node process. Wall time from
// spawn to exit, interleaved, medians. `node bench/secret-read.mjs [processes]`
// (docs/performance.md, Cold starts).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

const runs = Number(process.argv[2] ?? 15);
const dir = mkdtempSync(join(tmpdir(), 'secret-read-'));
const fakeSecretsManager = `require('node:http').createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
    response.end(JSON.stringify({ Name: 'keys', SecretString: '{}', VersionId: 'v1' }));
  });
}).listen(0, '127.0.0.1', function () { console.log(this.address().port); });`;
const fake = spawn(process.execPath, ['-e', fakeSecretsManager], { stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise((listening) => fake.stdout.once('data', (data) => listening(String(data).trim())));
const credentials = "{ accessKeyId: 'AKID', secretAccessKey: 'secret' }";
const entries = {
  sdk: `const { awsClientSettings } = await import('${resolve('lib/aws.ts')}');
    const { SecretsManagerClient, GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
    const client = new SecretsManagerClient({ ...(await awsClientSettings('eu-west-1')), endpoint: process.env.ENDPOINT, credentials: ${credentials} });
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: 'keys' }));
    client.destroy();
    process.exit(SecretString === '{}' ? 0 : 1);`,
  lean: `const { secretsManagerReader } = await import('${resolve('lib/secrets/secrets-manager.ts')}');
    const { SecretString } = await secretsManagerReader({ region: 'eu-west-1', endpoint: process.env.ENDPOINT, credentials: async () => (${credentials}) })('keys');
    process.exit(SecretString === '{}' ? 0 : 1);`,
};
for (const [name, contents] of Object.entries(entries)) {
  // As scripts/build.mjs bundles the functions: CommonJS, the AWS SDK's packages loaded from node_modules.
  await build({
    stdin: { contents: `(async () => { ${contents} })();`, resolveDir: process.cwd(), loader: 'ts' },
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'cjs',
    supported: { 'dynamic-import': false },
    external: ['@aws-sdk/client-*', '@smithy/*'],
    outfile: join(dir, `${name}.cjs`),
    logLevel: 'warning',
  });
}
const env = { ...process.env, ENDPOINT: `http://127.0.0.1:${port}`, NODE_PATH: resolve('node_modules') };
const time = (args) => {
  const started = process.hrtime.bigint();
  const { status } = spawnSync(process.execPath, args, { env, stdio: 'inherit' });
  if (status !== 0) throw new Error(`node ${args.join(' ')} exited with ${status}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
};
const times = { empty: [], sdk: [], lean: [] };
try {
  for (let run = 0; run < runs; run++) {
    times.empty.push(time(['-e', '0']));
    times.sdk.push(time([join(dir, 'sdk.cjs')]));
    times.lean.push(time([join(dir, 'lean.cjs')]));
  }
} finally {
  // A failed process must not leave the fake listening.
  fake.kill();
  rmSync(dir, { recursive: true, force: true });
}
const median = (values) => values.sort((a, b) => a - b)[values.length >> 1];
for (const [name, values] of Object.entries(times)) {
  console.log(`${name.padEnd(6)} ${median(values).toFixed(1).padStart(7)} ms  ${(median(values) / median(times.empty)).toFixed(2)}× empty`);
}
console.log(
  `first secret read, SDK − lean: ${(median(times.sdk) - median(times.lean)).toFixed(1)} ms (${runs} processes each, Node ${process.version})`,
);
