import { createRequire } from 'node:module';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

/*
 * What a function's bundle carries decides its size and cold start (docs/performance.md:
 * every bundle ≤ 300 KB). The functions are bundled here as scripts/build.mjs bundles
 * them, without writing anything, and their inputs checked.
 */
const EXTERNAL = ['@node-rs/argon2', 'bcryptjs', '@aws-sdk/client-*', '@aws-sdk/credential-provider-node', '@smithy/*'];

/**
 * The modules a function's bundle holds code of. A module tree-shaken away is listed with
 * nothing in the output, or with only esbuild's calls that initialise the modules it
 * imports (`init_clock();`, where those are initialised on first use: the stores load
 * lazily, docs/decisions/029-cold-start-floor.md): a few lines that carry none of its code.
 */
const NO_CODE_BYTES = 128;
/** The modules a function's bundle holds code of, with the bytes of each (more than NO_CODE_BYTES). */
async function inputSizes(name: string): Promise<Record<string, number>> {
  const { metafile } = await build({
    entryPoints: [`functions/${name}.ts`],
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'cjs',
    supported: { 'dynamic-import': false },
    external: EXTERNAL,
    outdir: 'bundle-contents',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
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
