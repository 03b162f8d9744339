import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/**
 * Where a sign-in or refresh came from, as a session records it for its owner's session
 * list (docs/api.md 8.3): the browser's or app's `User-Agent` and the source address API
 * Gateway saw (never `X-Forwarded-For`, which the caller writes). Informative only: no
 * decision is taken on either.
 */
export interface Device {
  userAgent?: string | undefined;
  ipAddress?: string | undefined;
}

/** The longest user agent a session keeps (a real one is far shorter; the header is the caller's). */
export const USER_AGENT_MAX = 256;
/** An IPv6 address with a zone is at most 45 characters; anything longer is not an address. */
const IP_ADDRESS_MAX = 64;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

/** A high surrogate without its low one, or a low one without its high one. */
export const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Control characters go and unpaired surrogates become U+FFFD (the table stores UTF-8);
 * the text is cut to `max` UTF-16 units without splitting a surrogate pair.
 */
function bounded(value: string | undefined, max: number): string | undefined {
  const clean = value?.replace(UNPAIRED_SURROGATE, '\ufffd').replace(CONTROL_CHARACTERS, ' ').trim();
  if (!clean) return undefined;
  const cut = clean.slice(0, max);
  return /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** The device of a request: its user agent (bounded) and its source address. */
export function deviceOf(event: Pick<APIGatewayProxyEventV2, 'headers' | 'requestContext'>): Device {
  const http = event.requestContext?.http;
  return {
    userAgent: bounded(event.headers?.['user-agent'] ?? http?.userAgent, USER_AGENT_MAX),
    ipAddress: bounded(http?.sourceIp, IP_ADDRESS_MAX),
  };
}
