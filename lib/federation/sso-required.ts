import type { Deps } from '../deps';
import { ForbiddenError } from '../errors';
import type { SignInAttempt } from '../sessions/sign-in';
import type { User } from '../users/user';
import type { Connection } from './connection';
import { connectionForEmail } from './discovery';

/** docs/api.md 14.1: the answer to a password sign-in of a user whose organization signs them in. */
export const SSO_REQUIRED = 'Sign in with your organization';

/** 403 `SSO_REQUIRED`, with the connection and address the hosted sign-in sends the browser on with. */
export class SsoRequiredError extends ForbiddenError {
  override name = 'SsoRequiredError';
  constructor(
    readonly connection: Connection,
    readonly email: string,
  ) {
    super(SSO_REQUIRED, { code: 'SSO_REQUIRED' });
  }
}

/**
 * The connection that requires its users to sign in through the IdP (docs/api.md 14.1) for
 * this email: an enabled `ssoRequired` connection of the tenant whose domains include the
 * email's, that domain verified for this tenant (home-realm discovery's rule, 14.3).
 * Undefined for anything else, an email of no domain included.
 */
export function ssoConnectionFor(deps: Pick<Deps, 'store'>, tenantId: string, email: string): Promise<Connection | undefined> {
  return connectionForEmail(deps, tenantId, email, { ssoRequired: true });
}

/**
 * The sign-in pipeline's `refuse` step of a password door (docs/api.md 14.1): the user the
 * password proved, when their stored email is at such a domain, is refused (the JSON login)
 * or sent to their IdP (the hosted sign-in).
 */
export function refusingSsoUsers(deps: Pick<Deps, 'store'>, tenantId: string): NonNullable<SignInAttempt<unknown>['refuse']> {
  return async (user: User) => {
    const connection = user.email === undefined ? undefined : await ssoConnectionFor(deps, tenantId, user.email);
    return connection && user.email ? { reason: 'sso_required', error: new SsoRequiredError(connection, user.email) } : undefined;
  };
}
