import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { decodeJwt } from 'jose';
import { expect } from 'vitest';
import { hashToken } from '../../lib/crypto/token-hash';
import type { Deps } from '../../lib/deps';
import { completeFederation } from '../../lib/federation/complete';
import type { Connection, FederatedClaims } from '../../lib/federation/connection';
import { hostedPage } from '../../lib/hosted/http';
import { httpHandler } from '../../lib/http/handler';
import type { FederationRequest } from '../../lib/store/federation';
import type { App } from './app';
import { browserAuthorize, CookieJar, csrfOf, postForm } from './hosted';
import { apiEvent, call, type Response } from './http';
import { redeemCode, type TestClient } from './oauth';

/*
 * Federated sign-ins (docs/api.md 14.3) with the protocol left out: the IdP's answer is
 * what the test says it is. The OIDC and SAML suites run the real protocols; this is for
 * the rules that come after them, and for the suites that break every write.
 */

/** A connection stored as the admin routes store one, with test defaults. */
export async function storedConnection(deps: Pick<Deps, 'store' | 'random'>, tenantId: string, change: Partial<Connection> = {}) {
  const now = new Date().toISOString();
  const connection = {
    id: deps.random.id(),
    tenantId,
    type: 'saml',
    name: 'Corporate IdP',
    domains: [`${tenantId}.example`],
    roleMapping: { 'shop-admins': 'ADMIN', finance: 'FINANCE', staff: 'ANALYST' },
    defaultRole: 'ANALYST',
    jitProvisioning: true,
    ssoRequired: false,
    enabled: true,
    createdAt: now,
    updatedAt: now,
    createdBy: 'admin',
    idpEntityId: 'https://idp.example.test',
    ssoUrl: 'https://idp.example.test/sso',
    signingCertificates: ['PEM'],
    ...change,
  } as Connection;
  expect(await deps.store.connections.create(connection)).toBe(true);
  return connection;
}

/** A domain verified for the tenant, as POST /admin/domains/{domain}/verify leaves it. */
export async function verifiedDomain(deps: Pick<Deps, 'store'>, tenantId: string, domain = `${tenantId}.example`) {
  const now = new Date().toISOString();
  await deps.store.domains.create({ tenantId, domain, status: 'pending', token: 'test', createdAt: now });
  expect(await deps.store.domains.verify({ tenantId, domain }, now)).toBe('verified');
  return domain;
}

/** The event of a request of the browser with the jar's cookies (what completeFederation reads of it). */
export const browserEvent = (jar: CookieJar): APIGatewayProxyEventV2 => apiEvent({ method: 'GET', headers: { ...jar.header() } });

/** What beginFederation leaves behind for the jar's pending interaction: a pending request, and its cookie in the jar. */
export async function setOff(deps: Pick<Deps, 'store' | 'random' | 'clock'>, jar: CookieJar, connection: Connection) {
  const interactionId = (jar.cookies.get('__Host-interaction') ?? '').split('.')[1] ?? '';
  const secret = deps.random.token(32);
  const now = Math.floor(deps.clock.now() / 1000);
  const pending: FederationRequest = {
    key: deps.random.token(32),
    tenantId: connection.tenantId,
    connectionId: connection.id,
    interactionId,
    browserHash: hashToken(secret),
    createdAt: now,
    expiresAt: now + 600,
  };
  await deps.store.federationRequests.create(pending);
  jar.cookies.set('__Host-federation', secret);
  return pending;
}

/**
 * The IdP's answer `claims` to the pending request `key`, through a route of the hosted
 * pages' middy chain (lib/hosted/http.tsx `hostedPage`) around completeFederation, as the
 * OIDC callback and the SAML ACS have it: a refusal or a fault is the error page.
 */
export function answerOf(
  deps: Deps,
  jar: CookieJar,
  key: string,
  claims: FederatedClaims | (() => Promise<FederatedClaims>),
): Promise<Response> {
  const verify = typeof claims === 'function' ? claims : async () => claims;
  const route = httpHandler(deps, hostedPage, ({ deps, event }) => completeFederation(deps, event, { key }, verify));
  return call(route, { method: 'GET', headers: { ...jar.header() } });
}

/**
 * A whole federated sign-in of `claims` through the hosted pages: authorize, the IdP's
 * answer, consent (once per client), the code redeemed. The tokens, or the refusal.
 */
export async function federatedSignIn(
  deps: Deps,
  app: App,
  client: TestClient,
  connection: Connection,
  claims: FederatedClaims,
  jar = new CookieJar(),
) {
  const started = await browserAuthorize(app, jar, client, { scope: 'openid orders:read' });
  const pending = await setOff(deps, jar, connection);
  const answered = await answerOf(deps, jar, pending.key, claims);
  if (answered.status !== 200 && answered.status !== 303) return { refused: answered, jar, pending };
  jar.take(answered);
  const origin = new URL(deps.config.issuer).origin;
  const consented =
    answered.status === 200 ? await postForm(app, jar, 'hostedConsent', { csrf: csrfOf(answered), decision: 'allow' }, origin) : answered;
  expect(consented.status).toBe(303);
  const code = new URL(consented.headers.Location ?? '').searchParams.get('code') ?? '';
  const tokens = await redeemCode(app, client, { code, verifier: started.verifier });
  expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
  const body = tokens.body as { access_token: string; id_token: string; refresh_token: string };
  return { tokens: body, jar, pending, idToken: decodeJwt(body.id_token), accessToken: decodeJwt(body.access_token) };
}
