/**
 * What each function declares about its HTTP operation for docs/openapi.json: every
 * `functions/<name>.ts` exports `operation: OperationDoc` beside its handler, and
 * scripts/lib/openapi.ts renders them with the zod schemas the function exports. The
 * prose reference is docs/api.md; `section` names the operation's section there.
 */
import { type AppError, ForbiddenError, TooManyRequestsError, UnauthorizedError, ValidationError } from '../errors';

/** Who may call an operation, and how they say who they are. */
export type Caller =
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
  | 'oauthToken'
  /** A SCIM token as `Authorization: Bearer`, no authorizer (docs/api.md 13.3). */
  | 'scimToken';

export type BodyType = 'json' | 'form';

/**
 * A success answer: its status, the component schema(s) of its body (none: no body;
 * names of scripts/lib/openapi.ts's answer schemas), its headers with their value where
 * it is always the same.
 */
export interface Answer {
  status: number;
  description: string;
  body?: string | string[];
  headers?: Record<string, string | undefined>;
}

/** An error the operation answers with; `only` when it can arise for one body format only. */
export type Failure = AppError | { error: AppError; only: BodyType };

export interface OperationDoc {
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

/** Headers and failures many operations document alike. */
export const noStore = { 'Cache-Control': 'no-store' };
export const noCache = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
export const mfaHeaders = { 'X-MFA-Methods': 'TOTP,SMS' };
export const unauthorized = new UnauthorizedError();
export const permissionDenied = new ForbiddenError();
export const locked = new TooManyRequestsError(1);
/** docs/api.md 10.1: a source past its limit of failed client authentications. */
export const clientSourceLimited = new TooManyRequestsError(900, 'Too many requests', { code: 'RATE_LIMITED' });
export const recentRequired = new ForbiddenError('Recent authentication required', { code: 'RECENT_AUTH_REQUIRED' });

/** The failures every hosted form answers with its error page (docs/api.md 11.9), and its own. */
export function hostedFailures(...own: AppError[]): AppError[] {
  return [
    new ValidationError('Invalid form body', { code: 'INVALID_FORM' }),
    new ValidationError('Sign-in expired', { code: 'INTERACTION_EXPIRED' }),
    new ForbiddenError('Cross-site request refused', { code: 'CROSS_SITE_REQUEST' }),
    ...own,
  ];
}
