import type { Device } from '../sessions/device';
import type { AuthPayload } from '../sessions/sessions';
import { apiSession, type SignInDeps, signIn } from '../sessions/sign-in';
import { verifyPasskeySignIn } from './ceremonies';

/**
 * docs/api.md 12.6: a passkey sign-in through the JSON API: the assertion checked (and
 * its refusals audited) by the ceremony, then the sign-in pipeline (lib/sessions/sign-in.ts)
 * with the passkey as an established first factor: a new session (the Auth payload, as
 * login's, without a device token) with the audit event of the success alongside it. A
 * passkey is a second factor by itself: no MFA code is asked.
 */
export async function signInWithPasskey(
  deps: SignInDeps,
  request: { tenantId: string; credential: unknown; sourceIp?: string | undefined },
  device: Device = {},
): Promise<AuthPayload> {
  const { user, amr, passkeyId } = await verifyPasskeySignIn(deps, request);
  const { opened } = await signIn(deps, {
    tenantId: user.tenantId,
    firstFactor: { kind: 'passkey', user, amr, passkeyId },
    opening: apiSession(deps, device),
  });
  return opened;
}
