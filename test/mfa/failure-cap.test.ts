import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_FAILED_CODES } from '../../lib/mfa/code-check';
import { UpdateCommand } from '../../lib/store/commands';
import { keys } from '../../lib/store/keys';
import { registerAdmin, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { localDynamo } from '../helpers/local-dynamo';
import { activateTotp } from '../helpers/mfa';

const PASSWORD = 'correct horse battery';

describe('the cap on wrong MFA codes in a row (NIST SP 800-63B 5.2.2)', () => {
  let deps: TestDeps;
  let app: ReturnType<typeof testApp>;
  const dynamo = localDynamo();

  beforeAll(async () => {
    deps = nearRealTime(await testDeps());
    app = testApp(deps);
  });

  async function userWithTotp() {
    const tenantId = uniqueTenant('cap');
    const { token, user } = await registerAdmin(app, tenantId, 'alice', PASSWORD);
    const { code } = await activateTotp(app, deps, token);
    const login = (mfaCode: string) => app.request('login', { body: { username: 'alice', password: PASSWORD, tenantId, mfaCode } });
    const setFailed = (count: number) =>
      dynamo.doc.send(
        new UpdateCommand({
          TableName: dynamo.table,
          Key: keys.mfaMethod(tenantId, user.id, 'TOTP'),
          UpdateExpression: 'SET failedCodes = :count',
          ExpressionAttributeValues: { ':count': count },
        }),
      );
    const failed = async () => (await deps.store.mfa.find(tenantId, user.id, 'TOTP'))?.failedCodes;
    return { code, login, setFailed, failed };
  }

  const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

  it('counts every wrong code, and a right one clears the count', async () => {
    const user = await userWithTotp();
    const right = user.code();
    expect(await user.login(wrong(right))).toMatchObject({ status: 401, body: failure('Invalid MFA code') });
    expect(await user.login(wrong(right))).toMatchObject({ status: 401 });
    expect(await user.failed()).toBe(2);
    expect((await user.login(right)).status).toBe(200);
    expect(await user.failed()).toBeUndefined();
  });

  it(`locks the method at the ${MAX_FAILED_CODES}th wrong code in a row: then a right code is refused too`, async () => {
    const user = await userWithTotp();
    await user.setFailed(MAX_FAILED_CODES - 1);
    const right = user.code();
    expect(await user.login(wrong(right))).toMatchObject({ status: 401, body: failure('Invalid MFA code') });
    expect(await user.failed()).toBe(MAX_FAILED_CODES);
    expect(deps.logText()).toContain('"event":"mfa_method_locked"');
    expect(await user.login(right)).toMatchObject({ status: 403, body: failure('MFA method locked') });
  });

  it('lets a method with fewer wrong codes than the cap work as before', async () => {
    const user = await userWithTotp();
    await user.setFailed(MAX_FAILED_CODES - 2);
    expect((await user.login(user.code())).status).toBe(200);
    expect(await user.failed()).toBeUndefined();
  });
});
