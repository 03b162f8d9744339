import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { oneLineName } from '../admin/schemas';
import { byAdmin, recordEvent, type ScimCaller } from '../audit/record';
import { epochSeconds } from '../clock';
import { constantEquals } from '../crypto/constant-equals';
import { hashToken } from '../crypto/token-hash';
import type { Deps } from '../deps';
import { NotFoundError } from '../errors';
import { adminEvent } from '../events/by-admin';
import { bearerToken } from '../oidc/userinfo';
import type { ScimToken } from '../store/scim-tokens';
import type { Identity } from '../tokens/access-token';
import * as z from '../zod';
import { ScimError, scimErrors } from './errors';

export const SCIM_TOKEN_NOT_FOUND = 'SCIM token not found';
export const SCIM_TOKEN_DELETED = 'SCIM token deleted';

/**
 * docs/api.md 13.3: requests one SCIM token may make: 600 a minute (10 a second on
 * average), well above what Okta and Entra ID send while provisioning, and a bound on what
 * a leaked token costs the table.
 */
export const SCIM_REQUEST_BUDGET = { max: 600, windowSeconds: 60 };

/** POST /admin/scim-tokens (docs/api.md 13.3): a name the tenant's ADMINs recognise the token by (its IdP). */
export const newScimToken = z.strictObject({ name: oneLineName });

/** A SCIM token as the tenant administration answers with it: never the token or its hash. */
export interface ScimTokenView {
  id: string;
  name: string;
  createdAt: string;
}

type ScimTokenDeps = Pick<Deps, 'config' | 'clock' | 'random' | 'log' | 'store' | 'source'>;

const viewOf = (token: ScimToken): ScimTokenView => ({ id: token.id, name: token.name, createdAt: token.createdAt });

/**
 * A token names its tenant and id before its secret (256 random bits): `<tenant, base64url>.<id>.<secret>`.
 * Only its SHA-256 is stored; the tenant and id say which record to compare it with.
 */
export const formatScimToken = (tenantId: string, id: string, secret: string) =>
  `${Buffer.from(tenantId).toString('base64url')}.${id}.${secret}`;

/** A tenant id of up to 512 bytes (docs/api.md 10.2) is up to 683 characters of base64url. */
function partsOf(token: string): { tenantId: string; tokenId: string } | undefined {
  const match = /^([A-Za-z0-9_-]{1,683})\.([0-9a-f-]{36})\.[A-Za-z0-9_-]{43}$/.exec(token);
  if (!match?.[1] || !match[2]) return undefined;
  return { tenantId: Buffer.from(match[1], 'base64url').toString('utf8'), tokenId: match[2] };
}

/** docs/api.md 13.3: a new SCIM token of the ADMIN's tenant, shown this once. */
export async function createScimToken(
  deps: ScimTokenDeps,
  admin: Identity,
  name: string,
): Promise<{ scimToken: ScimTokenView; token: string }> {
  const id = deps.random.id();
  const token = formatScimToken(admin.tenantId, id, deps.random.token(32));
  const stored: ScimToken = {
    tenantId: admin.tenantId,
    id,
    name,
    tokenHash: hashToken(token),
    createdAt: new Date(deps.clock.now()).toISOString(),
    createdBy: admin.userId,
  };
  const created = adminEvent(deps, admin, 'identity.scim_token.created', id, { name });
  await deps.store.emitting([created]).scimTokens.create(stored);
  deps.log.info('scim_token_created', { tenantId: admin.tenantId, actorId: admin.userId, scimTokenId: id });
  await recordEvent(deps, { ...byAdmin(admin), type: 'scim_token_created', outcome: 'success', details: { name } });
  return { scimToken: viewOf(stored), token };
}

/** docs/api.md 13.3: the tenant's SCIM tokens, oldest first. */
export async function listScimTokens(deps: Pick<Deps, 'store'>, admin: Identity): Promise<ScimTokenView[]> {
  return (await deps.store.scimTokens.list(admin.tenantId)).map(viewOf);
}

/** docs/api.md 13.3: deletes a token of the tenant; its next request is refused. */
export async function deleteScimToken(deps: ScimTokenDeps, admin: Identity, tokenId: string): Promise<void> {
  const deleted = adminEvent(deps, admin, 'identity.scim_token.deleted', tokenId);
  if (!(await deps.store.emitting([deleted]).scimTokens.remove(admin.tenantId, tokenId))) throw new NotFoundError(SCIM_TOKEN_NOT_FOUND);
  deps.log.info('scim_token_deleted', { tenantId: admin.tenantId, actorId: admin.userId, scimTokenId: tokenId });
  await recordEvent(deps, { ...byAdmin(admin), type: 'scim_token_deleted', outcome: 'success' });
}

/** The SCIM caller of each request that authenticated (set by scimAuthentication, read by scimCallerOf). */
const callers = new WeakMap<APIGatewayProxyEventV2, ScimCaller>();

/**
 * docs/api.md 13.3: the SCIM routes' authentication. The bearer token's record is read on
 * every request (no cache), so a deleted token is refused on the next one (401); each
 * request counts against the token's budget (429 with Retry-After).
 */
export function scimAuthentication(deps: Pick<Deps, 'store' | 'clock'>) {
  return async (event: APIGatewayProxyEventV2): Promise<void> => {
    const token = bearerToken(event.headers?.authorization);
    const parts = token === undefined ? undefined : partsOf(token);
    if (!token || !parts) throw scimErrors.unauthorized();
    const stored = await deps.store.scimTokens.find(parts.tenantId, parts.tokenId);
    if (!stored || !constantEquals(hashToken(token), stored.tokenHash)) throw scimErrors.unauthorized();
    const verdict = await deps.store.attempts.reserve({ kind: 'scim', ...parts }, epochSeconds(deps.clock), SCIM_REQUEST_BUDGET);
    if (!verdict.allowed) {
      throw new ScimError(429, 'Too many requests', 'tooMany', { 'Retry-After': String(Math.max(1, verdict.retryAfterSeconds)) });
    }
    callers.set(event, { tenantId: stored.tenantId, scimTokenId: stored.id });
  };
}

/** The SCIM caller the route's authentication found for this request. */
export function scimCallerOf(event: APIGatewayProxyEventV2): ScimCaller {
  const caller = callers.get(event);
  if (!caller) throw new Error('scimCallerOf: the route has no scimAuthentication');
  return caller;
}
