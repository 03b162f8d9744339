/**
 * The OIDC callback under load (docs/api.md 14.4): GET /sso/oidc/callback with a fresh
 * pending sign-in per request. The merchant's IdP is a minimal one here, in this process
 * (discovery, JWKS, and a token endpoint that signs an ES256 ID token for the code it is
 * given), so the server's CPU per request is ours: the pending sign-in taken, the
 * connection and interaction read, the client secret unsealed, openid-client's token
 * request and ID token checks (signature included), the verified domain, the linked user
 * (a few hundred returning people), the sign-in pipeline and the consent page.
 *
 * Each request's browser state is made through the server itself beforehand: the
 * authorization request (an interaction) and GET /sso/begin (the pending sign-in and its
 * cookie), so nothing here writes the service's records by hand but the connection and
 * the verified domain.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { systemClock } from '../lib/clock';
import type { Config } from '../lib/config';
import { cryptoRandom } from '../lib/crypto/random';
import { dynamoStores } from '../lib/deps';
import { sealClientSecret } from '../lib/federation/client-secret';
import type { OidcConnection } from '../lib/federation/connection';
import { fileDataKeys } from '../lib/mfa/file-data-keys';
import { secretBox } from '../lib/mfa/secret-box';
import { createDynamo } from '../lib/store/dynamo';
import type { RequestShape } from './load';

/** How many people sign in again and again (the first sign-in of each provisions them). */
const PEOPLE = 200;

export interface OidcCallbackLoad {
  next: () => RequestShape;
  close: () => Promise<void>;
}

/** The IdP: its issuer is its loopback URL; every code is `base64url(JSON { sub, email, nonce })`. */
async function benchIdp(clientId: string) {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const kid = 'bench-idp';
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' }] });
  let issuer = '';
  const server: Server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://idp').pathname;
    const json = (body: string) => res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    if (path === '/.well-known/openid-configuration') {
      return json(
        JSON.stringify({
          issuer,
          authorization_endpoint: `${issuer}/auth`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['ES256'],
          code_challenge_methods_supported: ['S256'],
        }),
      );
    }
    if (path === '/jwks') return json(jwks);
    if (path === '/token' && req.method === 'POST') {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const code = new URLSearchParams(Buffer.concat(chunks).toString('utf8')).get('code') ?? '';
      const { sub, email, nonce } = JSON.parse(Buffer.from(code, 'base64url').toString('utf8')) as Record<string, string>;
      const idToken = await new SignJWT({ email, email_verified: true, nonce, amr: ['pwd'] })
        .setProtectedHeader({ alg: 'ES256', kid })
        .setIssuer(issuer)
        .setSubject(sub ?? '')
        .setAudience(clientId)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
      return json(
        JSON.stringify({ access_token: randomBytes(16).toString('base64url'), token_type: 'Bearer', expires_in: 300, id_token: idToken }),
      );
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { issuer, close: () => new Promise<void>((closed) => server.close(() => closed())) };
}

async function expectStatus(response: Response, status: number, what: string): Promise<Response> {
  if (response.status !== status) throw new Error(`${what} answered ${response.status}: ${await response.text()}`);
  return response;
}

const cookiePairs = (response: Response) => response.headers.getSetCookie().map((line) => line.split(';')[0] ?? '');

/**
 * The IdP, the tenant's connection and verified domain, an OAuth client, and `count`
 * browsers that set off to the IdP; `next` is the callback of the next one.
 */
export async function seedOidcCallbacks(
  apiUrl: string,
  config: Config,
  tenantId: string,
  adminToken: string,
  count: number,
): Promise<OidcCallbackLoad> {
  const idpClientId = 'bench-identity-service';
  const idp = await benchIdp(idpClientId);
  const stores = dynamoStores(createDynamo({ tableName: config.tableName, region: config.awsRegion, endpoint: config.dynamodbEndpoint }), {
    random: cryptoRandom,
    clock: systemClock,
  });
  if (config.mfa.dataKeys.source !== 'file') throw new Error('the bench seals the client secret with the local MFA key file');
  const mfaSecrets = secretBox(fileDataKeys(config.mfa.dataKeys.path));
  const domain = 'bench-fed.example';
  const now = new Date().toISOString();
  await stores.domains.create({ tenantId, domain, status: 'pending', token: 'bench', createdAt: now });
  await stores.domains.verify({ tenantId, domain }, now);
  const connection: OidcConnection = {
    id: `bench-oidc-${randomBytes(4).toString('hex')}`,
    tenantId,
    type: 'oidc',
    name: 'Bench IdP',
    issuer: idp.issuer,
    clientId: idpClientId,
    clientSecretSealed: '',
    scopes: ['openid', 'email'],
    domains: [domain],
    defaultRole: 'ANALYST',
    jitProvisioning: true,
    ssoRequired: false,
    enabled: true,
    createdAt: now,
    updatedAt: now,
    createdBy: 'bench',
  };
  connection.clientSecretSealed = await sealClientSecret({ mfaSecrets }, connection, randomBytes(32).toString('base64url'));
  await stores.connections.create(connection);

  const client = { id: `bench-fed-${randomBytes(4).toString('hex')}`, redirectUri: 'https://app.bench.example/callback' };
  await expectStatus(
    await fetch(`${apiUrl}/oauth2/clients`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
      body: JSON.stringify({
        client_id: client.id,
        client_secret: randomBytes(32).toString('base64url'),
        redirect_uri: client.redirectUri,
        grant_types: 'authorization_code',
        scope: 'openid orders:read',
        tenant_id: tenantId,
      }),
    }),
    201,
    'POST /oauth2/clients',
  );

  /** One browser at the IdP: its cookies and our callback's query. */
  const setOff = async (i: number) => {
    const authorize = new URL('/oauth2/authorize', apiUrl);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.id,
      redirect_uri: client.redirectUri,
      scope: 'openid orders:read',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }).toString();
    const page = await expectStatus(await fetch(authorize, { headers: { accept: 'text/html' }, redirect: 'manual' }), 200, 'authorize');
    await page.text();
    const cookies = cookiePairs(page);
    const begin = await expectStatus(
      await fetch(`${apiUrl}/sso/begin?connection=${connection.id}`, { headers: { cookie: cookies.join('; ') }, redirect: 'manual' }),
      302,
      'GET /sso/begin',
    );
    const toIdp = new URL(begin.headers.get('location') ?? '');
    const person = i % PEOPLE;
    const code = Buffer.from(
      JSON.stringify({ sub: `person-${person}`, email: `person-${person}@${domain}`, nonce: toIdp.searchParams.get('nonce') }),
    ).toString('base64url');
    const query = new URLSearchParams({ code, state: toIdp.searchParams.get('state') ?? '' });
    return { path: `/sso/oidc/callback?${query}`, headers: { cookie: [...cookies, ...cookiePairs(begin)].join('; ') } };
  };
  const browsers: RequestShape[] = [];
  for (let start = 0; start < count; start += 10) {
    browsers.push(...(await Promise.all(Array.from({ length: Math.min(10, count - start) }, (_, j) => setOff(start + j)))));
  }
  let taken = 0;
  return {
    next: () => browsers[taken++ % browsers.length] as RequestShape,
    close: idp.close,
  };
}
