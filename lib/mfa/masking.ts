/**
 * A phone number or email address as an answer (docs/api.md 8.6) or a log line may show
 * it: enough for its owner to recognise, not enough to use. A phone number keeps its
 * last 2 digits; an address its first character and its domain.
 */
export function maskDestination(destination: string): string {
  const at = destination.indexOf('@');
  if (at > 0) return `${destination.slice(0, 1)}***${destination.slice(at)}`;
  return `${'*'.repeat(Math.max(0, destination.length - 2))}${destination.slice(-2)}`;
}
