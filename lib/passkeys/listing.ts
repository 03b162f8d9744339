import type { Deps } from '../deps';
import { type PasskeyView, passkeyView } from './passkey';

/**
 * docs/api.md 12.3: a user's passkeys, newest first. Apart from the ceremonies so that
 * the account and listing functions do not load the WebAuthn library.
 */
export async function passkeysOf(deps: Pick<Deps, 'store'>, account: { tenantId: string; userId: string }): Promise<PasskeyView[]> {
  return (await deps.store.passkeys.listByUser(account.tenantId, account.userId)).map(passkeyView);
}
