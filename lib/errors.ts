/**
 * The stable, machine-readable codes of failure answers (docs/api.md 2, error codes): one
 * closed list, so a client `switch`es on `code` instead of matching the English `error`.
 * A code is never renamed or reused for another meaning; new failures add codes.
 */
export const ERROR_CODES = [
  // 400: the request itself
  'VALIDATION_FAILED',
  'INVALID_JSON',
  'INVALID_FORM',
  'PASSWORD_TOO_COMMON',
  'FIRST_USER_MUST_BE_ADMIN',
  'USERNAME_TAKEN',
  'MFA_METHOD_NOT_ENABLED',
  'INVALID_MFA_CODE',
  // 400 and 401 of the OAuth routes answered in the envelope (docs/api.md 4.6-4.8, 4.13, 4.14)
  'MISSING_PARAMETERS',
  'UNSUPPORTED_GRANT_TYPE',
  'UNSUPPORTED_RESPONSE_TYPE',
  'INVALID_CLIENT',
  'UNAUTHORIZED_CLIENT',
  'INVALID_GRANT',
  'INVALID_SCOPE',
  'INVALID_REDIRECT_URI',
  'PKCE_REQUIRED',
  'UNSUPPORTED_CODE_CHALLENGE_METHOD',
  'CLIENT_SECRET_TOO_SHORT',
  'CLIENT_SECRET_TOO_WEAK',
  'RESERVED_CLIENT_ID',
  'SMS_COUNTRY_NOT_ALLOWED',
  'INVALID_CURSOR',
  // Forgotten password and email (docs/api.md 8.7, 8.8)
  'INVALID_RESET_CODE',
  'INVALID_VERIFICATION_CODE',
  // 401
  'UNAUTHORIZED',
  'INVALID_CREDENTIALS',
  'MFA_REQUIRED',
  'INVALID_REFRESH_TOKEN',
  // 403
  'PERMISSION_DENIED',
  'MFA_STEP_UP_REQUIRED',
  'RECENT_AUTH_REQUIRED',
  'MFA_METHOD_LOCKED',
  // 404, 409
  'NOT_FOUND',
  'CONFLICT',
  'MFA_ALREADY_ENABLED',
  'LAST_ADMIN',
  'CLIENT_EXISTS',
  // docs/api.md 4.7: a resource (RFC 8707) not registered for the client, or not a resource URI.
  'INVALID_TARGET',
  // 413, 415, 429
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_CONTENT_TYPE',
  'LOCKED',
  'RATE_LIMITED',
  // 500, 503
  'INTERNAL',
  'SERVICE_UNAVAILABLE',
  // OAuth client lifecycle (docs/api.md 9.9-9.13)
  'CLIENT_NOT_FOUND',
  // Sessions and authorized apps (docs/api.md 8.3, 8.4): 404
  'SESSION_NOT_FOUND',
  'GRANT_NOT_FOUND',
  // Shops (docs/api.md 9.7): 400, 409
  'UNKNOWN_SHOP',
  'SHOP_EXISTS',
  // OpenID Connect (docs/api.md 11.1, 11.2): a bad nonce (400), a bad OAuth access token (401), one without `openid` (403)
  'INVALID_NONCE',
  'INVALID_TOKEN',
  'INSUFFICIENT_SCOPE',
  // Browser sign-in, hosted pages (docs/api.md 11.5-11.10).
  'INVALID_AUTHORIZATION_REQUEST',
  'INTERACTION_EXPIRED',
  'CROSS_SITE_REQUEST',
  // RP-initiated logout (docs/api.md 11.12): the error page.
  'INVALID_LOGOUT_REQUEST',
  'INVALID_ID_TOKEN_HINT',
  // Passkeys (docs/api.md 12): 400, 401, 404, 409.
  'INVALID_PASSKEY_REGISTRATION',
  'INVALID_PASSKEY',
  'PASSKEY_NOT_FOUND',
  'PASSKEY_ALREADY_REGISTERED',
  'TOO_MANY_PASSKEYS',
  // Invitations (docs/api.md 13.1): 400, 404, 409.
  'INVALID_INVITATION',
  'INVITATION_NOT_FOUND',
  'INVITATION_PENDING',
  'INVITATION_NOT_PENDING',
  'USER_EXISTS',
  // Enterprise sign-in (docs/api.md 14.1, 14.2): 400, 403, 404, 409.
  'DOMAIN_NOT_VERIFIED',
  'SSO_REQUIRED',
  'CONNECTION_NOT_FOUND',
  'DOMAIN_NOT_FOUND',
  'DOMAIN_EXISTS',
  'DOMAIN_CLAIMED',
  // Enterprise sign-in (docs/api.md 14): the error page of a refused federated sign-in (400, 403, 502).
  'FEDERATION_FAILED',
  'ACCOUNT_NOT_ALLOWED',
  'NO_FEDERATED_ACCOUNT',
  // The pages of a signed-in person (docs/api.md 15.1).
  'SIGN_IN_AGAIN',
  'PAGE_EXPIRED',
  'TENANT_REQUIRED',
  // DPoP (docs/api.md 16.3, RFC 9449): a refused proof (400 at the token endpoint, 401 at userinfo), a nonce to use (400).
  'INVALID_DPOP_PROOF',
  'USE_DPOP_NONCE',
  // Public clients and per-client CORS (docs/api.md 16.1, 16.2): 400.
  'CLIENT_SECRET_REQUIRED',
  'PUBLIC_CLIENT_SECRET',
  'INVALID_ORIGIN',
  // Device authorization grant (docs/api.md 16.4): the token endpoint's answers while the user has not approved (400), and the device page's.
  'AUTHORIZATION_PENDING',
  'SLOW_DOWN',
  'ACCESS_DENIED',
  'EXPIRED_TOKEN',
  'INVALID_USER_CODE',
  'USER_CODE_EXPIRED',
  'USER_CODE_USED',
  // Webhooks (docs/api.md 17.2): a URL that is not https or reaches a refused address (400), the tenant's limit (409).
  'INVALID_WEBHOOK_URL',
  'WEBHOOK_LIMIT_REACHED',
] as const;

/** One of {@link ERROR_CODES}. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * The `error` codes the token, revocation and introspection endpoints answer with when
 * called the RFC way (docs/api.md 5.6): RFC 6749 5.2 (RFC 7009 2.2.1 and RFC 7662 2.3
 * reuse them), RFC 8707 2 `invalid_target`, RFC 9449 `invalid_dpop_proof` and
 * `use_dpop_nonce` (docs/api.md 16.3), and RFC 6749 4.1.2.1's `temporarily_unavailable` for a 5xx.
 */
export const OAUTH_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'invalid_target',
  'invalid_dpop_proof',
  'use_dpop_nonce',
  'temporarily_unavailable',
  // RFC 8628 3.5: the device authorization grant's answers to a poll.
  'authorization_pending',
  'slow_down',
  'access_denied',
  'expired_token',
] as const;

/** One of {@link OAUTH_ERROR_CODES}. */
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

/**
 * The `error` of a redirect back to the client from the authorization endpoint
 * (docs/api.md 11.5-11.10): RFC 6749 4.1.2.1 `access_denied`, OpenID Connect Core
 * 3.1.2.6 `login_required` and `consent_required` (`prompt=none`).
 */
export type AuthorizationErrorCode = 'access_denied' | 'login_required' | 'consent_required';

/** The `error` of a `WWW-Authenticate: Bearer` challenge (RFC 6750 3.1). */
export type BearerErrorCode = 'invalid_token' | 'insufficient_scope';

/** One problem of a validation failure: the field's path (`body`/`query` for the whole input) and what is wrong. */
export interface FieldProblem {
  path: string;
  message: string;
}

/** What a subclass lets its caller make more precise than its default. */
export interface AppErrorOptions {
  /** The code, when more precise than the class's default (e.g. `USERNAME_TAKEN`). */
  code?: ErrorCode;
}

/** The code of a status when nothing more precise is known. */
function defaultCode(statusCode: number): ErrorCode {
  switch (statusCode) {
    case 400:
      return 'VALIDATION_FAILED';
    case 401:
      return 'UNAUTHORIZED';
    case 403:
      return 'PERMISSION_DENIED';
    case 404:
      return 'NOT_FOUND';
    case 409:
      return 'CONFLICT';
    case 413:
      return 'PAYLOAD_TOO_LARGE';
    case 415:
      return 'UNSUPPORTED_CONTENT_TYPE';
    case 429:
      return 'RATE_LIMITED';
    case 503:
      return 'SERVICE_UNAVAILABLE';
    default:
      return 'INTERNAL';
  }
}

/**
 * The one error hierarchy. Each error carries the HTTP status, the public message and
 * the stable code that go into the envelope; anything that is not an AppError is
 * answered with 500 `Internal server error` (`INTERNAL`) and logged.
 */
export class AppError extends Error {
  override name = 'AppError';
  readonly code: ErrorCode;
  constructor(
    readonly statusCode: number,
    message: string,
    /** Extra response headers (e.g. `Retry-After`, `X-MFA-Methods`). */
    readonly headers: Record<string, string> = {},
    code: ErrorCode = defaultCode(statusCode),
  ) {
    super(message);
    this.code = code;
  }
}

/** 400; `VALIDATION_FAILED` unless said otherwise, with every problem in `fields`. */
export class ValidationError extends AppError {
  override name = 'ValidationError';
  /** Every problem of the input (docs/api.md 2); the message names the first. */
  readonly fields: readonly FieldProblem[] | undefined;
  constructor(message: string, options: AppErrorOptions & { fields?: readonly FieldProblem[] } = {}) {
    super(400, message, {}, options.code ?? 'VALIDATION_FAILED');
    this.fields = options.fields;
  }
}

/** 401; `UNAUTHORIZED` unless said otherwise. */
export class UnauthorizedError extends AppError {
  override name = 'UnauthorizedError';
  constructor(message = 'Unauthorized', headers: Record<string, string> = {}, options: AppErrorOptions = {}) {
    super(401, message, headers, options.code ?? 'UNAUTHORIZED');
  }
}

/** 403; `PERMISSION_DENIED` unless said otherwise (`MFA_STEP_UP_REQUIRED`, `RECENT_AUTH_REQUIRED`). */
export class ForbiddenError extends AppError {
  override name = 'ForbiddenError';
  constructor(message = 'Permission denied', options: AppErrorOptions = {}) {
    super(403, message, {}, options.code ?? 'PERMISSION_DENIED');
  }
}

/** 404; `NOT_FOUND` unless said otherwise. */
export class NotFoundError extends AppError {
  override name = 'NotFoundError';
  constructor(message = 'Not found', options: AppErrorOptions = {}) {
    super(404, message, {}, options.code ?? 'NOT_FOUND');
  }
}

/** 409; `CONFLICT` unless said otherwise. */
export class ConflictError extends AppError {
  override name = 'ConflictError';
  constructor(message: string, options: AppErrorOptions = {}) {
    super(409, message, {}, options.code ?? 'CONFLICT');
  }
}

/** 413 `Request body too large`, `PAYLOAD_TOO_LARGE`. */
export class PayloadTooLargeError extends AppError {
  override name = 'PayloadTooLargeError';
  constructor() {
    super(413, 'Request body too large', {}, 'PAYLOAD_TOO_LARGE');
  }
}

/** 415 `Unsupported content type`, `UNSUPPORTED_CONTENT_TYPE`. */
export class UnsupportedContentTypeError extends AppError {
  override name = 'UnsupportedContentTypeError';
  constructor() {
    super(415, 'Unsupported content type', {}, 'UNSUPPORTED_CONTENT_TYPE');
  }
}

/**
 * 429 with `Retry-After`. The default message is the lockout's (`LOCKED`: failed attempts
 * on an account); a throttle says otherwise (`RATE_LIMITED`).
 */
export class TooManyRequestsError extends AppError {
  override name = 'TooManyRequestsError';
  constructor(retryAfterSeconds: number, message = 'Too many failed attempts', options: AppErrorOptions = {}) {
    super(429, message, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) }, options.code ?? 'LOCKED');
  }
}

/** 503 `Service unavailable`, `SERVICE_UNAVAILABLE`. */
export class ServiceUnavailableError extends AppError {
  override name = 'ServiceUnavailableError';
  constructor(headers: Record<string, string> = {}) {
    super(503, 'Service unavailable', headers, 'SERVICE_UNAVAILABLE');
  }
}

/**
 * An OAuth 2.0 error: the envelope message and code, and the RFC 6749 5.2 `error` code
 * that the OAuth endpoints answer with when called the RFC way (lib/oauth/errors.ts).
 */
export class OAuthError extends AppError {
  override name = 'OAuthError';
  constructor(
    statusCode: number,
    message: string,
    /** RFC 6749 5.2 error code, e.g. `invalid_grant`. */
    readonly oauthCode: OAuthErrorCode,
    headers: Record<string, string> = {},
    code: ErrorCode = defaultCode(statusCode),
  ) {
    super(statusCode, message, headers, code);
  }
}
