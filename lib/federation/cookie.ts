/*
 * The federation cookie (docs/api.md 14.3), apart from the protocols: the return routes
 * read it without loading the other protocol's library.
 */

/**
 * The cookie that binds the pending request to the browser. `SameSite=None`: a SAML
 * response comes back as a cross-site POST, which carries no Lax cookie; the secret is in
 * no URL, and the IdP never sees it.
 */
export const FEDERATION_COOKIE = '__Host-federation';

export const federationCookie = (secret: string, maxAgeSeconds: number) =>
  `${FEDERATION_COOKIE}=${secret}; Path=/; Max-Age=${maxAgeSeconds}; Secure; HttpOnly; SameSite=None`;

/** The Set-Cookie that removes the federation cookie once its request is answered. */
export const endedFederationCookie = () => federationCookie('', 0);
