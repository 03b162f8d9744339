import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SCHEMA = 'clients/typescript/schema.d.ts';

describe('clients/typescript', () => {
  it('has the types `npm run client` generates from docs/openapi.json now', () => {
    const dir = mkdtempSync(join(tmpdir(), 'client-'));
    try {
      const fresh = join(dir, 'schema.d.ts');
      execFileSync(process.execPath, ['node_modules/openapi-typescript/bin/cli.js', 'docs/openapi.json', '--output', fresh], {
        stdio: 'pipe',
      });
      expect(readFileSync(SCHEMA, 'utf8'), `${SCHEMA} is stale: run \`npm run client\``).toBe(readFileSync(fresh, 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('pins its generator and runtime to the versions the repository installs', () => {
    const root = JSON.parse(readFileSync('package.json', 'utf8'));
    const client = JSON.parse(readFileSync('clients/typescript/package.json', 'utf8'));
    expect(client.dependencies).toEqual({ 'openapi-fetch': root.devDependencies['openapi-fetch'] });
    expect(client.devDependencies).toEqual({ 'openapi-typescript': root.devDependencies['openapi-typescript'] });
  });
});
