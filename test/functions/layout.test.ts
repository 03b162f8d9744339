import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { functionFileName, routesFromServerlessYml } from '../../scripts/lib/serverless-routes';

describe('functions/: one file per serverless.yml function, named after its key', () => {
  it.each([
    ['login', 'login'],
    ['refreshToken', 'refresh-token'],
    ['enableMFA', 'enable-mfa'],
    ['getAccount', 'get-account'],
    ['createOAuth2Client', 'create-oauth2-client'],
    ['rotateOAuth2ClientSecret', 'rotate-oauth2-client-secret'],
    ['oauth2Token', 'oauth2-token'],
    ['adminResetUserMfa', 'admin-reset-user-mfa'],
  ])('names the file of %s %s.ts', (functionName, file) => {
    expect(functionFileName(functionName)).toBe(file);
  });

  it('has every function of serverless.yml in functions/<kebab-case of its key>.ts, and no other file', async () => {
    const { functions } = routesFromServerlessYml(await readFile('serverless.yml', 'utf8'));
    const files = (await readdir('functions')).filter((file) => file.endsWith('.ts')).sort();
    expect(functions.length).toBeGreaterThan(0);
    expect(functions.filter(({ functionName, bundle }) => bundle !== functionFileName(functionName))).toEqual([]);
    expect(functions.map(({ bundle }) => `${bundle}.ts`).sort()).toEqual(files);
  });
});
