import { refusingSsoUsers, SsoRequiredError, ssoConnectionFor } from '../federation/sso-required';
import { type SecondFactorRequest, secondFactor } from '../mfa/second-factor';
import type { Device } from '../sessions/device';
import type { AuthPayload } from '../sessions/sessions';
import { apiSession, type PasswordRequest, type SignInDeps, signIn, signInEvent, withDeviceToken } from '../sessions/sign-in';

/** A login request (docs/api.md 4.1): the password, what chooses its attempt budget, and the second factor. */
export type LoginRequest = PasswordRequest & SecondFactorRequest;

/** A login's answer: the Auth payload with the device token of the browser or app that signed in. */
export type LoginPayload = AuthPayload & { deviceToken: string };

/**
 * login (docs/api.md 4.1): the sign-in pipeline (lib/sessions/sign-in.ts) with the
 * password as first factor, the second factor given in the request, and a new session
 * of the JSON API with a new device token (docs/api.md 10) as its opening.
 */
export async function login(deps: SignInDeps, request: LoginRequest, device: Device = {}): Promise<LoginPayload> {
  const { tenantId, username, password, deviceToken, sourceIp, mfaCode, mfaMethod } = request;
  // docs/api.md 14.1: an email of a domain whose organization requires its IdP never reaches the password.
  const required = username.includes('@') ? await ssoConnectionFor(deps, tenantId, username) : undefined;
  if (required) {
    await signInEvent(deps, tenantId, username, undefined, 'login_failed', { reason: 'sso_required' });
    throw new SsoRequiredError(required, username);
  }
  const { opened } = await signIn(deps, {
    tenantId,
    firstFactor: { kind: 'password', username, password, deviceToken, sourceIp },
    secondFactor: { request: { mfaCode, mfaMethod }, check: secondFactor },
    // ...nor does the password of a user whose stored email is one: refused once the password
    // proved who it is, so that the answer says nothing of unknown usernames.
    refuse: refusingSsoUsers(deps, tenantId),
    opening: withDeviceToken(deps, apiSession(deps, device)),
  });
  return { ...opened.opened, deviceToken: opened.deviceToken };
}
