import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routesFromServerlessYml } from '../../scripts/lib/serverless-routes';
import { type App, registerAdmin, testApp } from './app';
import { testDeps, uniqueTenant } from './deps';
import { type ApiServer, startApiServer } from './http-server';
import { mountServerlessRoutes, routedFunctions } from './routes';

describe('the test app: every route of serverless.yml, by its function name there', () => {
  let app: App;

  beforeAll(async () => {
    app = testApp(await testDeps());
  });

  it('has exactly the routed functions of serverless.yml, each with its events', async () => {
    const { routes } = routesFromServerlessYml(await readFile('serverless.yml', 'utf8'));
    const loaded = [...routedFunctions.values()].flatMap(({ events }) => events.map((e) => `${e.functionName} ${e.method} ${e.path}`));
    expect(loaded.sort()).toEqual(routes.map((route) => `${route.functionName} ${route.method} ${route.path}`).sort());
    expect(routedFunctions.get('userInfo')?.events.map((event) => event.method)).toEqual(['GET', 'POST']);
  });

  it('refuses a name serverless.yml does not route, listing the names it does', async () => {
    await expect(app.request('refresh')).rejects.toThrow(
      /^serverless\.yml routes no function refresh; its routed functions: login, refreshToken, register, .*oauth2Logout/,
    );
  });

  it('runs the authorizer where serverless.yml says so, and not elsewhere', async () => {
    const admin = await registerAdmin(app, uniqueTenant('app'));
    expect(await app.request('me', {})).toMatchObject({ status: 401, body: { success: false, error: 'Unauthorized' } });
    expect((await app.request('me', { token: admin.token })).body.data.user.userId).toBe(admin.user.id);
    const refreshed = await app.request('refreshToken', { body: { refreshToken: admin.refreshToken } });
    expect(refreshed.status).toBe(200);
  });

  it('takes the event of the method asked for, GET or POST, where a function has two', async () => {
    const answers = await Promise.all(['GET', 'POST', undefined].map((method) => app.request('oauth2Logout', method ? { method } : {})));
    // A GET shows the confirmation page; a POST without the form's fields is refused (docs/api.md 11.12).
    expect(answers.map((answer) => answer.status)).toEqual([200, 400, 200]);
  });
});

describe('mountServerlessRoutes: every route of serverless.yml over HTTP', () => {
  let server: ApiServer;

  beforeAll(async () => {
    server = await startApiServer();
    mountServerlessRoutes(server, await testDeps({ ISSUER: server.url }));
  });

  afterAll(() => server.close());

  const send = async (method: string, path: string, token?: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: await response.json() };
  };

  it('serves a route with a path parameter behind the authorizer, as API Gateway does', async () => {
    const tenantId = uniqueTenant('mount');
    const registered = await send('POST', '/auth/register', undefined, {
      username: 'admin',
      password: 'correct horse battery',
      role: 'ADMIN',
      tenantId,
    });
    expect(registered.status).toBe(201);
    const { token, user } = registered.body.data;
    expect(await send('GET', `/admin/users/${user.id}`)).toMatchObject({ status: 403 });
    expect(await send('GET', `/admin/users/${user.id}`, token)).toMatchObject({ status: 200, body: { data: { user: { id: user.id } } } });
    expect(await send('GET', '/.well-known/jwks.json')).toMatchObject({ status: 200, body: { keys: expect.any(Array) } });
  });

  it('answers 404 for a path or method serverless.yml does not route', async () => {
    expect(await send('GET', '/auth/nowhere')).toEqual({ status: 404, body: { message: 'Not Found' } });
    expect(await send('PUT', '/auth/login')).toEqual({ status: 404, body: { message: 'Not Found' } });
  });
});
