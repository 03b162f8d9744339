import { AppError } from '../errors';

/** Why a federated sign-in was refused: the audit trail's reason is `federation_<reason>`. */
export type FederationFailure =
  | 'expired'
  | 'wrong_browser'
  | 'connection_disabled'
  | 'invalid_response'
  | 'replayed'
  | 'idp_unreachable'
  | 'domain_not_allowed'
  | 'no_account';

/** A refusal of the IdP's answer by a protocol's checks (or of its silence); `detail` goes to the log only. */
export class FederationRefused extends Error {
  override name = 'FederationRefused';
  constructor(
    readonly reason: FederationFailure,
    readonly detail?: string,
  ) {
    super(`federated sign-in refused: ${reason}${detail ? ` (${detail})` : ''}`);
  }
}

/** What the person is shown for each refusal (docs/api.md 14.3), on the error page. */
export function pageError(reason: FederationFailure): AppError {
  switch (reason) {
    case 'domain_not_allowed':
      return new AppError(403, 'This account is not allowed for this organization', {}, 'ACCOUNT_NOT_ALLOWED');
    case 'no_account':
      return new AppError(403, 'No account for this user', {}, 'NO_FEDERATED_ACCOUNT');
    case 'idp_unreachable':
      return new AppError(502, "Your organization's sign-in service did not answer", {}, 'FEDERATION_FAILED');
    default:
      return new AppError(400, 'Sign-in failed', {}, 'FEDERATION_FAILED');
  }
}
