import { bySelf, recordEvent } from '../audit/record';
import { epochSeconds } from '../clock';
import { hashToken } from '../crypto/token-hash';
import type { Deps } from '../deps';
import { ForbiddenError, TooManyRequestsError, ValidationError } from '../errors';
import { selfEvent } from '../events/self';
import type { Session } from '../sessions/session';
import type { AttemptSubject } from '../store/login-attempts';
import type { User } from '../users/user';
import type { OAuthClient } from './client';
import type { DeviceAuthorization } from './device-code';
import { normalizeUserCode } from './device-code';

/** docs/api.md 16.4: 10 wrong user codes from one signed-in user within 15 minutes refuse code entry until the window ends. */
export const USER_CODE_POLICY = { max: 10, windowSeconds: 15 * 60 };

type ApprovalDeps = Pick<Deps, 'config' | 'clock' | 'random' | 'store' | 'log' | 'source'>;

/** The person at the device page: a live browser session and its user. */
export interface DeviceApprover {
  user: User;
  session: Session;
}

/** The refusals of the device page (docs/api.md 16.4), each in plain words. */
export const deviceCodeErrors = {
  wrong: () => new ValidationError('That code is not right. Check the code on your device and try again.', { code: 'INVALID_USER_CODE' }),
  otherTenant: () => new ForbiddenError('This code is for a device of another organization.', { code: 'PERMISSION_DENIED' }),
  expired: () => new ValidationError('This code has expired. Start again on your device to get a new code.', { code: 'USER_CODE_EXPIRED' }),
  used: () =>
    new ValidationError('This code has been used already. Start again on your device to get a new code.', { code: 'USER_CODE_USED' }),
  tooMany: (retryAfterSeconds: number) =>
    new TooManyRequestsError(retryAfterSeconds, 'Too many wrong codes. Wait a few minutes, then try again.', { code: 'LOCKED' }),
};

/**
 * A user code typed on the device page (RFC 8628 3.3), for approval or denial by the
 * signed-in user. Every entry first takes a place in the user's window of wrong codes
 * (one conditional write, so concurrent guesses cannot pass the limit); a full window
 * refuses even a right code. A code of the user's own tenant (pending, decided or
 * expired) gives the place back; a code of no authorization or of another tenant's
 * counts as wrong.
 */
export async function enterUserCode(
  deps: ApprovalDeps,
  approver: DeviceApprover,
  typed: string,
): Promise<{ authorization: DeviceAuthorization; client: OAuthClient; userCode: string }> {
  const { user } = approver;
  const now = epochSeconds(deps.clock);
  const subject: AttemptSubject = { kind: 'user-code', tenantId: user.tenantId, userId: user.id };
  const verdict = await deps.store.attempts.reserve(subject, now, USER_CODE_POLICY);
  if (!verdict.allowed) throw deviceCodeErrors.tooMany(verdict.retryAfterSeconds);
  const refuse = async (error: Error) => {
    deps.log.info('device_user_code_refused', { tenantId: user.tenantId, userId: user.id, code: 'code' in error ? error.code : undefined });
    // The entry that fills the window is recorded once; the refusals after it are not.
    if (verdict.remaining === 0)
      await recordEvent(deps, {
        ...bySelf({ tenantId: user.tenantId, userId: user.id }),
        type: 'device_code_entry_locked',
        outcome: 'failure',
      });
    return error;
  };
  const code = normalizeUserCode(typed);
  if (code === undefined) throw await refuse(deviceCodeErrors.wrong());
  const authorization = await deps.store.deviceCodes.findByUserCode(hashToken(code));
  if (!authorization) throw await refuse(deviceCodeErrors.wrong());
  if (authorization.tenantId !== user.tenantId) throw await refuse(deviceCodeErrors.otherTenant());
  // A code of the user's tenant, live or not, was read off a device, not guessed.
  await deps.store.attempts.release(subject);
  if (authorization.status !== 'pending') throw deviceCodeErrors.used();
  const client = await deps.store.oauthClients.find(authorization.clientId);
  if (authorization.expiresAt <= now || client?.tenantId !== user.tenantId) throw deviceCodeErrors.expired();
  return { authorization, client, userCode: code };
}

/**
 * The user's decision on a device (RFC 8628 3.3): recorded on the authorization in one
 * conditional write, with the browser session that made it (the `sid` of the tokens), and
 * in the audit trail. Decided meanwhile by another request: the code was used.
 */
export async function decideDevice(
  deps: ApprovalDeps,
  approver: DeviceApprover,
  { authorization, client }: { authorization: DeviceAuthorization; client: OAuthClient },
  decision: 'approved' | 'denied',
): Promise<void> {
  const { user, session } = approver;
  const now = epochSeconds(deps.clock);
  const approval = { userId: user.id, sessionId: session.id, authTime: session.authTime ?? session.createdAt, amr: [...session.amr] };
  const event = selfEvent(
    deps,
    { tenantId: user.tenantId, userId: user.id },
    decision === 'approved' ? 'identity.device.approved' : 'identity.device.denied',
    {
      clientId: client.clientId,
      sessionId: session.id,
    },
  );
  if (!(await deps.store.emitting([event]).deviceCodes.decide(authorization, decision, approval, now))) throw deviceCodeErrors.used();
  deps.log.info(decision === 'approved' ? 'device_approved' : 'device_denied', {
    tenantId: user.tenantId,
    clientId: client.clientId,
    userId: user.id,
  });
  await recordEvent(deps, {
    ...bySelf({ tenantId: user.tenantId, userId: user.id }),
    type: decision === 'approved' ? 'device_approved' : 'device_denied',
    outcome: 'success',
    details: { clientId: client.clientId, sessionId: session.id },
  });
}
