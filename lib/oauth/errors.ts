import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { type AppError, OAuthError, type OAuthErrorCode } from '../errors';
import { isFormRequest } from '../http/middlewares/body-format';
import { document, type Reply } from '../http/reply';

/**
 * The errors of the token, revocation and introspection endpoints (docs/api.md 4.7):
 * the envelope message, and the RFC 6749 5.2 code and status for RFC-format answers.
 */
export const oauthErrors = {
  missingParameters: () => new OAuthError(400, 'Missing required parameters', 'invalid_request', {}, 'MISSING_PARAMETERS'),
  missingRefreshToken: () => new OAuthError(400, 'Missing refresh token', 'invalid_request', {}, 'MISSING_PARAMETERS'),
  missingToken: () => new OAuthError(400, 'Missing token', 'invalid_request', {}, 'MISSING_PARAMETERS'),
  unsupportedGrantType: () => new OAuthError(400, 'Unsupported grant type', 'unsupported_grant_type', {}, 'UNSUPPORTED_GRANT_TYPE'),
  /** RFC 6749 5.2: 401, and `WWW-Authenticate` when the client tried HTTP Basic. */
  invalidClient: (triedBasic: boolean) =>
    new OAuthError(
      401,
      'Invalid client',
      'invalid_client',
      triedBasic ? { 'WWW-Authenticate': 'Basic realm="oauth2", charset="UTF-8"' } : {},
      'INVALID_CLIENT',
    ),
  unauthorizedClient: () => new OAuthError(400, 'Unauthorized client', 'unauthorized_client', {}, 'UNAUTHORIZED_CLIENT'),
  invalidGrant: () => new OAuthError(400, 'Invalid grant', 'invalid_grant', {}, 'INVALID_GRANT'),
  invalidScope: () => new OAuthError(400, 'Invalid scope', 'invalid_scope', {}, 'INVALID_SCOPE'),
  /** RFC 8707 2: a `resource` the client may not ask for. */
  invalidTarget: () => new OAuthError(400, 'Invalid resource', 'invalid_target', {}, 'INVALID_TARGET'),
  /** RFC 8628 3.5: the device's user has not decided yet; poll again after the interval. */
  authorizationPending: () => new OAuthError(400, 'Authorization pending', 'authorization_pending', {}, 'AUTHORIZATION_PENDING'),
  /** RFC 8628 3.5: polled before the interval passed; the interval grows by 5 seconds. */
  slowDown: () => new OAuthError(400, 'Slow down', 'slow_down', {}, 'SLOW_DOWN'),
  /** RFC 8628 3.5: the user denied the device. */
  accessDenied: () => new OAuthError(400, 'Access denied', 'access_denied', {}, 'ACCESS_DENIED'),
  /** RFC 8628 3.5: the device code expired before the user approved it. */
  expiredToken: () => new OAuthError(400, 'Device code expired', 'expired_token', {}, 'EXPIRED_TOKEN'),
  formRequired: () => new OAuthError(415, 'Unsupported content type', 'invalid_request', {}, 'UNSUPPORTED_CONTENT_TYPE'),
};

/** Token responses must not be cached (RFC 6749 5.1); `Pragma` for HTTP/1.0 caches. */
export const NO_CACHE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/** RFC 6749 5.2: `error_description` is limited to %x20-21 / %x23-5B / %x5D-7E. */
function description(message: string): string {
  return message.replace(/"/g, "'").replace(/[^\x20-\x21\x23-\x5B\x5D-\x7E]/g, '?');
}

/**
 * The RFC-format answer of an error for a request made the RFC way (a form body):
 * `{ error, error_description }` with the RFC's status. Validation and other
 * request errors become `invalid_request`; requests made with JSON, and unexpected
 * failures (500, 503), keep the envelope (docs/api.md 5.6).
 */
export function rfcErrorFormat(error: AppError, event: APIGatewayProxyEventV2, unexpected = false): Reply | undefined {
  if (unexpected || !isFormRequest(event)) return undefined;
  const code: OAuthErrorCode =
    error instanceof OAuthError ? error.oauthCode : error.statusCode >= 500 ? 'temporarily_unavailable' : 'invalid_request';
  return document({ error: code, error_description: description(error.message) }, error.statusCode, { ...error.headers, ...NO_CACHE });
}
