import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import * as adminCreateShop from '../../functions/admin-create-shop';
import * as adminDeleteUser from '../../functions/admin-delete-user';
import * as adminListAudit from '../../functions/admin-list-audit';
import * as adminListShops from '../../functions/admin-list-shops';
import * as adminListUsers from '../../functions/admin-list-users';
import * as adminReadTenant from '../../functions/admin-read-tenant';
import * as adminReadUser from '../../functions/admin-read-user';
import * as adminResetUserMfa from '../../functions/admin-reset-user-mfa';
import * as adminSignOutUser from '../../functions/admin-sign-out-user';
import * as adminUpdateTenant from '../../functions/admin-update-tenant';
import * as adminUpdateUser from '../../functions/admin-update-user';
import * as authorizer from '../../functions/authorizer';
import * as passwordChange from '../../functions/change-password';
import * as oauth2CreateClient from '../../functions/create-oauth2-client';
import * as oauth2DeleteClient from '../../functions/delete-oauth2-client';
import * as mfaDisable from '../../functions/disable-mfa';
import * as emailSet from '../../functions/email-set';
import * as emailVerify from '../../functions/email-verify';
import * as mfaEnable from '../../functions/enable-mfa';
import * as mfaRecoveryCodes from '../../functions/generate-recovery-codes';
import * as getAccount from '../../functions/get-account';
import * as hostedConsent from '../../functions/hosted-consent';
import * as hostedPasskeyRegister from '../../functions/hosted-passkey-register';
import * as hostedPasskeySignIn from '../../functions/hosted-passkey-sign-in';
import * as hostedPasskeysPage from '../../functions/hosted-passkeys-page';
import * as hostedSecondFactor from '../../functions/hosted-second-factor';
import * as hostedSignIn from '../../functions/hosted-sign-in';
import * as oauth2Introspect from '../../functions/introspect';
import * as jwks from '../../functions/jwks';
import * as listGrants from '../../functions/list-grants';
import * as mfaList from '../../functions/list-mfa';
import * as oauth2ListClients from '../../functions/list-oauth2-clients';
import * as passkeysList from '../../functions/list-passkeys';
import * as listSessions from '../../functions/list-sessions';
import * as login from '../../functions/login';
import * as logout from '../../functions/logout';
import * as me from '../../functions/me';
import * as oauth2Metadata from '../../functions/metadata';
import * as oauth2Authorize from '../../functions/oauth2-authorize';
import * as oauth2Logout from '../../functions/oauth2-logout';
import * as oauth2Token from '../../functions/oauth2-token';
import * as openIdConfiguration from '../../functions/open-id-configuration';
import * as passkeyAuthentication from '../../functions/passkey-authentication';
import * as passkeyAuthenticationOptions from '../../functions/passkey-authentication-options';
import * as passkeyRegistration from '../../functions/passkey-registration';
import * as passkeyRegistrationOptions from '../../functions/passkey-registration-options';
import * as passwordForgot from '../../functions/password-forgot';
import * as passwordReset from '../../functions/password-reset';
import * as oauth2ReadClient from '../../functions/read-oauth2-client';
import * as reauthenticate from '../../functions/reauthenticate';
import * as refresh from '../../functions/refresh-token';
import * as register from '../../functions/register';
import * as passkeyRemove from '../../functions/remove-passkey';
import * as oauth2Revoke from '../../functions/revoke';
import * as revokeGrant from '../../functions/revoke-grant';
import * as revokeOtherSessions from '../../functions/revoke-other-sessions';
import * as revokeSession from '../../functions/revoke-session';
import * as oauth2RotateClientSecret from '../../functions/rotate-oauth2-client-secret';
import * as oauth2UpdateClient from '../../functions/update-oauth2-client';
import * as oauth2UserInfo from '../../functions/user-info';
import * as mfaVerify from '../../functions/verify-mfa';
import type { Deps } from '../../lib/deps';
import { identityFromEvent } from '../../lib/http/identity';
import { apiEvent, call, type RequestSpec, type Response, withAuthorizerContext } from './http';

const routes = {
  login: { module: login, method: 'POST', path: '/auth/login', authorizer: false },
  refresh: { module: refresh, method: 'POST', path: '/auth/refresh', authorizer: false },
  register: { module: register, method: 'POST', path: '/auth/register', authorizer: true },
  logout: { module: logout, method: 'POST', path: '/auth/logout', authorizer: true },
  me: { module: me, method: 'GET', path: '/auth/me', authorizer: true },
  mfaEnable: { module: mfaEnable, method: 'POST', path: '/auth/mfa/enable', authorizer: true },
  mfaVerify: { module: mfaVerify, method: 'POST', path: '/auth/mfa/verify', authorizer: true },
  reauthenticate: { module: reauthenticate, method: 'POST', path: '/auth/reauthenticate', authorizer: true },
  passwordChange: { module: passwordChange, method: 'POST', path: '/auth/password/change', authorizer: true },
  jwks: { module: jwks, method: 'GET', path: '/.well-known/jwks.json', authorizer: false },
  oauth2Authorize: { module: oauth2Authorize, method: 'GET', path: '/oauth2/authorize', authorizer: true },
  oauth2CreateClient: { module: oauth2CreateClient, method: 'POST', path: '/oauth2/clients', authorizer: true },
  // No authorizer: the Authorization header carries the client's HTTP Basic credentials.
  oauth2Token: { module: oauth2Token, method: 'POST', path: '/oauth2/token', authorizer: false },
  oauth2Revoke: { module: oauth2Revoke, method: 'POST', path: '/oauth2/revoke', authorizer: false },
  oauth2Introspect: { module: oauth2Introspect, method: 'POST', path: '/oauth2/introspect', authorizer: false },
  oauth2Metadata: { module: oauth2Metadata, method: 'GET', path: '/.well-known/oauth-authorization-server', authorizer: false },
  adminListUsers: { module: adminListUsers, method: 'GET', path: '/admin/users', authorizer: true },
  adminReadUser: { module: adminReadUser, method: 'GET', path: '/admin/users/{userId}', authorizer: true },
  adminUpdateUser: { module: adminUpdateUser, method: 'PATCH', path: '/admin/users/{userId}', authorizer: true },
  adminDeleteUser: { module: adminDeleteUser, method: 'DELETE', path: '/admin/users/{userId}', authorizer: true },
  adminResetUserMfa: { module: adminResetUserMfa, method: 'POST', path: '/admin/users/{userId}/mfa/reset', authorizer: true },
  adminSignOutUser: { module: adminSignOutUser, method: 'DELETE', path: '/admin/users/{userId}/sessions', authorizer: true },
  // OAuth client lifecycle (docs/api.md 9.9-9.13)
  oauth2ListClients: { module: oauth2ListClients, method: 'GET', path: '/oauth2/clients', authorizer: true },
  oauth2ReadClient: { module: oauth2ReadClient, method: 'GET', path: '/oauth2/clients/{clientId}', authorizer: true },
  oauth2UpdateClient: { module: oauth2UpdateClient, method: 'PATCH', path: '/oauth2/clients/{clientId}', authorizer: true },
  oauth2DeleteClient: { module: oauth2DeleteClient, method: 'DELETE', path: '/oauth2/clients/{clientId}', authorizer: true },
  oauth2RotateClientSecret: {
    module: oauth2RotateClientSecret,
    method: 'POST',
    path: '/oauth2/clients/{clientId}/secrets',
    authorizer: true,
  },
  // MFA lifecycle (docs/api.md 8.6).
  mfaList: { module: mfaList, method: 'GET', path: '/auth/mfa', authorizer: true },
  mfaDisable: { module: mfaDisable, method: 'POST', path: '/auth/mfa/disable', authorizer: true },
  mfaRecoveryCodes: { module: mfaRecoveryCodes, method: 'POST', path: '/auth/mfa/recovery-codes', authorizer: true },
  // Sessions and authorized apps (docs/api.md 8.3-8.5)
  listSessions: { module: listSessions, method: 'GET', path: '/auth/sessions', authorizer: true },
  revokeSession: { module: revokeSession, method: 'DELETE', path: '/auth/sessions/{sessionId}', authorizer: true },
  revokeOtherSessions: { module: revokeOtherSessions, method: 'DELETE', path: '/auth/sessions', authorizer: true },
  listGrants: { module: listGrants, method: 'GET', path: '/auth/grants', authorizer: true },
  revokeGrant: { module: revokeGrant, method: 'DELETE', path: '/auth/grants/{grantId}', authorizer: true },
  getAccount: { module: getAccount, method: 'GET', path: '/auth/account', authorizer: true },
  // Shops and the audit trail (docs/api.md 9.7, 9.8)
  adminCreateShop: { module: adminCreateShop, method: 'POST', path: '/admin/shops', authorizer: true },
  adminListShops: { module: adminListShops, method: 'GET', path: '/admin/shops', authorizer: true },
  adminListAudit: { module: adminListAudit, method: 'GET', path: '/admin/audit', authorizer: true },
  // Forgotten password and email (docs/api.md 8.7, 8.8)
  passwordForgot: { module: passwordForgot, method: 'POST', path: '/auth/password/forgot', authorizer: false },
  passwordReset: { module: passwordReset, method: 'POST', path: '/auth/password/reset', authorizer: false },
  emailSet: { module: emailSet, method: 'PUT', path: '/auth/email', authorizer: true },
  emailVerify: { module: emailVerify, method: 'POST', path: '/auth/email/verify', authorizer: true },
  // OpenID Connect (docs/api.md 11.2, 11.3): userinfo takes an OAuth access token, not the authorizer's session token.
  userInfo: { module: oauth2UserInfo, method: 'GET', path: '/oauth2/userinfo', authorizer: false },
  userInfoPost: { module: oauth2UserInfo, method: 'POST', path: '/oauth2/userinfo', authorizer: false },
  openIdConfiguration: { module: openIdConfiguration, method: 'GET', path: '/.well-known/openid-configuration', authorizer: false },
  // Browser sign-in: the hosted pages' forms (docs/api.md 11.7).
  hostedSignIn: { module: hostedSignIn, method: 'POST', path: '/oauth2/hosted/sign-in', authorizer: false },
  hostedSecondFactor: { module: hostedSecondFactor, method: 'POST', path: '/oauth2/hosted/second-factor', authorizer: false },
  hostedConsent: { module: hostedConsent, method: 'POST', path: '/oauth2/hosted/consent', authorizer: false },
  // RP-initiated logout (docs/api.md 11.12): the browser session's cookie says who is there.
  oauth2Logout: { module: oauth2Logout, method: 'GET', path: '/oauth2/logout', authorizer: false },
  oauth2LogoutPost: { module: oauth2Logout, method: 'POST', path: '/oauth2/logout', authorizer: false },
  // Tenant settings (docs/api.md 9.14).
  adminReadTenant: { module: adminReadTenant, method: 'GET', path: '/admin/tenant', authorizer: true },
  adminUpdateTenant: { module: adminUpdateTenant, method: 'PATCH', path: '/admin/tenant', authorizer: true },
  // Passkeys (docs/api.md 12).
  passkeyRegistrationOptions: {
    module: passkeyRegistrationOptions,
    method: 'POST',
    path: '/auth/passkeys/registration/options',
    authorizer: true,
  },
  passkeyRegistration: { module: passkeyRegistration, method: 'POST', path: '/auth/passkeys/registration', authorizer: true },
  passkeysList: { module: passkeysList, method: 'GET', path: '/auth/passkeys', authorizer: true },
  passkeyRemove: { module: passkeyRemove, method: 'DELETE', path: '/auth/passkeys/{id}', authorizer: true },
  passkeyAuthenticationOptions: {
    module: passkeyAuthenticationOptions,
    method: 'POST',
    path: '/auth/passkeys/authentication/options',
    authorizer: false,
  },
  passkeyAuthentication: { module: passkeyAuthentication, method: 'POST', path: '/auth/passkeys/authentication', authorizer: false },
  // Passkeys on the hosted pages (docs/api.md 11.11).
  hostedPasskeySignIn: { module: hostedPasskeySignIn, method: 'POST', path: '/oauth2/hosted/passkey', authorizer: false },
  hostedPasskeysPage: { module: hostedPasskeysPage, method: 'GET', path: '/oauth2/hosted/passkeys', authorizer: false },
  hostedPasskeyRegister: { module: hostedPasskeyRegister, method: 'POST', path: '/oauth2/hosted/passkeys', authorizer: false },
} as const;

export type RouteName = keyof typeof routes;

export interface AppRequest extends Omit<RequestSpec, 'identity'> {
  /** An access token sent as `Authorization: Bearer`; the authorizer turns it into context. */
  token?: string;
}

/** The service's functions wired to one set of deps (testApp's result). */
export type App = ReturnType<typeof testApp>;

/**
 * The functions as API Gateway runs them: for routes with the authorizer, the
 * authorizer runs first on the same event and its context is handed on.
 */
export function testApp(deps: Deps) {
  const authorize = authorizer.makeHandler(deps);
  const handlers = Object.fromEntries(Object.entries(routes).map(([name, route]) => [name, route.module.makeHandler(deps)])) as Record<
    RouteName,
    unknown
  >;

  async function request(name: RouteName, spec: AppRequest = {}): Promise<Response> {
    const route = routes[name];
    const headers = { ...spec.headers, ...(spec.token ? { authorization: `Bearer ${spec.token}` } : {}) };
    let authorizerContext: Record<string, string> | undefined;
    if (route.authorizer) {
      const event = apiEvent({ method: route.method, path: route.path, headers });
      const result = await authorize(event as unknown as APIGatewayRequestAuthorizerEventV2);
      authorizerContext = result.context;
    }
    return call(handlers[name], { method: route.method, path: route.path, ...spec, headers, authorizerContext });
  }

  /** The identity the authorizer gives a token, or null. */
  async function identityOf(token: string) {
    const event = apiEvent({ headers: { authorization: `Bearer ${token}` } });
    const result = await authorize(event as unknown as APIGatewayRequestAuthorizerEventV2);
    return identityFromEvent(withAuthorizerContext(event, result.context ?? {}));
  }

  return { request, identityOf, authorize };
}

/** Registers the first ADMIN of a new tenant and returns the answer's data. */
/**
 * A user registered by an ADMIN (who gets no session of theirs, docs/api.md 4.3), then
 * logged in: their own session.
 */
export async function registerStaff(
  app: App,
  adminToken: string,
  body: { username: string; password: string; role: string; tenantId: string },
) {
  const registered = await app.request('register', { token: adminToken, body });
  if (registered.status !== 201) throw new Error(`register failed: ${JSON.stringify(registered.body)}`);
  const login = await app.request('login', { body: { username: body.username, password: body.password, tenantId: body.tenantId } });
  if (login.status !== 200) throw new Error(`login failed: ${JSON.stringify(login.body)}`);
  return login.body.data as Awaited<ReturnType<typeof registerAdmin>>;
}

export async function registerAdmin(app: App, tenantId: string, username = 'admin', password = 'correct horse battery') {
  const response = await app.request('register', { body: { username, password, role: 'ADMIN', tenantId } });
  if (response.status !== 201) throw new Error(`register failed: ${JSON.stringify(response.body)}`);
  return response.body.data as {
    token: string;
    refreshToken: string;
    user: { id: string; username: string; role: string; tenantId: string; shopId: string };
    /** The device token of the registering device (docs/api.md 10). */
    deviceToken: string;
  };
}
