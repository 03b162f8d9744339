/**
 * The OpenAPI 3.1 document of the service (docs/openapi.json), generated from what
 * the code itself uses: the routes of serverless.yml, the zod schemas each function
 * validates its body or query with, the answer schemas of lib/sessions/api-schemas.ts and lib/oauth/api-schemas.ts and
 * the error classes with their status codes. The prose reference is docs/api.md;
 * every operation names its section there (`x-doc-section`).
 *
 * `npm run openapi` writes the file; test/docs/openapi.test.ts fails when it is stale.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import * as z from 'zod';
import * as admin from '../../lib/admin/api-schemas';
import { SHOP_EXISTS, UNKNOWN_SHOP } from '../../lib/admin/shops';
import { INVALID_CURSOR, LAST_ADMIN, USER_NOT_FOUND } from '../../lib/admin/users';
import {
  type AppError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  PayloadTooLargeError,
  TooManyRequestsError,
  UnauthorizedError,
  UnsupportedContentTypeError,
  ValidationError,
} from '../../lib/errors';
import * as envelope from '../../lib/http/envelope-schemas';
import { schemaFailure } from '../../lib/http/middlewares/validate';
import { failureEnvelope } from '../../lib/http/respond';
import * as oauthApi from '../../lib/oauth/api-schemas';
import { CLIENT_NOT_FOUND } from '../../lib/oauth/client-admin';
import * as clients from '../../lib/oauth/client-api-schemas';
import { oauthErrors, rfcErrorFormat } from '../../lib/oauth/errors';
import { GRANT_NOT_FOUND } from '../../lib/oauth/user-grants';
import { userInfoErrors } from '../../lib/oidc/userinfo';
import * as passkeys from '../../lib/passkeys/api-schemas';
import * as sessionsApi from '../../lib/sessions/api-schemas';
import { SESSION_NOT_FOUND } from '../../lib/sessions/user-sessions';
import * as account from '../../lib/users/account-schemas';
import { type Route, routesFromServerlessYml } from './serverless-routes';

/** The answer schemas, each next to its domain (lib/sessions, lib/oauth) or in the envelope's (lib/http). */
const api = { ...envelope, ...oauthApi, ...sessionsApi };

export const OPENAPI_FILE = 'docs/openapi.json';

type Json = Record<string, unknown>;

/** Who may call an operation, and how they say who they are. */
type Caller =
  /** Anyone. */
  | 'none'
  /** A session access token (the authorizer's context); 401 without one. */
  | 'session'
  /** Anonymous or a session access token (register). */
  | 'optionalSession'
  /** A session access token of an ADMIN; 403 otherwise, also without a token. */
  | 'admin'
  /** An OAuth client: HTTP Basic, or `client_id` and `client_secret` in the body. */
  | 'client'
  /** An OAuth access token as `Authorization: Bearer` (RFC 6750), no authorizer (userinfo). */
  | 'oauthToken';

type BodyType = 'json' | 'form';

/**
 * A success answer: its status, the component schema(s) of its body (none: no body),
 * its headers with their value where it is always the same.
 */
interface Answer {
  status: number;
  description: string;
  body?: ResponseSchemaName | ResponseSchemaName[];
  headers?: Partial<Record<HeaderName, string | undefined>>;
}

/** An error the operation answers with; `only` when it can arise for one body format only. */
type Failure = AppError | { error: AppError; only: BodyType };

/** A failure with its formats; `validation` for the example of the validation message. */
interface FailureCase {
  error: AppError;
  only?: BodyType | undefined;
  validation?: boolean;
}

interface OperationDoc {
  /** Its section of docs/api.md. */
  section: string;
  summary: string;
  tag: 'auth' | 'mfa' | 'oauth2' | 'discovery' | 'admin';
  caller: Caller;
  /** Media types of the request body; the function must export a `body` schema exactly when given. */
  bodyTypes?: BodyType[];
  /** The function exports a `query` schema. */
  query?: boolean;
  /** The function exports a `params` schema (its path parameters). */
  params?: boolean;
  /** Form requests get errors in RFC 6749 5.2 format (docs/api.md 5.6). */
  rfcErrors?: boolean;
  answers: Answer[];
  /** The operation's own failures; body parsing, validation and the body limit are added. */
  failures: Failure[];
  /** A hosted page (docs/api.md 11.7): answers are HTML documents, failures the error page. */
  html?: boolean;
}

const HEADERS = {
  'Cache-Control': 'How the answer may be cached.',
  Pragma: '`no-cache`, for HTTP/1.0 caches (RFC 6749 5.1).',
  Location: 'The redirect URI with `code`, `state` (when given) and `iss` added to its query.',
  'Retry-After': 'Seconds until the request may be tried again.',
  'X-MFA-Methods':
    'The active MFA methods of the user, comma-separated (e.g. `TOTP,SMS`), then `RECOVERY` while unused recovery codes remain.',
  'WWW-Authenticate':
    '`Basic realm="oauth2", charset="UTF-8"`, when the client tried HTTP Basic; the RFC 6750 3 challenge (`Bearer`, with `error` when a token was sent) at userinfo.',
} as const;
type HeaderName = keyof typeof HEADERS;

const envelopeOf = (data: z.ZodType) => api.success(data);

/** The answer schemas, by component name, each with its section of docs/api.md. */
const RESPONSE_SCHEMAS = {
  Failure: [api.failure, '2'],
  UserSummary: [api.userSummary, '5.1'],
  AuthPayload: [api.authPayload, '5.2'],
  AuthPayloadEnvelope: [envelopeOf(api.authPayload), '5.2'],
  RequestContext: [api.requestContext, '5.3'],
  MeEnvelope: [envelopeOf(api.me), '4.9'],
  OAuthTokenPayload: [api.oauthTokenPayload, '5.4'],
  OAuthTokenPayloadEnvelope: [envelopeOf(api.oauthTokenPayload), '5.4'],
  OAuthClient: [api.oauthClient, '5.5'],
  ClientCreatedEnvelope: [envelopeOf(api.clientCreated), '4.8'],
  OAuthError: [api.oauthError, '5.6'],
  Introspection: [api.introspection, '5.7'],
  Jwks: [api.jwks, '5.8'],
  AuthorizationServerMetadata: [api.authorizationServer, '5.9'],
  OpenIdProviderMetadata: [api.openIdProvider, '11.3'],
  UserInfo: [api.userInfo, '11.2'],
  MfaEnabledEnvelope: [envelopeOf(api.mfaEnabled), '4.4'],
  MfaVerifiedEnvelope: [envelopeOf(api.message('MFA verified successfully')), '4.5'],
  LoggedOutEnvelope: [envelopeOf(api.message('Logged out')), '4.10'],
  ReauthenticatedEnvelope: [envelopeOf(account.reauthenticated), '8.1'],
  PasswordChangedEnvelope: [envelopeOf(api.message('Password changed')), '8.2'],
  MfaListEnvelope: [envelopeOf(account.mfaList), '8.6'],
  MfaDisabledEnvelope: [envelopeOf(api.message('MFA disabled')), '8.6'],
  RecoveryCodesEnvelope: [envelopeOf(account.recoveryCodes), '8.6'],
  // Forgotten password and email (docs/api.md 8.7, 8.8)
  ResetCodeSentEnvelope: [envelopeOf(api.message('If the account exists, a reset code has been sent')), '8.7'],
  PasswordResetEnvelope: [envelopeOf(api.message('Password reset')), '8.7'],
  EmailSetEnvelope: [envelopeOf(account.emailSet), '8.8'],
  EmailVerifiedEnvelope: [envelopeOf(api.message('Email verified')), '8.8'],
  AdminUser: [admin.adminUser, '9'],
  UserPageEnvelope: [envelopeOf(admin.userPage), '9.1'],
  UserEnvelope: [envelopeOf(admin.oneUser), '9.2'],
  UserDeletedEnvelope: [envelopeOf(api.message('User deleted')), '9.4'],
  MfaResetEnvelope: [envelopeOf(api.message('MFA reset')), '9.5'],
  RevokedCountEnvelope: [envelopeOf(admin.revokedCount), '9.6'],
  AdminOAuthClient: [clients.adminClient, '9.9'],
  ClientListEnvelope: [envelopeOf(clients.clientList), '9.9'],
  ClientEnvelope: [envelopeOf(clients.oneClient), '9.10'],
  ClientDeletedEnvelope: [envelopeOf(api.message('OAuth2 client deleted')), '9.12'],
  SessionListEnvelope: [envelopeOf(account.sessionList), '8.3'],
  SessionRevokedEnvelope: [envelopeOf(api.message('Session revoked')), '8.3'],
  SessionsRevokedEnvelope: [envelopeOf(account.sessionsRevoked), '8.3'],
  GrantListEnvelope: [envelopeOf(account.grantList), '8.4'],
  GrantRevokedEnvelope: [envelopeOf(api.message('Grant revoked')), '8.4'],
  MfaSummary: [account.mfaSummary, '8.5'],
  AccountEnvelope: [envelopeOf(account.account), '8.5'],
  Shop: [admin.shop, '9.7'],
  ShopEnvelope: [envelopeOf(admin.oneShop), '9.7'],
  ShopListEnvelope: [envelopeOf(admin.shopList), '9.7'],
  TenantEnvelope: [envelopeOf(admin.oneTenant), '9.14'],
  AuditEvent: [admin.auditEvent, '9.8'],
  AuditPageEnvelope: [envelopeOf(admin.auditPage), '9.8'],
  // Passkeys (docs/api.md 12).
  Passkey: [account.passkey, '12.3'],
  PasskeyEnvelope: [envelopeOf(z.strictObject({ passkey: account.passkey })), '12.2'],
  PasskeyListEnvelope: [envelopeOf(account.passkeys), '12.3'],
  PasskeyRemovedEnvelope: [envelopeOf(api.message('Passkey removed')), '12.4'],
  PasskeyRegistrationOptionsEnvelope: [envelopeOf(passkeys.registrationOptions), '12.1'],
  PasskeyAuthenticationOptionsEnvelope: [envelopeOf(passkeys.authenticationOptions), '12.5'],
} as const satisfies Record<string, readonly [z.ZodType, string]>;
type ResponseSchemaName = keyof typeof RESPONSE_SCHEMAS;

const noStore = { 'Cache-Control': 'no-store' };
const noCache = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
const unauthorized = new UnauthorizedError();
const permissionDenied = new ForbiddenError();
const mfaHeaders = { 'X-MFA-Methods': 'TOTP,SMS' };
const locked = new TooManyRequestsError(1);
/** docs/api.md 10.1: a source past its limit of failed client authentications. */
const clientSourceLimited = new TooManyRequestsError(900, 'Too many requests', { code: 'RATE_LIMITED' });
const recentRequired = new ForbiddenError('Recent authentication required', { code: 'RECENT_AUTH_REQUIRED' });

const userNotFound = new NotFoundError(USER_NOT_FOUND);
const lastAdmin = new ConflictError(LAST_ADMIN, { code: 'LAST_ADMIN' });
const clientNotFound = new NotFoundError(CLIENT_NOT_FOUND, { code: 'CLIENT_NOT_FOUND' });
const sessionNotFound = new NotFoundError(SESSION_NOT_FOUND, { code: 'SESSION_NOT_FOUND' });
const grantNotFound = new NotFoundError(GRANT_NOT_FOUND, { code: 'GRANT_NOT_FOUND' });
const unknownShop = new ValidationError(UNKNOWN_SHOP, { code: 'UNKNOWN_SHOP' });

/** Every route's documentation, by its function's name in serverless.yml. */
const OPERATIONS: Record<string, OperationDoc> = {
  login: {
    section: '4.1',
    summary: 'Log in with username and password (and an MFA code when the user has an active method)',
    tag: 'auth',
    caller: 'none',
    bodyTypes: ['json'],
    answers: [{ status: 200, description: 'A new session.', body: 'AuthPayloadEnvelope', headers: noStore }],
    failures: [
      new ValidationError('MFA method not enabled', { code: 'MFA_METHOD_NOT_ENABLED' }),
      new UnauthorizedError('Invalid credentials', {}, { code: 'INVALID_CREDENTIALS' }),
      new UnauthorizedError('MFA code required', mfaHeaders, { code: 'MFA_REQUIRED' }),
      new UnauthorizedError('Invalid MFA code', mfaHeaders, { code: 'INVALID_MFA_CODE' }),
      locked,
    ],
  },
  refreshToken: {
    section: '4.2',
    summary: 'Exchange a refresh token for a new token pair (rotation)',
    tag: 'auth',
    caller: 'none',
    bodyTypes: ['json'],
    answers: [
      { status: 200, description: 'The session with a new access and refresh token.', body: 'AuthPayloadEnvelope', headers: noStore },
    ],
    failures: [new UnauthorizedError('Invalid refresh token', {}, { code: 'INVALID_REFRESH_TOKEN' })],
  },
  register: {
    section: '4.3',
    summary: "Register a user: anonymously a new tenant's first ADMIN, else by an ADMIN of the tenant",
    tag: 'auth',
    caller: 'optionalSession',
    bodyTypes: ['json'],
    answers: [{ status: 201, description: 'The new user with a session.', body: 'AuthPayloadEnvelope', headers: noStore }],
    failures: [
      new ValidationError('The first user of a tenant must have role ADMIN', { code: 'FIRST_USER_MUST_BE_ADMIN' }),
      new ValidationError('Password is too common', { code: 'PASSWORD_TOO_COMMON' }),
      new ValidationError('Username already exists', { code: 'USERNAME_TAKEN' }),
      unknownShop,
      permissionDenied,
    ],
  },
  enableMFA: {
    section: '4.4',
    summary: 'Add an MFA method as pending (TOTP answers with the otpauth URI; SMS and EMAIL send a code)',
    tag: 'mfa',
    caller: 'session',
    bodyTypes: ['json'],
    answers: [{ status: 200, description: 'The method is pending until verifyMFA.', body: 'MfaEnabledEnvelope', headers: noStore }],
    failures: [
      new ValidationError('Invalid TOTP secret'),
      new ValidationError('Invalid phone number'),
      new ValidationError('Invalid email address'),
      unauthorized,
      recentRequired,
      new ForbiddenError(undefined, { code: 'MFA_STEP_UP_REQUIRED' }),
      new ConflictError('MFA method already enabled', { code: 'MFA_ALREADY_ENABLED' }),
      new TooManyRequestsError(30, 'Too many requests', { code: 'RATE_LIMITED' }),
    ],
  },
  verifyMFA: {
    section: '4.5',
    summary: 'Check a code of an MFA method; a right code activates a pending method',
    tag: 'mfa',
    caller: 'session',
    bodyTypes: ['json'],
    answers: [{ status: 200, description: 'The code was right.', body: 'MfaVerifiedEnvelope', headers: noStore }],
    failures: [
      new ValidationError('MFA method not enabled', { code: 'MFA_METHOD_NOT_ENABLED' }),
      new ValidationError('Invalid MFA code', { code: 'INVALID_MFA_CODE' }),
      unauthorized,
      locked,
    ],
  },
  reauthenticate: {
    section: '8.1',
    summary: 'Prove the password (and the second factor) again for the caller’s session: a new access token',
    tag: 'auth',
    caller: 'session',
    bodyTypes: ['json'],
    answers: [{ status: 200, description: 'A new access token with auth_time now.', body: 'ReauthenticatedEnvelope', headers: noStore }],
    failures: [
      new ValidationError('Invalid credentials', { code: 'INVALID_CREDENTIALS' }),
      new ValidationError('MFA method not enabled', { code: 'MFA_METHOD_NOT_ENABLED' }),
      unauthorized,
      new UnauthorizedError('MFA code required', mfaHeaders, { code: 'MFA_REQUIRED' }),
      new UnauthorizedError('Invalid MFA code', mfaHeaders, { code: 'INVALID_MFA_CODE' }),
      locked,
    ],
  },
  changePassword: {
    section: '8.2',
    summary: 'Change the password: every other session and OAuth grant of the user ends',
    tag: 'auth',
    caller: 'session',
    bodyTypes: ['json'],
    answers: [{ status: 200, description: 'The password is changed.', body: 'PasswordChangedEnvelope', headers: noStore }],
    failures: [
      new ValidationError('Invalid credentials', { code: 'INVALID_CREDENTIALS' }),
      new ValidationError('Password is too common', { code: 'PASSWORD_TOO_COMMON' }),
      unauthorized,
      locked,
    ],
  },
  listMFA: {
    section: '8.6',
    summary: 'The caller’s MFA methods (destinations masked) and the recovery codes left',
    tag: 'mfa',
    caller: 'session',
    answers: [
      { status: 200, description: 'The methods and the count of unused recovery codes.', body: 'MfaListEnvelope', headers: noStore },
    ],
    failures: [unauthorized],
  },
  disableMFA: {
    section: '8.6',
    summary: 'Remove an active MFA method; the last one takes the recovery codes with it',
    tag: 'mfa',
    caller: 'session',
    bodyTypes: ['json'],
    answers: [{ status: 200, description: 'The method is removed.', body: 'MfaDisabledEnvelope', headers: noStore }],
    failures: [
      new ValidationError('MFA method not enabled', { code: 'MFA_METHOD_NOT_ENABLED' }),
      unauthorized,
      recentRequired,
      new ForbiddenError(undefined, { code: 'MFA_STEP_UP_REQUIRED' }),
    ],
  },
  generateRecoveryCodes: {
    section: '8.6',
    summary: 'Generate 10 recovery codes, shown this once, in place of any earlier ones',
    tag: 'mfa',
    caller: 'session',
    answers: [{ status: 200, description: 'The new recovery codes.', body: 'RecoveryCodesEnvelope', headers: noStore }],
    failures: [
      new ValidationError('MFA method not enabled', { code: 'MFA_METHOD_NOT_ENABLED' }),
      unauthorized,
      recentRequired,
      new ForbiddenError(undefined, { code: 'MFA_STEP_UP_REQUIRED' }),
    ],
  },
  oauth2Authorize: {
    section: '4.6',
    summary: 'Issue an authorization code for the signed-in user (PKCE S256 required)',
    tag: 'oauth2',
    caller: 'session',
    query: true,
    answers: [{ status: 302, description: 'Redirect to the client with the code.', headers: { Location: undefined, ...noStore } }],
    failures: [
      new ValidationError('Unsupported response type', { code: 'UNSUPPORTED_RESPONSE_TYPE' }),
      new ValidationError('Invalid client', { code: 'INVALID_CLIENT' }),
      new ValidationError('Invalid redirect_uri', { code: 'INVALID_REDIRECT_URI' }),
      new ValidationError('Invalid scope', { code: 'INVALID_SCOPE' }),
      new ValidationError('Unauthorized client', { code: 'UNAUTHORIZED_CLIENT' }),
      new ValidationError('Missing code_challenge', { code: 'PKCE_REQUIRED' }),
      new ValidationError('Unsupported code_challenge_method', { code: 'UNSUPPORTED_CODE_CHALLENGE_METHOD' }),
      new ValidationError('Invalid nonce', { code: 'INVALID_NONCE' }),
      unauthorized,
    ],
  },
  oauth2Token: {
    section: '4.7',
    summary: 'The token endpoint: authorization_code, refresh_token, client_credentials',
    tag: 'oauth2',
    caller: 'client',
    bodyTypes: ['json', 'form'],
    rfcErrors: true,
    answers: [
      {
        status: 200,
        description: 'Tokens: in the envelope for a JSON request, as the RFC 6749 5.1 document for a form request.',
        body: ['OAuthTokenPayloadEnvelope', 'OAuthTokenPayload'],
        headers: noCache,
      },
    ],
    failures: [
      {
        error: new ValidationError('client_id: Invalid input: expected string, received undefined', {
          fields: [{ path: 'client_id', message: 'Invalid input: expected string, received undefined' }],
        }),
        only: 'json',
      },
      oauthErrors.missingParameters(),
      oauthErrors.missingRefreshToken(),
      oauthErrors.unsupportedGrantType(),
      oauthErrors.invalidClient(true),
      clientSourceLimited,
      oauthErrors.unauthorizedClient(),
      oauthErrors.invalidGrant(),
      oauthErrors.invalidScope(),
    ],
  },
  createOAuth2Client: {
    section: '4.8',
    summary: 'Register an OAuth client of the caller’s tenant (ADMIN only)',
    tag: 'oauth2',
    caller: 'admin',
    bodyTypes: ['json'],
    answers: [
      { status: 201, description: 'The client as registered, without its secret.', body: 'ClientCreatedEnvelope', headers: noStore },
    ],
    failures: [
      new ValidationError('Invalid redirect_uri', { code: 'INVALID_REDIRECT_URI' }),
      new ValidationError('Unsupported grant type', { code: 'UNSUPPORTED_GRANT_TYPE' }),
      new ValidationError('Invalid scope', { code: 'INVALID_SCOPE' }),
      new ValidationError('Client secret too short', { code: 'CLIENT_SECRET_TOO_SHORT' }),
      permissionDenied,
      new ConflictError('OAuth2 client already exists', { code: 'CLIENT_EXISTS' }),
    ],
  },
  me: {
    section: '4.9',
    summary: 'The caller’s request context',
    tag: 'auth',
    caller: 'session',
    answers: [{ status: 200, description: 'The request context.', body: 'MeEnvelope', headers: noStore }],
    failures: [unauthorized],
  },
  logout: {
    section: '4.10',
    summary: 'Revoke the caller’s session',
    tag: 'auth',
    caller: 'session',
    answers: [{ status: 200, description: 'The session is revoked.', body: 'LoggedOutEnvelope', headers: noStore }],
    failures: [unauthorized],
  },
  jwks: {
    section: '4.11',
    summary: 'The public keys of every published signing key (RFC 7517)',
    tag: 'discovery',
    caller: 'none',
    answers: [
      {
        status: 200,
        description: 'The key set, cacheable for 5 minutes.',
        body: 'Jwks',
        headers: { 'Cache-Control': 'public, max-age=300' },
      },
    ],
    failures: [],
  },
  metadata: {
    section: '4.12',
    summary: 'The authorization server metadata (RFC 8414)',
    tag: 'discovery',
    caller: 'none',
    answers: [
      {
        status: 200,
        description: 'The metadata, cacheable for an hour.',
        body: 'AuthorizationServerMetadata',
        headers: { 'Cache-Control': 'public, max-age=3600' },
      },
    ],
    failures: [],
  },
  revoke: {
    section: '4.13',
    summary: 'Revoke a token of the calling client (RFC 7009)',
    tag: 'oauth2',
    caller: 'client',
    bodyTypes: ['form'],
    rfcErrors: true,
    answers: [
      { status: 200, description: 'Revoked, or nothing to revoke: always 200 for a known client (RFC 7009 2.2).', headers: noStore },
    ],
    failures: [
      { error: oauthErrors.formRequired(), only: 'json' },
      { error: oauthErrors.invalidClient(true), only: 'form' },
      { error: clientSourceLimited, only: 'form' },
      { error: oauthErrors.missingToken(), only: 'form' },
    ],
  },
  introspect: {
    section: '4.14',
    summary: 'Whether a token of the calling client is active (RFC 7662)',
    tag: 'oauth2',
    caller: 'client',
    bodyTypes: ['form'],
    rfcErrors: true,
    answers: [{ status: 200, description: 'The token’s state.', body: 'Introspection', headers: noCache }],
    failures: [
      { error: oauthErrors.formRequired(), only: 'json' },
      { error: oauthErrors.invalidClient(true), only: 'form' },
      { error: clientSourceLimited, only: 'form' },
      { error: oauthErrors.missingToken(), only: 'form' },
    ],
  },
  adminListUsers: {
    section: '9.1',
    summary: 'A page of the tenant’s users, with filters (ADMIN only)',
    tag: 'admin',
    caller: 'admin',
    query: true,
    answers: [
      { status: 200, description: 'The users, oldest first, and the cursor of the next page.', body: 'UserPageEnvelope', headers: noStore },
    ],
    failures: [new ValidationError(INVALID_CURSOR, { code: 'INVALID_CURSOR' }), permissionDenied],
  },
  adminReadUser: {
    section: '9.2',
    summary: 'One user of the tenant (ADMIN only)',
    tag: 'admin',
    caller: 'admin',
    params: true,
    answers: [{ status: 200, description: 'The user.', body: 'UserEnvelope', headers: noStore }],
    failures: [permissionDenied, userNotFound],
  },
  adminUpdateUser: {
    section: '9.3',
    summary: 'Change a user’s role, shop or status; disabling ends every session and grant (ADMIN only)',
    tag: 'admin',
    caller: 'admin',
    bodyTypes: ['json'],
    params: true,
    answers: [{ status: 200, description: 'The user as changed.', body: 'UserEnvelope', headers: noStore }],
    failures: [unknownShop, permissionDenied, userNotFound, lastAdmin],
  },
  adminDeleteUser: {
    section: '9.4',
    summary: 'Erase a user, their MFA, sessions and grants (ADMIN only)',
    tag: 'admin',
    caller: 'admin',
    params: true,
    answers: [
      {
        status: 200,
        description: 'The user is erased; the username can be registered again.',
        body: 'UserDeletedEnvelope',
        headers: noStore,
      },
    ],
    failures: [permissionDenied, userNotFound, lastAdmin],
  },
  adminResetUserMfa: {
    section: '9.5',
    summary: 'Remove every MFA factor of a user and end their sessions (ADMIN only)',
    tag: 'admin',
    caller: 'admin',
    params: true,
    answers: [{ status: 200, description: 'The factors are removed.', body: 'MfaResetEnvelope', headers: noStore }],
    failures: [permissionDenied, userNotFound],
  },
  adminSignOutUser: {
    section: '9.6',
    summary: 'Sign a user out everywhere (ADMIN only)',
    tag: 'admin',
    caller: 'admin',
    params: true,
    answers: [{ status: 200, description: 'How many live sessions ended.', body: 'RevokedCountEnvelope', headers: noStore }],
    failures: [permissionDenied, userNotFound],
  },
  listOAuth2Clients: {
    section: '9.9',
    summary: 'The OAuth clients of the tenant (ADMIN only)',
    tag: 'admin',
    caller: 'admin',
    query: true,
    answers: [{ status: 200, description: 'The clients, oldest first.', body: 'ClientListEnvelope', headers: noStore }],
    failures: [permissionDenied],
  },
  readOAuth2Client: {
    section: '9.10',
    summary: 'One OAuth client of the tenant, never its secret (ADMIN only)',
    tag: 'admin',
    caller: 'admin',
    params: true,
    answers: [{ status: 200, description: 'The client.', body: 'ClientEnvelope', headers: noStore }],
    failures: [permissionDenied, clientNotFound],
  },
  updateOAuth2Client: {
    section: '9.11',
    summary: 'Change an OAuth client’s redirect URIs, grant types, scope, name, first-party mark or post-logout URIs (ADMIN only)',
    tag: 'admin',
    caller: 'admin',
    bodyTypes: ['json'],
    params: true,
    answers: [{ status: 200, description: 'The client as changed.', body: 'ClientEnvelope', headers: noStore }],
    failures: [
      new ValidationError('Invalid redirect_uri', { code: 'INVALID_REDIRECT_URI' }),
      new ValidationError('Unsupported grant type', { code: 'UNSUPPORTED_GRANT_TYPE' }),
      new ValidationError('Invalid scope', { code: 'INVALID_SCOPE' }),
      new ValidationError('Invalid post_logout_redirect_uri', { code: 'INVALID_REDIRECT_URI' }),
      permissionDenied,
      clientNotFound,
    ],
  },
  deleteOAuth2Client: {
    section: '9.12',
    summary: 'Delete an OAuth client: every grant and token of it stops working (ADMIN only)',
    tag: 'admin',
    caller: 'admin',
    params: true,
    answers: [{ status: 200, description: 'The client is deleted.', body: 'ClientDeletedEnvelope', headers: noStore }],
    failures: [permissionDenied, clientNotFound],
  },
  rotateOAuth2ClientSecret: {
    section: '9.13',
    summary: 'Give an OAuth client a new secret; the previous one works until it expires (ADMIN only)',
    tag: 'admin',
    caller: 'admin',
    bodyTypes: ['json'],
    params: true,
    answers: [{ status: 200, description: 'The client with its new secret in force.', body: 'ClientEnvelope', headers: noStore }],
    failures: [
      new ValidationError('Client secret too short', { code: 'CLIENT_SECRET_TOO_SHORT' }),
      new ValidationError('Client secret too weak', { code: 'CLIENT_SECRET_TOO_WEAK' }),
      permissionDenied,
      clientNotFound,
    ],
  },
  listSessions: {
    section: '8.3',
    summary: 'The caller’s live sessions, the current one flagged',
    tag: 'auth',
    caller: 'session',
    answers: [{ status: 200, description: 'The live sessions, newest first.', body: 'SessionListEnvelope', headers: noStore }],
    failures: [unauthorized],
  },
  revokeSession: {
    section: '8.3',
    summary: 'Revoke one of the caller’s sessions',
    tag: 'auth',
    caller: 'session',
    params: true,
    answers: [{ status: 200, description: 'The session is revoked.', body: 'SessionRevokedEnvelope', headers: noStore }],
    failures: [unauthorized, sessionNotFound],
  },
  revokeOtherSessions: {
    section: '8.3',
    summary: 'Revoke every session of the caller but the current one (OAuth grants stay)',
    tag: 'auth',
    caller: 'session',
    answers: [
      {
        status: 200,
        description: 'The other sessions are revoked; how many were live.',
        body: 'SessionsRevokedEnvelope',
        headers: noStore,
      },
    ],
    failures: [unauthorized],
  },
  listGrants: {
    section: '8.4',
    summary: 'The apps the caller authorized (live OAuth grants)',
    tag: 'auth',
    caller: 'session',
    answers: [{ status: 200, description: 'The live grants, newest first.', body: 'GrantListEnvelope', headers: noStore }],
    failures: [unauthorized],
  },
  revokeGrant: {
    section: '8.4',
    summary: 'Revoke an app’s grant: its refresh and access tokens stop working',
    tag: 'auth',
    caller: 'session',
    params: true,
    answers: [{ status: 200, description: 'The grant is revoked.', body: 'GrantRevokedEnvelope', headers: noStore }],
    failures: [unauthorized, grantNotFound],
  },
  // OpenID Connect (docs/api.md 11.2, 11.3)
  userInfo: {
    section: '11.2',
    summary: 'The claims of the user an OAuth access token with scope openid was issued for (OIDC Core 5.3)',
    tag: 'oauth2',
    caller: 'oauthToken',
    answers: [{ status: 200, description: 'The claims the token’s scope grants.', body: 'UserInfo', headers: noStore }],
    failures: [userInfoErrors.noToken(), userInfoErrors.invalidToken(), userInfoErrors.insufficientScope()],
  },
  openIdConfiguration: {
    section: '11.3',
    summary: 'The OpenID Provider metadata (OpenID Connect Discovery 1.0)',
    tag: 'discovery',
    caller: 'none',
    answers: [
      {
        status: 200,
        description: 'The metadata, cacheable for an hour.',
        body: 'OpenIdProviderMetadata',
        headers: { 'Cache-Control': 'public, max-age=3600' },
      },
    ],
    failures: [],
  },
  getAccount: {
    section: '8.5',
    summary: 'The caller’s own account, with its MFA methods (destinations masked)',
    tag: 'auth',
    caller: 'session',
    answers: [{ status: 200, description: 'The account.', body: 'AccountEnvelope', headers: noStore }],
    failures: [unauthorized],
  },
  adminCreateShop: {
    section: '9.7',
    summary: 'Create a shop of the tenant (ADMIN only)',
    tag: 'admin',
    caller: 'admin',
    bodyTypes: ['json'],
    answers: [{ status: 201, description: 'The new shop.', body: 'ShopEnvelope', headers: noStore }],
    failures: [permissionDenied, new ConflictError(SHOP_EXISTS, { code: 'SHOP_EXISTS' })],
  },
  adminListShops: {
    section: '9.7',
    summary: 'Every shop of the tenant (ADMIN only)',
    tag: 'admin',
    caller: 'admin',
    answers: [{ status: 200, description: 'The shops, by id.', body: 'ShopListEnvelope', headers: noStore }],
    failures: [permissionDenied],
  },
  adminListAudit: {
    section: '9.8',
    summary: 'A page of the tenant’s audit trail, newest first, with filters (ADMIN only)',
    tag: 'admin',
    caller: 'admin',
    query: true,
    answers: [
      {
        status: 200,
        description: 'The events, newest first, and the cursor of the next page.',
        body: 'AuditPageEnvelope',
        headers: noStore,
      },
    ],
    failures: [new ValidationError(INVALID_CURSOR, { code: 'INVALID_CURSOR' }), permissionDenied],
  },
  // Forgotten password and email (docs/api.md 8.7, 8.8)
  passwordForgot: {
    section: '8.7',
    summary: 'Ask for a password reset code: the same answer, in the same time, whether the account exists or not',
    tag: 'auth',
    caller: 'none',
    bodyTypes: ['json'],
    answers: [{ status: 202, description: 'Always, whether a code was sent or not.', body: 'ResetCodeSentEnvelope', headers: noStore }],
    failures: [],
  },
  passwordReset: {
    section: '8.7',
    summary: 'Set a new password with a reset code (and a second factor when MFA is active): every session and grant ends',
    tag: 'auth',
    caller: 'none',
    bodyTypes: ['json'],
    answers: [{ status: 200, description: 'The password is reset.', body: 'PasswordResetEnvelope', headers: noStore }],
    failures: [
      new ValidationError('Invalid reset code', { code: 'INVALID_RESET_CODE' }),
      new ValidationError('Password is too common', { code: 'PASSWORD_TOO_COMMON' }),
      new ValidationError('MFA method not enabled', { code: 'MFA_METHOD_NOT_ENABLED' }),
      new UnauthorizedError('MFA code required', mfaHeaders, { code: 'MFA_REQUIRED' }),
      new UnauthorizedError('Invalid MFA code', mfaHeaders, { code: 'INVALID_MFA_CODE' }),
      new ForbiddenError('MFA method locked', { code: 'MFA_METHOD_LOCKED' }),
      locked,
    ],
  },
  emailSet: {
    section: '8.8',
    summary: 'Set the caller’s email address (recent): stored unverified, a code sent to it',
    tag: 'auth',
    caller: 'session',
    bodyTypes: ['json'],
    answers: [{ status: 200, description: 'The address is stored and a code sent.', body: 'EmailSetEnvelope', headers: noStore }],
    failures: [unauthorized, recentRequired, new TooManyRequestsError(30, 'Too many requests', { code: 'RATE_LIMITED' })],
  },
  emailVerify: {
    section: '8.8',
    summary: 'Verify the caller’s email address with the code sent to it',
    tag: 'auth',
    caller: 'session',
    bodyTypes: ['json'],
    answers: [{ status: 200, description: 'The address is verified.', body: 'EmailVerifiedEnvelope', headers: noStore }],
    failures: [new ValidationError('Invalid verification code', { code: 'INVALID_VERIFICATION_CODE' }), unauthorized],
  },
  // Browser sign-in: the hosted pages' forms (docs/api.md 11.7).
  hostedSignIn: {
    section: '11.7',
    summary: 'Hosted sign-in form: the password (then the second-factor or consent page, or the code)',
    tag: 'oauth2',
    caller: 'none',
    bodyTypes: ['form'],
    html: true,
    answers: [
      { status: 200, description: 'The second-factor or consent page.', headers: noStore },
      { status: 303, description: 'Back to the client with the code.', headers: { Location: undefined, ...noStore } },
    ],
    failures: hostedFailures(
      new UnauthorizedError('Invalid credentials', {}, { code: 'INVALID_CREDENTIALS' }),
      new TooManyRequestsError(60),
    ),
  },
  hostedSecondFactor: {
    section: '11.7',
    summary: 'Hosted second-factor form: a one-time or recovery code (then consent or the code)',
    tag: 'oauth2',
    caller: 'none',
    bodyTypes: ['form'],
    html: true,
    answers: [
      { status: 200, description: 'The consent page, or the second-factor page again after a new code was sent.', headers: noStore },
      { status: 303, description: 'Back to the client with the code.', headers: { Location: undefined, ...noStore } },
    ],
    failures: hostedFailures(new UnauthorizedError('Invalid MFA code', {}, { code: 'INVALID_MFA_CODE' }), new TooManyRequestsError(60)),
  },
  hostedConsent: {
    section: '11.10',
    summary: 'Hosted consent form: allow or deny the client',
    tag: 'oauth2',
    caller: 'none',
    bodyTypes: ['form'],
    html: true,
    answers: [
      {
        status: 303,
        description: 'Back to the client with the code, or with `error=access_denied`.',
        headers: { Location: undefined, ...noStore },
      },
    ],
    failures: hostedFailures(),
  },
  // RP-initiated logout (docs/api.md 11.12).
  oauth2Logout: {
    section: '11.12',
    summary: 'RP-initiated logout: ends the browser session, then back to the app or the signed-out page',
    tag: 'oauth2',
    caller: 'none',
    query: true,
    bodyTypes: ['form'],
    html: true,
    answers: [
      { status: 200, description: 'The signed-out page, or the page that asks the user to confirm.', headers: noStore },
      {
        status: 302,
        description: 'To the registered post_logout_redirect_uri with `state` (303 after a form).',
        headers: { Location: undefined, ...noStore },
      },
      { status: 303, description: 'As 302, after a form.', headers: { Location: undefined, ...noStore } },
    ],
    failures: [
      new ValidationError('Invalid logout request', { code: 'INVALID_LOGOUT_REQUEST' }),
      new ValidationError('Invalid id_token_hint', { code: 'INVALID_ID_TOKEN_HINT' }),
      new ValidationError('Invalid client', { code: 'INVALID_CLIENT' }),
      new ValidationError('Invalid post_logout_redirect_uri', { code: 'INVALID_REDIRECT_URI' }),
      new ValidationError('Invalid form body', { code: 'INVALID_FORM' }),
      new ForbiddenError('Cross-site request refused', { code: 'CROSS_SITE_REQUEST' }),
    ],
  },
  // Tenant settings (docs/api.md 9.14).
  adminReadTenant: {
    section: '9.14',
    summary: 'The tenant: its id, display name, creation time and default shop (ADMIN only)',
    tag: 'admin',
    caller: 'admin',
    answers: [{ status: 200, description: 'The tenant.', body: 'TenantEnvelope', headers: noStore }],
    failures: [permissionDenied],
  },
  adminUpdateTenant: {
    section: '9.14',
    summary: 'Set the display name the hosted pages show (ADMIN only)',
    tag: 'admin',
    caller: 'admin',
    bodyTypes: ['json'],
    answers: [{ status: 200, description: 'The tenant as changed.', body: 'TenantEnvelope', headers: noStore }],
    failures: [permissionDenied],
  },
  // Passkeys (docs/api.md 12).
  passkeyRegistrationOptions: {
    section: '12.1',
    summary: 'The creation options of a new passkey for the caller (recent authentication)',
    tag: 'auth',
    caller: 'session',
    bodyTypes: ['json'],
    answers: [
      {
        status: 200,
        description: 'The options for navigator.credentials.create().',
        body: 'PasskeyRegistrationOptionsEnvelope',
        headers: noStore,
      },
    ],
    failures: [unauthorized, recentRequired],
  },
  passkeyRegistration: {
    section: '12.2',
    summary: 'Register the passkey the authenticator made',
    tag: 'auth',
    caller: 'session',
    bodyTypes: ['json'],
    answers: [{ status: 201, description: 'The new passkey.', body: 'PasskeyEnvelope', headers: noStore }],
    failures: [
      new ValidationError('Invalid passkey registration', { code: 'INVALID_PASSKEY_REGISTRATION' }),
      unauthorized,
      new ConflictError('Passkey already registered', { code: 'PASSKEY_ALREADY_REGISTERED' }),
      new ConflictError('Too many passkeys', { code: 'TOO_MANY_PASSKEYS' }),
    ],
  },
  listPasskeys: {
    section: '12.3',
    summary: 'The caller’s passkeys',
    tag: 'auth',
    caller: 'session',
    answers: [{ status: 200, description: 'The passkeys, newest first.', body: 'PasskeyListEnvelope', headers: noStore }],
    failures: [unauthorized],
  },
  removePasskey: {
    section: '12.4',
    summary: 'Remove one of the caller’s passkeys (recent authentication)',
    tag: 'auth',
    caller: 'session',
    params: true,
    answers: [{ status: 200, description: 'The passkey is removed.', body: 'PasskeyRemovedEnvelope', headers: noStore }],
    failures: [unauthorized, recentRequired, new NotFoundError('Passkey not found', { code: 'PASSKEY_NOT_FOUND' })],
  },
  passkeyAuthenticationOptions: {
    section: '12.5',
    summary: 'The request options of a passkey sign-in (with a username: the user’s passkeys; without: discoverable ones)',
    tag: 'auth',
    caller: 'none',
    bodyTypes: ['json'],
    answers: [
      {
        status: 200,
        description: 'The options for navigator.credentials.get().',
        body: 'PasskeyAuthenticationOptionsEnvelope',
        headers: noStore,
      },
    ],
    failures: [],
  },
  passkeyAuthentication: {
    section: '12.6',
    summary: 'Sign in with a passkey: a new session (a passkey satisfies MFA)',
    tag: 'auth',
    caller: 'none',
    bodyTypes: ['json'],
    answers: [{ status: 200, description: 'A new session.', body: 'AuthPayloadEnvelope', headers: noStore }],
    failures: [new UnauthorizedError('Invalid passkey', {}, { code: 'INVALID_PASSKEY' }), clientSourceLimited],
  },
  // Passkeys on the hosted pages (docs/api.md 11.11).
  hostedPasskeySignIn: {
    section: '11.11',
    summary: 'Hosted sign-in with a passkey: the assertion of the sign-in page (then consent or the code)',
    tag: 'oauth2',
    caller: 'none',
    bodyTypes: ['form'],
    html: true,
    answers: [
      { status: 200, description: 'The consent page.', headers: noStore },
      { status: 303, description: 'Back to the client with the code.', headers: { Location: undefined, ...noStore } },
    ],
    failures: hostedFailures(
      new UnauthorizedError('Invalid passkey', {}, { code: 'INVALID_PASSKEY' }),
      new TooManyRequestsError(60),
      new TooManyRequestsError(60, 'Too many requests', { code: 'RATE_LIMITED' }),
    ),
  },
  hostedPasskeysPage: {
    section: '11.11',
    summary: 'Hosted passkeys page: the signed-in browser’s passkeys, and adding one after a recent sign-in',
    tag: 'oauth2',
    caller: 'none',
    html: true,
    answers: [{ status: 200, description: 'The passkeys page.', headers: noStore }],
    failures: [unauthorized],
  },
  hostedPasskeyRegister: {
    section: '11.11',
    summary: 'Hosted passkeys form: a new passkey of the signed-in browser’s user (back to the page)',
    tag: 'oauth2',
    caller: 'none',
    bodyTypes: ['form'],
    html: true,
    answers: [{ status: 303, description: 'Back to the passkeys page.', headers: { Location: undefined, ...noStore } }],
    failures: [
      new ValidationError('Invalid form body', { code: 'INVALID_FORM' }),
      new ValidationError('Invalid passkey registration', { code: 'INVALID_PASSKEY_REGISTRATION' }),
      unauthorized,
      new ForbiddenError('Cross-site request refused', { code: 'CROSS_SITE_REQUEST' }),
      new ForbiddenError('Recent authentication required', { code: 'RECENT_AUTH_REQUIRED' }),
      new ConflictError('Passkey already registered', { code: 'PASSKEY_ALREADY_REGISTERED' }),
      new ConflictError('Too many passkeys', { code: 'TOO_MANY_PASSKEYS' }),
    ],
  },
};

/** The failures every hosted form answers with its error page (docs/api.md 11.9), and its own. */
function hostedFailures(...own: AppError[]): AppError[] {
  return [
    new ValidationError('Invalid form body', { code: 'INVALID_FORM' }),
    new ValidationError('Sign-in expired', { code: 'INTERACTION_EXPIRED' }),
    new ForbiddenError('Cross-site request refused', { code: 'CROSS_SITE_REQUEST' }),
    ...own,
  ];
}

/**
 * The configuration every function module reads when it is imported (each runs
 * `makeHandler(defaultDeps())`): a complete local one, so the generator works whatever
 * the shell's environment holds. Nothing is connected to or read from disk.
 */
function localEnvironment(): Record<string, string | undefined> {
  return {
    ISSUER: 'http://localhost:3000',
    TABLE_NAME: 'identity-service-openapi',
    DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
    AWS_REGION: 'us-east-1',
    CORS_ALLOWED_ORIGINS: 'http://localhost:5173',
    LOG_LEVEL: 'warn',
    SIGNING_KEYS_SOURCE: 'file',
    SIGNING_KEYS_FILE: '.data/signing-keys.json',
    MFA_DELIVERY: 'outbox',
    MFA_KEY_SOURCE: 'file',
    MFA_KEY_FILE: '.data/mfa-key.json',
    OAUTH_CLIENT_SECRET_PEPPER: randomBytes(32).toString('base64url'),
    // Settings that would make a local configuration fail or look like AWS Lambda.
    AWS_LAMBDA_FUNCTION_NAME: undefined,
    OAUTH_CLIENT_SECRET_PEPPER_SECRET_ID: undefined,
    ACCESS_TOKEN_TTL_SECONDS: undefined,
    SESSION_MAX_AGE_SECONDS: undefined,
  };
}

/** The `body` and `query` schemas of each routed function, imported under the local environment. */
async function functionSchemas(routes: Route[]) {
  const environment = localEnvironment();
  const saved = Object.fromEntries(Object.keys(environment).map((name) => [name, process.env[name]]));
  const setAll = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  setAll(environment);
  try {
    const schemas = new Map<string, { body?: z.ZodType; query?: z.ZodType; params?: z.ZodType }>();
    for (const route of routes) {
      const module: Record<string, unknown> = await import(`../../functions/${route.bundle}.ts`);
      schemas.set(route.functionName, { body: zodSchema(module.body), query: zodSchema(module.query), params: zodSchema(module.params) });
    }
    return schemas;
  } finally {
    setAll(saved);
  }
}

function zodSchema(value: unknown): z.ZodType | undefined {
  return value instanceof z.ZodType ? value : undefined;
}

/** The component name of a function's request body: `login` -> `LoginRequest`, `oauth2Token` -> `OAuth2TokenRequest`. */
const requestSchemaName = (functionName: string) => {
  const name = functionName.replace(/^oauth2/, 'OAuth2');
  return `${name[0]?.toUpperCase()}${name.slice(1)}Request`;
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** JSON Schemas of a registry's schemas, as components (without `$schema` and `$id`). */
function componentSchemas(registry: z.core.$ZodRegistry<{ id: string; description: string }>, io: 'input' | 'output') {
  const { schemas } = z.toJSONSchema(registry, { io, uri: (id) => ref(id).$ref });
  return Object.fromEntries(Object.entries(schemas).map(([name, { $schema: _s, $id: _i, ...schema }]) => [name, schema]));
}

/** The handler chain's validation message (docs/api.md 2) for an empty body or query, if that fails. */
function emptyInputFailure(schema: z.ZodType, where: 'body' | 'query' | 'path'): ValidationError | undefined {
  const parsed = schema.safeParse({});
  if (parsed.success) return undefined;
  return schemaFailure(parsed.error, where);
}

const formHeaders: APIGatewayProxyEventV2['headers'] = { 'content-type': 'application/x-www-form-urlencoded' };
/** What rfcErrorFormat looks at in a request: its content type. */
const FORM_REQUEST = { headers: formHeaders } as APIGatewayProxyEventV2;

/** The summary of the example validation message in each operation's 400 answer. */
export const VALIDATION_EXAMPLE = 'Validation: the answer to an empty input';

/** The failures of one status code as an OpenAPI response: a description and one example per message. */
function failureResponse(failures: FailureCase[], rfc: boolean): Json {
  const examples: Json = {};
  const headers = new Set<string>();
  let envelope = false;
  let rfcFormat = false;
  for (const { error, only, validation } of failures) {
    for (const name of Object.keys(error.headers)) headers.add(name);
    // Validation messages are zod's; the example shows the one an empty input gets.
    const summary = validation ? { summary: VALIDATION_EXAMPLE } : {};
    if (only !== 'form') {
      envelope = true;
      examples[examples[error.message] ? `${error.message} (${error.code})` : error.message] = {
        ...summary,
        value: failureEnvelope(error),
      };
    }
    if (rfc && only !== 'json') {
      rfcFormat = true;
      const reply = rfcErrorFormat(error, FORM_REQUEST);
      examples[`${error.message} (form request)`] = { ...summary, value: reply?.json };
    }
  }
  const schemas = [...(envelope ? [ref('Failure')] : []), ...(rfcFormat ? [ref('OAuthError')] : [])];
  return {
    description: failures
      .map(({ error, validation }) =>
        validation ? `validation: \`<field>: <message>\`, e.g. \`${error.message}\`` : `\`${error.message}\``,
      )
      .join(', '),
    ...(headers.size > 0 ? { headers: headerObjects(Object.fromEntries([...headers].map((name) => [name, undefined]))) } : {}),
    content: { 'application/json': { schema: schemas.length === 1 ? schemas[0] : { oneOf: schemas }, examples } },
  };
}

const isHeaderName = (name: string): name is HeaderName => name in HEADERS;

/** Response headers: a reference to the header's description, or inline with its one value. */
function headerObjects(headers: Record<string, string | undefined>): Json {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => {
      if (!isHeaderName(name)) throw new Error(`OpenAPI: no description of the header ${name}`);
      return [
        name,
        value === undefined
          ? { $ref: `#/components/headers/${name}` }
          : { description: HEADERS[name], schema: { type: 'string', const: value } },
      ];
    }),
  );
}

const SECURITY: Record<Caller, Json[] | undefined> = {
  none: undefined,
  session: [{ sessionToken: [] }],
  optionalSession: [{}, { sessionToken: [] }],
  admin: [{ sessionToken: [] }],
  // `{}`: the credentials in the body (client_secret_post), which OpenAPI has no scheme for.
  client: [{ clientBasic: [] }, {}],
  oauthToken: [{ oauthAccessToken: [] }],
};

/** The answers of a hosted page: HTML documents, every failure the error page naming its message. */
function htmlResponses(doc: OperationDoc): Json {
  const page = { 'text/html': { schema: { type: 'string' } } };
  const responses: Json = {};
  for (const answer of doc.answers) {
    responses[answer.status] = {
      description: answer.description,
      ...(answer.headers ? { headers: headerObjects(answer.headers) } : {}),
      ...(answer.status === 200 ? { content: page } : {}),
    };
  }
  const byStatus = new Map<number, AppError[]>();
  for (const failure of doc.failures) {
    const error = 'only' in failure ? failure.error : failure;
    byStatus.set(error.statusCode, [...(byStatus.get(error.statusCode) ?? []), error]);
  }
  for (const [status, errors] of [...byStatus].sort(([a], [b]) => a - b))
    responses[status] = { description: `The error page: ${errors.map((error) => `\`${error.message}\``).join(', ')}`, content: page };
  responses[500] = { description: 'The error page: `Internal server error`', content: page };
  responses[503] = { description: 'The error page: `Service unavailable`', content: page };
  return responses;
}

function operation(route: Route, doc: OperationDoc, schemas: { body?: z.ZodType; query?: z.ZodType; params?: z.ZodType }): Json {
  const bodyTypes = doc.bodyTypes ?? [];
  if (
    Boolean(doc.bodyTypes) !== Boolean(schemas.body) ||
    Boolean(doc.query) !== Boolean(schemas.query) ||
    Boolean(doc.params) !== Boolean(schemas.params)
  ) {
    throw new Error(
      `OpenAPI: the body and query of ${route.functionName} are documented otherwise than functions/${route.bundle}.ts exports them`,
    );
  }
  const failures: FailureCase[] = [];
  if (route.method === 'POST' && !doc.html) {
    failures.push({ error: new PayloadTooLargeError() });
    const refusesJson = doc.failures.some((failure) => ('only' in failure ? failure.error : failure).statusCode === 415);
    if (!refusesJson) failures.push({ error: new UnsupportedContentTypeError(), only: 'json' });
    failures.push({ error: new ValidationError('Invalid JSON body', { code: 'INVALID_JSON' }), only: 'json' });
    failures.push({ error: new ValidationError('Invalid JSON body: expected an object', { code: 'INVALID_JSON' }), only: 'json' });
  }
  const validation = doc.html
    ? undefined
    : ((schemas.body ? emptyInputFailure(schemas.body, 'body') : schemas.query ? emptyInputFailure(schemas.query, 'query') : undefined) ??
      (schemas.params ? emptyInputFailure(schemas.params, 'path') : undefined));
  if (validation) failures.push({ error: validation, validation: true });
  for (const failure of doc.failures) failures.push('only' in failure ? failure : { error: failure });

  const byStatus = new Map<number, typeof failures>();
  for (const failure of failures) byStatus.set(failure.error.statusCode, [...(byStatus.get(failure.error.statusCode) ?? []), failure]);
  const responses: Json = doc.html ? htmlResponses(doc) : {};
  for (const answer of doc.html ? [] : doc.answers) {
    const bodies = answer.body === undefined ? [] : [answer.body].flat();
    responses[answer.status] = {
      description: answer.description,
      ...(answer.headers ? { headers: headerObjects(answer.headers) } : {}),
      ...(bodies.length > 0
        ? { content: { 'application/json': { schema: bodies.length === 1 ? ref(bodies[0] ?? '') : { oneOf: bodies.map(ref) } } } }
        : {}),
    };
  }
  if (!doc.html) {
    for (const [status, group] of [...byStatus].sort(([a], [b]) => a - b))
      responses[status] = failureResponse(group, doc.rfcErrors ?? false);
    responses[500] = { $ref: '#/components/responses/InternalServerError' };
    responses[503] = { $ref: '#/components/responses/ServiceUnavailable' };
  }

  const mediaTypes = { json: 'application/json', form: 'application/x-www-form-urlencoded' } as const;
  return {
    operationId: route.functionName,
    summary: doc.summary,
    description: `docs/api.md ${doc.section}. Source: functions/${route.bundle}.ts.`,
    tags: [doc.tag],
    ...(SECURITY[doc.caller] ? { security: SECURITY[doc.caller] } : {}),
    ...(schemas.query || schemas.params
      ? {
          parameters: [
            ...(schemas.params ? inputParameters(schemas.params, 'path') : []),
            ...(schemas.query ? inputParameters(schemas.query, 'query') : []),
          ],
        }
      : {}),
    ...(bodyTypes.length > 0
      ? {
          requestBody: {
            required: true,
            content: Object.fromEntries(
              bodyTypes.map((type) => [mediaTypes[type], { schema: ref(requestSchemaName(route.functionName)) }]),
            ),
          },
        }
      : {}),
    responses,
    'x-doc-section': doc.section,
    'x-function': route.functionName,
    'x-authorizer': route.authorizer,
  };
}

/** A query or path schema's fields as OpenAPI parameters. */
function inputParameters(input: z.ZodType, where: 'query' | 'path'): Json[] {
  const schema = z.toJSONSchema(input, { io: 'input' });
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: required.has(name),
    schema: property,
  }));
}

/** The whole OpenAPI document; the same inputs give the same document, key order included. */
export async function openApiDocument(): Promise<Json> {
  const { routes } = routesFromServerlessYml(await readFile('serverless.yml', 'utf8'));
  const { version } = z.object({ version: z.string() }).parse(JSON.parse(await readFile('package.json', 'utf8')));
  for (const name of Object.keys(OPERATIONS)) {
    if (!routes.some((route) => route.functionName === name))
      throw new Error(`OpenAPI: ${name} is documented but serverless.yml has no route for it`);
  }
  const schemas = await functionSchemas(routes);

  const requests = z.registry<{ id: string; description: string }>();
  const responses = z.registry<{ id: string; description: string }>();
  for (const [name, [schema, section]] of Object.entries(RESPONSE_SCHEMAS))
    responses.add(schema, { id: name, description: `docs/api.md ${section}` });

  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const doc = OPERATIONS[route.functionName];
    if (!doc)
      throw new Error(
        `OpenAPI: serverless.yml routes ${route.method} ${route.path} to ${route.functionName}, which scripts/lib/openapi.ts does not document`,
      );
    const own = schemas.get(route.functionName) ?? {};
    if (own.body) requests.add(own.body, { id: requestSchemaName(route.functionName), description: `docs/api.md ${doc.section}` });
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operation(route, doc, own) };
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Identity service',
      version,
      description:
        'Identity and access for the multi-tenant commerce platform. Generated by `npm run openapi` from serverless.yml, ' +
        "the handlers' zod schemas and lib/sessions/api-schemas.ts and lib/oauth/api-schemas.ts; the prose reference, with every rule and error, is docs/api.md.",
    },
    servers: [{ url: 'http://localhost:3000', description: 'npm start; in AWS, the configured ISSUER' }],
    tags: [
      { name: 'auth', description: 'Sessions and registration (docs/api.md 4.1-4.3, 4.9, 4.10)' },
      { name: 'mfa', description: 'Multi-factor authentication (docs/api.md 4.4, 4.5)' },
      { name: 'oauth2', description: 'The OAuth 2.0 authorization server (docs/api.md 4.6-4.8, 4.13, 4.14)' },
      { name: 'discovery', description: 'Keys and metadata (docs/api.md 4.11, 4.12, 11.3)' },
      { name: 'admin', description: 'Tenant administration (docs/api.md 9)' },
    ],
    paths,
    components: {
      schemas: { ...componentSchemas(requests, 'input'), ...componentSchemas(responses, 'output') },
      responses: {
        InternalServerError: {
          description: '`Internal server error`: an unexpected failure; its cause is logged with the request id, never answered.',
          content: {
            'application/json': { schema: ref('Failure'), example: { success: false, error: 'Internal server error', code: 'INTERNAL' } },
          },
        },
        ServiceUnavailable: {
          description: '`Service unavailable`: the database (or, on routes with the authorizer, the session store) did not answer.',
          headers: headerObjects({ 'Retry-After': undefined }),
          content: {
            'application/json': {
              schema: ref('Failure'),
              example: { success: false, error: 'Service unavailable', code: 'SERVICE_UNAVAILABLE' },
            },
          },
        },
      },
      headers: Object.fromEntries(
        Object.entries(HEADERS).map(([name, description]) => [name, { description, schema: { type: 'string' } }]),
      ),
      securitySchemes: {
        sessionToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'A session access token from login, refreshToken or register (docs/api.md 3).',
        },
        oauthAccessToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'An OAuth access token from the token endpoint (docs/api.md 4.7); userinfo wants one with scope `openid`.',
        },
        clientBasic: {
          type: 'http',
          scheme: 'basic',
          description: 'OAuth client credentials, form-encoded id and secret (RFC 6749 2.3.1); or client_id and client_secret in the body.',
        },
      },
    },
  };
}

/** The document as written to docs/openapi.json. */
export function serialize(document: Json): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
