/** What a route handler returns; `lib/http/respond` turns it into the Lambda result. */
export interface Reply {
  statusCode: number;
  headers?: Record<string, string>;
  /** Serialised as JSON; absent for bodiless answers such as redirects. */
  json?: unknown;
  /** An HTML document, sent as it is: a hosted page, whose headers come with it (lib/hosted/http.tsx). */
  html?: string;
  /** `Set-Cookie` lines (payload 2.0 `cookies`). */
  cookies?: string[];
}

/** The success envelope (docs/api.md 2). */
export function ok(data: unknown, statusCode = 200, headers: Record<string, string> = {}): Reply {
  return { statusCode, headers, json: { success: true, data } };
}

/** A JSON document outside the envelope (JWKS, metadata, RFC-format OAuth answers). */
export function document(json: unknown, statusCode = 200, headers: Record<string, string> = {}): Reply {
  return { statusCode, headers, json };
}

export function redirect(location: string): Reply {
  return { statusCode: 302, headers: { Location: location } };
}
