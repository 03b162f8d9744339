import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { bySelf, recordEvent } from '../audit/record';
import { epochSeconds } from '../clock';
import { constantEquals } from '../crypto/constant-equals';
import type { Deps } from '../deps';
import { ValidationError } from '../errors';
import { selfEvent } from '../events/self';
import type { Reply } from '../http/reply';
import { withQuery } from '../oauth/authorization';
import type { OAuthClient } from '../oauth/client';
import { type IdTokenHint, verifyIdTokenHint } from '../oidc/id-token-hint';
import type { Session } from '../sessions/session';
import type { User } from '../users/user';
import * as z from '../zod';
import { currentBrowserSession, endedSessionCookie, SESSION_COOKIE, sessionBoundToken, tenantOfCookie } from './browser-session';
import { browserRedirect, checkOrigin, cookiesOf, crossSite, page } from './http';
import { ConfirmSignOutPage, type LogoutParameters, SignedOutPage } from './signed-out';
import { tenantName } from './tenant-name';

/*
 * RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0, docs/api.md 11.12): an app
 * sends the browser to GET (or POST) /oauth2/logout; the browser session ends and the
 * browser goes back to the app's registered post-logout URI, or sees the signed-out page.
 */

export type LogoutDeps = Pick<Deps, 'config' | 'clock' | 'random' | 'log' | 'store' | 'publicKeys' | 'source'>;
type Result = Reply;

/** The parameters of section 2 of the spec; `logout_hint` and `ui_locales` are taken and not used. */
const logoutParameters = {
  id_token_hint: z.optional(z.string().check(z.minLength(1), z.maxLength(8192))),
  post_logout_redirect_uri: z.optional(z.string().check(z.minLength(1), z.maxLength(2048))),
  state: z.optional(z.string().check(z.minLength(1), z.maxLength(512))),
  client_id: z.optional(z.string().check(z.minLength(1), z.maxLength(128))),
  logout_hint: z.optional(z.string().check(z.maxLength(512))),
  ui_locales: z.optional(z.string().check(z.maxLength(256))),
};

/** GET /oauth2/logout's query. */
export const logoutQuery = z.strictObject(logoutParameters);

/** POST /oauth2/logout's form: the same parameters, and `csrf` when it is our confirmation page's. */
export const logoutForm = z.strictObject({ ...logoutParameters, csrf: z.optional(z.string().check(z.minLength(1), z.maxLength(128))) });
/** The form of a POST as the chain validated it (an empty one for a GET). */
type LogoutForm = z.output<typeof logoutForm>;

/** What the confirmation's CSRF token is derived for (lib/hosted/browser-session.ts sessionBoundToken). */
const CONFIRMATION = 'logout-confirmation';

const invalidRequest = () => new ValidationError('Invalid logout request', { code: 'INVALID_LOGOUT_REQUEST' });
const invalidHint = () => new ValidationError('Invalid id_token_hint', { code: 'INVALID_ID_TOKEN_HINT' });
const invalidClient = () => new ValidationError('Invalid client', { code: 'INVALID_CLIENT' });
const invalidRedirect = () => new ValidationError('Invalid post_logout_redirect_uri', { code: 'INVALID_REDIRECT_URI' });

/**
 * The app the request is from: the hint's audience, or `client_id`; both given, they must
 * be the same client (spec section 2). A hint that is not one of our ID tokens, or whose
 * client is gone or not of the hint's tenant, is refused.
 */
async function requestingClient(
  deps: LogoutDeps,
  parameters: LogoutParameters,
): Promise<{ hint?: IdTokenHint | undefined; client?: OAuthClient | undefined }> {
  const hint = parameters.id_token_hint
    ? await verifyIdTokenHint(await deps.publicKeys.load(), deps.config.issuer, parameters.id_token_hint)
    : undefined;
  if (parameters.id_token_hint && !hint) throw invalidHint();
  if (hint && parameters.client_id !== undefined && parameters.client_id !== hint.aud) throw invalidClient();
  const clientId = hint?.aud ?? parameters.client_id;
  if (clientId === undefined) return {};
  const client = await deps.store.oauthClients.find(clientId);
  if (!client) throw hint ? invalidHint() : invalidClient();
  if (hint?.tenantId !== undefined && hint.tenantId !== client.tenantId) throw invalidHint();
  return { hint, client };
}

/** The request's parameters: the query of a GET, the form of a POST (spec section 2 allows both). */
function parametersOf(event: APIGatewayProxyEventV2, form: LogoutForm): LogoutParameters & { csrf?: string | undefined } {
  if (event.requestContext?.http?.method === 'POST') return form;
  const parsed = logoutQuery.safeParse(event.queryStringParameters ?? {});
  if (!parsed.success) throw invalidRequest();
  return parsed.data;
}

/** Ends the browser session as DELETE /auth/sessions/{id} ends a session (docs/api.md 8.3), and audits it (9.8). */
async function endBrowserSession(deps: LogoutDeps, current: { session: Session; user: User }, client: OAuthClient | undefined) {
  const { session, user } = current;
  const clientId = client?.clientId;
  const event = selfEvent(deps, { tenantId: user.tenantId, userId: user.id }, 'identity.session.revoked', {
    reason: 'signed_out',
    endedSessions: [session.id],
    ...(clientId ? { clientId } : {}),
  });
  const ended = await deps.store
    .emitting([event])
    .sessions.revokeOfUser({ tenantId: session.tenantId, id: session.id }, user.id, epochSeconds(deps.clock), 'signed_out');
  // Not ended: another request revoked it meanwhile; signed out either way.
  if (!ended) return;
  deps.log.info('browser_signed_out', { tenantId: user.tenantId, userId: user.id, sessionId: session.id, clientId });
  const details = { sessionId: session.id, ...(clientId ? { clientId } : {}) };
  await recordEvent(deps, { ...bySelf({ tenantId: user.tenantId, userId: user.id }), type: 'signed_out', outcome: 'success', details });
}

/**
 * GET|POST /oauth2/logout (docs/api.md 11.12). Everything the request names is checked
 * before anything ends (a bad one is the error page, never a redirect): the hint, the
 * client, the post-logout URI (exactly one the client registered), and that the browser
 * session is of the client's tenant. The browser is sent to the post-logout URI only on a
 * valid hint; without one, the signed-out page links to it. A request that proves it comes from an app of this
 * very session (a hint of its user and `sid`) ends it at once; any other is asked to the
 * user first, by a confirmation form bound to the session (a cross-site page can neither
 * end a session nor skip the question).
 */
export async function rpInitiatedLogout(deps: LogoutDeps, event: APIGatewayProxyEventV2, form: LogoutForm): Promise<Result> {
  const isPost = event.requestContext?.http?.method === 'POST';
  const { csrf, ...parameters } = parametersOf(event, form);
  if (csrf !== undefined) checkOrigin(event, deps.config.issuer);
  const { hint, client } = await requestingClient(deps, parameters);
  const target = parameters.post_logout_redirect_uri;
  if (target !== undefined && !client?.postLogoutRedirectUris?.includes(target)) throw invalidRedirect();

  const cookie = cookiesOf(event).get(SESSION_COOKIE);
  const cookieTenant = tenantOfCookie(cookie);
  const current = cookieTenant === undefined ? undefined : await currentBrowserSession(deps, cookie, cookieTenant);
  if (current && client && current.user.tenantId !== client.tenantId) throw hint ? invalidHint() : invalidClient();
  if (csrf !== undefined && current && !constantEquals(csrf, sessionBoundToken(cookie, CONFIRMATION) ?? '')) throw crossSite();

  if (current) {
    const provenByHint = hint?.sub === current.user.id && hint.sid === current.session.id;
    if (!provenByHint && csrf === undefined) {
      const token = sessionBoundToken(cookie, CONFIRMATION) ?? '';
      const clientName = client ? client.clientName || client.clientId : undefined;
      return page(
        200,
        <ConfirmSignOutPage
          tenant={await tenantName(deps, current.user.tenantId)}
          username={current.user.username}
          clientName={clientName}
          csrf={token}
          parameters={parameters}
        />,
        { redirectUri: target },
      );
    }
    await endBrowserSession(deps, current, client);
  }
  const cookies = cookie === undefined ? [] : [endedSessionCookie()];
  const onward = target === undefined ? undefined : withQuery(target, { state: parameters.state });
  // Only a valid hint names the app whose URI it is: a bare client_id is anyone's to send,
  // and anyone can register a client, so without a hint the user is shown a link
  // instead of being sent on (an open redirector otherwise; RFC 9700 section 4.11.2).
  if (onward !== undefined && hint) return browserRedirect(onward, { afterForm: isPost, cookies });
  const tenantId = client?.tenantId ?? current?.user.tenantId;
  const offered = onward !== undefined && client ? { href: onward, clientName: client.clientName || client.clientId } : undefined;
  return page(200, <SignedOutPage tenant={tenantId && (await tenantName(deps, tenantId))} onward={offered} />, { cookies });
}
