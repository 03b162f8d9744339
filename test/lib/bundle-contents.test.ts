import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BuildOptions, build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { functionBundleOptions } from '../../scripts/lib/function-bundles.mjs';
import { builtinsOnFirstUse } from '../../scripts/lib/lazy-builtins.mjs';
import { apiEvent } from '../helpers/http';

/*
 * What a function's bundle carries decides its size and cold start (docs/performance.md:
 * every bundle ≤ 300 KB). The functions are bundled here as scripts/build.mjs bundles
 * them, without writing anything, and their inputs checked.
 */

/**
 * The modules a function's bundle holds code of. A module tree-shaken away is listed with
 * nothing in the output, or with only esbuild's calls that initialise the modules it
 * imports (`init_clock();`, where those are initialised on first use: the stores load
 * lazily, docs/decisions/029-cold-start-floor.md): a few lines that carry none of its code.
 */
const NO_CODE_BYTES = 128;
/** A function bundled as scripts/build.mjs bundles it (unminified), written nowhere. */
const AS_BUILT = { ...functionBundleOptions, write: false, logLevel: 'silent' } satisfies BuildOptions;
/** The modules a function's bundle holds code of, with the bytes of each (more than NO_CODE_BYTES). */
async function inputSizes(name: string): Promise<Record<string, number>> {
  const { metafile } = await build({ ...AS_BUILT, entryPoints: [`functions/${name}.ts`], outdir: 'bundle-contents', metafile: true });
  return Object.fromEntries(
    Object.values(metafile.outputs).flatMap((output) =>
      Object.entries(output.inputs).flatMap(([file, { bytesInOutput }]) => (bytesInOutput > NO_CODE_BYTES ? [[file, bytesInOutput]] : [])),
    ),
  );
}

/** The modules a function's bundle holds code of. */
const inputsOf = async (name: string) => Object.keys(await inputSizes(name));

/** Each function's inputs that match `pattern`, by function. */
async function matching(functions: string[], pattern: RegExp): Promise<Record<string, string[]>> {
  const found = await Promise.all(functions.map(async (name) => [name, (await inputsOf(name)).filter((file) => pattern.test(file))]));
  return Object.fromEntries(found);
}

describe('the function bundles', () => {
  it('carry the MFA code checks (lib/mfa/code-check.ts, TOTP) in the password doors only, not the passkey sign-ins', async () => {
    const codeChecks = await matching(
      ['hosted-passkey-sign-in', 'passkey-authentication', 'login', 'hosted-sign-in'],
      // otpauth's few top-level statements with side effects stay in every bundle that imports it at all (under 1 KB).
      /lib\/mfa\/(code-check|totp)\.ts/,
    );
    expect(codeChecks['hosted-passkey-sign-in']).toEqual([]);
    expect(codeChecks['passkey-authentication']).toEqual([]);
    expect(codeChecks.login).toHaveLength(2);
    expect(codeChecks['hosted-sign-in']).toHaveLength(2);
  });

  it('leave the JSON chain’s CORS and security headers out of the hosted pages', async () => {
    const jsonChain = await matching(
      ['hosted-passkey-sign-in', 'hosted-consent', 'me'],
      /@middy\/(http-cors|http-security-headers|http-json-body-parser)\//,
    );
    expect(jsonChain['hosted-passkey-sign-in']).toEqual([]);
    expect(jsonChain['hosted-consent']).toEqual([]);
    expect(jsonChain.me).toHaveLength(3);
  });

  it('leave the JSON chain out of the invitation pages, which run the page chain', async () => {
    const jsonChain = await matching(['hosted-invitation-page', 'hosted-invitation-accept'], /@middy\/(http-cors|http-security-headers)\//);
    expect(jsonChain).toEqual({ 'hosted-invitation-page': [], 'hosted-invitation-accept': [] });
  });

  it("carry zod/mini, without its JSON Schema generation, and its schemas answer zod's English messages in a bundle", async () => {
    // zod's JSON Schema generation (37 KB unminified) is reached only through classic zod's methods.
    for (const name of ['me', 'hosted-invitation-accept', 'admin-console-page']) {
      const inputs = await inputsOf(name);
      expect(
        inputs.filter((file) => /zod\/v4\/(classic|core\/(json-schema-processors|to-json-schema))/.test(file)),
        name,
      ).toEqual([]);
      expect(inputs.filter((file) => /zod\/v4\/mini\//.test(file)).length, name).toBeGreaterThan(0);
    }
    // A bundle of a module that uses zod as the functions do (lib/zod.ts): the messages are
    // zod's English ones, which the envelope carries (zod/mini alone says "Invalid input").
    const { outputFiles } = await build({
      stdin: {
        contents: `import * as z from './lib/zod';
          const form = z.strictObject({ username: z.string().check(z.minLength(1), z.maxLength(8)), age: z.optional(z.number().check(z.int())) });
          module.exports = { ok: form.safeParse({ username: 'ann' }), bad: form.safeParse({ username: '', age: 1.5, x: 1 }) };`,
        resolveDir: process.cwd(),
      },
      bundle: true,
      platform: 'node',
      format: 'cjs',
      write: false,
      logLevel: 'silent',
    });
    const module = { exports: {} as Record<string, any> };
    new Function('module', 'exports', 'require', outputFiles[0]?.text ?? '')(module, module.exports, createRequire(import.meta.url));
    expect(module.exports.ok).toEqual({ success: true, data: { username: 'ann' } });
    expect(module.exports.bad.success).toBe(false);
    expect(module.exports.bad.error.issues.map((issue: { message: string }) => issue.message).sort()).toEqual([
      'Invalid input: expected int, received number',
      'Too small: expected string to have >=1 characters',
      'Unrecognized key: "x"',
    ]);
  });
});

/**
 * Runs `source` (a CommonJS bundle) in a fresh Node process with `env` and answers what it
 * printed: `report(label)` there prints the public built-ins loaded since the start.
 */
function runFresh(source: string, env: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'bundle-'));
  try {
    const file = join(dir, 'bundle.cjs');
    writeFileSync(file, source);
    const script = `const before = new Set(process.moduleLoadList);
      globalThis.report = (label) => console.log(label, process.moduleLoadList.filter((m) => !before.has(m) && /^NativeModule [a-z_/]+$/.test(m)).map((m) => m.slice(13)).sort().join(' '));
      Promise.resolve(require(${JSON.stringify(file)}).run?.()).catch((error) => { console.error(error); process.exit(1); });`;
    return execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env } });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const IDENTITY = {
  userId: 'u-1',
  username: 'ann@example.com',
  role: 'OPERATOR' as const,
  tenantId: 'acme',
  shopId: 'main',
  sessionId: 's-1',
  amr: ['pwd' as const],
  authTime: 1_700_000_000,
};

describe('Node built-ins on first use (docs/decisions/037-built-ins-on-first-use.md)', () => {
  it('a bundle loads node:http and node:https each at the first use of one of its exports, which then work', async () => {
    const { outputFiles } = await build({
      stdin: {
        contents: `import { STATUS_CODES } from 'node:http';
          import * as http from 'http';
          import { request as httpsRequest } from 'node:https';
          export function run() {
            report('loaded:');
            console.log(STATUS_CODES[404], typeof http.request);
            report('used http:');
            // A CommonJS dependency may set an export (an ES import cannot).
            const agent = new http.Agent();
            const required = require('http');
            required.globalAgent = agent;
            console.log(required.globalAgent === agent, process.getBuiltinModule('node:http').globalAgent === agent, typeof httpsRequest);
            report('used https:');
          }`,
        resolveDir: process.cwd(),
      },
      bundle: true,
      platform: 'node',
      format: 'cjs',
      plugins: [builtinsOnFirstUse],
      write: false,
      logLevel: 'silent',
    });
    const lines = runFresh(outputFiles[0]?.text ?? '')
      .trim()
      .split('\n');
    expect(lines[0]).not.toMatch(/\bhttps?\b/);
    expect(lines[1]).toBe('Not Found function');
    expect(lines[2]).toMatch(/\bhttp\b/);
    expect(lines[2]).not.toMatch(/\bhttps\b/);
    // A set export reaches the built-in, as it would without the stand-in.
    expect(lines[3]).toBe('true true function');
    expect(lines[4]).toMatch(/\bhttps\b/);
  });

  it('a function whose first request reaches no AWS service never loads HTTP (me, served from its authorizer context)', async () => {
    const { outputFiles } = await build({ ...AS_BUILT, entryPoints: ['functions/me.ts'] });
    const bundle = `${outputFiles[0]?.text ?? ''}
      module.exports.run = async () => {
        report('loaded:');
        const event = ${JSON.stringify(apiEvent({ method: 'GET', path: '/auth/me', identity: IDENTITY }))};
        const answer = await module.exports.handler(event, { functionName: 'me', awsRequestId: 'r', getRemainingTimeInMillis: () => 3000 });
        console.log('status', answer.statusCode);
        report('served:');
      };`;
    const lines = runFresh(bundle, { DYNAMODB_ENDPOINT: 'http://127.0.0.1:9', TABLE_NAME: 'identity' }).trim().split('\n');
    expect(lines[1]).toBe('status 200');
    for (const line of [lines[0], lines[2]]) expect(line).not.toMatch(/\bhttps?\b/);
  });
});
