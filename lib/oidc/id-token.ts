import { createHash } from 'node:crypto';
import type { KeySet, SigningAlgorithm } from '../tokens/signing-keys';
import { signJwt } from '../tokens/signing-keys';
import type { UserClaims } from './claims';

/** How long an ID token is valid (docs/api.md 11.1): as long as the access token it comes with. */
export const ID_TOKEN_TTL_SECONDS = 3600;

/** What an ID token says besides the user's claims (OIDC Core 2, docs/api.md 11.1). */
export interface IdTokenContext {
  iss: string;
  /** The client: the only audience. */
  aud: string;
  /** Epoch seconds of the user's last proof of a credential in the session. */
  authTime: number;
  /** RFC 8176 values (lib/oidc/claims.ts authenticationMethods). */
  amr: string[];
  /** The session the grant was made in. */
  sid: string;
  /** The authorization request's `nonce`, on the ID token of a code only (OIDC Core 12.2: not on refresh). */
  nonce?: string | undefined;
  /** The connection of a federated sign-in (docs/api.md 14.3). */
  idp?: string | undefined;
  /** The access token issued with it: `at_hash` binds the two (OIDC Core 3.3.2.11). */
  accessToken: string;
  /** Epoch seconds. */
  iat: number;
}

/**
 * `at_hash` (OIDC Core 3.1.3.6): the left half of the hash of the access token, with the
 * hash of the signature algorithm: SHA-256 for both ES256 and RS256.
 */
export function accessTokenHash(accessToken: string): string {
  return createHash('sha256').update(accessToken, 'ascii').digest().subarray(0, 16).toString('base64url');
}

/** Signs an ID token with the client's algorithm (ES256 unless it registered RS256). */
export function signIdToken(keys: KeySet, alg: SigningAlgorithm, user: UserClaims, context: IdTokenContext): string {
  return signJwt(
    keys,
    'JWT',
    {
      iss: context.iss,
      ...user,
      aud: context.aud,
      exp: context.iat + ID_TOKEN_TTL_SECONDS,
      iat: context.iat,
      auth_time: context.authTime,
      ...(context.nonce === undefined ? {} : { nonce: context.nonce }),
      amr: context.amr,
      sid: context.sid,
      ...(context.idp === undefined ? {} : { idp: context.idp }),
      at_hash: accessTokenHash(context.accessToken),
    },
    alg,
  );
}
