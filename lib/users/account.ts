import type { Deps } from '../deps';
import { UnauthorizedError } from '../errors';
import { listMfa, type MfaSummary } from '../mfa/lifecycle';
import { passkeysOf } from '../passkeys/listing';
import type { PasskeyView } from '../passkeys/passkey';
import type { Identity } from '../tokens/access-token';
import type { Role } from './user';

/** The signed-in user's own account (docs/api.md 8.5): never a hash, a secret or a code. */
export interface AccountView {
  id: string;
  username: string;
  role: Role;
  tenantId: string;
  shopId: string;
  email: string | null;
  emailVerified: boolean;
  /** ISO 8601. */
  createdAt: string;
  mfa: MfaSummary;
  /** docs/api.md 12.3. */
  passkeys: PasskeyView[];
}

/** docs/api.md 8.5: the caller's account, read now (consistent read of the user, then its MFA methods and passkeys). */
export async function accountOf(deps: Pick<Deps, 'store'>, identity: Identity): Promise<{ account: AccountView }> {
  const user = await deps.store.users.findById(identity.tenantId, identity.userId);
  if (!user) throw new UnauthorizedError();
  const [mfa, passkeys] = await Promise.all([
    listMfa(deps, { tenantId: user.tenantId, userId: user.id, username: user.username }),
    passkeysOf(deps, { tenantId: user.tenantId, userId: user.id }),
  ]);
  return {
    account: {
      id: user.id,
      username: user.username,
      role: user.role,
      tenantId: user.tenantId,
      shopId: user.shopId,
      email: user.email ?? null,
      // A record without `emailVerified` (written before docs/api.md 8.8) has no verified address.
      emailVerified: user.emailVerified === true,
      createdAt: user.createdAt,
      mfa: mfa.mfa,
      passkeys,
    },
  };
}
