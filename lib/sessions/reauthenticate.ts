import type { AuditDetails } from '../audit/events';
import { bySelf, recordEvent } from '../audit/record';
import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { UnauthorizedError, ValidationError } from '../errors';
import { type SecondFactorRequest, secondFactor } from '../mfa/second-factor';
import type { Identity } from '../tokens/access-token';
import { checkPassword, secondFactorRefusal } from '../users/login';
import type { Device } from './device';
import type { Amr } from './session';
import { issueAccessToken } from './sessions';

type ReauthDeps = Pick<
  Deps,
  'config' | 'clock' | 'random' | 'log' | 'store' | 'hasher' | 'keys' | 'mfaSecrets' | 'mfaDelivery' | 'deviceTokens' | 'source'
>;

export interface ReauthenticateRequest extends SecondFactorRequest {
  password: string;
}

/**
 * reauthenticate (docs/api.md 8.1): the password again (400 `Invalid credentials`,
 * counted by the login lockout), then the second factor as at login; the caller's
 * session records the proof (`authTime`, `amr`) and the device in one conditional write
 * and gets a new access token. The refresh token is unchanged. Success and every refusal
 * but a fault are audit events (docs/api.md 9.8), written alongside the request's last
 * database work as at login.
 */
export async function reauthenticate(
  deps: ReauthDeps,
  identity: Identity,
  request: ReauthenticateRequest,
  device: Device = {},
): Promise<{ token: string }> {
  const invalid = () => new ValidationError('Invalid credentials', { code: 'INVALID_CREDENTIALS' });
  const { tenantId, userId, username, sessionId } = identity;
  const failed = (details: AuditDetails) =>
    recordEvent(deps, { ...bySelf(identity), type: 'reauthentication_failed', outcome: 'failure', details });
  const { user, mfaMethods, afterSuccess } = await checkPassword(
    deps,
    { tenantId, username, password: request.password },
    invalid,
    ({ reason }) => failed({ reason }),
  );
  try {
    if (user.id !== userId) throw invalid();
    let amr: Amr[];
    try {
      amr = await secondFactor(deps, { tenantId, userId, username }, request, mfaMethods);
    } catch (error) {
      const refusal = secondFactorRefusal(error);
      if (refusal) await failed({ reason: refusal.reason, ...(request.mfaMethod ? { method: request.mfaMethod } : {}) });
      throw error;
    }
    const [session] = await Promise.all([
      deps.store.sessions.reauthenticate({ tenantId, id: sessionId }, userId, { authTime: epochSeconds(deps.clock), amr, ...device }),
      recordEvent(deps, { ...bySelf(identity), type: 'reauthenticated', outcome: 'success', details: { sessionId, amr } }),
    ]);
    if (!session) throw new UnauthorizedError();
    deps.log.info('reauthenticated', { tenantId, userId, sessionId, amr });
    return { token: await issueAccessToken(deps, user, session) };
  } finally {
    await afterSuccess;
  }
}
