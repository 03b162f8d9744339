import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { DEVICE_COOKIE_PATHS, deviceCookie, deviceCookieName } from '../abuse/device-token';
import { epochSeconds } from '../clock';
import { constantEquals } from '../crypto/constant-equals';
import { hashToken } from '../crypto/token-hash';
import type { Deps } from '../deps';
import { AppError, type AuthorizationErrorCode, ValidationError } from '../errors';
import { newEvent } from '../events/event';
import type { Connection } from '../federation/connection';
import { connectionForEmail } from '../federation/discovery';
import { refusingSsoUsers, SsoRequiredError } from '../federation/sso-required';
import type { Reply } from '../http/reply';
import { username } from '../http/schemas';
import { SECOND_FACTORS } from '../mfa/methods';
import { secondFactor } from '../mfa/second-factor';
import { type AuthorizationRequest, authorizationQuery, authorize, checkAuthorizationRequest, withQuery } from '../oauth/authorization';
import type { OAuthClient } from '../oauth/client';
import { isWithinScope } from '../oauth/scope';
import { deviceOf } from '../sessions/device';
import type { Session } from '../sessions/session';
import { identityOf } from '../sessions/sessions';
import { type Opening, type SignedIn, type SignInAttempt, signIn, withDeviceToken } from '../sessions/sign-in';
import { isLive } from '../token-families/refresh-family';
import { isOfCurrentEpoch, type User } from '../users/user';
import * as z from '../zod';
import { type Branding, tenantBranding } from './branding';
import { currentBrowserSession, SESSION_COOKIE, startBrowserSession } from './browser-session';
import { browserRedirect, checkOrigin, cookiesOf, crossSite, hostCookie, page } from './http';
import { INTERACTION_TTL_SECONDS, type Interaction, type InteractionStage } from './interaction';
import { ConsentPage, ContinuePage, SecondFactorPage, SignInPage } from './pages';
import { passkeySignIn } from './passkey-pages';

/*
 * The browser door of the authorization endpoint (docs/api.md 11.5-11.9): GET
 * /oauth2/authorize checks the request, then sends the browser through sign-in, second
 * factor and consent, each a form posted back here; the answer to the client is the
 * same code the Bearer door (docs/api.md 4.6) issues, by the same function.
 */

export type HostedDeps = Pick<
  Deps,
  'config' | 'clock' | 'random' | 'log' | 'store' | 'hasher' | 'keys' | 'mfaSecrets' | 'mfaDelivery' | 'deviceTokens' | 'source'
>;
type Result = Reply;

/** The pending interaction's cookie: binds the forms to the browser that began it. */
const INTERACTION_COOKIE = '__Host-interaction';

/** The browser door's query: the Bearer door's, plus `prompt` and `max_age` (OpenID Connect Core 3.1.2.1). */
export const browserAuthorizationQuery = z.extend(authorizationQuery, {
  prompt: z.optional(z.enum(['none', 'login', 'consent'])),
  max_age: z.optional(z.pipe(z.string().check(z.regex(/^\d{1,9}$/)), z.transform(Number))),
  /** OpenID Connect Core 3.1.2.1: who is signing in; an email of a connection's domain goes to that IdP (docs/api.md 14.3). */
  login_hint: z.optional(z.string().check(z.maxLength(320))),
});

const expired = () => new ValidationError('Sign-in expired', { code: 'INTERACTION_EXPIRED' });

/** A navigation of a browser without a Bearer token (docs/api.md 11.5): the hosted pages answer it. */
export function isBrowserNavigation(event: APIGatewayProxyEventV2): boolean {
  const headers = event.headers ?? {};
  return !headers.authorization && (headers.accept ?? '').toLowerCase().includes('text/html');
}

/** Where the client gets an error (RFC 6749 4.1.2.1, with `iss` of RFC 9207). */
const errorRedirect = (deps: HostedDeps, request: AuthorizationRequest, error: AuthorizationErrorCode) =>
  withQuery(request.redirect_uri, { error, state: request.state, iss: deps.config.issuer });

export const clientName = (client: OAuthClient) => client.clientName || client.clientId;

/** The tenant's name at the top of its pages (docs/api.md 11.7): its display name (9.14), else its id. */

/**
 * Whether the user must consent (docs/api.md 11.10): never for a first-party client;
 * always with `prompt=consent`; else unless a live grant of the user to the client
 * already covers the scope (the consent remembered, GET /auth/grants).
 */
async function needsConsent(deps: HostedDeps, client: OAuthClient, user: User, scope: string[], prompt?: string): Promise<boolean> {
  if (client.firstParty) return false;
  if (prompt === 'consent') return true;
  const now = epochSeconds(deps.clock);
  const grants = await deps.store.oauthGrants.listBySubject(client.tenantId, user.id);
  return !grants.some(
    (grant) =>
      grant.kind === 'authorization_code' &&
      grant.clientId === client.clientId &&
      grant.subject === user.id &&
      isLive(grant, now) &&
      isOfCurrentEpoch(user, grant) &&
      isWithinScope(scope, grant.scope),
  );
}

const interactionCookie = (interaction: Pick<Interaction, 'tenantId' | 'id'>, maxAge = INTERACTION_TTL_SECONDS) =>
  hostCookie(
    INTERACTION_COOKIE,
    maxAge === 0 ? '' : `${Buffer.from(interaction.tenantId).toString('base64url')}.${interaction.id}`,
    maxAge,
  );

/** What an interaction signs in for: a client's authorization request, or a page of ours to go back to. */
type InteractionPurpose = { request: AuthorizationRequest } | { returnTo: string };

async function beginInteraction(
  deps: HostedDeps,
  tenantId: string,
  purpose: InteractionPurpose,
  stage: InteractionStage,
  signedIn?: { user: User; session: Session },
): Promise<{ interaction: Interaction; csrf: string }> {
  const csrf = deps.random.token(32);
  const now = epochSeconds(deps.clock);
  const interaction: Interaction = {
    id: deps.random.token(32),
    tenantId,
    ...purpose,
    csrfHash: hashToken(csrf),
    stage,
    ...(signedIn ? { userId: signedIn.user.id, sessionId: signedIn.session.id } : {}),
    createdAt: now,
    expiresAt: now + INTERACTION_TTL_SECONDS,
  };
  await deps.store.interactions.create(interaction);
  return { interaction, csrf };
}

/**
 * GET /oauth2/authorize from a browser (docs/api.md 11.5): the request is checked before
 * anything is shown (a bad one gets the error page, never a redirect); with a live
 * browser session of the client's tenant the code comes at once (SSO), or after consent;
 * else the sign-in page. `prompt=none` never shows a page; `prompt=login` and an
 * exceeded `max_age` ask for the password again.
 */
export async function beginBrowserAuthorization(
  deps: HostedDeps,
  event: APIGatewayProxyEventV2,
  /** The request's parameters: the query, or the form of an authorization request by POST (docs/api.md 16.2). */
  parameters: unknown = event.queryStringParameters ?? {},
): Promise<Result> {
  const parsed = browserAuthorizationQuery.safeParse(parameters);
  if (!parsed.success) throw new ValidationError('Invalid authorization request', { code: 'INVALID_AUTHORIZATION_REQUEST' });
  const { prompt, max_age: maxAge, login_hint: loginHint, ...request } = parsed.data;
  const { client, scope } = await checkAuthorizationRequest(deps, request);
  const tenant = client.tenantId;
  const [current, branding] = await Promise.all([
    currentBrowserSession(deps, cookiesOf(event).get(SESSION_COOKIE), tenant),
    tenantBranding(deps, tenant),
  ]);
  const now = epochSeconds(deps.clock);
  const fresh =
    current && prompt !== 'login' && (maxAge === undefined || now - (current.session.authTime ?? current.session.createdAt) <= maxAge);
  if (!fresh) {
    if (prompt === 'none') return browserRedirect(errorRedirect(deps, request, 'login_required'));
    return beginSignIn(deps, tenant, { request }, { branding, loginHint, client });
  }
  if (!(await needsConsent(deps, client, current.user, scope, prompt)))
    return browserRedirect(await authorize(deps, identityOf(current.user, current.session), request));
  if (prompt === 'none') return browserRedirect(errorRedirect(deps, request, 'consent_required'));
  const { interaction, csrf } = await beginInteraction(deps, tenant, { request }, 'consent', current);
  return page(
    200,
    <ConsentPage tenant={branding} clientName={clientName(client)} username={current.user.username} scopes={scope} csrf={csrf} />,
    {
      redirectUri: request.redirect_uri,
      cookies: [interactionCookie(interaction)],
      branding,
    },
  );
}

/**
 * The sign-in page of a new interaction (docs/api.md 11.7), for a client or for a page of
 * ours (docs/api.md 15.1). Home-realm discovery (docs/api.md 14.3): a hint of a
 * connection's domain goes straight to its IdP; a tenant with connections asks for the
 * username or email first.
 */
async function beginSignIn(
  deps: HostedDeps,
  tenant: string,
  purpose: InteractionPurpose,
  options: { branding: Branding; loginHint?: string | undefined; client?: OAuthClient | undefined },
): Promise<Result> {
  const { loginHint, client } = options;
  const redirectUri = 'request' in purpose ? purpose.request.redirect_uri : undefined;
  const [{ interaction, csrf }, connections] = await Promise.all([
    beginInteraction(deps, tenant, purpose, 'sign_in'),
    deps.store.connections.listByTenant(tenant),
  ]);
  const federated = loginHint === undefined ? undefined : await connectionForEmail(deps, tenant, loginHint, { connections });
  if (federated) return browserRedirect(ssoBeginUrl(deps, federated, loginHint), { cookies: [interactionCookie(interaction)] });
  const { passkey, scripts } = await passkeySignIn(deps, tenant, csrf);
  const identifierFirst = connections.some((connection) => connection.enabled);
  return page(
    200,
    <SignInPage
      tenant={options.branding}
      clientName={client && clientName(client)}
      csrf={csrf}
      passkey={passkey}
      username={loginHint}
      identifierFirst={identifierFirst}
    />,
    { redirectUri, cookies: [interactionCookie(interaction)], scripts, branding: options.branding },
  );
}

/**
 * The hosted sign-in for a page of ours (docs/api.md 15.1): the tenant's sign-in page,
 * whose success goes back to `returnTo` (a path of ours) with the new browser session.
 */
export async function beginPageSignIn(deps: HostedDeps, tenant: string, returnTo: string): Promise<Result> {
  return beginSignIn(deps, tenant, { returnTo }, { branding: await tenantBranding(deps, tenant) });
}

/** The client an interaction signs in for, its request checked again; none for a page sign-in (docs/api.md 15.1). */
export async function interactionClient(deps: HostedDeps, interaction: Interaction): Promise<OAuthClient | undefined> {
  if (interaction.request === undefined) return undefined;
  return (await checkAuthorizationRequest(deps, interaction.request, interaction.tenantId)).client;
}

/**
 * The interaction a hosted form was posted for (docs/api.md 11.8): the Origin is ours, the
 * interaction cookie names a pending interaction at `stage`, and the form's CSRF token is
 * the interaction's. A replayed, expired or unknown interaction: 400 `Sign-in expired`.
 */
export async function postedInteraction(deps: HostedDeps, event: APIGatewayProxyEventV2, csrf: string, stage: InteractionStage) {
  checkOrigin(event, deps.config.issuer);
  const interaction = await cookieInteraction(deps, event);
  if (!interaction || !constantEquals(hashToken(csrf), interaction.csrfHash)) throw interaction ? crossSite() : expired();
  if (interaction.stage !== stage || interaction.expiresAt <= epochSeconds(deps.clock)) throw expired();
  return { interaction, client: await interactionClient(deps, interaction) };
}

/** The interaction the browser's interaction cookie names, whatever its state; undefined for none or a malformed cookie. */
async function cookieInteraction(deps: Pick<HostedDeps, 'store'>, event: APIGatewayProxyEventV2): Promise<Interaction | undefined> {
  const [tenant, id, ...rest] = (cookiesOf(event).get(INTERACTION_COOKIE) ?? '').split('.');
  if (!tenant || !id || rest.length > 0 || !/^[A-Za-z0-9_-]{1,200}$/.test(tenant) || !/^[A-Za-z0-9_-]{16,128}$/.test(id)) return undefined;
  return deps.store.interactions.find(Buffer.from(tenant, 'base64url').toString('utf8'), id);
}

/**
 * The pending interaction of this browser still at its sign-in (a navigation, no form:
 * GET /sso/begin, docs/api.md 14.3), or 400 `Sign-in expired`.
 */
export async function interactionAtSignIn(deps: Pick<HostedDeps, 'store' | 'clock'>, event: APIGatewayProxyEventV2): Promise<Interaction> {
  const interaction = await cookieInteraction(deps, event);
  if (interaction?.stage !== 'sign_in' || interaction.expiresAt <= epochSeconds(deps.clock)) throw expired();
  return interaction;
}

/** Moves the interaction on, or 400 `Sign-in expired` when another request did first. */
async function advance(
  deps: HostedDeps,
  interaction: Interaction,
  to: InteractionStage,
  set?: Parameters<HostedDeps['store']['interactions']['advance']>[4],
) {
  const moved = await deps.store.interactions.advance(interaction, interaction.stage, to, epochSeconds(deps.clock), set);
  if (!moved) throw expired();
  return moved;
}

/** What a hosted sign-in opens: a browser session, its cookie and the account's device token. */
type BrowserSignIn = SignedIn<{ opened: { session: Session; cookie: string }; deviceToken: string }>;

/**
 * A sign-in through the hosted pages: the sign-in pipeline (lib/sessions/sign-in.ts) of
 * the interaction's tenant (or an accepted invitation's, docs/api.md 13.1), whose opening is a new browser session (a new id, docs/api.md
 * 11.6; the browser's previous session of the tenant ends) with a new device token.
 */
export function browserSignIn(
  deps: HostedDeps,
  event: APIGatewayProxyEventV2,
  interaction: Pick<Interaction, 'tenantId'> & Partial<Pick<Interaction, 'request'>>,
  attempt: Pick<SignInAttempt<unknown>, 'firstFactor' | 'secondFactor' | 'asksForCode' | 'refuse'>,
): Promise<BrowserSignIn> {
  const opening: Opening<{ session: Session; cookie: string }> = {
    open: async (user, amr, origin, published) => {
      const previous = await currentBrowserSession(deps, cookiesOf(event).get(SESSION_COOKIE), interaction.tenantId);
      const opened = await startBrowserSession(deps, user, amr, deviceOf(event), origin, published);
      if (previous) {
        const ended = { tenantId: previous.session.tenantId, id: previous.session.id };
        // The browser's previous session ends (its user may be another): published as every ending is (docs/events.md).
        const event = newEvent(deps, {
          tenantId: ended.tenantId,
          type: 'identity.session.revoked',
          subject: previous.session.userId,
          actor: { type: 'user', id: user.id },
          data: { reason: 'signed_in_again', endedSessions: [ended.id] },
        });
        await deps.store.emitting([event]).sessions.revoke(ended, epochSeconds(deps.clock), 'signed_in_again');
      }
      return opened;
    },
  };
  const clientId = interaction.request?.client_id;
  return signIn(deps, { tenantId: interaction.tenantId, ...attempt, door: 'hosted', clientId, opening: withDeviceToken(deps, opening) });
}

/**
 * The user signed in (browserSignIn): consent or the code. A sign-in that came back from
 * an identity provider (docs/api.md 14.3) has no form of the interaction in hand: its
 * consent page gets a new CSRF token (`newCsrf`), whose hash replaces the interaction's.
 */
export async function signedIn(
  deps: HostedDeps,
  found: { interaction: Interaction; client: OAuthClient | undefined },
  { user, amr, opened }: BrowserSignIn,
  csrf: string,
  options: { newCsrf?: boolean; cookies?: string[] } = {},
): Promise<Result> {
  const { interaction, client } = found;
  const { session, cookie } = opened.opened;
  const account = { tenantId: user.tenantId, username: user.username };
  // This browser is a known device of the account at the next hosted sign-in (docs/api.md 10.1).
  const cookies = [cookie, deviceCookie(account, opened.deviceToken, DEVICE_COOKIE_PATHS.hostedSignIn), ...(options.cookies ?? [])];
  const { request } = interaction;
  if (request === undefined || client === undefined) {
    // A page sign-in (docs/api.md 15.1): back to the page, signed in.
    await advance(deps, interaction, 'done', { userId: user.id, sessionId: session.id, amr });
    const location = `${new URL(deps.config.issuer).origin}${interaction.returnTo ?? '/account'}`;
    return browserRedirect(location, { afterForm: true, cookies: [...cookies, interactionCookie(interaction, 0)] });
  }
  const { scope } = await checkAuthorizationRequest(deps, request, interaction.tenantId);
  if (await needsConsent(deps, client, user, scope)) {
    const csrfHash = options.newCsrf ? { csrfHash: hashToken(csrf) } : {};
    await advance(deps, interaction, 'consent', { userId: user.id, sessionId: session.id, amr, ...csrfHash });
    const branding = await tenantBranding(deps, interaction.tenantId);
    return page(
      200,
      <ConsentPage tenant={branding} clientName={clientName(client)} username={user.username} scopes={scope} csrf={csrf} />,
      {
        redirectUri: request.redirect_uri,
        cookies,
        branding,
      },
    );
  }
  await advance(deps, interaction, 'done', { userId: user.id, sessionId: session.id, amr });
  const location = await authorize(deps, identityOf(user, session), request);
  return browserRedirect(location, { afterForm: true, cookies: [...cookies, interactionCookie(interaction, 0)] });
}

/** The MFA rules' refusals the second-factor page answers in place (a code required, a wrong code). */
const isFactorRefusal = (error: unknown): error is AppError =>
  error instanceof AppError && (error.code === 'MFA_REQUIRED' || error.code === 'INVALID_MFA_CODE');
const methodsOf = (error: AppError) => (error.headers['X-MFA-Methods'] ?? '').split(',').filter(Boolean);

/**
 * The sign-in form; its username is held to the JSON login's rule once the interaction is
 * found (submitSignIn). Without a password it is the first step of a tenant with
 * connections (docs/api.md 14.3): the username or email alone.
 */
export const signInForm = z.strictObject({
  csrf: z.string().check(z.minLength(1), z.maxLength(128)),
  username: z.string().check(z.minLength(1), z.maxLength(320)),
  password: z.optional(z.string().check(z.minLength(1), z.maxLength(1024))),
});

/** Where a browser sets off to a connection's IdP (docs/api.md 14.3: GET /sso/begin). */
const ssoBeginUrl = (deps: Pick<HostedDeps, 'config'>, connection: Connection, loginHint: string | undefined) =>
  withQuery(`${deps.config.issuer}/sso/begin`, { connection: connection.id, login_hint: loginHint });

/**
 * POST /oauth2/hosted/sign-in (docs/api.md 11.7): the password, by the same rules as
 * POST /auth/login (attempt limit, unknown users alike, audit); a user with MFA goes on
 * to the second-factor page.
 */
export async function submitSignIn(deps: HostedDeps, event: APIGatewayProxyEventV2, form: z.output<typeof signInForm>): Promise<Result> {
  const found = await postedInteraction(deps, event, form.csrf, 'sign_in');
  const { interaction, client } = found;
  const tenantId = interaction.tenantId;
  const again = async (error: string | undefined, status: number, headers: Record<string, string> = {}) => {
    const [{ passkey, scripts }, branding] = await Promise.all([passkeySignIn(deps, tenantId, form.csrf), tenantBranding(deps, tenantId)]);
    const content = (
      <SignInPage
        tenant={branding}
        clientName={client && clientName(client)}
        username={form.username}
        error={error}
        csrf={form.csrf}
        passkey={passkey}
      />
    );
    return page(status, content, { redirectUri: interaction.request?.redirect_uri, headers, scripts, branding });
  };
  // On to the IdP after this form: a page, not a redirect (lib/hosted/pages.tsx ContinuePage).
  const toIdp = async (connection: Connection, email: string) =>
    page(200, <ContinuePage tenant={(await tenantBranding(deps, tenantId)).name} location={ssoBeginUrl(deps, connection, email)} />, {
      redirectUri: interaction.request?.redirect_uri,
    });
  // Home-realm discovery (docs/api.md 14.3): an email of a connection's verified domain goes
  // to its IdP, with or without a password typed (a password is never checked for it).
  const federated = await connectionForEmail(deps, tenantId, form.username);
  if (federated) return toIdp(federated, form.username);
  // Anyone else: the first step is done, the password is asked for.
  if (form.password === undefined) return again(undefined, 200);
  // The JSON login's one username rule (docs/api.md 10.2): one that grows past its bound
  // under NFKC is refused with 400 on the page, as the JSON route refuses it, never a 500.
  const named = username.safeParse(form.username);
  if (!named.success) return again(`Username: ${named.error.issues[0]?.message ?? 'Invalid username'}`, 400);
  // The per-source limit counts this door's failures with the JSON login's (docs/api.md 10.1).
  const sourceIp = event.requestContext?.http?.sourceIp;
  // The browser's device cookie of this account, sent to this path only (docs/api.md 10.1).
  const deviceToken = cookiesOf(event).get(deviceCookieName({ tenantId, username: form.username }));
  const password = { kind: 'password', username: form.username, password: form.password, sourceIp, deviceToken } as const;
  let signed: BrowserSignIn;
  try {
    // No code yet: a user with an active method goes on to the second-factor page.
    const toSecondFactor = (user: User) => advance(deps, interaction, 'second_factor', { userId: user.id });
    signed = await browserSignIn(deps, event, interaction, {
      firstFactor: password,
      secondFactor: { request: {}, check: secondFactor },
      asksForCode: toSecondFactor,
      // A user whose stored email is at a domain that requires SSO goes to its IdP (docs/api.md 14.1).
      refuse: refusingSsoUsers(deps, tenantId),
    });
  } catch (error) {
    if (error instanceof SsoRequiredError) return toIdp(error.connection, error.email);
    if (error instanceof AppError && (error.code === 'INVALID_CREDENTIALS' || error.code === 'LOCKED' || error.statusCode === 429))
      return again(error.message, error.statusCode, error.headers);
    if (!(error instanceof AppError && error.code === 'MFA_REQUIRED')) throw error;
    const methods = methodsOf(error);
    const branding = await tenantBranding(deps, tenantId);
    return page(200, <SecondFactorPage tenant={branding} methods={methods} method={methods[0] ?? 'TOTP'} csrf={form.csrf} />, {
      redirectUri: interaction.request?.redirect_uri,
      branding,
    });
  }
  return signedIn(deps, found, signed, form.csrf);
}

export const secondFactorForm = z.strictObject({
  csrf: z.string().check(z.minLength(1), z.maxLength(128)),
  method: z.enum(SECOND_FACTORS),
  code: z.optional(z.string().check(z.maxLength(64))),
});

/**
 * POST /oauth2/hosted/second-factor (docs/api.md 11.7): a code of the chosen method, by
 * lib/mfa/second-factor.ts as at login (lockout included); an empty code sends a new one
 * to an SMS or EMAIL method.
 */
export async function submitSecondFactor(
  deps: HostedDeps,
  event: APIGatewayProxyEventV2,
  form: z.output<typeof secondFactorForm>,
): Promise<Result> {
  const found = await postedInteraction(deps, event, form.csrf, 'second_factor');
  const { interaction } = found;
  const user = interaction.userId ? await deps.store.users.findById(interaction.tenantId, interaction.userId) : undefined;
  if (user?.status !== 'active') throw expired();
  let signed: BrowserSignIn;
  try {
    // The password was proven on the sign-in page of this interaction; the page stays where it is when a code is asked for.
    signed = await browserSignIn(deps, event, interaction, {
      firstFactor: { kind: 'password-proven', user },
      secondFactor: { request: { mfaCode: form.code || undefined, mfaMethod: form.method }, check: secondFactor },
      asksForCode: async () => undefined,
    });
  } catch (error) {
    // The pipeline audited a wrong or locked code as a refused sign-in (docs/api.md 9.8); asking for a code is not one.
    if (!isFactorRefusal(error)) throw error;
    const message = error.code === 'MFA_REQUIRED' ? undefined : error.message;
    const branding = await tenantBranding(deps, interaction.tenantId);
    return page(
      error.code === 'MFA_REQUIRED' ? 200 : 401,
      <SecondFactorPage tenant={branding} methods={methodsOf(error)} method={form.method} error={message} csrf={form.csrf} />,
      { redirectUri: interaction.request?.redirect_uri, branding },
    );
  }
  return signedIn(deps, found, signed, form.csrf);
}

export const consentForm = z.strictObject({
  csrf: z.string().check(z.minLength(1), z.maxLength(128)),
  decision: z.enum(['allow', 'deny']),
});

/**
 * POST /oauth2/hosted/consent (docs/api.md 11.10): in the browser session the consent page
 * was shown in; deny sends `error=access_denied` to the client, allow the code.
 */
export async function submitConsent(deps: HostedDeps, event: APIGatewayProxyEventV2, form: z.output<typeof consentForm>): Promise<Result> {
  const { interaction } = await postedInteraction(deps, event, form.csrf, 'consent');
  const { request } = interaction;
  // Only a client's sign-in asks for consent; a page sign-in never reaches it.
  if (request === undefined) throw expired();
  const current = await currentBrowserSession(deps, cookiesOf(event).get(SESSION_COOKIE), interaction.tenantId);
  if (!current || current.session.id !== interaction.sessionId) throw expired();
  await advance(deps, interaction, 'done');
  const cookies = [interactionCookie(interaction, 0)];
  if (form.decision === 'deny') {
    deps.log.info('oauth_consent_denied', {
      tenantId: interaction.tenantId,
      clientId: request.client_id,
      userId: current.user.id,
    });
    return browserRedirect(errorRedirect(deps, request, 'access_denied'), { afterForm: true, cookies });
  }
  const location = await authorize(deps, identityOf(current.user, current.session), request);
  return browserRedirect(location, { afterForm: true, cookies });
}
