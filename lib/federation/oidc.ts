import * as client from 'openid-client';
import type { Config } from '../config';
import type { Deps } from '../deps';
import { openClientSecret } from './client-secret';
import { type FederatedClaims, federationEndpoints, type OidcConnection } from './connection';
import { FederationRefused } from './refusal';

/*
 * The OpenID Connect upstream (docs/api.md 14.4): the authorization code flow with PKCE
 * S256, `state` and `nonce` against the merchant's identity provider, with openid-client
 * as the relying party. openid-client checks the authorization response (state, `iss` per
 * RFC 9207 when the IdP sends it, an error answer) and the ID token (issuer, audience,
 * azp, expiry, nonce); non-repudiation checks add the ID token's signature against the
 * IdP's JWKS, so an ID token another key signed is refused even over TLS.
 *
 * Every exchange with the IdP (discovery, token, JWKS, userinfo) runs under one deadline,
 * so a slow or dead IdP ends on the error page well within the function's 10 s; the
 * discovery document and the JWKS are kept per issuer in the Lambda instance.
 */

/** What the OIDC upstream needs of the deps; `idpDeadlineMs` only tests lower (a slow IdP's test). */
export type OidcDeps = Pick<Deps, 'config' | 'clock' | 'log' | 'mfaSecrets'> & {
  /** The most time one sign-in's exchanges with the IdP may take (default IDP_DEADLINE_MS). */
  idpDeadlineMs?: number | undefined;
};

/** What `beginFederation` stored for this sign-in (lib/store/federation.ts `FederationRequest`). */
export interface PendingOidcRequest {
  /** The `state`. */
  key: string;
  codeVerifier?: string | undefined;
  nonce?: string | undefined;
}

/** The whole conversation with the IdP of one request: within the function timeout (10 s) with room for the rest. */
export const IDP_DEADLINE_MS = 6_000;
/** Issuers whose discovery document and JWKS an instance keeps, and for how long. */
const DISCOVERY_KEPT = 64;
const DISCOVERY_MAX_AGE_MS = 60 * 60 * 1000;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** `amr` values (RFC 8176 2) that say on their own that more than one factor was used. */
const MULTI_FACTOR_AMR = new Set(['mfa', 'mca']);
/** RFC 8176 methods by the kind of factor they prove: two kinds make a multi-factor authentication. */
const FACTOR_KIND: Record<string, 'know' | 'have' | 'are'> = {
  pwd: 'know',
  pin: 'know',
  kba: 'know',
  otp: 'have',
  hwk: 'have',
  swk: 'have',
  sc: 'have',
  sms: 'have',
  tel: 'have',
  pop: 'have',
  fpt: 'are',
  face: 'are',
  iris: 'are',
  retina: 'are',
  vbm: 'are',
};
/** `acr` values that name a multi-factor class: OpenID PAPE, REFEDS MFA, Okta's. */
const MULTI_FACTOR_ACR = new Set([
  'http://schemas.openid.net/pape/policies/2007/06/multi-factor',
  'http://schemas.openid.net/pape/policies/2007/06/multi-factor-physical',
  'https://refeds.org/profile/mfa',
  'urn:okta:loa:2fa:any',
  'phr',
  'phrh',
]);

interface Discovered {
  metadata: client.ServerMetadata;
  fetchedAt: number;
  jwks?: client.ExportedJWKSCache | undefined;
}

/** Per issuer, oldest first (a Map keeps insertion order): bounded in entries and age. */
const discovered = new Map<string, Discovered>();

/** Forgets every issuer's discovery document and keys (tests). */
export function forgetDiscoveredIssuers(): void {
  discovered.clear();
}

/** Plain http only to a loopback IdP, and only where the stage allows it (`npm start`, the tests; docs/api.md 14.1). */
function plainHttpAllowed(config: Pick<Config, 'loopbackIdentityProviders'>, issuer: URL): boolean {
  return config.loopbackIdentityProviders && issuer.protocol === 'http:' && LOOPBACK.has(issuer.hostname);
}

/** One request's exchanges with the IdP, each also bound by what is left of the deadline. */
function within(deadline: AbortSignal): client.CustomFetch {
  return (url, { body, ...options }) =>
    fetch(url, {
      ...options,
      // openid-client's FetchBody allows a Uint8Array over any buffer; fetch types want an ArrayBuffer one. Same bytes.
      body: body as RequestInit['body'],
      signal: options.signal ? AbortSignal.any([options.signal, deadline]) : deadline,
    });
}

/** What went wrong, for the audit trail: the IdP did not answer, said no, or answered what fails a check. */
function refusal(error: unknown): FederationRefused {
  if (error instanceof FederationRefused) return error;
  if (error instanceof client.AuthorizationResponseError) return new FederationRefused('idp_denied', error.error);
  if (error instanceof client.ClientError) {
    const detail = `${error.code}: ${error.message}${error.cause instanceof Error ? ` (${error.cause.message})` : ''}`;
    switch (error.code) {
      case 'OAUTH_TIMEOUT':
      case 'OAUTH_ABORT':
        return new FederationRefused('idp_unreachable', detail);
      case 'OAUTH_RESPONSE_IS_NOT_CONFORM':
      case 'OAUTH_RESPONSE_IS_NOT_JSON': {
        const status = error.cause instanceof Response ? error.cause.status : 0;
        return new FederationRefused(status >= 500 ? 'idp_unreachable' : 'invalid_response', `${detail} (HTTP ${status})`);
      }
    }
    return new FederationRefused('invalid_response', detail);
  }
  if (error instanceof client.ResponseBodyError) return new FederationRefused('invalid_response', `token endpoint: ${error.error}`);
  // fetch's own failure (refused, reset, DNS): a TypeError without the library's argument code.
  if (error instanceof TypeError && !('code' in error)) {
    return new FederationRefused('idp_unreachable', error.cause instanceof Error ? error.cause.message : error.message);
  }
  throw error;
}

/**
 * The IdP's configuration for this connection: its discovery document (fetched once per
 * issuer and instance, and again after DISCOVERY_MAX_AGE_MS), the client and how it
 * authenticates, every request under `deadline`.
 */
async function configurationFor(
  deps: OidcDeps,
  connection: OidcConnection,
  deadline: AbortSignal,
  clientSecret?: string,
): Promise<{ config: client.Configuration; entry: Discovered }> {
  const issuer = new URL(connection.issuer);
  const insecure = plainHttpAllowed(deps.config, issuer);
  const timeout = (deps.idpDeadlineMs ?? IDP_DEADLINE_MS) / 1000;
  const now = deps.clock.now();
  let entry = discovered.get(connection.issuer);
  if (!entry || now - entry.fetchedAt > DISCOVERY_MAX_AGE_MS) {
    const found = await client.discovery(issuer, connection.clientId, undefined, undefined, {
      [client.customFetch]: within(deadline),
      timeout,
      ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
    });
    discovered.delete(connection.issuer);
    if (discovered.size >= DISCOVERY_KEPT) discovered.delete(discovered.keys().next().value as string);
    entry = { metadata: { ...found.serverMetadata() }, fetchedAt: now };
    discovered.set(connection.issuer, entry);
  }
  const config = new client.Configuration(
    entry.metadata,
    connection.clientId,
    undefined,
    clientSecret === undefined ? undefined : tokenAuth(entry.metadata, clientSecret),
  );
  config[client.customFetch] = within(deadline);
  config.timeout = timeout;
  if (insecure) client.allowInsecureRequests(config);
  client.enableNonRepudiationChecks(config);
  if (entry.jwks) client.setJwksCache(config, entry.jwks);
  return { config, entry };
}

/** client_secret_basic, the default of OIDC Core 9, unless the IdP offers only client_secret_post. */
function tokenAuth(metadata: client.ServerMetadata, secret: string): client.ClientAuth {
  const methods = metadata.token_endpoint_auth_methods_supported;
  return methods && !methods.includes('client_secret_basic') && methods.includes('client_secret_post')
    ? client.ClientSecretPost(secret)
    : client.ClientSecretBasic(secret);
}

/**
 * Where the browser goes to sign in at the connection's IdP (docs/api.md 14.4): the code
 * flow with PKCE S256 from the pending request's verifier, its key as `state`, its nonce,
 * the connection's scopes (always `openid`) and the service's one redirect URI.
 * A dead or slow IdP (no discovery document in time): `FederationRefused('idp_unreachable')`.
 */
export async function oidcAuthorizationUrl(
  deps: OidcDeps,
  connection: OidcConnection,
  pending: PendingOidcRequest,
  loginHint?: string,
): Promise<string> {
  if (!pending.codeVerifier || !pending.nonce) throw new Error('An OIDC sign-in needs a PKCE verifier and a nonce');
  try {
    const { config } = await configurationFor(deps, connection, AbortSignal.timeout(deps.idpDeadlineMs ?? IDP_DEADLINE_MS));
    const scopes = new Set(['openid', ...connection.scopes]);
    const url = client.buildAuthorizationUrl(config, {
      response_type: 'code',
      redirect_uri: federationEndpoints(deps.config.issuer, connection.id).redirectUri,
      scope: [...scopes].join(' '),
      state: pending.key,
      nonce: pending.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: 'S256',
      ...(loginHint ? { login_hint: loginHint } : {}),
    });
    return url.href;
  } catch (error) {
    throw refusal(error);
  }
}

/**
 * Checks the IdP's answer at the callback and reads who signed in (docs/api.md 14.4):
 * the authorization response (state, `iss`, an error), the code redeemed with the PKCE
 * verifier and the unsealed client secret, the ID token (signature against the IdP's
 * JWKS, issuer, audience, expiry, nonce). The email comes from the ID token, else from
 * userinfo; an email the IdP says is not verified is refused. Any failure:
 * `FederationRefused` with the reason the audit trail records.
 */
export async function verifyOidcCallback(
  deps: OidcDeps,
  connection: OidcConnection,
  pending: PendingOidcRequest,
  callbackUrl: URL,
): Promise<FederatedClaims> {
  if (!pending.codeVerifier || !pending.nonce) throw new FederationRefused('invalid_response');
  const secret = await openClientSecret(deps, connection);
  // Our redirect URI as registered, whatever host or path the request came in by; only the query is the IdP's.
  const current = new URL(federationEndpoints(deps.config.issuer, connection.id).redirectUri);
  current.search = callbackUrl.search;
  try {
    const { config, entry } = await configurationFor(deps, connection, AbortSignal.timeout(deps.idpDeadlineMs ?? IDP_DEADLINE_MS), secret);
    const tokens = await client.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: pending.codeVerifier,
      expectedState: pending.key,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
    entry.jwks = client.getJwksCache(config) ?? entry.jwks;
    const idToken = tokens.claims();
    if (!idToken) throw new FederationRefused('invalid_response');
    let claims: Record<string, unknown> = idToken;
    const wanted = [connection.roleClaim ?? 'email', 'email'];
    if (wanted.some((name) => idToken[name] === undefined) && entry.metadata.userinfo_endpoint) {
      claims = { ...(await client.fetchUserInfo(config, tokens.access_token, idToken.sub)), ...idToken };
    }
    return federatedClaims(idToken.sub, claims, connection);
  } catch (error) {
    throw refusal(error);
  }
}

/** What the ID token (and userinfo) say, as the sign-in needs it. */
function federatedClaims(subject: string, claims: Record<string, unknown>, connection: OidcConnection): FederatedClaims {
  const verified = claims.email_verified;
  const email = typeof claims.email === 'string' && claims.email ? claims.email : undefined;
  if (email && (verified === false || verified === 'false')) throw new FederationRefused('email_not_verified');
  return {
    subject,
    email,
    roles: connection.roleClaim ? stringValues(claims[connection.roleClaim]) : [],
    mfa: assertsMultiFactor(claims.amr, claims.acr),
  };
}

/** A claim's value as strings: one string, or the strings of an array. */
function stringValues(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/**
 * Whether the IdP asserts a multi-factor sign-in (docs/api.md 14.4): `amr` with `mfa` or
 * `mca`, or methods of two kinds of factor (RFC 8176: a password and an OTP); or an `acr`
 * naming a multi-factor class.
 */
export function assertsMultiFactor(amr: unknown, acr: unknown): boolean {
  const methods = stringValues(amr);
  if (methods.some((method) => MULTI_FACTOR_AMR.has(method))) return true;
  const kinds = new Set(methods.flatMap((method) => FACTOR_KIND[method] ?? []));
  return kinds.size >= 2 || (typeof acr === 'string' && MULTI_FACTOR_ACR.has(acr));
}
