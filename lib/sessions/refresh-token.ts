/**
 * Refresh tokens: `<tenant>.<session id>.<generation>.<secret>`. The secret is 256
 * random bits; the rest routes the token to its session record (whose key starts with
 * the tenant) without a lookup table. Only the SHA-256 of the whole token is stored.
 */
export interface RefreshToken {
  tenantId: string;
  sessionId: string;
  generation: number;
  secret: string;
}

const SEGMENT = /^[A-Za-z0-9_-]+$/;

export function formatRefreshToken({ tenantId, sessionId, generation, secret }: RefreshToken): string {
  return [Buffer.from(tenantId, 'utf8').toString('base64url'), sessionId, String(generation), secret].join('.');
}

/** The parts of a refresh token, or undefined for anything that cannot be one. */
export function parseRefreshToken(token: string): RefreshToken | undefined {
  const parts = token.split('.');
  if (parts.length !== 4 || !parts.every((part) => SEGMENT.test(part))) return undefined;
  const [tenant, sessionId, generation, secret] = parts as [string, string, string, string];
  if (!/^(0|[1-9][0-9]{0,8})$/.test(generation)) return undefined;
  const tenantId = Buffer.from(tenant, 'base64url').toString('utf8');
  if (!tenantId || Buffer.from(tenantId, 'utf8').toString('base64url') !== tenant) return undefined;
  return { tenantId, sessionId, generation: Number(generation), secret };
}
