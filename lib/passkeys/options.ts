import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { type Ceremony, CHALLENGE_TTL_SECONDS } from './passkey';

/**
 * The options and challenges of the ceremonies, without the WebAuthn library: the hosted
 * sign-in page shows sign-in options (docs/api.md 11.11) from functions that never check
 * a credential, whose bundles must not carry it. lib/passkeys/ceremonies.ts checks the
 * answers and spends the challenges.
 */

type OptionsDeps = Pick<Deps, 'config' | 'clock' | 'random' | 'store'>;

/** A credential named in the options (WebAuthn Level 3 5.8.3). */
export interface CredentialDescriptor {
  type: 'public-key';
  id: string;
  transports?: string[];
}

/** WebAuthn's `PublicKeyCredentialRequestOptionsJSON` (Level 3 5.5). */
export interface PublicKeyCredentialRequestOptionsJSON {
  challenge: string;
  rpId: string;
  timeout: number;
  allowCredentials: CredentialDescriptor[];
  userVerification: 'required';
}

/** A new random challenge of one ceremony in the tenant (and for the user, if named), spent once within 5 minutes. */
export async function issueChallenge(deps: OptionsDeps, tenantId: string, ceremony: Ceremony, userId?: string): Promise<string> {
  const challenge = deps.random.token();
  const expiresAt = epochSeconds(deps.clock) + CHALLENGE_TTL_SECONDS;
  await deps.store.passkeys.createChallenge({ challenge, tenantId, ceremony, ...(userId === undefined ? {} : { userId }), expiresAt });
  return challenge;
}

/**
 * docs/api.md 12.5: the request options of a sign-in in the tenant, with a challenge of
 * the authentication ceremony, bound to `userId` when a user was named. No credential is
 * ever listed (`allowCredentials` is empty: every passkey here is discoverable, and the
 * authenticator offers its own), so that the answer never tells whether a username exists
 * or which credentials its user has.
 */
export async function signInOptions(deps: OptionsDeps, tenantId: string, userId?: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return {
    challenge: await issueChallenge(deps, tenantId, 'authentication', userId),
    rpId: deps.config.webauthn.rpId,
    timeout: CHALLENGE_TTL_SECONDS * 1000,
    allowCredentials: [],
    userVerification: 'required',
  };
}
