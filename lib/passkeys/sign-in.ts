import type { Deps } from '../deps';
import type { Device } from '../sessions/device';
import { type AuthPayload, startSession } from '../sessions/sessions';
import { signInEvent } from '../users/login';
import { verifyPasskeySignIn } from './ceremonies';

/**
 * docs/api.md 12.6: a passkey sign-in through the JSON API: the assertion checked, then
 * a new session (the Auth payload, as login's) with the audit event of the success
 * written alongside it. A passkey is a second factor by itself: no MFA code is asked.
 */
export async function signInWithPasskey(
  deps: Pick<Deps, 'config' | 'clock' | 'random' | 'log' | 'store' | 'source' | 'keys'>,
  request: { tenantId: string; credential: unknown; sourceIp?: string | undefined },
  device: Device = {},
): Promise<AuthPayload> {
  const { user, amr, passkeyId } = await verifyPasskeySignIn(deps, request);
  const [payload] = await Promise.all([
    startSession(deps, user, amr, device),
    signInEvent(deps, user.tenantId, user.username, user, 'login_succeeded', { amr, passkeyId }),
  ]);
  deps.log.info('login_succeeded', { tenantId: user.tenantId, userId: user.id, username: user.username, amr });
  return payload;
}
