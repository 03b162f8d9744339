import type { User } from '../users/user';

/** The scopes of OpenID Connect the service knows (docs/api.md 11.1): `openid` asks for an ID token. */
export const OIDC_SCOPES = ['openid', 'profile', 'email'] as const;

/** Whether a grant's scope makes it an OpenID Connect one (OIDC Core 3.1.2.1: `openid` must be present). */
export const isOpenIdScope = (scope: readonly string[]) => scope.includes('openid');

/** The claims about the user that the ID token and userinfo carry (docs/api.md 11.1, 11.2). */
export interface UserClaims {
  sub: string;
  preferred_username?: string;
  tenantId?: string;
  shopId?: string;
  role?: string;
  email?: string;
  email_verified?: boolean;
}

/** Every claim the service may answer, for the discovery document's `claims_supported`. */
export const CLAIMS_SUPPORTED = [
  'iss',
  'sub',
  'aud',
  'exp',
  'iat',
  'auth_time',
  'nonce',
  'amr',
  'sid',
  'at_hash',
  'preferred_username',
  'tenantId',
  'shopId',
  'role',
  'email',
  'email_verified',
] as const;

/**
 * The user's claims a scope grants (OIDC Core 5.4): `sub` always; `preferred_username`,
 * `tenantId`, `shopId`, `role` with `profile`; `email` and `email_verified` with `email`,
 * when the user has an address. No address is verified until the user record says so
 * (as lib/users/account.ts reads it).
 */
export function userClaims(user: User, scope: readonly string[]): UserClaims {
  const profile = scope.includes('profile')
    ? { preferred_username: user.username, tenantId: user.tenantId, shopId: user.shopId, role: user.role }
    : {};
  const verified = user.emailVerified === true;
  const email = scope.includes('email') && user.email ? { email: user.email, email_verified: verified } : {};
  return { sub: user.id, ...profile, ...email };
}

/**
 * The `amr` of an ID token (RFC 8176): how the user proved who they are in the session,
 * plus `mfa` when that took more than one factor (the password and a one-time code).
 */
export function authenticationMethods(amr: readonly string[]): string[] {
  const methods = [...new Set(amr)];
  return methods.length > 1 && !methods.includes('mfa') ? [...methods, 'mfa'] : methods;
}
