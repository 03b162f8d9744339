import { SIGNING_ALGORITHMS } from '../tokens/signing-keys';
import * as z from '../zod';
import { GRANT_TYPES, TOKEN_ENDPOINT_AUTH_METHODS } from './client-kinds';

/*
 * The schema of a stored OAuth client, apart from lib/oauth/client.ts: only its store
 * parses records, and it loads on first use (lib/store/on-first-call.ts), so a function
 * that reads no client does not build it at its cold start (docs/performance.md, Cold starts).
 */

/**
 * A registered OAuth 2.0 client: confidential (it has a secret) or public (a single-page
 * or native app, docs/api.md 16.1: no secret, ever). `secretHash` never leaves lib/:
 * answers use `clientView`.
 */
export const oauthClientSchema = z.object({
  clientId: z.string(),
  tenantId: z.string(),
  /** Clients registered before public clients existed are all confidential. */
  tokenEndpointAuthMethod: z._default(z.enum(TOKEN_ENDPOINT_AUTH_METHODS), 'client_secret_basic'),
  /**
   * `hmac-sha256$<base64url>` of the secret, keyed with the server's pepper
   * (client-secret.ts); absent exactly for a public client.
   */
  secretHash: z.optional(z.string()),
  /**
   * Compared exactly, as registered (RFC 9700 2.1), except a public client's loopback IP
   * URIs, whose port may differ (RFC 8252 7.3, {@link matchesRedirectUri}).
   */
  redirectUris: z.array(z.string()),
  /** The web origins that CORS lets call the token, userinfo and revocation endpoints (docs/api.md 16.2). */
  allowedOrigins: z._default(z.array(z.string()), []),
  grantTypes: z.array(z.enum(GRANT_TYPES)),
  scopes: z.array(z.string()),
  /** ISO 8601. */
  createdAt: z.string(),
  /** The ADMIN who registered the client. */
  createdBy: z.string(),
  /** A name for people (consent, listings); docs/api.md 9.11. */
  clientName: z.optional(z.string()),
  /** Marked by an ADMIN as the platform's own (docs/api.md 9.11); clients are third-party otherwise. */
  firstParty: z.optional(z.boolean()),
  /** Where RP-initiated logout may send the browser, compared exactly like `redirectUris`. */
  postLogoutRedirectUris: z.optional(z.array(z.string())),
  /**
   * The secret before the last rotation (docs/api.md 9.13), under the same hash format,
   * accepted until `previousSecretExpiresAt` (epoch seconds) and never after.
   */
  previousSecretHash: z.optional(z.string()),
  previousSecretExpiresAt: z.optional(z.number()),
  /** ISO 8601 of the last change through PATCH or a secret rotation. */
  updatedAt: z.optional(z.string()),
  /**
   * A resource server's permission (docs/api.md 4.14): it may introspect the access
   * tokens of every client of its tenant, not only its own. Set by the ADMIN at creation.
   */
  introspectAny: z._default(z.boolean(), false),
  /**
   * The resource servers (RFC 8707 absolute URIs) the client may ask tokens for with
   * `resource`; such a token's `aud` is the resource (docs/api.md 4.7).
   */
  resources: z._default(z.array(z.string()), []),
  /** How the client's ID tokens are signed (docs/api.md 11.4): ES256 when absent. */
  idTokenSignedResponseAlg: z.optional(z.enum(SIGNING_ALGORITHMS)),
  /** RFC 9449 5.2 (docs/api.md 16.3): every token request must come with a DPoP proof. */
  dpopBoundAccessTokens: z.optional(z.boolean()),
  /** Where a logout token is POSTed when a session the client holds ends (docs/api.md 17.3). */
  backchannelLogoutUri: z.optional(z.string()),
  /** The client needs `sid` in every logout token (OIDC Back-Channel Logout 1.0 2.2); false when absent. */
  backchannelLogoutSessionRequired: z.optional(z.boolean()),
});
