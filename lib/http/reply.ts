/**
 * What a route handler returns; `lib/http/respond` turns it into the Lambda result. `J`
 * is the JSON body's type: a route that declares its `response` schema gets its
 * handler's answers checked against it (lib/http/handler.ts).
 */
export interface Reply<J = unknown> {
  statusCode: number;
  headers?: Record<string, string>;
  /** Serialised as JSON; absent for bodiless answers such as redirects. */
  json?: J;
  /** An HTML document, sent as it is: a hosted page, whose headers come with it (lib/hosted/http.tsx). */
  html?: string;
  /** `Set-Cookie` lines (payload 2.0 `cookies`). */
  cookies?: string[];
}

/** The success envelope (docs/api.md 2) of `data`. */
export interface Success<T> {
  success: true;
  data: T;
}

/**
 * The success envelope (docs/api.md 2). `T` is not taken from `data` but from where the
 * reply goes: in the handler of a route with a `response` schema, `data` must be what
 * the schema describes, its fields and no others when written out.
 */
export function ok<T = unknown>(data: NoInfer<T>, statusCode = 200, headers: Record<string, string> = {}): Reply<Success<T>> {
  return { statusCode, headers, json: { success: true, data } };
}

/** A JSON document outside the envelope (JWKS, metadata, RFC-format OAuth answers). */
export function document<J>(json: J, statusCode = 200, headers: Record<string, string> = {}): Reply<J> {
  return { statusCode, headers, json };
}

/** A redirect: no body, so it fits every route. */
export function redirect(location: string): Reply<never> {
  return { statusCode: 302, headers: { Location: location } };
}
