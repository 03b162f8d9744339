import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { readConfig } from '../../lib/config';
import type { HttpHandler } from '../../lib/http/handler';
import { createLogger } from '../../lib/log';
import type { Identity } from '../../lib/tokens/access-token';
import { failure as envelope } from '../helpers/failures';
import { lambdaContext, type Response } from '../helpers/http';

/** Two front ends may call the API: CORS is checked against these origins. */
export const config = readConfig({ CORS_ALLOWED_ORIGINS: 'https://app.example.com,https://admin.example.com' });

export const identity: Identity = {
  userId: 'u1',
  username: 'ann',
  role: 'OPERATOR',
  tenantId: 't1',
  shopId: 's1',
  sessionId: 'sid',
  amr: ['pwd'],
  authTime: 1_700_000_000,
};

/** What @middy/http-security-headers adds to every answer, as configured in lib/http/handler. */
export const SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; require-trusted-types-for 'script'; sandbox; upgrade-insecure-requests",
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Referrer-Policy': 'no-referrer',
  'Strict-Transport-Security': 'max-age=15552000; includeSubDomains',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
};

/** The headers of every JSON answer to a request without an `Origin`. */
export const JSON_HEADERS = {
  'Content-Type': 'application/json; charset=utf-8',
  'Cache-Control': 'no-store',
  Vary: 'Origin',
  ...SECURITY_HEADERS,
};

/** The whole failure answer in the envelope. */
export function failure(status: number, error: string, headers: Record<string, string> = {}): Response {
  return { status, headers: { ...JSON_HEADERS, ...headers }, body: envelope(error) };
}

/** The whole success answer in the envelope. */
export function success(data: unknown, headers: Record<string, string> = {}): Response {
  return { status: 200, headers: { ...JSON_HEADERS, ...headers }, body: { success: true, data } };
}

/** The deps the chain needs, with the log lines kept. */
export function chainDeps() {
  const lines: string[] = [];
  return { deps: { config, log: createLogger('debug', (line) => lines.push(line)) }, lines };
}

/** Runs a chain on an event built by hand (e.g. one without a content type) and parses the answer. */
export async function send(handler: HttpHandler, event: APIGatewayProxyEventV2): Promise<Response> {
  const result = await handler(event, lambdaContext);
  return {
    status: result.statusCode ?? 200,
    headers: Object.fromEntries(Object.entries(result.headers ?? {}).map(([name, value]) => [name, String(value)])),
    body: result.body ? JSON.parse(result.body) : undefined,
  };
}
