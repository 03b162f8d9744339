/**
 * The OpenAPI 3.1 document of the service (docs/openapi.json), generated from what
 * the code itself uses: the routes of serverless.yml, and for each the function's own
 * exports (the zod schemas it validates its input with, its `operation` with summary,
 * answers and failures: lib/http/operation-doc.ts), the answer schemas of
 * lib/sessions/api-schemas.ts, lib/oauth/api-schemas.ts and the error classes with their status codes. The prose reference is docs/api.md;
 * every operation names its section there (`x-doc-section`).
 *
 * `npm run openapi` writes the file; test/docs/openapi.test.ts fails when it is stale.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import * as admin from '../../lib/admin/api-schemas';
import { type AppError, PayloadTooLargeError, UnsupportedContentTypeError, ValidationError } from '../../lib/errors';
import * as federation from '../../lib/federation/api-schemas';
import * as envelope from '../../lib/http/envelope-schemas';
import { schemaFailure } from '../../lib/http/middlewares/validate';
import type { BodyType, Caller, OperationDoc } from '../../lib/http/operation-doc';
import { failureEnvelope } from '../../lib/http/respond';
import * as invitations from '../../lib/invitations/api-schemas';
import * as oauthApi from '../../lib/oauth/api-schemas';
import * as clients from '../../lib/oauth/client-api-schemas';
import { rfcErrorFormat } from '../../lib/oauth/errors';
import * as passkeys from '../../lib/passkeys/api-schemas';
import * as scim from '../../lib/scim/api-schemas';
import * as sessionsApi from '../../lib/sessions/api-schemas';
import * as account from '../../lib/users/account-schemas';
import * as webhooks from '../../lib/webhooks/api-schemas';
import * as z from '../../lib/zod';
import { type Route, routesFromServerlessYml } from './serverless-routes';

/** The answer schemas, each next to its domain (lib/sessions, lib/oauth) or in the envelope's (lib/http). */
const api = { ...envelope, ...oauthApi, ...sessionsApi };

export const OPENAPI_FILE = 'docs/openapi.json';

type Json = Record<string, unknown>;

/** A failure with its formats; `validation` for the example of the validation message. */
interface FailureCase {
  error: AppError;
  only?: BodyType | undefined;
  validation?: boolean;
}

const HEADERS = {
  'Cache-Control': 'How the answer may be cached.',
  Pragma: '`no-cache`, for HTTP/1.0 caches (RFC 6749 5.1).',
  Location: 'The redirect URI with `code`, `state` (when given) and `iss` added to its query.',
  'Retry-After': 'Seconds until the request may be tried again.',
  'X-MFA-Methods':
    'The active MFA methods of the user, comma-separated (e.g. `TOTP,SMS`), then `RECOVERY` while unused recovery codes remain.',
  'WWW-Authenticate':
    '`Basic realm="oauth2", charset="UTF-8"`, when the client tried HTTP Basic; the RFC 6750 3 challenge (`Bearer`, with `error` when a token was sent) at userinfo, or the RFC 9449 7.1 `DPoP` one for a DPoP-bound token.',
  'DPoP-Nonce': 'The server nonce a DPoP proof must carry (RFC 9449 8, docs/api.md 16.3).',
  'Access-Control-Allow-Origin': 'The request’s `Origin`, when the route allows it (docs/api.md 2, 16.2); absent otherwise.',
  'Access-Control-Allow-Methods': 'The methods of the route (or of every first-party route), for an allowed origin.',
  'Access-Control-Allow-Headers': 'The request headers the route takes, for an allowed origin.',
} as const;
type HeaderName = keyof typeof HEADERS;

const envelopeOf = (data: z.ZodMiniType) => api.success(data);

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
  DeviceAuthorizationResponse: [api.deviceAuthorizationResponse, '16.4'],
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
  ImportResultEnvelope: [envelopeOf(admin.importResult), '13.2'],
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
  // Invitations (docs/api.md 13.1).
  Invitation: [invitations.invitation, '13.1'],
  InvitationEnvelope: [envelopeOf(invitations.oneInvitation), '13.1'],
  InvitationListEnvelope: [envelopeOf(invitations.invitationList), '13.1'],
  InvitationRevokedEnvelope: [envelopeOf(api.message('Invitation revoked')), '13.1'],
  // SCIM provisioning (docs/api.md 13.3): SCIM's own documents, not the envelope.
  ScimTokenCreatedEnvelope: [envelopeOf(scim.scimTokenCreated), '13.3'],
  ScimTokenListEnvelope: [envelopeOf(scim.scimTokenList), '13.3'],
  ScimTokenDeletedEnvelope: [envelopeOf(api.message('SCIM token deleted')), '13.3'],
  ScimUser: [scim.scimResource, '13.3'],
  ScimGroup: [scim.scimResource, '13.3'],
  ScimListResponse: [scim.scimResource, '13.3'],
  ScimDocument: [scim.scimResource, '13.3'],
  // Enterprise sign-in (docs/api.md 14.1, 14.2).
  Connection: [federation.connection, '14.1'],
  ConnectionEnvelope: [envelopeOf(federation.oneConnection), '14.1'],
  ConnectionListEnvelope: [envelopeOf(federation.connectionList), '14.1'],
  ConnectionDeletedEnvelope: [envelopeOf(api.message('Connection deleted')), '14.1'],
  Domain: [federation.domain, '14.2'],
  DomainAddedEnvelope: [envelopeOf(federation.domainAdded), '14.2'],
  DomainListEnvelope: [envelopeOf(federation.domainList), '14.2'],
  DomainVerifiedEnvelope: [envelopeOf(federation.domainVerified), '14.2'],
  DomainDeletedEnvelope: [envelopeOf(api.message('Domain deleted')), '14.2'],
  // Webhooks (docs/api.md 17.2).
  Webhook: [webhooks.webhook, '17.2'],
  WebhookEnvelope: [envelopeOf(webhooks.oneWebhook), '17.2'],
  WebhookCreatedEnvelope: [envelopeOf(webhooks.webhookCreated), '17.2'],
  WebhookListEnvelope: [envelopeOf(webhooks.webhookList), '17.2'],
  WebhookDeletedEnvelope: [envelopeOf(api.message('Webhook deleted')), '17.2'],
  WebhookDelivery: [webhooks.delivery, '17.2'],
  WebhookDeliveryEnvelope: [envelopeOf(webhooks.oneDelivery), '17.2'],
  WebhookDeliveryListEnvelope: [envelopeOf(webhooks.deliveryList), '17.2'],
} as const satisfies Record<string, readonly [z.ZodMiniType, string]>;
type ResponseSchemaName = keyof typeof RESPONSE_SCHEMAS;

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

/** What a function exports for its documentation: its input schemas and its `operation`. */
interface FunctionExports {
  body?: z.ZodMiniType | undefined;
  query?: z.ZodMiniType | undefined;
  params?: z.ZodMiniType | undefined;
  operation: OperationDoc;
}

/**
 * The input schemas and the `operation` of each routed function, imported under the local
 * environment: serverless.yml names the functions, each function documents itself.
 */
async function functionExports(routes: Route[]): Promise<Map<string, FunctionExports>> {
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
    const found = new Map<string, FunctionExports>();
    for (const route of routes) {
      const module: Record<string, unknown> = await import(`../../functions/${route.bundle}.ts`);
      found.set(route.functionName, {
        body: zodSchema(module.body),
        query: zodSchema(module.query),
        params: zodSchema(module.params),
        operation: operationDoc(route, module.operation),
      });
    }
    return found;
  } finally {
    setAll(saved);
  }
}

/** A function's `operation` export, checked as far as a mistake would not show in the document. */
export function operationDoc(route: Route, value: unknown): OperationDoc {
  const where = `serverless.yml routes ${route.method} ${route.path} to ${route.functionName}, but functions/${route.bundle}.ts`;
  const doc = value as Partial<OperationDoc> | undefined;
  if (typeof doc?.section !== 'string' || typeof doc.summary !== 'string' || !Array.isArray(doc.answers) || !Array.isArray(doc.failures))
    throw new Error(`OpenAPI: ${where} exports no \`operation: OperationDoc\` (lib/http/operation-doc.ts) to document it`);
  for (const answer of doc.answers) {
    for (const name of answer.body === undefined ? [] : [answer.body].flat())
      if (!isResponseSchemaName(name)) throw new Error(`OpenAPI: ${where} answers with ${name}, which RESPONSE_SCHEMAS does not name`);
  }
  return doc as OperationDoc;
}

const isResponseSchemaName = (name: string): name is ResponseSchemaName => name in RESPONSE_SCHEMAS;

function zodSchema(value: unknown): z.ZodMiniType | undefined {
  return value instanceof z.ZodMiniType ? value : undefined;
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
function emptyInputFailure(schema: z.ZodMiniType, where: 'body' | 'query' | 'path'): ValidationError | undefined {
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
  scimToken: [{ scimToken: [] }],
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

function operationObject(route: Route, doc: OperationDoc, schemas: Omit<FunctionExports, 'operation'>): Json {
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
function inputParameters(input: z.ZodMiniType, where: 'query' | 'path'): Json[] {
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
  const functions = await functionExports(routes);

  const requests = z.registry<{ id: string; description: string }>();
  const responses = z.registry<{ id: string; description: string }>();
  for (const [name, [schema, section]] of Object.entries(RESPONSE_SCHEMAS))
    responses.add(schema, { id: name, description: `docs/api.md ${section}` });

  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const own = functions.get(route.functionName);
    if (!own) throw new Error(`OpenAPI: ${route.functionName} was not imported`);
    const doc = own.operation;
    if (own.body) requests.add(own.body, { id: requestSchemaName(route.functionName), description: `docs/api.md ${doc.section}` });
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operationObject(route, doc, own) };
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
        scimToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'A SCIM token from POST /admin/scim-tokens (docs/api.md 13.3).',
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
