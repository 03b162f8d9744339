import type { Device } from '../sessions/device';
import { provenAgain } from '../sessions/reauthenticate';
import type { SignInDeps } from '../sessions/sign-in';
import type { Identity } from '../tokens/access-token';
import { descriptor, verifyPasskeySignIn } from './ceremonies';
import { type PublicKeyCredentialRequestOptionsJSON, signInOptions } from './options';

/*
 * A passkey confirms it is the user (docs/api.md 15.2): the session's user proves
 * themselves again with one of their own passkeys instead of the password. The passkey
 * proves possession and user verification, so it counts as the second factor too
 * (docs/api.md 12.6), as at a passkey sign-in.
 */

/**
 * The request options of the confirmation: a challenge of the authentication ceremony
 * bound to the session's user, and their own credentials listed (the user sees only
 * their own: nothing is told to anyone else). Undefined when the user has no passkey.
 */
export async function reauthenticationOptions(
  deps: Pick<SignInDeps, 'config' | 'clock' | 'random' | 'store'>,
  identity: Identity,
): Promise<PublicKeyCredentialRequestOptionsJSON | undefined> {
  const passkeys = await deps.store.passkeys.listByUser(identity.tenantId, identity.userId);
  if (passkeys.length === 0) return undefined;
  const options = await signInOptions(deps, identity.tenantId, identity.userId);
  return { ...options, allowCredentials: passkeys.map(descriptor) };
}

/**
 * Checks the assertion with the sign-in ceremony (lib/passkeys/ceremonies.ts: its
 * challenge spent once, a passkey of anyone else refused, 401 `Invalid passkey` and
 * `reauthentication_failed`), then records the proof in the caller's session like the
 * password's reauthentication (lib/sessions/reauthenticate.ts).
 */
export async function reauthenticateWithPasskey(
  deps: SignInDeps,
  identity: Identity,
  credential: unknown,
  request: { sourceIp?: string | undefined; device?: Device },
) {
  const proven = await verifyPasskeySignIn(deps, {
    tenantId: identity.tenantId,
    credential,
    sourceIp: request.sourceIp,
    reauthenticating: identity,
  });
  const { user, amr, passkeyId } = proven;
  return provenAgain(deps, identity, request.device ?? {}, {
    tenantId: identity.tenantId,
    firstFactor: { kind: 'passkey', user, amr, passkeyId },
  });
}
