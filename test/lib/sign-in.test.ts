import { beforeAll, describe, expect, it } from 'vitest';
import type { AuditEventType } from '../../lib/audit/events';
import { AppError } from '../../lib/errors';
import { type SecondFactorRequest, secondFactor } from '../../lib/mfa/second-factor';
import type { Amr } from '../../lib/sessions/session';
import { type FirstFactor, type Opening, type SecondFactorStep, type SignInAttempt, signIn } from '../../lib/sessions/sign-in';
import type { User } from '../../lib/users/user';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { activateTotp } from '../helpers/mfa';

const PASSWORD = 'correct horse battery';

/** An opening that records what the pipeline opened it with. */
function recordingOpening() {
  const calls: Array<{ userId: string; amr: Amr[]; idp?: string }> = [];
  const opening: Opening<string> = {
    open: async (user, amr, origin) => {
      calls.push({ userId: user.id, amr, ...(origin.idp === undefined ? {} : { idp: origin.idp }) });
      return `opened for ${user.username}`;
    },
  };
  return { calls, opening };
}

/** What a rejected sign-in threw: its status, message and code. */
async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return { status: error.statusCode, message: error.message, code: error.code };
}

describe('the sign-in pipeline (lib/sessions/sign-in.ts)', () => {
  let deps: TestDeps;
  let app: App;

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
  });

  async function newUser() {
    const tenantId = uniqueTenant('pipeline');
    const { token, user } = await registerAdmin(app, tenantId, 'alice', PASSWORD);
    const stored = await deps.store.users.findById(tenantId, user.id);
    if (!stored) throw new Error('the user was not stored');
    return { tenantId, token, user: stored };
  }

  const events = async (tenantId: string, userId: string, type: AuditEventType) =>
    (await deps.store.audit.list(tenantId, { shards: deps.config.audit.shards, limit: 50, userId, type })).events.map((event) => ({
      outcome: event.outcome,
      details: event.details,
    }));

  const attempt = (tenantId: string, firstFactor: FirstFactor, opening: Opening<string>, more: Partial<SignInAttempt<string>> = {}) => ({
    tenantId,
    firstFactor,
    opening,
    secondFactor: step(),
    ...more,
  });
  const step = (request: SecondFactorRequest = {}): SecondFactorStep => ({ request, check: secondFactor });
  const password = (value = PASSWORD): FirstFactor => ({ kind: 'password', username: 'alice', password: value });

  it('opens with amr ["pwd"] after a right password for a user without MFA, and audits the success', async () => {
    const { tenantId, user } = await newUser();
    const { calls, opening } = recordingOpening();
    const signed = await signIn(deps, attempt(tenantId, password(), opening));
    expect(signed).toEqual({ user: expect.objectContaining({ id: user.id }), amr: ['pwd'], opened: 'opened for alice' });
    expect(calls).toEqual([{ userId: user.id, amr: ['pwd'] }]);
    expect(await events(tenantId, user.id, 'login_succeeded')).toEqual([
      { outcome: 'success', details: { username: 'alice', amr: ['pwd'] } },
    ]);
  });

  it('refuses a wrong password with 401 Invalid credentials, audits it and opens nothing', async () => {
    const { tenantId, user } = await newUser();
    const { calls, opening } = recordingOpening();
    expect(await refusal(signIn(deps, attempt(tenantId, password('wrong password'), opening)))).toEqual({
      status: 401,
      message: 'Invalid credentials',
      code: 'INVALID_CREDENTIALS',
    });
    expect(calls).toEqual([]);
    expect(await events(tenantId, user.id, 'login_failed')).toEqual([
      { outcome: 'failure', details: { username: 'alice', reason: 'wrong_password' } },
    ]);
  });

  it('refuses before the password once the attempt budget is spent: 429, even for the right password', async () => {
    const { tenantId, user } = await newUser();
    const { calls, opening } = recordingOpening();
    for (let i = 0; i < 5; i++) await refusal(signIn(deps, attempt(tenantId, password('wrong password'), opening)));
    expect(await refusal(signIn(deps, attempt(tenantId, password(), opening)))).toEqual({
      status: 429,
      message: 'Too many failed attempts',
      code: 'LOCKED',
    });
    expect(calls).toEqual([]);
    expect(await events(tenantId, user.id, 'login_locked')).toEqual([
      { outcome: 'failure', details: { username: 'alice', reason: 'password_attempts' } },
    ]);
  });

  it('asks for the second factor of a user with MFA (audited as mfa_required), and opens with ["pwd","otp"] after a right code', async () => {
    const { tenantId, token, user } = await newUser();
    const { code } = await activateTotp(app, deps, token);
    const { calls, opening } = recordingOpening();
    expect(await refusal(signIn(deps, attempt(tenantId, password(), opening)))).toEqual({
      status: 401,
      message: 'MFA code required',
      code: 'MFA_REQUIRED',
    });
    expect(await events(tenantId, user.id, 'login_failed')).toEqual([
      { outcome: 'failure', details: { username: 'alice', reason: 'mfa_required' } },
    ]);
    const signed = await signIn(
      deps,
      attempt(tenantId, password(), opening, { secondFactor: step({ mfaCode: code(), mfaMethod: 'TOTP' }) }),
    );
    expect(signed.amr).toEqual(['pwd', 'otp']);
    expect(calls).toEqual([{ userId: user.id, amr: ['pwd', 'otp'] }]);
  });

  it('hands a door that asks for the code itself the user, and audits no refusal for asking', async () => {
    const { tenantId, token, user } = await newUser();
    await activateTotp(app, deps, token);
    const { calls, opening } = recordingOpening();
    const asked: string[] = [];
    const asksForCode = async (who: User) => asked.push(who.id);
    expect(await refusal(signIn(deps, attempt(tenantId, password(), opening, { asksForCode })))).toMatchObject({ code: 'MFA_REQUIRED' });
    expect(asked).toEqual([user.id]);
    expect(calls).toEqual([]);
    expect(await events(tenantId, user.id, 'login_failed')).toEqual([]);
  });

  it('takes an established first factor as it is: a passkey satisfies MFA, no password is checked, its id is audited', async () => {
    const { tenantId, token, user } = await newUser();
    await activateTotp(app, deps, token);
    const { calls, opening } = recordingOpening();
    const passkey: FirstFactor = { kind: 'passkey', user, amr: ['hwk', 'user'], passkeyId: 'passkey-1' };
    expect((await signIn(deps, attempt(tenantId, passkey, opening))).amr).toEqual(['hwk', 'user']);
    const federated: FirstFactor = { kind: 'federated', user, amr: ['fed', 'mfa'], connectionId: 'connection-1' };
    expect((await signIn(deps, attempt(tenantId, federated, opening))).amr).toEqual(['fed', 'mfa']);
    expect(calls).toEqual([
      { userId: user.id, amr: ['hwk', 'user'] },
      { userId: user.id, amr: ['fed', 'mfa'], idp: 'connection-1' },
    ]);
    expect(await events(tenantId, user.id, 'login_succeeded')).toEqual(
      expect.arrayContaining([
        { outcome: 'success', details: { username: 'alice', amr: ['hwk', 'user'], passkeyId: 'passkey-1' } },
        { outcome: 'success', details: { username: 'alice', amr: ['fed', 'mfa'], connectionId: 'connection-1' } },
      ]),
    );
  });

  it('asks a password proven earlier in the interaction for its second factor only', async () => {
    const { tenantId, token, user } = await newUser();
    const { code } = await activateTotp(app, deps, token);
    const { calls, opening } = recordingOpening();
    const proven: FirstFactor = { kind: 'password-proven', user };
    expect(
      await refusal(signIn(deps, attempt(tenantId, proven, opening, { secondFactor: step({ mfaCode: '000000', mfaMethod: 'TOTP' }) }))),
    ).toEqual({ status: 401, message: 'Invalid MFA code', code: 'INVALID_MFA_CODE' });
    expect(await events(tenantId, user.id, 'login_failed')).toEqual([
      { outcome: 'failure', details: { username: 'alice', reason: 'invalid_mfa_code', method: 'TOTP' } },
    ]);
    await signIn(deps, attempt(tenantId, proven, opening, { secondFactor: step({ mfaCode: code(), mfaMethod: 'TOTP' }) }));
    expect(calls).toEqual([{ userId: user.id, amr: ['pwd', 'otp'] }]);
  });

  it("reauthenticating: a wrong password is 400, another user's right password proves nothing, the events are the session's", async () => {
    const { tenantId, token, user } = await newUser();
    const identity = await app.identityOf(token);
    if (!identity) throw new Error('no identity');
    await app.request('register', { token, body: { username: 'bob', password: 'another good password', role: 'ANALYST', tenantId } });
    const { calls, opening } = recordingOpening();
    const reauthenticating = { reauthenticating: identity };
    expect(await refusal(signIn(deps, attempt(tenantId, password('wrong password'), opening, reauthenticating)))).toEqual({
      status: 400,
      message: 'Invalid credentials',
      code: 'INVALID_CREDENTIALS',
    });
    const bob: FirstFactor = { kind: 'password', username: 'bob', password: 'another good password' };
    expect(await refusal(signIn(deps, attempt(tenantId, bob, opening, reauthenticating)))).toMatchObject({ status: 400 });
    expect(calls).toEqual([]);
    await signIn(deps, attempt(tenantId, password(), opening, reauthenticating));
    expect(calls).toEqual([{ userId: user.id, amr: ['pwd'] }]);
    expect(await events(tenantId, user.id, 'reauthentication_failed')).toEqual([
      { outcome: 'failure', details: { reason: 'wrong_password' } },
    ]);
    expect(await events(tenantId, user.id, 'reauthenticated')).toEqual([
      { outcome: 'success', details: { sessionId: identity.sessionId, amr: ['pwd'] } },
    ]);
    expect(await events(tenantId, user.id, 'login_succeeded')).toEqual([]);
  });
});
