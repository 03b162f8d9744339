import { epochSeconds } from '../clock';
import { UnauthorizedError } from '../errors';
import { type SecondFactorRequest, secondFactor } from '../mfa/second-factor';
import type { Identity } from '../tokens/access-token';
import type { Device } from './device';
import { issueAccessToken } from './sessions';
import { type SignInAttempt, type SignInDeps, signIn } from './sign-in';

export interface ReauthenticateRequest extends SecondFactorRequest {
  password: string;
}

/**
 * reauthenticate (docs/api.md 8.1): the sign-in pipeline (lib/sessions/sign-in.ts) for
 * the session's own user: the password again (400 `Invalid credentials`, counted by the
 * login lockout as an unknown source), then the second factor as at login; its opening
 * records the proof (`authTime`, `amr`) and the device in the caller's session in one
 * conditional write, and the caller gets a new access token. The refresh token is
 * unchanged. Success and every refusal but a fault are audit events (docs/api.md 9.8).
 */
export async function reauthenticate(
  deps: SignInDeps,
  identity: Identity,
  request: ReauthenticateRequest,
  device: Device = {},
): Promise<{ token: string }> {
  const { user, opened } = await reauthenticateSession(deps, identity, request, device);
  return { token: await issueAccessToken(deps, user, opened) };
}

/**
 * The proof of reauthenticate without the new access token: a browser session proves its
 * password (and second factor) again on the account page (docs/api.md 15.2), whose
 * cookie stays what it was. The same pipeline, checks, lockout and audit.
 */
export async function reauthenticateSession(deps: SignInDeps, identity: Identity, request: ReauthenticateRequest, device: Device = {}) {
  const { tenantId, username } = identity;
  return provenAgain(deps, identity, device, {
    tenantId,
    firstFactor: { kind: 'password', username, password: request.password },
    secondFactor: { request: { mfaCode: request.mfaCode, mfaMethod: request.mfaMethod }, check: secondFactor },
  });
}

/**
 * The end of every reauthentication: the sign-in pipeline with the door's first (and
 * second) factor for the session's own user, whose opening records the proof (`authTime`
 * now, the `amr`) and the device in the caller's session in one conditional write; the
 * audit trail records `reauthenticated` or `reauthentication_failed`.
 */
export async function provenAgain(
  deps: SignInDeps,
  identity: Identity,
  device: Device,
  attempt: Pick<SignInAttempt<unknown>, 'tenantId' | 'firstFactor' | 'secondFactor'>,
) {
  const { tenantId, userId, sessionId } = identity;
  const { user, amr, opened } = await signIn(deps, {
    ...attempt,
    reauthenticating: identity,
    opening: {
      open: (_, amr) =>
        deps.store.sessions.reauthenticate({ tenantId, id: sessionId }, userId, { authTime: epochSeconds(deps.clock), amr, ...device }),
    },
  });
  // The session was revoked or ended meanwhile.
  if (!opened) throw new UnauthorizedError();
  deps.log.info('reauthenticated', { tenantId, userId, sessionId, amr });
  return { user, opened };
}
