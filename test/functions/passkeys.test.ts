import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AuditEventType } from '../../lib/audit/events';
import { SESSION_COOKIE, sessionBoundToken, startBrowserSession } from '../../lib/hosted/browser-session';
import { passkeyIdOf, passkeyRegistrationOptions, registerPasskey } from '../../lib/passkeys/ceremonies';
import type { Amr } from '../../lib/sessions/session';
import { type App, registerAdmin, registerStaff, testApp } from '../helpers/app';
import { type CeremonyOverrides, softwareAuthenticator } from '../helpers/authenticator';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { connectionReset } from '../helpers/faulty-stores';
import { CookieJar } from '../helpers/hosted';
import { activateTotp } from '../helpers/mfa';
import { FORM } from '../helpers/oauth';
import { verifiedEmail } from '../helpers/recovery';

const PASSWORD = 'correct horse battery';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('passkeys (docs/api.md 12)', () => {
  let deps: TestDeps;
  let app: App;

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
  });

  async function newUser(tenantId = uniqueTenant('passkey')) {
    const admin = await registerAdmin(app, tenantId, 'alice', PASSWORD);
    return { tenantId, token: admin.token, userId: admin.user.id };
  }

  async function registrationOptions(token: string) {
    const response = await app.request('passkeyRegistrationOptions', { token, body: {} });
    expect(response.status).toBe(200);
    return response.body.data.options;
  }

  /** Registers a passkey of `authenticator` for the token's user: the answer of POST /auth/passkeys/registration. */
  async function register(token: string, authenticator = softwareAuthenticator(), overrides: CeremonyOverrides = {}, name?: string) {
    const options = await registrationOptions(token);
    const { response } = authenticator.create(options, overrides);
    return app.request('passkeyRegistration', { token, body: { credential: response, ...(name ? { name } : {}) } });
  }

  async function signInOptions(tenantId: string, username?: string) {
    const response = await app.request('passkeyAuthenticationOptions', { body: { tenantId, ...(username ? { username } : {}) } });
    expect(response.status).toBe(200);
    return response.body.data.options;
  }

  async function events(tenantId: string, userId: string, type: AuditEventType) {
    return (await deps.store.audit.list(tenantId, { shards: deps.config.audit.shards, limit: 50, userId, type })).events;
  }

  describe('registration', () => {
    it('answers the creation options: discoverable, user verification required, no attestation, a fresh challenge', async () => {
      const { token, userId } = await newUser();
      const response = await app.request('passkeyRegistrationOptions', { token, body: {} });
      expect(response).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: {
          success: true,
          data: {
            options: {
              rp: { id: 'localhost', name: 'Identity Service' },
              user: { id: Buffer.from(userId).toString('base64url'), name: 'alice', displayName: 'alice' },
              challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
              pubKeyCredParams: [
                { type: 'public-key', alg: -8 },
                { type: 'public-key', alg: -7 },
                { type: 'public-key', alg: -257 },
              ],
              timeout: 300000,
              excludeCredentials: [],
              authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
              attestation: 'none',
              hints: [],
            },
          },
        },
      });
    });

    it('answers 201 with the passkey, lists it, shows it in the account, excludes it from the next options, and audits it', async () => {
      const { tenantId, token, userId } = await newUser();
      const authenticator = softwareAuthenticator();
      const registered = await register(token, authenticator, {}, 'Laptop');
      const passkey = {
        id: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        name: 'Laptop',
        createdAt: expect.stringMatching(ISO),
        lastUsedAt: null,
      };
      expect(registered).toEqual({ status: 201, headers: expect.any(Object), body: { success: true, data: { passkey } } });
      const listed = await app.request('listPasskeys', { token });
      expect(listed).toEqual({
        status: 200,
        headers: expect.any(Object),
        body: { success: true, data: { passkeys: [registered.body.data.passkey] } },
      });
      const account = await app.request('getAccount', { token });
      expect(account.body.data.account.passkeys).toEqual([registered.body.data.passkey]);
      const options = await registrationOptions(token);
      expect(options.excludeCredentials).toEqual([
        { type: 'public-key', id: authenticator.credentials[0]?.id.toString('base64url'), transports: ['internal'] },
      ]);
      expect(await events(tenantId, userId, 'passkey_registered')).toEqual([
        expect.objectContaining({ outcome: 'success', details: { passkeyId: registered.body.data.passkey.id, name: 'Laptop' } }),
      ]);
      // No key, credential id or counter in any answer.
      expect(JSON.stringify([registered.body, listed.body, account.body])).not.toContain(
        authenticator.credentials[0]?.id.toString('base64url'),
      );
    });

    it('names a passkey by its date when the registration gives no name', async () => {
      const { token } = await newUser();
      const registered = await register(token);
      expect(registered.body.data.passkey.name).toBe(`Passkey ${new Date(deps.clock.now()).toISOString().slice(0, 10)}`);
    });

    it('answers 403 Recent authentication required for options when the session proved nothing for 10 minutes', async () => {
      const { token } = await newUser();
      deps.clock.advance(601);
      const response = await app.request('passkeyRegistrationOptions', { token, body: {} });
      expect(response).toEqual({ status: 403, headers: expect.any(Object), body: failure('Recent authentication required') });
    });

    it.each<[string, CeremonyOverrides]>([
      ['without user verification', { userVerified: false }],
      ['from an origin not configured', { origin: 'https://evil.example' }],
      ['for another RP ID', { rpId: 'evil.example' }],
      ['of another ceremony type', { type: 'webauthn.get' }],
      ['for a challenge never issued', { challenge: 'A'.repeat(43) }],
      ['run in a cross-origin frame', { crossOrigin: true }],
    ])('answers 400 Invalid passkey registration for a credential made %s, and audits it', async (_, overrides) => {
      const { tenantId, token, userId } = await newUser();
      const response = await register(token, softwareAuthenticator(), overrides);
      expect(response).toEqual({ status: 400, headers: expect.any(Object), body: failure('Invalid passkey registration') });
      expect((await app.request('listPasskeys', { token })).body.data.passkeys).toEqual([]);
      expect(await events(tenantId, userId, 'passkey_registration_failed')).toEqual([
        expect.objectContaining({ outcome: 'failure', details: { reason: 'invalid_passkey' } }),
      ]);
    });

    it('answers 400 Invalid passkey registration for a challenge used once already, expired, or issued to another user', async () => {
      const { tenantId, token } = await newUser();
      const authenticator = softwareAuthenticator();
      const options = await registrationOptions(token);
      const first = authenticator.create(options).response;
      expect((await app.request('passkeyRegistration', { token, body: { credential: first } })).status).toBe(201);
      const replay = authenticator.create(options).response;
      expect((await app.request('passkeyRegistration', { token, body: { credential: replay } })).body).toEqual(
        failure('Invalid passkey registration'),
      );

      const late = await registrationOptions(token);
      deps.clock.advance(301);
      const expired = await app.request('passkeyRegistration', { token, body: { credential: authenticator.create(late).response } });
      expect(expired).toEqual({ status: 400, headers: expect.any(Object), body: failure('Invalid passkey registration') });

      const bob = await registerStaff(
        app,
        (await app.request('login', { body: { username: 'alice', password: PASSWORD, tenantId } })).body.data.token,
        {
          username: 'bob',
          password: PASSWORD,
          role: 'ANALYST',
          tenantId,
        },
      );
      const alices = await registrationOptions(
        (await app.request('login', { body: { username: 'alice', password: PASSWORD, tenantId } })).body.data.token,
      );
      const stolen = await app.request('passkeyRegistration', {
        token: bob.token,
        body: { credential: authenticator.create(alices).response },
      });
      expect(stolen.body).toEqual(failure('Invalid passkey registration'));
    });

    it('answers 400 Invalid passkey registration for a malformed credential', async () => {
      const { token } = await newUser();
      for (const credential of [
        {},
        { id: 'x', rawId: 'x', type: 'public-key', response: { clientDataJSON: '!!', attestationObject: 'AA' } },
      ]) {
        const response = await app.request('passkeyRegistration', { token, body: { credential } });
        expect(response).toEqual({ status: 400, headers: expect.any(Object), body: failure('Invalid passkey registration') });
      }
    });

    it('removes the passkey again, 401, when the session ended during the ceremony (an admin MFA reset, docs/api.md 12.2)', async () => {
      const alice = await newUser();
      const bob = await registerStaff(app, alice.token, { username: 'bob', password: PASSWORD, role: 'ANALYST', tenantId: alice.tenantId });
      const { response } = softwareAuthenticator().create(await registrationOptions(bob.token));
      // The request passed the authorizer; the reset lands before the ceremony ends.
      const account = { tenantId: alice.tenantId, userId: bob.user.id, username: 'bob', sessionId: String(decodeJwt(bob.token).sid) };
      expect((await app.request('adminResetUserMfa', { token: alice.token, pathParameters: { userId: bob.user.id } })).status).toBe(200);
      await expect(registerPasskey(deps, account, response)).rejects.toMatchObject({ statusCode: 401, message: 'Unauthorized' });
      expect(await deps.store.passkeys.find(alice.tenantId, passkeyIdOf(Buffer.from(response.rawId, 'base64url')))).toBeUndefined();
      expect((await events(alice.tenantId, bob.user.id, 'passkey_registration_failed')).map((event) => event.details)).toEqual([
        { reason: 'session_ended' },
      ]);
    });

    it('removes the passkey again, and answers 503, when the session cannot be read after the passkey was stored', async () => {
      const { tenantId, token, userId } = await newUser();
      const { response } = softwareAuthenticator().create(await registrationOptions(token));
      const account = { tenantId, userId, username: 'alice', sessionId: String(decodeJwt(token).sid) };
      // The live-session read after the write (the n-th read of sessions) fails as a dropped connection does.
      let reads = 0;
      let failingRead = 1;
      const sessions: typeof deps.store.sessions = {
        ...deps.store.sessions,
        findWithOwner: async (...args) =>
          ++reads === failingRead ? Promise.reject(connectionReset()) : deps.store.sessions.findWithOwner(...args),
      };
      const faulty = { ...deps, store: { ...deps.store, sessions } };
      await expect(registerPasskey(faulty, account, response)).rejects.toMatchObject({ code: 'ECONNRESET' });
      expect(await deps.store.passkeys.find(tenantId, passkeyIdOf(Buffer.from(response.rawId, 'base64url')))).toBeUndefined();
      expect(await deps.store.passkeys.listByUser(tenantId, userId)).toEqual([]);
      // Through the function (the authorizer reads the session first), the same fault is a
      // 503, and the passkey can be registered again.
      reads = 0;
      failingRead = 2;
      const failed = await testApp(faulty).request('passkeyRegistration', {
        token,
        body: { credential: softwareAuthenticator().create(await registrationOptions(token)).response },
      });
      expect(failed).toEqual({ status: 503, headers: expect.any(Object), body: failure('Service unavailable') });
      expect(await deps.store.passkeys.listByUser(tenantId, userId)).toEqual([]);
      expect((await register(token)).status).toBe(201);
    });

    it('answers 409 Passkey already registered for a credential id registered in the tenant already', async () => {
      const { tenantId, token } = await newUser();
      const authenticator = softwareAuthenticator();
      expect((await register(token, authenticator)).status).toBe(201);
      const [credential] = authenticator.credentials;
      const again = authenticator.create(await registrationOptions(token), {}, credential).response;
      const response = await app.request('passkeyRegistration', { token, body: { credential: again } });
      expect(response).toEqual({ status: 409, headers: expect.any(Object), body: failure('Passkey already registered') });
      // The same credential id in another tenant is another passkey.
      const other = await newUser();
      const elsewhere = authenticator.create(await registrationOptions(other.token), {}, credential).response;
      expect((await app.request('passkeyRegistration', { token: other.token, body: { credential: elsewhere } })).status).toBe(201);
      expect(tenantId).not.toBe(other.tenantId);
    });
  });

  describe('sign-in', () => {
    async function userWithPasskey(authenticator = softwareAuthenticator()) {
      const user = await newUser();
      const registered = await register(user.token, authenticator);
      expect(registered.status).toBe(201);
      return { ...user, authenticator, passkeyId: registered.body.data.passkey.id as string };
    }

    it('answers the request options without credentials, with a username or without (docs/api.md 12.5)', async () => {
      const { tenantId } = await userWithPasskey();
      const named = await app.request('passkeyAuthenticationOptions', { body: { tenantId, username: 'alice' } });
      expect(named).toEqual({
        status: 200,
        headers: expect.any(Object),
        body: {
          success: true,
          data: {
            options: {
              challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
              rpId: 'localhost',
              timeout: 300000,
              allowCredentials: [],
              userVerification: 'required',
            },
          },
        },
      });
      expect((await signInOptions(tenantId)).allowCredentials).toEqual([]);
    });

    it('answers an unknown username exactly as a known one, with or without passkeys: no username enumeration', async () => {
      const { tenantId, token, authenticator } = await userWithPasskey();
      await registerStaff(app, token, { username: 'bob', password: PASSWORD, role: 'ANALYST', tenantId });
      const ask = (username: string) => app.request('passkeyAuthenticationOptions', { body: { tenantId, username } });
      const [alice, bob, nobody] = [await ask('alice'), await ask('bob'), await ask('nobody')];
      // Only the random challenge differs.
      const shape = (response: typeof alice) => ({
        ...response,
        body: { ...response.body, data: { options: { ...response.body.data.options, challenge: '' } } },
      });
      expect(shape(nobody)).toEqual(shape(alice));
      expect(shape(bob)).toEqual(shape(alice));
      expect(nobody.status).toBe(200);
      expect(nobody.body.data.options.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
      // And the challenge tells nothing either: alice's own passkey is refused for an unknown
      // username as for another user's (an unbound challenge would let her tell them apart).
      for (const options of [nobody.body.data.options, bob.body.data.options]) {
        const credential = authenticator.get(options, {}, authenticator.credentials[0]);
        expect((await app.request('passkeyAuthentication', { body: { tenantId, credential } })).body).toEqual(failure('Invalid passkey'));
      }
      const own = authenticator.get((await ask('alice')).body.data.options);
      expect((await app.request('passkeyAuthentication', { body: { tenantId, credential: own } })).status).toBe(200);
    });

    it('answers 200 with the Auth payload of a new session, amr hwk and user, and records the use', async () => {
      const { tenantId, userId, authenticator, passkeyId } = await userWithPasskey();
      const credential = authenticator.get(await signInOptions(tenantId, 'alice'));
      const response = await app.request('passkeyAuthentication', { body: { tenantId, credential } });
      expect(response).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: {
          success: true,
          data: {
            token: expect.any(String),
            refreshToken: expect.any(String),
            expiresIn: 900,
            user: { id: userId, username: 'alice', role: 'ADMIN', tenantId, shopId: expect.any(String) },
          },
        },
      });
      const identity = await app.identityOf(response.body.data.token);
      expect(identity).toMatchObject({ userId, amr: ['hwk', 'user'], authTime: Math.floor(deps.clock.now() / 1000) });
      const listed = await app.request('listPasskeys', { token: response.body.data.token });
      expect(listed.body.data.passkeys).toEqual([expect.objectContaining({ id: passkeyId, lastUsedAt: expect.stringMatching(ISO) })]);
      expect(await events(tenantId, userId, 'login_succeeded')).toContainEqual(
        expect.objectContaining({ outcome: 'success', details: { username: 'alice', amr: ['hwk', 'user'], passkeyId } }),
      );
    });

    it('signs in with a discoverable credential (no username) and says swk for a synced passkey', async () => {
      const { tenantId, userId, authenticator } = await userWithPasskey(softwareAuthenticator({ backupEligible: true }));
      const credential = authenticator.get(await signInOptions(tenantId));
      const response = await app.request('passkeyAuthentication', { body: { tenantId, credential } });
      expect(response.status).toBe(200);
      expect(await app.identityOf(response.body.data.token)).toMatchObject({ userId, amr: ['swk', 'user'] });
    });

    it('accepts an authenticator that keeps no counter (always 0)', async () => {
      const { tenantId, authenticator } = await userWithPasskey(softwareAuthenticator({ counterStep: 0 }));
      for (let use = 0; use < 2; use++) {
        const credential = authenticator.get(await signInOptions(tenantId));
        expect((await app.request('passkeyAuthentication', { body: { tenantId, credential } })).status).toBe(200);
      }
    });

    it('lets a user with an active TOTP sign in with the passkey alone: a passkey satisfies MFA', async () => {
      const { tenantId, token, userId, authenticator } = await userWithPasskey();
      await activateTotp(app, deps, token);
      const password = await app.request('login', { body: { username: 'alice', password: PASSWORD, tenantId } });
      expect(password.body).toEqual(failure('MFA code required'));
      const credential = authenticator.get(await signInOptions(tenantId, 'alice'));
      const response = await app.request('passkeyAuthentication', { body: { tenantId, credential } });
      expect(response.status).toBe(200);
      expect(await app.identityOf(response.body.data.token)).toMatchObject({ userId, amr: ['hwk', 'user'] });
      // As a session that passed a code, it may manage the factors (docs/api.md 4.4, 8.6).
      const codes = await app.request('generateRecoveryCodes', { token: response.body.data.token });
      expect(codes.status).toBe(200);
    });

    it.each<[string, CeremonyOverrides]>([
      ['without user verification', { userVerified: false }],
      ['from an origin not configured', { origin: 'https://evil.example' }],
      ['for another RP ID', { rpId: 'evil.example' }],
      ['of another ceremony type', { type: 'webauthn.create' }],
      ['for a challenge never issued', { challenge: 'A'.repeat(43) }],
    ])('answers 401 Invalid passkey for an assertion made %s', async (_, overrides) => {
      const { tenantId, authenticator } = await userWithPasskey();
      const credential = authenticator.get(await signInOptions(tenantId), overrides);
      const response = await app.request('passkeyAuthentication', { body: { tenantId, credential } });
      expect(response).toEqual({ status: 401, headers: expect.any(Object), body: failure('Invalid passkey') });
    });

    it('answers 401 Invalid passkey for a replayed assertion (its challenge is used)', async () => {
      const { tenantId, authenticator } = await userWithPasskey();
      const credential = authenticator.get(await signInOptions(tenantId));
      expect((await app.request('passkeyAuthentication', { body: { tenantId, credential } })).status).toBe(200);
      const replay = await app.request('passkeyAuthentication', { body: { tenantId, credential } });
      expect(replay).toEqual({ status: 401, headers: expect.any(Object), body: failure('Invalid passkey') });
    });

    it('answers 401 Invalid passkey for an expired challenge (5 minutes)', async () => {
      const { tenantId, authenticator } = await userWithPasskey();
      const options = await signInOptions(tenantId);
      deps.clock.advance(301);
      const response = await app.request('passkeyAuthentication', { body: { tenantId, credential: authenticator.get(options) } });
      expect(response).toEqual({ status: 401, headers: expect.any(Object), body: failure('Invalid passkey') });
    });

    it('answers 401 Invalid passkey for a registration challenge used for a sign-in', async () => {
      const { tenantId, token, authenticator } = await userWithPasskey();
      const registration = await registrationOptions(token);
      const credential = authenticator.get({ rpId: 'localhost', challenge: registration.challenge, allowCredentials: [] });
      const response = await app.request('passkeyAuthentication', { body: { tenantId, credential } });
      expect(response.body).toEqual(failure('Invalid passkey'));
    });

    it('answers 401 Invalid passkey for a credential of another tenant', async () => {
      const { authenticator } = await userWithPasskey();
      const other = await newUser();
      const credential = authenticator.get(await signInOptions(other.tenantId));
      const response = await app.request('passkeyAuthentication', { body: { tenantId: other.tenantId, credential } });
      expect(response).toEqual({ status: 401, headers: expect.any(Object), body: failure('Invalid passkey') });
    });

    it('answers 401 Invalid passkey for a credential of another user than the username asked for', async () => {
      const { tenantId, token, authenticator } = await userWithPasskey();
      await registerStaff(app, token, { username: 'bob', password: PASSWORD, role: 'ANALYST', tenantId });
      const credential = authenticator.get(await signInOptions(tenantId, 'bob'), {}, authenticator.credentials[0]);
      const response = await app.request('passkeyAuthentication', { body: { tenantId, credential } });
      expect(response.body).toEqual(failure('Invalid passkey'));
    });

    it('answers 401 Invalid passkey for a counter that went back (a cloned authenticator), and audits it', async () => {
      const { tenantId, userId, authenticator, passkeyId } = await userWithPasskey();
      const [stored] = authenticator.credentials;
      if (!stored) throw new Error('no credential');
      for (let use = 0; use < 3; use++) {
        const credential = authenticator.get(await signInOptions(tenantId));
        expect((await app.request('passkeyAuthentication', { body: { tenantId, credential } })).status).toBe(200);
      }
      stored.counter = 1;
      const clone = authenticator.get(await signInOptions(tenantId));
      const response = await app.request('passkeyAuthentication', { body: { tenantId, credential: clone } });
      expect(response).toEqual({ status: 401, headers: expect.any(Object), body: failure('Invalid passkey') });
      expect(await events(tenantId, userId, 'login_failed')).toContainEqual(
        expect.objectContaining({ outcome: 'failure', details: { username: 'alice', reason: 'passkey_cloned', passkeyId } }),
      );
    });

    it('answers 401 Invalid passkey for a disabled user', async () => {
      const { tenantId, userId, authenticator } = await userWithPasskey();
      const user = await deps.store.users.findById(tenantId, userId);
      if (!user) throw new Error('no user');
      expect(await deps.store.users.revokeSessions(user, { set: { status: 'disabled' } })).toBe(true);
      const credential = authenticator.get(await signInOptions(tenantId));
      const response = await app.request('passkeyAuthentication', { body: { tenantId, credential } });
      expect(response.body).toEqual(failure('Invalid passkey'));
    });

    it('signs in while password guesses from unknown sources lock the password (docs/api.md 10)', async () => {
      const { tenantId, authenticator } = await userWithPasskey();
      for (let attempt = 0; attempt < 5; attempt++) {
        await app.request('login', { body: { username: 'alice', password: 'wrong password', tenantId } });
      }
      const locked = await app.request('login', { body: { username: 'alice', password: PASSWORD, tenantId } });
      expect(locked.body).toEqual(failure('Too many failed attempts'));
      const credential = authenticator.get(await signInOptions(tenantId));
      const response = await app.request('passkeyAuthentication', { body: { tenantId, credential } });
      expect(response.status).toBe(200);
    });

    it('answers 401 Invalid passkey for a malformed credential', async () => {
      const { tenantId } = await newUser();
      for (const credential of [
        {},
        { id: 'AA', rawId: 'AA', type: 'public-key', response: { clientDataJSON: 'e30', authenticatorData: 'AA', signature: 'AA' } },
      ]) {
        const response = await app.request('passkeyAuthentication', { body: { tenantId, credential } });
        expect(response).toEqual({ status: 401, headers: expect.any(Object), body: failure('Invalid passkey') });
      }
    });
  });

  describe('registration once the user has MFA (docs/api.md 12.1, 12.2)', () => {
    /** A user with a verified email and an active TOTP method; `token` is the session that activated it (password only). */
    async function userWithTotp() {
      const user = await newUser();
      await verifiedEmail(app, deps, user.token, user.tenantId, user.userId, 'alice@example.com');
      const { code } = await activateTotp(app, deps, user.token);
      return { ...user, code };
    }

    it('refuses a password-only session: 403 Permission denied for the options and the registration, nothing stored', async () => {
      const user = await newUser();
      // Options asked before MFA was turned on; the registration comes after.
      const early = await registrationOptions(user.token);
      const { code } = await activateTotp(app, deps, user.token);
      expect(await app.identityOf(user.token)).toMatchObject({ amr: ['pwd'] });
      const options = await app.request('passkeyRegistrationOptions', { token: user.token, body: {} });
      expect(options).toEqual({ status: 403, headers: expect.any(Object), body: failure('Permission denied', 'MFA_STEP_UP_REQUIRED') });
      const { response } = softwareAuthenticator().create(early);
      const registered = await app.request('passkeyRegistration', { token: user.token, body: { credential: response } });
      expect(registered).toEqual({ status: 403, headers: expect.any(Object), body: failure('Permission denied', 'MFA_STEP_UP_REQUIRED') });
      expect(await deps.store.passkeys.listByUser(user.tenantId, user.userId)).toEqual([]);

      // The same session, after proving the second factor, may add one.
      const stepUp = await app.request('reauthenticate', {
        token: user.token,
        body: { password: PASSWORD, mfaCode: code(), mfaMethod: 'TOTP' },
      });
      expect(stepUp.status).toBe(200);
      expect((await register(stepUp.body.data.token)).status).toBe(201);
    });

    it('lets a session that signed in with a passkey add another', async () => {
      const user = await userWithTotp();
      const stepUp = await app.request('reauthenticate', {
        token: user.token,
        body: { password: PASSWORD, mfaCode: user.code(), mfaMethod: 'TOTP' },
      });
      const authenticator = softwareAuthenticator();
      expect((await register(stepUp.body.data.token, authenticator)).status).toBe(201);
      const credential = authenticator.get(await signInOptions(user.tenantId));
      const signedIn = await app.request('passkeyAuthentication', { body: { tenantId: user.tenantId, credential } });
      expect((await register(signedIn.body.data.token)).status).toBe(201);
    });

    it('keeps the hosted passkeys page to a sign-in that passed MFA: the page says so, and a posted passkey is refused (403)', async () => {
      const user = await userWithTotp();
      const found = await deps.store.users.findById(user.tenantId, user.userId);
      if (!found) throw new Error('no user');
      const browser = async (amr: Amr[]) => {
        const jar = new CookieJar();
        jar.take({ status: 200, headers: {}, body: '', cookies: [(await startBrowserSession(deps, found, amr, {})).cookie] });
        const session = jar.cookies.get(SESSION_COOKIE);
        return { jar, csrf: sessionBoundToken(session, 'csrf') ?? '', sessionId: String(session?.split('.')[1]) };
      };
      const post = (jar: CookieJar, fields: Record<string, string>) =>
        app.request('hostedPasskeyRegister', {
          headers: { 'content-type': FORM, origin: new URL(deps.config.issuer).origin, ...jar.header() },
          body: new URLSearchParams(fields).toString(),
        });

      const password = await browser(['pwd']);
      const page = await app.request('hostedPasskeysPage', { method: 'GET', headers: password.jar.header() });
      expect(page.status).toBe(200);
      expect(String(page.body)).toContain(
        'To add a passkey, sign in again with your second factor: this sign-in used your password alone.',
      );
      expect(String(page.body)).not.toContain('data-passkey="create"');
      // A credential made for options of this session (as a page from before MFA would have had).
      const account = { tenantId: user.tenantId, userId: user.userId, username: 'alice', sessionId: password.sessionId };
      const { response } = softwareAuthenticator().create(await passkeyRegistrationOptions(deps, account));
      const refused = await post(password.jar, { csrf: password.csrf, credential: JSON.stringify(response) });
      expect(refused.status).toBe(403);
      expect(String(refused.body)).toContain('<p class="error" role="alert">Permission denied</p>');
      expect(String(refused.body)).toContain('sign in again with your second factor');
      expect(await deps.store.passkeys.listByUser(user.tenantId, user.userId)).toEqual([]);

      const passed = await browser(['pwd', 'otp']);
      const offered = await app.request('hostedPasskeysPage', { method: 'GET', headers: passed.jar.header() });
      expect(String(offered.body)).toContain('data-passkey="create"');
    });

    it('tells the verified address of every passkey added and removed, by name and day (docs/api.md 8.9)', async () => {
      const user = await newUser();
      await verifiedEmail(app, deps, user.token, user.tenantId, user.userId, 'alice@example.com');
      const sent = async () =>
        (await deps.outbox.notifications(user.tenantId, user.userId)).map(({ notification, destination }) => ({
          event: notification.event,
          subject: notification.subject,
          text: notification.text,
          destination,
        }));
      const day = new Date(deps.clock.now()).toISOString().slice(0, 10);
      const registered = await register(user.token, softwareAuthenticator(), {}, 'Laptop\nAll is well');
      expect(registered.status).toBe(201);
      expect((await sent())[0]).toEqual({
        event: 'passkey-added',
        subject: 'Identity Service: A passkey was added',
        text: expect.stringContaining(`The passkey “Laptop All is well” (added ${day}) was added to your account.`),
        destination: 'alice@example.com',
      });
      const removed = await app.request('removePasskey', { token: user.token, pathParameters: { id: registered.body.data.passkey.id } });
      expect(removed.status).toBe(200);
      expect((await sent())[0]).toEqual({
        event: 'passkey-removed',
        subject: 'Identity Service: A passkey was removed',
        text: expect.stringContaining(`The passkey “Laptop All is well” (added ${day}) was removed from your account.`),
        destination: 'alice@example.com',
      });
      // A refused registration or removal tells nobody.
      const before = (await sent()).length;
      await register(user.token, softwareAuthenticator(), { userVerified: false });
      await app.request('removePasskey', { token: user.token, pathParameters: { id: registered.body.data.passkey.id } });
      expect(await sent()).toHaveLength(before);
    });
  });

  describe('removal', () => {
    it('answers 200 Passkey removed, then 404 Passkey not found; the passkey no longer signs in', async () => {
      const { tenantId, token, userId } = await newUser();
      const authenticator = softwareAuthenticator();
      const { id } = (await register(token, authenticator)).body.data.passkey;
      const removed = await app.request('removePasskey', { token, pathParameters: { id } });
      expect(removed).toEqual({ status: 200, headers: expect.any(Object), body: { success: true, data: { message: 'Passkey removed' } } });
      expect((await app.request('listPasskeys', { token })).body.data.passkeys).toEqual([]);
      const again = await app.request('removePasskey', { token, pathParameters: { id } });
      expect(again).toEqual({ status: 404, headers: expect.any(Object), body: failure('Passkey not found') });
      const credential = authenticator.get(await signInOptions(tenantId));
      expect((await app.request('passkeyAuthentication', { body: { tenantId, credential } })).body).toEqual(failure('Invalid passkey'));
      expect(await events(tenantId, userId, 'passkey_removed')).toEqual([expect.objectContaining({ details: { passkeyId: id } })]);
    });

    it('answers 404 Passkey not found for another user’s passkey, and 403 without recent authentication', async () => {
      const alice = await newUser();
      const { id } = (await register(alice.token)).body.data.passkey;
      const bob = await registerStaff(app, alice.token, { username: 'bob', password: PASSWORD, role: 'ANALYST', tenantId: alice.tenantId });
      const response = await app.request('removePasskey', { token: bob.token, pathParameters: { id } });
      expect(response).toEqual({ status: 404, headers: expect.any(Object), body: failure('Passkey not found') });
      deps.clock.advance(601);
      const stale = await app.request('removePasskey', { token: alice.token, pathParameters: { id } });
      expect(stale).toEqual({ status: 403, headers: expect.any(Object), body: failure('Recent authentication required') });
    });

    it('removes every passkey of a user at the admin MFA reset and at the deletion of the user', async () => {
      const alice = await newUser();
      const bob = await registerStaff(app, alice.token, { username: 'bob', password: PASSWORD, role: 'ANALYST', tenantId: alice.tenantId });
      const authenticator = softwareAuthenticator();
      expect((await register(bob.token, authenticator)).status).toBe(201);
      const reset = await app.request('adminResetUserMfa', { token: alice.token, pathParameters: { userId: bob.user.id } });
      expect(reset.status).toBe(200);
      expect(await deps.store.passkeys.listByUser(alice.tenantId, bob.user.id)).toEqual([]);
      const credential = authenticator.get(await signInOptions(alice.tenantId));
      expect((await app.request('passkeyAuthentication', { body: { tenantId: alice.tenantId, credential } })).body).toEqual(
        failure('Invalid passkey'),
      );

      const login = await app.request('login', { body: { username: 'bob', password: PASSWORD, tenantId: alice.tenantId } });
      expect((await register(login.body.data.token, authenticator)).status).toBe(201);
      const deleted = await app.request('adminDeleteUser', { token: alice.token, pathParameters: { userId: bob.user.id } });
      expect(deleted.status).toBe(200);
      const [, second] = authenticator.credentials;
      const passkeyId = passkeyIdOf(second?.id ?? Buffer.alloc(0));
      expect(await deps.store.passkeys.find(alice.tenantId, passkeyId)).toBeUndefined();
    });
  });
});
