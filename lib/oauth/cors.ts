import type { Deps } from '../deps';

/**
 * The routes whose CORS answers per client (docs/api.md 16.2): a browser app calls them
 * itself, from the origins its client lists. Their preflights are answered by
 * functions/cors-preflight.ts with the methods and headers of each.
 */
export const CLIENT_CORS_ROUTES: Readonly<Record<string, { methods: string; headers: string }>> = {
  '/oauth2/token': { methods: 'POST', headers: 'Content-Type, Authorization, DPoP' },
  '/oauth2/revoke': { methods: 'POST', headers: 'Content-Type, Authorization, DPoP' },
  '/oauth2/userinfo': { methods: 'GET, POST', headers: 'Content-Type, Authorization, DPoP' },
};

/**
 * Whether some OAuth client, of any tenant, lists `origin` (docs/api.md 16.2). A preflight
 * names no client, so the actual request is held to the same rule: an origin one
 * client lists may call these routes, and what it gets is still only what its request's
 * credentials (a client id, a PKCE verifier, a token) earn.
 */
export function clientOrigins(deps: Pick<Deps, 'store'>): (origin: string) => Promise<boolean> {
  return (origin) => deps.store.oauthClients.listsOrigin(origin);
}

/**
 * The public documents a browser app reads before it signs anyone in (discovery, RFC 8414
 * metadata, the JWKS; docs/api.md 16.2): readable from every origin. They carry no
 * secret and take no credentials, so any page may read what anyone may fetch.
 */
export const everyOrigin = async (_origin: string): Promise<boolean> => true;
