import {
  calculateJwkThumbprint,
  decodeProtectedHeader,
  EmbeddedJWK,
  type JWTPayload,
  jwtVerify,
  type ProtectedHeaderParameters,
} from 'jose';
import { epochSeconds } from '../clock';
import { hashToken } from '../crypto/token-hash';
import type { Deps } from '../deps';
import { type AppError, OAuthError, UnauthorizedError } from '../errors';
import type { DpopNonces } from './dpop-nonce';

/**
 * The algorithms a DPoP proof may be signed with (RFC 9449 4.3 rule 5: asymmetric only,
 * never `none` or an HMAC): what `dpop_signing_alg_values_supported` advertises.
 */
export const DPOP_SIGNING_ALGORITHMS = ['ES256', 'ES384', 'PS256', 'RS256', 'EdDSA', 'Ed25519'] as const;

/** How old a proof's `iat` may be, and how far ahead of our clock (docs/api.md 16.3). */
export const DPOP_IAT_PAST_SECONDS = 60;
export const DPOP_IAT_FUTURE_SECONDS = 10;

/** A proof is one compact JWS; 8 KB holds an RSA-4096 key with room to spare. */
const MAX_PROOF_LENGTH = 8192;
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
/** Members that only a private or a symmetric JWK has (RFC 7518 6.2.2, 6.3.2, 6.4.1; RFC 8037 2). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const MAX_JTI_LENGTH = 256;

/** Where a proof is checked: the token endpoint answers 400, a resource (userinfo) 401 with a DPoP challenge. */
export type DpopEndpoint = 'token' | 'resource';

/** The `algs` parameter of a DPoP challenge (RFC 9449 7.1). */
export const DPOP_ALGS = `algs="${DPOP_SIGNING_ALGORITHMS.join(' ')}"`;

/** The refusals of a proof (docs/api.md 16.3), with the RFC 9449 error codes. */
export const dpopErrors = {
  /** RFC 9449 5 and 7.1: `invalid_dpop_proof`. */
  invalidProof: (at: DpopEndpoint): AppError =>
    at === 'token'
      ? new OAuthError(400, 'Invalid DPoP proof', 'invalid_dpop_proof', {}, 'INVALID_DPOP_PROOF')
      : new UnauthorizedError(
          'Invalid DPoP proof',
          { 'WWW-Authenticate': `DPoP error="invalid_dpop_proof", ${DPOP_ALGS}` },
          { code: 'INVALID_DPOP_PROOF' },
        ),
  /** RFC 9449 8: `use_dpop_nonce`, with the nonce to use. */
  useNonce: (nonce: string): AppError =>
    new OAuthError(400, 'Use the DPoP nonce', 'use_dpop_nonce', { 'DPoP-Nonce': nonce }, 'USE_DPOP_NONCE'),
};

/** What a valid proof tells: the key's thumbprint (RFC 7638, SHA-256), and its `jti` and `iat` for the replay check. */
export interface DpopProof {
  jkt: string;
  jti: string;
  iat: number;
}

/** The request a proof must be about. */
export interface DpopRequest {
  /** The `DPoP` header as API Gateway hands it on: repeated headers joined by commas. */
  header: string | undefined;
  /** The request's method. */
  method: string;
  /** The endpoint's URL as published (the issuer and the route's path, docs/api.md 16.3). */
  url: string;
  /** At a resource: the access token the proof must be about (`ath`). */
  accessToken?: string | undefined;
}

/** Server nonces, where they are asked for (docs/api.md 16.3: the token endpoint, when configured). */
export interface DpopNonceRule {
  nonces: DpopNonces;
  required: boolean;
}

/** Why a proof was refused: logged, never answered. */
type Refusal =
  | 'several proofs'
  | 'malformed'
  | 'typ'
  | 'alg'
  | 'jwk'
  | 'private key in jwk'
  | 'signature'
  | 'jti'
  | 'htm'
  | 'htu'
  | 'iat'
  | 'ath'
  | 'replayed';

class ProofRefusal extends Error {
  constructor(readonly reason: Refusal) {
    super(reason);
  }
}

const refuse = (reason: Refusal): never => {
  throw new ProofRefusal(reason);
};

/** RFC 9449 4.3 rules 1-6: one well-formed JWS whose header is of a proof with a public key. */
function proofHeader(proof: string): ProtectedHeaderParameters {
  if (proof.includes(',')) refuse('several proofs');
  if (proof.length > MAX_PROOF_LENGTH || !COMPACT_JWS.test(proof)) refuse('malformed');
  let header: ProtectedHeaderParameters;
  try {
    header = decodeProtectedHeader(proof);
  } catch {
    return refuse('malformed');
  }
  if (header.typ !== 'dpop+jwt') refuse('typ');
  if (!(DPOP_SIGNING_ALGORITHMS as readonly string[]).includes(String(header.alg))) refuse('alg');
  const { jwk } = header;
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) return refuse('jwk');
  if (PRIVATE_MEMBERS.some((member) => member in jwk)) refuse('private key in jwk');
  return header;
}

/** RFC 9449 4.3 rule 9: `htu` is the endpoint's URL, its query and fragment ignored, compared after the URL parser's normalisation. */
function isTarget(htu: unknown, url: string): boolean {
  if (typeof htu !== 'string') return false;
  const target = URL.parse(htu);
  if (!target) return false;
  target.search = '';
  target.hash = '';
  return target.href === new URL(url).href;
}

/** RFC 9449 4.3 rules 7-12 on the claims of a proof whose signature verified; the nonce is checked apart. */
function checkClaims(payload: JWTPayload, request: DpopRequest, now: number): { jti: string; iat: number } {
  const { jti, iat } = payload;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI_LENGTH) return refuse('jti');
  if (payload.htm !== request.method) refuse('htm');
  if (!isTarget(payload.htu, request.url)) refuse('htu');
  if (typeof iat !== 'number' || !Number.isFinite(iat) || iat < now - DPOP_IAT_PAST_SECONDS || iat > now + DPOP_IAT_FUTURE_SECONDS)
    refuse('iat');
  // RFC 9449 4.3 rule 12 and 7.1: the proof names the access token it is sent with.
  if (request.accessToken !== undefined && payload.ath !== hashToken(request.accessToken)) refuse('ath');
  return { jti, iat: iat as number };
}

/**
 * Checks the DPoP proof of a request (RFC 9449 4.3), in this order: one proof, its header
 * (`typ`, an asymmetric `alg` of {@link DPOP_SIGNING_ALGORITHMS}, a public `jwk`), the
 * signature by that key, then `jti`, `htm`, `htu`, `iat`, `ath`, then the server nonce
 * where asked for. Undefined when the request has no `DPoP` header. The proof's `jti` is
 * not recorded here: {@link acceptDpopProof} does that once the caller is known.
 */
export async function verifyDpopProof(
  deps: Pick<Deps, 'clock' | 'log'>,
  at: DpopEndpoint,
  request: DpopRequest,
  nonceRule?: DpopNonceRule,
): Promise<DpopProof | undefined> {
  if (request.header === undefined) return undefined;
  const now = epochSeconds(deps.clock);
  let proof: DpopProof;
  let nonce: unknown;
  try {
    const header = proofHeader(request.header);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(request.header, EmbeddedJWK, {
        algorithms: [...DPOP_SIGNING_ALGORITHMS],
        typ: 'dpop+jwt',
        currentDate: new Date(now * 1000),
      }));
    } catch {
      // Pure computation on what the client sent: a key WebCrypto cannot import (a point
      // off the curve) fails with its own error, not jose's, and is as refused.
      return refuse('signature');
    }
    const { jti, iat } = checkClaims(payload, request, now);
    nonce = payload.nonce;
    proof = { jkt: await calculateJwkThumbprint(header.jwk as NonNullable<ProtectedHeaderParameters['jwk']>, 'sha256'), jti, iat };
  } catch (error) {
    if (!(error instanceof ProofRefusal)) throw error;
    deps.log.info('dpop_proof_refused', { at, reason: error.reason });
    throw dpopErrors.invalidProof(at);
  }
  // RFC 9449 8: a nonce missing where required, or not (or no longer) ours: the client is given the current one.
  if (nonceRule && (nonceRule.required || nonce !== undefined)) {
    if (typeof nonce !== 'string' || !(await nonceRule.nonces.isLive(nonce, now))) {
      deps.log.info('dpop_nonce_asked', { at, presented: nonce !== undefined });
      throw dpopErrors.useNonce(await nonceRule.nonces.current(now));
    }
  }
  return proof;
}

/**
 * RFC 9449 11.1: a proof is accepted once. Its `jti` is recorded under the caller's
 * tenant and the key (one conditional write) for as long as its `iat` keeps it acceptable;
 * a second use is `invalid_dpop_proof`.
 */
export async function acceptDpopProof(
  deps: Pick<Deps, 'store' | 'log' | 'clock'>,
  at: DpopEndpoint,
  tenantId: string,
  proof: DpopProof,
): Promise<void> {
  const keep = { now: epochSeconds(deps.clock), expiresAt: proof.iat + DPOP_IAT_PAST_SECONDS + 1 };
  if (await deps.store.dpopProofs.accept(tenantId, proof.jkt, proof.jti, keep)) return;
  deps.log.warn('dpop_proof_refused', { at, reason: 'replayed' satisfies Refusal, tenantId });
  throw dpopErrors.invalidProof(at);
}

/** The `DPoP-Nonce` header of an answer, where nonces are required (RFC 9449 8.2: a fresh one may come with any answer). */
export async function dpopNonceHeader(deps: Pick<Deps, 'clock'>, rule: DpopNonceRule): Promise<Record<string, string>> {
  return rule.required ? { 'DPoP-Nonce': await rule.nonces.current(epochSeconds(deps.clock)) } : {};
}
