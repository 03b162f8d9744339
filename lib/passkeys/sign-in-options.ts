import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { CHALLENGE_TTL_SECONDS } from './passkey';

/**
 * The request options of a sign-in without a username (docs/api.md 12.5: discoverable
 * credentials, a new challenge of the tenant for the authentication ceremony), without
 * the WebAuthn library: the hosted sign-in page shows them (docs/api.md 11.11) from
 * functions that never check a credential, whose bundles must not carry it.
 * `verifyPasskeySignIn` (lib/passkeys/ceremonies.ts) spends the challenge.
 */
export async function discoverableSignInOptions(deps: Pick<Deps, 'config' | 'clock' | 'random' | 'store'>, tenantId: string) {
  const challenge = deps.random.token();
  const expiresAt = epochSeconds(deps.clock) + CHALLENGE_TTL_SECONDS;
  await deps.store.passkeys.createChallenge({ challenge, tenantId, ceremony: 'authentication', expiresAt });
  return {
    challenge,
    rpId: deps.config.webauthn.rpId,
    timeout: CHALLENGE_TTL_SECONDS * 1000,
    allowCredentials: [],
    userVerification: 'required' as const,
  };
}
