import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

/*
 * What a function's bundle carries decides its size and cold start (docs/performance.md:
 * every bundle ≤ 300 KB). The functions are bundled here as scripts/build.mjs bundles
 * them, without writing anything, and their inputs checked.
 */
const EXTERNAL = [
  '@node-rs/argon2',
  'bcryptjs',
  '@aws-sdk/client-*',
  '@aws-sdk/credential-provider-node',
  '@smithy/*',
  '@zxcvbn-ts/language-common',
];

/**
 * The modules a function's bundle holds code of. A module tree-shaken away is listed with
 * nothing in the output, or with only esbuild's call that initialises a module it imports
 * (`init_constant_equals();`, when that module is also loaded lazily elsewhere): a few
 * dozen bytes that carry none of its code.
 */
const NO_CODE_BYTES = 64;
/** The modules a function's bundle holds code of. */
async function inputsOf(name: string): Promise<string[]> {
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
  return Object.values(metafile.outputs).flatMap((output) =>
    Object.entries(output.inputs).flatMap(([file, { bytesInOutput }]) => (bytesInOutput > NO_CODE_BYTES ? [file] : [])),
  );
}

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
});
