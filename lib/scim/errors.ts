import { AppError } from '../errors';
import { document, type Reply } from '../http/reply';

/** RFC 7644 3.12: SCIM answers, errors included, are `application/scim+json`. */
export const SCIM_JSON = { 'Content-Type': 'application/scim+json; charset=utf-8' };

export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** RFC 7644 3.12, table 9: the `scimType` of a 400 or 409. */
export type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers'
  | 'sensitive';

/** An error of a SCIM request with its RFC 7644 `scimType` (docs/api.md 13.3). */
export class ScimError extends AppError {
  override name = 'ScimError';
  constructor(
    statusCode: number,
    message: string,
    readonly scimType?: ScimType,
    headers: Record<string, string> = {},
  ) {
    super(statusCode, message, headers);
  }
}

export const scimErrors = {
  invalidFilter: (detail: string) => new ScimError(400, detail, 'invalidFilter'),
  invalidPath: (detail: string) => new ScimError(400, detail, 'invalidPath'),
  invalidValue: (detail: string) => new ScimError(400, detail, 'invalidValue'),
  invalidSyntax: (detail: string) => new ScimError(400, detail, 'invalidSyntax'),
  noTarget: (detail: string) => new ScimError(400, detail, 'noTarget'),
  mutability: (detail: string) => new ScimError(400, detail, 'mutability'),
  uniqueness: (detail: string) => new ScimError(409, detail, 'uniqueness'),
  notFound: (what: 'User' | 'Group' | 'Resource' = 'Resource') => new ScimError(404, `${what} not found`),
  /** RFC 6750 3.1: a request without a valid bearer token. */
  unauthorized: () => new ScimError(401, 'Invalid or missing SCIM token', undefined, { 'WWW-Authenticate': 'Bearer realm="scim"' }),
};

/** The scimType of an error of the rest of the service, as a SCIM client should read it. */
function scimTypeOf(error: AppError): { status: number; scimType?: ScimType } {
  if (error instanceof ScimError) return { status: error.statusCode, ...(error.scimType ? { scimType: error.scimType } : {}) };
  switch (error.code) {
    // docs/api.md 9.3's 409: SCIM names the rule (RFC 7644 3.12 `mutability`) with a 400.
    case 'LAST_ADMIN':
      return { status: 400, scimType: 'mutability' };
    case 'INVALID_JSON':
      return { status: 400, scimType: 'invalidSyntax' };
    case 'VALIDATION_FAILED':
    case 'UNKNOWN_SHOP':
      return { status: 400, scimType: 'invalidValue' };
    default:
      return { status: error.statusCode };
  }
}

/**
 * The SCIM routes' error format (lib/http/respond.ts): every error, expected or not, in
 * RFC 7644 3.12's shape `{ schemas, status, scimType?, detail }` instead of the envelope.
 */
export function scimErrorFormat(error: AppError): Reply {
  const { status, scimType } = scimTypeOf(error);
  return document({ schemas: [ERROR_SCHEMA], status: String(status), ...(scimType ? { scimType } : {}), detail: error.message }, status, {
    ...error.headers,
    ...SCIM_JSON,
  });
}
