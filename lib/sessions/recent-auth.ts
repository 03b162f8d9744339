import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { ForbiddenError } from '../errors';
import type { Identity } from '../tokens/access-token';

type RecentDeps = Pick<Deps, 'config' | 'clock'>;

/** A route's permission check (lib/http/middlewares/validate.ts `authorize`). */
export type Authorize = (identity: Identity | null, rawBody: Record<string, unknown>) => Promise<void>;

/**
 * The rule of every *(recent)* operation (docs/api.md 8.1): the session proved the
 * password or a factor (`authTime`) within `REAUTH_MAX_AGE_SECONDS`, otherwise 403
 * `Recent authentication required` (before validation, like every permission check).
 */
export function requireRecentAuthentication(deps: RecentDeps, identity: Pick<Identity, 'authTime'>): void {
  if (!isRecentAuthentication(deps, identity)) {
    throw new ForbiddenError('Recent authentication required', { code: 'RECENT_AUTH_REQUIRED' });
  }
}

/** Whether the session proved a credential within `REAUTH_MAX_AGE_SECONDS` (docs/api.md 8.1). */
export function isRecentAuthentication(deps: RecentDeps, identity: Pick<Identity, 'authTime'>): boolean {
  return epochSeconds(deps.clock) - identity.authTime <= deps.config.reauthMaxAgeSeconds;
}

/** A route's `authorize` for a *(recent)* operation, followed by the route's own check if it has one. */
export function recentAuthentication(deps: RecentDeps, then?: Authorize): Authorize {
  return async (identity, rawBody) => {
    if (identity) requireRecentAuthentication(deps, identity);
    await then?.(identity, rawBody);
  };
}
