import { DEVICE_CODE_GRANT } from './device-code';

/** The grant types a client may be registered with (docs/api.md 4.8; the device code's: 16.4). */
export const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials', DEVICE_CODE_GRANT] as const;
export type GrantType = (typeof GRANT_TYPES)[number];

/**
 * How a client authenticates at the token endpoint (RFC 7591 2): with its secret, or not
 * at all, `none`, for a public client (docs/api.md 16.1). A confidential client may send
 * its secret either way (RFC 6749 2.3.1); the two secret methods differ only in what the
 * registration says.
 */
export const TOKEN_ENDPOINT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'] as const;
export type TokenEndpointAuthMethod = (typeof TOKEN_ENDPOINT_AUTH_METHODS)[number];
