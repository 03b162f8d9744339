import { beforeAll, describe, expect, it } from 'vitest';
import type { AuditEventType } from '../../lib/audit/events';
import { type App, registerAdmin, registerStaff, testApp } from '../helpers/app';
import { type RequestOptions, softwareAuthenticator } from '../helpers/authenticator';
import { flashOf, openPage, postAction, signedInJar } from '../helpers/console';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { CookieJar, csrfOf, postForm } from '../helpers/hosted';
import type { Response } from '../helpers/http';
import { activateTotp } from '../helpers/mfa';

const PASSWORD = 'passkey confirm passphrase';
const text = (page: Response) => String(page.body);

/** The passkey form's request options, as the page carries them in `data-options`. */
function optionsOf(page: Response): RequestOptions {
  const found = /data-passkey="get" data-options="([^"]*)"/.exec(text(page));
  if (!found?.[1]) throw new Error('No passkey confirmation on the page');
  return JSON.parse(found[1].replaceAll('&quot;', '"').replaceAll('&amp;', '&'));
}

/** A passkey confirms it is the user on the account page (docs/api.md 15.2), as the password does. */
describe('the account page: confirming with a passkey', () => {
  let deps: TestDeps;
  let app: App;
  let origin: string;
  let tenantId: string;
  /** The admin's token, fresh: the tests move the clock past a recent sign-in. */
  const adminToken = async () =>
    (await app.request('login', { body: { username: 'admin', password: PASSWORD, tenantId } })).body.data.token as string;

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
    origin = new URL(deps.config.issuer).origin;
    tenantId = uniqueTenant('acctpasskey');
    await registerAdmin(app, tenantId, 'admin', PASSWORD);
  });

  /**
   * A user with a passkey of their own authenticator and TOTP on, signed in on the page
   * with both factors longer ago than a recent sign-in: the page asks to confirm.
   */
  async function newUser() {
    const name = `user-${Math.random().toString(36).slice(2, 8)}`;
    const staff = await registerStaff(app, await adminToken(), { username: name, password: PASSWORD, role: 'OPERATOR', tenantId });
    const token = staff.token as string;
    const authenticator = softwareAuthenticator();
    const options = await app.request('passkeyRegistrationOptions', { token, body: {} });
    const { response } = authenticator.create(options.body.data.options);
    expect((await app.request('passkeyRegistration', { token, body: { credential: response } })).status).toBe(201);
    const { code } = await activateTotp(app, deps, token);
    const jar = new CookieJar();
    const csrf = csrfOf(await openPage(app, jar, 'account', { query: { tenant: tenantId } }));
    const asked = await postForm(app, jar, 'hostedSignIn', { csrf, username: name, password: PASSWORD }, origin);
    expect(asked.status).toBe(200);
    expect((await postForm(app, jar, 'hostedSecondFactor', { csrf, method: 'TOTP', code: code() }, origin)).status).toBe(303);
    const page = await openPage(app, jar, 'account');
    deps.clock.advance(deps.config.reauthMaxAgeSeconds + 1);
    return { name, id: staff.user.id as string, jar, csrf: csrfOf(page), authenticator };
  }

  const confirm = (jar: CookieJar, csrf: string, credential: string) =>
    postAction(app, jar, 'account', { section: 'passkeys', action: 'confirm-passkey' }, { csrf, credential }, origin);
  const events = async (userId: string, type: AuditEventType) =>
    (await deps.store.audit.list(tenantId, { shards: deps.config.audit.shards, limit: 50, userId, type })).events;
  const lastUses = async (userId: string) => (await deps.store.passkeys.listByUser(tenantId, userId)).map((passkey) => passkey.lastUsedAt);

  it('shows no passkey option to a user without passkeys', async () => {
    const name = `nokey-${Math.random().toString(36).slice(2, 8)}`;
    await registerStaff(app, await adminToken(), { username: name, password: PASSWORD, role: 'OPERATOR', tenantId });
    const { jar } = await signedInJar(app, origin, 'account', { tenantId, username: name, password: PASSWORD });
    deps.clock.advance(deps.config.reauthMaxAgeSeconds + 1);
    const page = await openPage(app, jar, 'account', { section: 'profile' });
    expect(text(page)).toContain('confirm-title');
    expect(text(page)).not.toContain('confirm-passkey');
    expect(page.headers['Content-Security-Policy']).toBeDefined();
  });

  it('offers the passkey beside the password, and the user’s own passkey confirms it: the factors may change', async () => {
    const user = await newUser();
    const page = await openPage(app, user.jar, 'account', { section: 'passkeys' });
    expect(text(page)).toContain('<h2 id="confirm-title">Confirm it is you</h2>');
    expect(text(page)).toContain('action="/account/passkeys/confirm"');
    expect(text(page)).toMatch(/<form method="post" action="\/account\/passkeys\/confirm-passkey" data-passkey="get" [^>]*hidden/);
    expect(text(page)).toContain('Use a passkey');
    const options = optionsOf(page);
    expect(options.allowCredentials.map((credential) => credential.id)).toEqual([
      user.authenticator.credentials[0]?.id.toString('base64url'),
    ]);
    expect(page.headers['Content-Security-Policy']).toMatch(/script-src [^;]*'sha256-/);
    const confirmed = await confirm(user.jar, user.csrf, JSON.stringify(user.authenticator.get(options)));
    expect(confirmed.status).toBe(303);
    const after = await openPage(app, user.jar, 'account', { section: 'passkeys' });
    expect(flashOf(after)).toBe('Confirmed. You can go on.');
    // A passkey with user verification passed the second factor: adding a passkey is offered now.
    expect(text(after)).not.toContain('confirm-title');
    expect(text(after)).toContain('data-passkey="create"');
    const [proof] = await events(user.id, 'reauthenticated');
    expect(proof?.details.amr).toEqual(['hwk', 'user']);
    expect(await events(user.id, 'reauthentication_failed')).toHaveLength(0);
  });

  it('refuses another user’s passkey, even with a challenge of nobody, a replayed challenge and a malformed credential: nothing recorded', async () => {
    // One after the other: each moves the shared clock past the other's pending sign-in.
    const user = await newUser();
    const other = await newUser();
    const usedBefore = await lastUses(other.id);
    const page = await openPage(app, user.jar, 'account', { section: 'passkeys' });
    // The other user's passkey answers this user's challenge (bound to them) ...
    const foreign = other.authenticator.get(optionsOf(page), {}, other.authenticator.credentials[0]);
    const refused = await confirm(user.jar, user.csrf, JSON.stringify(foreign));
    expect(refused.status).toBe(401);
    expect(text(refused)).toContain('The passkey was not accepted.');
    // ... or a challenge of the sign-in page, bound to nobody.
    const unbound = await app.request('passkeyAuthenticationOptions', { body: { tenantId } });
    const anyone = other.authenticator.get(unbound.body.data.options, {}, other.authenticator.credentials[0]);
    expect((await confirm(user.jar, user.csrf, JSON.stringify(anyone))).status).toBe(401);
    expect(await lastUses(other.id)).toEqual(usedBefore);
    // A right assertion once; the same again is a spent challenge.
    const again = await openPage(app, user.jar, 'account', { section: 'passkeys' });
    const assertion = JSON.stringify(user.authenticator.get(optionsOf(again)));
    const [first, second] = [await confirm(user.jar, user.csrf, assertion), await confirm(user.jar, user.csrf, assertion)];
    expect(first.status).toBe(303);
    expect(second.status).toBe(401);
    for (const malformed of ['not json', '{}', JSON.stringify({ ...JSON.parse(assertion), type: 'password' })]) {
      const answer = await confirm(other.jar, other.csrf, malformed);
      expect(answer.status, malformed).toBe(401);
      expect(text(answer)).toContain('The passkey was not accepted.');
    }
    expect(await events(user.id, 'reauthenticated')).toHaveLength(1);
    expect(await events(user.id, 'reauthentication_failed')).toHaveLength(3);
    expect(await events(other.id, 'reauthenticated')).toHaveLength(0);
    expect(await events(other.id, 'reauthentication_failed')).toHaveLength(3);
    // The other user's page still asks: nothing of theirs was proven.
    expect(text(await openPage(app, other.jar, 'account', { section: 'passkeys' }))).toContain('confirm-title');
  });
});
