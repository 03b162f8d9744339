import type { ErrorCode, FieldProblem } from '../../lib/errors';
import { failure as failureSchema } from '../../lib/http/envelope-schemas';

/**
 * The code docs/api.md's error-code table gives each message, written out here (not
 * read from lib/) so that a test fails when the code of a message changes.
 */
const CODE_OF: Record<string, ErrorCode> = {
  'Invalid JSON body': 'INVALID_JSON',
  'Invalid JSON body: expected an object': 'INVALID_JSON',
  'Invalid form body: too many parameters': 'INVALID_FORM',
  'Request body too large': 'PAYLOAD_TOO_LARGE',
  'Unsupported content type': 'UNSUPPORTED_CONTENT_TYPE',
  Unauthorized: 'UNAUTHORIZED',
  'Permission denied': 'PERMISSION_DENIED',
  'Service unavailable': 'SERVICE_UNAVAILABLE',
  'Internal server error': 'INTERNAL',
  'Invalid credentials': 'INVALID_CREDENTIALS',
  'MFA code required': 'MFA_REQUIRED',
  'Invalid MFA code': 'INVALID_MFA_CODE',
  'MFA method not enabled': 'MFA_METHOD_NOT_ENABLED',
  'MFA method already enabled': 'MFA_ALREADY_ENABLED',
  'Too many failed attempts': 'LOCKED',
  'Too many requests': 'RATE_LIMITED',
  'Invalid refresh token': 'INVALID_REFRESH_TOKEN',
  'The first user of a tenant must have role ADMIN': 'FIRST_USER_MUST_BE_ADMIN',
  'Password is too common': 'PASSWORD_TOO_COMMON',
  'Username already exists': 'USERNAME_TAKEN',
  'Invalid TOTP secret': 'VALIDATION_FAILED',
  'Invalid phone number': 'VALIDATION_FAILED',
  'Invalid email address': 'VALIDATION_FAILED',
  'Missing required parameters': 'MISSING_PARAMETERS',
  'Missing refresh token': 'MISSING_PARAMETERS',
  'Missing token': 'MISSING_PARAMETERS',
  'Unsupported grant type': 'UNSUPPORTED_GRANT_TYPE',
  'Unsupported response type': 'UNSUPPORTED_RESPONSE_TYPE',
  'Invalid client': 'INVALID_CLIENT',
  'Unauthorized client': 'UNAUTHORIZED_CLIENT',
  'Invalid grant': 'INVALID_GRANT',
  'Invalid scope': 'INVALID_SCOPE',
  'Invalid redirect_uri': 'INVALID_REDIRECT_URI',
  'Missing code_challenge': 'PKCE_REQUIRED',
  'Unsupported code_challenge_method': 'UNSUPPORTED_CODE_CHALLENGE_METHOD',
  'Client secret too short': 'CLIENT_SECRET_TOO_SHORT',
  'OAuth2 client already exists': 'CLIENT_EXISTS',
  'Client secret too weak': 'CLIENT_SECRET_TOO_WEAK',
  'Reserved client_id': 'RESERVED_CLIENT_ID',
  'Phone number country not allowed': 'SMS_COUNTRY_NOT_ALLOWED',
  'Recent authentication required': 'RECENT_AUTH_REQUIRED',
  'MFA method locked': 'MFA_METHOD_LOCKED',
  'Invalid cursor': 'INVALID_CURSOR',
  'A tenant must keep an active ADMIN': 'LAST_ADMIN',
  'User not found': 'NOT_FOUND',
  'SCIM token not found': 'NOT_FOUND',
  // OAuth client lifecycle (docs/api.md 9.9-9.13)
  'Client not found': 'CLIENT_NOT_FOUND',
  'Invalid post_logout_redirect_uri': 'INVALID_REDIRECT_URI',
  'Invalid backchannel_logout_uri': 'INVALID_REDIRECT_URI',
  // RFC 8707 resource indicators.
  'Invalid resource': 'INVALID_TARGET',
  // Sessions and authorized apps (docs/api.md 8.3, 8.4)
  'Session not found': 'SESSION_NOT_FOUND',
  'Grant not found': 'GRANT_NOT_FOUND',
  // Shops (docs/api.md 9.7)
  'Unknown shop': 'UNKNOWN_SHOP',
  'Shop already exists': 'SHOP_EXISTS',
  'Invalid invitation': 'INVALID_INVITATION',
  'Invitation not found': 'INVITATION_NOT_FOUND',
  'Invitation already pending': 'INVITATION_PENDING',
  'Invitation is not pending': 'INVITATION_NOT_PENDING',
  'User already exists': 'USER_EXISTS',
  // Forgotten password and email (docs/api.md 8.7, 8.8)
  'Invalid reset code': 'INVALID_RESET_CODE',
  'Invalid verification code': 'INVALID_VERIFICATION_CODE',
  // OpenID Connect (docs/api.md 11.1, 11.2)
  'Invalid nonce': 'INVALID_NONCE',
  'Invalid token': 'INVALID_TOKEN',
  'Insufficient scope': 'INSUFFICIENT_SCOPE',
  // Browser sign-in, hosted pages (docs/api.md 11.5-11.10).
  'Invalid authorization request': 'INVALID_AUTHORIZATION_REQUEST',
  'Sign-in expired': 'INTERACTION_EXPIRED',
  'Cross-site request refused': 'CROSS_SITE_REQUEST',
  'Invalid form body': 'INVALID_FORM',
  // RP-initiated logout (docs/api.md 11.12).
  'Invalid logout request': 'INVALID_LOGOUT_REQUEST',
  'Invalid id_token_hint': 'INVALID_ID_TOKEN_HINT',
  // Passkeys (docs/api.md 12).
  'Invalid passkey registration': 'INVALID_PASSKEY_REGISTRATION',
  'Invalid passkey': 'INVALID_PASSKEY',
  'Passkey not found': 'PASSKEY_NOT_FOUND',
  'Passkey already registered': 'PASSKEY_ALREADY_REGISTERED',
  'Too many passkeys': 'TOO_MANY_PASSKEYS',
  // Enterprise sign-in (docs/api.md 14.1, 14.2).
  'Connection not found': 'CONNECTION_NOT_FOUND',
  'Domain not found': 'DOMAIN_NOT_FOUND',
  'Domain already added': 'DOMAIN_EXISTS',
  'Domain already claimed': 'DOMAIN_CLAIMED',
  'Domain not verified': 'DOMAIN_NOT_VERIFIED',
  'Sign in with your organization': 'SSO_REQUIRED',
  // DPoP (docs/api.md 16.3).
  'Invalid DPoP proof': 'INVALID_DPOP_PROOF',
  'Use the DPoP nonce': 'USE_DPOP_NONCE',
  // Public clients and per-client CORS (docs/api.md 16.1, 16.2).
  'Client secret required': 'CLIENT_SECRET_REQUIRED',
  'A public client has no secret': 'PUBLIC_CLIENT_SECRET',
  'Invalid allowed_origins': 'INVALID_ORIGIN',
  // Webhooks (docs/api.md 17.2).
  'Webhook not found': 'NOT_FOUND',
  'Invalid webhook URL': 'INVALID_WEBHOOK_URL',
  'Webhook limit reached': 'WEBHOOK_LIMIT_REACHED',
};

/** The field the MFA enrolment names for its per-method checks of `secret`. */
const SECRET_PROBLEMS = new Set(['Invalid TOTP secret', 'Invalid phone number', 'Invalid email address']);

/** A schema's `<path>: <message>`: its first problem, which `fields` must begin with. */
function firstField(error: string): FieldProblem | undefined {
  const match = /^([\w.]+): (.+)$/s.exec(error);
  return match?.[1] && match[2] ? { path: match[1], message: match[2] } : undefined;
}

/** Matches a list of field problems whose first is `first` (vitest's asymmetric matcher protocol). */
function beginningWith(first: FieldProblem) {
  const isProblem = (value: unknown) => typeof value === 'object' && value !== null && Object.keys(value).sort().join() === 'message,path';
  return {
    asymmetricMatch: (actual: unknown) =>
      Array.isArray(actual) && actual.every(isProblem) && actual[0]?.path === first.path && actual[0]?.message === first.message,
    toAsymmetricMatcher: () => `fields beginning with ${JSON.stringify(first)}`,
  };
}

/**
 * The failure envelope a test expects for a message (docs/api.md 2): the message, its
 * code (from the table above unless given), and for a schema's refusal `fields` that
 * begin with the problem the message names.
 */
export function failure(error: string, code?: ErrorCode) {
  if (SECRET_PROBLEMS.has(error)) {
    return { success: false, error, code: code ?? 'VALIDATION_FAILED', fields: [{ path: 'secret', message: error }] };
  }
  const known = CODE_OF[error];
  if (known || code) return { success: false, error, code: code ?? known };
  const first = firstField(error);
  if (!first) throw new Error(`test/helpers/failures: no code known for "${error}"`);
  return { success: false, error, code: 'VALIDATION_FAILED', fields: beginningWith(first) };
}

/** Whether a body is a failure envelope of the closed shape (docs/api.md 2) with a known code. */
export function isFailureEnvelope(body: unknown): boolean {
  return failureSchema.safeParse(body).success;
}
