/** RFC 6749 3.3: `scope-token = 1*( %x21 / %x23-5B / %x5D-7E )`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/**
 * The scope tokens of a space-separated scope string, each once and in order, or
 * undefined when a token has characters RFC 6749 3.3 does not allow.
 */
export function parseScope(value: string): string[] | undefined {
  const tokens = value.split(' ').filter(Boolean);
  if (!tokens.every((token) => SCOPE_TOKEN.test(token))) return undefined;
  return [...new Set(tokens)];
}

/** Whether every requested scope token is among the allowed ones. */
export function isWithinScope(requested: readonly string[], allowed: readonly string[]): boolean {
  return requested.every((token) => allowed.includes(token));
}

/** The scope string of a response or token (RFC 6749 3.3). */
export function formatScope(scope: readonly string[]): string {
  return scope.join(' ');
}

/**
 * The part of a granted scope that the client may still be given: a client whose scope
 * was narrowed since (docs/api.md 9.11) keeps only the intersection, in the grant's order.
 */
export function narrowedTo(granted: readonly string[], allowed: readonly string[]): string[] {
  return granted.filter((token) => allowed.includes(token));
}
