import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type * as authorizer from '../../functions/authorizer';
import type { Deps } from '../../lib/deps';
import { type Route, routesFromServerlessYml } from '../../scripts/lib/serverless-routes';
import type { ApiServer, HttpRoute } from './http-server';

/** What every function module exports: its handler, made from deps (STYLE.md). */
export interface FunctionModule {
  makeHandler(deps: Deps): unknown;
}

/** A serverless.yml function with its HTTP events and its module, imported from functions/. */
export interface RoutedFunction {
  functionName: string;
  /** Its events in the file's order (userInfo and oauth2Logout have a GET and a POST). */
  events: Route[];
  module: FunctionModule;
}

const serverlessYml = fileURLToPath(new URL('../../serverless.yml', import.meta.url));
const table = routesFromServerlessYml(readFileSync(serverlessYml, 'utf8'));

async function load(bundle: string): Promise<FunctionModule> {
  const module: Partial<FunctionModule> = await import(`../../functions/${bundle}.ts`);
  if (typeof module.makeHandler !== 'function') throw new Error(`functions/${bundle}.ts exports no makeHandler(deps)`);
  return module as FunctionModule;
}

/**
 * Every HTTP function of serverless.yml, by its key there: the one place a route is
 * declared. Tests, the test app and the e2e servers read the routes from here.
 */
export const routedFunctions: ReadonlyMap<string, RoutedFunction> = new Map(
  await Promise.all(
    [...new Set(table.routes.map((route) => route.functionName))].map(async (functionName) => {
      const events = table.routes.filter((route) => route.functionName === functionName);
      return [functionName, { functionName, events, module: await load(events[0]?.bundle ?? '') }] as const;
    }),
  ),
);

/** The session authorizer's module (serverless.yml `httpApi.authorizers.session`). */
export const authorizerModule: FunctionModule = await load(table.authorizerBundle);

/** The routed function of that name, or an error that lists the names serverless.yml has. */
export function routedFunction(name: string): RoutedFunction {
  const found = routedFunctions.get(name);
  if (!found) throw new Error(`serverless.yml routes no function ${name}; its routed functions: ${[...routedFunctions.keys()].join(', ')}`);
  return found;
}

/** The event of a function to use for a request: the one with that method, else its first. */
export function eventOf(routed: RoutedFunction, method: string | undefined): Route {
  const event = routed.events.find((candidate) => candidate.method === method?.toUpperCase()) ?? routed.events[0];
  if (!event) throw new Error(`serverless.yml gives ${routed.functionName} no httpApi event`);
  return event;
}

/**
 * Serves every HTTP route of serverless.yml on an e2e server, each function made from
 * `deps`, with the session authorizer before the routes that have it there: adding a
 * route to serverless.yml adds it here.
 */
export function mountServerlessRoutes(server: ApiServer, deps: Deps): void {
  const routes: HttpRoute[] = [...routedFunctions.values()].flatMap(({ events, module }) => {
    const handler = module.makeHandler(deps);
    return events.map(({ method, path, authorizer }) => ({ method, path, handler, authorizer }));
  });
  server.mount(routes, authorizerModule.makeHandler(deps) as ReturnType<typeof authorizer.makeHandler>);
}
