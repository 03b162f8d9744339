import { formatRefreshToken as formatFamilyToken, parseRefreshToken as parseFamilyToken } from '../token-families/refresh-family';

/**
 * Session refresh tokens: `<tenant>.<session id>.<generation>.<secret>`. The tenant
 * (base64url) and session id route the token to its session record (whose key starts
 * with the tenant) without a lookup table.
 */
export interface RefreshToken {
  tenantId: string;
  sessionId: string;
  generation: number;
  secret: string;
}

const SEGMENT = /^[A-Za-z0-9_-]+$/;

export function formatRefreshToken({ tenantId, sessionId, generation, secret }: RefreshToken): string {
  return formatFamilyToken([Buffer.from(tenantId, 'utf8').toString('base64url'), sessionId], generation, secret);
}

/** The parts of a refresh token, or undefined for anything that cannot be one. */
export function parseRefreshToken(token: string): RefreshToken | undefined {
  const parsed = parseFamilyToken(token, 2, SEGMENT);
  const [tenant, sessionId] = parsed?.route ?? [];
  if (!parsed || !tenant || !sessionId) return undefined;
  const tenantId = Buffer.from(tenant, 'base64url').toString('utf8');
  if (!tenantId || Buffer.from(tenantId, 'utf8').toString('base64url') !== tenant) return undefined;
  return { tenantId, sessionId, generation: parsed.generation, secret: parsed.secret };
}
