import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/** Where a request came from, as the audit trail records it (docs/api.md 9.8). */
export interface RequestSource {
  ipAddress: string | null;
  userAgent: string | null;
}

/** The caller's user agent is theirs to write: kept to this many characters. */
const USER_AGENT_MAX = 256;

/** The address API Gateway saw (not a header the caller sets) and the caller's user agent. */
export function requestSource(event: APIGatewayProxyEventV2): RequestSource {
  const http = event.requestContext?.http;
  const userAgent = http?.userAgent ?? event.headers?.['user-agent'];
  return {
    ipAddress: http?.sourceIp ? http.sourceIp.slice(0, 64) : null,
    userAgent: userAgent ? userAgent.slice(0, USER_AGENT_MAX) : null,
  };
}
