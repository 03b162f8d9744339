/**
 * The HTTP routes of serverless.yml, read without a YAML dependency: the benchmark
 * serves them, and the OpenAPI document (scripts/lib/openapi.ts) describes them.
 */

/** An HTTP route of serverless.yml and the bundle that serves it. */
export interface Route {
  method: string;
  path: string;
  /** The function's key in serverless.yml, e.g. `refreshToken`. */
  functionName: string;
  /** The bundle's base name in dist/functions, e.g. `refresh-token`. */
  bundle: string;
  /** Whether the `session` authorizer runs before the function. */
  authorizer: boolean;
}

export interface RouteTable {
  routes: Route[];
  /** Bundle of the session authorizer. */
  authorizerBundle: string;
  /** Every function of serverless.yml (routed or not) and its bundle, in the file's order. */
  functions: Array<{ functionName: string; bundle: string }>;
}

/**
 * The file (and bundle) name of a serverless.yml function: its key in kebab-case, with
 * `OAuth` one word (`createOAuth2Client` -> `create-oauth2-client`, `enableMFA` -> `enable-mfa`).
 */
export const functionFileName = (functionName: string) =>
  functionName
    .replace(/OAuth/g, 'Oauth')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();

const indentOf = (line: string) => line.length - line.trimStart().length;

/**
 * The HTTP routes of serverless.yml. A small reader for the shapes the file uses
 * (`- httpApi: { method, path, authorizer: { name } }`, in flow or block style),
 * so that what reads it follows the routes as they are added.
 */
export function routesFromServerlessYml(text: string): RouteTable {
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((line) => /^functions:\s*$/.test(line));
  if (start < 0) throw new Error('serverless.yml: no functions section');
  const handlers = new Map<string, string>();
  const routes: Route[] = [];
  let current: string | undefined;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    if (indentOf(line) === 0) break;
    const name = /^ {2}([A-Za-z0-9_-]+):\s*$/.exec(line)?.[1];
    if (name) {
      current = name;
      continue;
    }
    if (!current) continue;
    const handler = /^\s+handler:\s*dist\/functions\/([A-Za-z0-9_-]+)\.handler\s*$/.exec(line)?.[1];
    if (handler) handlers.set(current, handler);
    if (/^\s*-\s*httpApi:/.test(line)) {
      // The event item: this line and every following line indented deeper than its dash.
      const dash = line.indexOf('-');
      let item = line;
      while (i + 1 < lines.length && (lines[i + 1]?.trim() === '' || indentOf(lines[i + 1] ?? '') > dash)) item += `\n${lines[++i]}`;
      const method = /method:\s*['"]?([A-Za-z*]+)/.exec(item)?.[1];
      // A quoted path may hold `{name}` parameters; an unquoted one ends at `,` or `}`.
      const found = /path:\s*(?:'([^']+)'|"([^"]+)"|([^\s,}'"]+))/.exec(item);
      const path = found?.[1] ?? found?.[2] ?? found?.[3];
      if (!method || !path) throw new Error(`serverless.yml: cannot read the httpApi event of ${current}`);
      routes.push({
        method: method.toUpperCase(),
        path,
        functionName: current,
        bundle: '',
        authorizer: /authorizer:[\s\S]*name:\s*['"]?session\b/.test(item),
      });
    }
  }
  for (const route of routes) {
    const bundle = handlers.get(route.functionName);
    if (!bundle) throw new Error(`serverless.yml: no handler for ${route.functionName}`);
    route.bundle = bundle;
  }
  const authorizerFunction = /authorizers:\s*\n\s+session:[\s\S]*?functionName:\s*([A-Za-z0-9_-]+)/.exec(text)?.[1];
  const authorizerBundle = authorizerFunction ? handlers.get(authorizerFunction) : undefined;
  if (!authorizerBundle) throw new Error('serverless.yml: cannot find the session authorizer function');
  const functions = [...handlers].map(([functionName, bundle]) => ({ functionName, bundle }));
  return { routes, authorizerBundle, functions };
}
