import { AsyncLocalStorage } from 'node:async_hooks';
import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import type * as authorizer from '../../functions/authorizer';
import type { Deps } from '../../lib/deps';
import { identityFromEvent } from '../../lib/http/identity';
import { apiEvent, call, type RequestSpec, type Response, withAuthorizerContext } from './http';
import { authorizerModule, eventOf, routedFunction, routedFunctions } from './routes';

/**
 * A function's key in serverless.yml (`refreshToken`, `userInfo`). Checked when called,
 * against serverless.yml itself, so that no second list of names is kept here.
 */
export type RouteName = string;

export interface AppRequest extends Omit<RequestSpec, 'identity'> {
  /** An access token sent as `Authorization: Bearer`; the authorizer turns it into context. */
  token?: string;
}

/**
 * The function at work: `authorizer`, or the route (`POST /auth/login`) of the function
 * being made or invoked. test/deploy/roles-and-settings.test.ts attributes to it the AWS
 * operations and the settings it uses.
 */
export const runningFunction = new AsyncLocalStorage<string>();

/** The service's functions wired to one set of deps (testApp's result). */
export type App = ReturnType<typeof testApp>;

/**
 * The functions as API Gateway runs them: for routes with the authorizer, the
 * authorizer runs first on the same event and its context is handed on.
 */
export function testApp(deps: Deps) {
  const authorizerHandler = runningFunction.run('authorizer', () => authorizerModule.makeHandler(deps)) as ReturnType<
    typeof authorizer.makeHandler
  >;
  const authorize: typeof authorizerHandler = (event) => runningFunction.run('authorizer', () => authorizerHandler(event));
  const labelOf = (route: { method: string; path: string }) => `${route.method} ${route.path}`;
  const handlers = new Map(
    [...routedFunctions].map(([name, routed]) => [
      name,
      runningFunction.run(labelOf(eventOf(routed, undefined)), () => routed.module.makeHandler(deps)),
    ]),
  );

  /**
   * Calls a function by its serverless.yml key. A function with several events
   * (userInfo, oauth2Logout: GET and POST) takes the one of `spec.method`, else its first.
   */
  async function request(name: RouteName, spec: AppRequest = {}): Promise<Response> {
    const route = eventOf(routedFunction(name), spec.method);
    const headers = { ...spec.headers, ...(spec.token ? { authorization: `Bearer ${spec.token}` } : {}) };
    let authorizerContext: Record<string, string> | undefined;
    if (route.authorizer) {
      const event = apiEvent({ method: route.method, path: route.path, headers });
      const result = await authorize(event as unknown as APIGatewayRequestAuthorizerEventV2);
      authorizerContext = result.context;
    }
    return runningFunction.run(labelOf(route), () =>
      call(handlers.get(name), { method: route.method, path: route.path, ...spec, headers, authorizerContext }),
    );
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
