import { randomBytes } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, type JWSHeaderParameters, SignJWT } from 'jose';
import { hashToken } from '../../lib/crypto/token-hash';

/** A client's DPoP key pair (RFC 9449), with its public JWK and thumbprint. */
export interface DpopKey {
  alg: string;
  privateKey: CryptoKey;
  jwk: JWK;
  jkt: string;
}

export async function dpopKey(alg = 'ES256'): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(publicKey);
  return { alg, privateKey, jwk, jkt: await calculateJwkThumbprint(jwk) };
}

export interface ProofClaims {
  htm?: string;
  htu: string;
  /** Epoch seconds. */
  iat: number;
  jti?: string | undefined;
  /** The access token the proof is sent with: its `ath`. */
  accessToken?: string;
  nonce?: string;
}

/**
 * A DPoP proof by `key` as a client writes it. `header` and `claims` override what it
 * would write (to make refused proofs); such a proof is signed over its bytes as they
 * are, whatever they hold (an ES256 key only), where jose would refuse to sign them.
 */
export async function dpopProof(
  key: DpopKey,
  claims: ProofClaims,
  overrides: { header?: Record<string, unknown>; claims?: Record<string, unknown> } = {},
): Promise<string> {
  const { htm = 'POST', htu, iat, accessToken, nonce } = claims;
  const jti = 'jti' in claims ? claims.jti : randomBytes(16).toString('base64url');
  const payload = {
    ...(jti === undefined ? {} : { jti }),
    htm,
    htu,
    iat,
    ...(accessToken === undefined ? {} : { ath: hashToken(accessToken) }),
    ...(nonce === undefined ? {} : { nonce }),
    ...overrides.claims,
  };
  const header = { alg: key.alg, typ: 'dpop+jwt', jwk: key.jwk, ...overrides.header };
  if (!overrides.header && !overrides.claims)
    return new SignJWT(payload).setProtectedHeader(header as JWSHeaderParameters & { alg: string }).sign(key.privateKey);
  const input = `${part(header)}.${part(payload)}`;
  const signature = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, key.privateKey, new TextEncoder().encode(input));
  return `${input}.${Buffer.from(signature).toString('base64url')}`;
}

const part = (value: unknown) => Buffer.from(JSON.stringify(value) ?? 'null').toString('base64url');

/** An unsigned JWS (`alg: none`) with the header and claims given. */
export function unsignedJws(header: Record<string, unknown>, claims: Record<string, unknown>): string {
  return `${part(header)}.${part(claims)}.`;
}
