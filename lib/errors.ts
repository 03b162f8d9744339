/**
 * The one error hierarchy. Each error carries the HTTP status and the public message
 * that goes into the envelope; anything that is not an AppError is answered with
 * 500 `Internal server error` and logged.
 */
export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly statusCode: number,
    message: string,
    /** Extra response headers (e.g. `Retry-After`, `X-MFA-Methods`). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export class ValidationError extends AppError {
  override name = 'ValidationError';
  constructor(message: string) {
    super(400, message);
  }
}

export class UnauthorizedError extends AppError {
  override name = 'UnauthorizedError';
  constructor(message = 'Unauthorized', headers: Record<string, string> = {}) {
    super(401, message, headers);
  }
}

export class ForbiddenError extends AppError {
  override name = 'ForbiddenError';
  constructor(message = 'Permission denied') {
    super(403, message);
  }
}

export class ConflictError extends AppError {
  override name = 'ConflictError';
  constructor(message: string) {
    super(409, message);
  }
}

export class PayloadTooLargeError extends AppError {
  override name = 'PayloadTooLargeError';
  constructor() {
    super(413, 'Request body too large');
  }
}

export class TooManyRequestsError extends AppError {
  override name = 'TooManyRequestsError';
  constructor(retryAfterSeconds: number, message = 'Too many failed attempts') {
    super(429, message, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
  }
}

export class ServiceUnavailableError extends AppError {
  override name = 'ServiceUnavailableError';
  constructor() {
    super(503, 'Service unavailable');
  }
}

/**
 * An OAuth 2.0 error: the envelope message, and the RFC 6749 5.2 `error` code that
 * the OAuth endpoints answer with when called the RFC way (lib/oauth/errors.ts).
 */
export class OAuthError extends AppError {
  override name = 'OAuthError';
  constructor(
    statusCode: number,
    message: string,
    /** RFC 6749 5.2 / RFC 7009 2.2.1 error code, e.g. `invalid_grant`. */
    readonly code: string,
    headers: Record<string, string> = {},
  ) {
    super(statusCode, message, headers);
  }
}

export class NotFoundError extends AppError {
  override name = 'NotFoundError';
  constructor(message: string) {
    super(404, message);
  }
}
