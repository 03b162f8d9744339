import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import Provider, { type KoaContextWithOidc } from 'oidc-provider';
import type { Deps } from '../../lib/deps';
import { sealClientSecret } from '../../lib/federation/client-secret';
import type { OidcConnection } from '../../lib/federation/connection';

/**
 * A merchant's identity provider for the tests (docs/api.md 14.4): panva's oidc-provider
 * on a loopback port, with one client (ours) and accounts whose claims a test sets. Its
 * sign-in is a minimal form of our own (`/interaction/{uid}`: one field, `login`, the
 * account's subject) that a browser or `signInAt` fills in; consent is given for the
 * client's every scope. What a dishonest or broken IdP does is chosen at start or at run
 * time:
 *
 * - `signingKey: 'foreign'`: its ID tokens are signed by a key that its JWKS does not hold
 *   (the JWKS publishes another key under the same `kid`);
 * - `foreignIssuer`: its discovery document names the URL it is served at, its tokens
 *   and authorization responses another issuer;
 * - `stalled = true`: it accepts connections and answers nothing.
 */

export interface IdpAccount {
  email?: string;
  email_verified?: boolean | string;
  groups?: string[] | string;
  /** RFC 8176 methods the IdP asserts at this account's sign-in. */
  amr?: string[];
  acr?: string;
}

export interface TestIdp {
  /** Its issuer (`http://127.0.0.1:<port>`): what a connection names. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** By subject: claims read at each sign-in, so a test may change them between two. */
  accounts: Map<string, IdpAccount>;
  /** While true, every request waits for an answer that never comes. */
  stalled: boolean;
  /** Every request path it served, in order (e.g. to count discovery fetches). */
  requests: string[];
  close(): Promise<void>;
}

export interface TestIdpOptions {
  /** Our redirect URI (lib/federation/connection.ts `federationEndpoints`). */
  redirectUri: string;
  signingKey?: 'own' | 'foreign';
  foreignIssuer?: boolean;
  /** Claims of scopes in the ID token (Okta, Entra), or only at userinfo (OIDC Core 5.4 strictly). */
  claimsInIdToken?: boolean;
}

const ACR_VALUES = ['http://schemas.openid.net/pape/policies/2007/06/multi-factor', 'urn:example:loa:1'];

function signingJwk(kid: string) {
  return { ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }), kid, alg: 'ES256', use: 'sig' };
}

const publicPart = ({ d: _, ...jwk }: ReturnType<typeof signingJwk>) => jwk;

function form(uid: string): string {
  return `<!doctype html><html lang="en"><title>Merchant IdP</title><main><h1>Merchant IdP</h1>
<form method="post" action="/interaction/${uid}"><label for="login">Account</label>
<input id="login" name="login" autocomplete="username"><button type="submit">Sign in at the IdP</button></form></main></html>`;
}

async function formBody(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** Starts an IdP on a free loopback port; `close` in afterAll. */
export async function startOidcIdp(options: TestIdpOptions): Promise<TestIdp> {
  const server: Server = createServer();
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const kid = `idp-${randomBytes(4).toString('hex')}`;
  const key = signingJwk(kid);
  const published = options.signingKey === 'foreign' ? publicPart(signingJwk(kid)) : publicPart(key);
  const clientId = `shop-${randomBytes(4).toString('hex')}`;
  const clientSecret = randomBytes(32).toString('base64url');
  const accounts = new Map<string, IdpAccount>();

  const provider = new Provider(options.foreignIssuer ? `${issuer}/another-issuer` : issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        response_types: ['code'],
        grant_types: ['authorization_code'],
        id_token_signed_response_alg: 'ES256',
      },
    ],
    jwks: { keys: [key] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    // amr and acr with every ID token, as Okta and Entra ID send them.
    claims: {
      acr: null,
      auth_time: null,
      iss: null,
      sid: null,
      openid: ['sub', 'amr', 'acr'],
      email: ['email', 'email_verified'],
      groups: ['groups'],
    },
    scopes: ['openid', 'email', 'groups'],
    acrValues: ACR_VALUES,
    conformIdTokenClaims: !(options.claimsInIdToken ?? true),
    features: { devInteractions: { enabled: false } },
    // Lifetimes of its own artifacts, set so that oidc-provider does not log a notice for each default.
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 3600, IdToken: 3600, Interaction: 600, Session: 3600 },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: async (_ctx: unknown, sub: string) => {
      const account = accounts.get(sub);
      if (!account) return undefined;
      const { amr: _amr, acr: _acr, ...claims } = account;
      return { accountId: sub, claims: async () => ({ sub, ...claims }) };
    },
    // Consent for every scope the client asks: the merchant's IT admin granted our app.
    loadExistingGrant: async (ctx: KoaContextWithOidc) => {
      const { client, session, provider: self } = ctx.oidc;
      if (!client || !session?.accountId) return undefined;
      const existing = session.grantIdFor(client.clientId);
      if (existing) return self.Grant.find(existing);
      const grant = new self.Grant({ clientId: client.clientId, accountId: session.accountId });
      grant.addOIDCScope('openid email groups');
      await grant.save();
      return grant;
    },
  });
  const serve = provider.callback();

  const idp: TestIdp = {
    issuer,
    clientId,
    clientSecret,
    accounts,
    stalled: false,
    requests: [],
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  async function interaction(req: IncomingMessage, res: ServerResponse, uid: string) {
    if (req.method === 'GET') {
      await provider.interactionDetails(req, res);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(form(uid));
      return;
    }
    const login = (await formBody(req)).get('login') ?? '';
    const account = accounts.get(login);
    if (!account) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('No such account at the IdP');
      return;
    }
    await provider.interactionFinished(req, res, {
      login: { accountId: login, ...(account.amr ? { amr: account.amr } : {}), ...(account.acr ? { acr: account.acr } : {}) },
    });
  }

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', issuer).pathname;
    idp.requests.push(path);
    if (idp.stalled) return;
    const uid = /^\/interaction\/([\w-]+)$/.exec(path)?.[1];
    if (uid) {
      interaction(req, res, uid).catch((error: unknown) => res.writeHead(500).end(String(error)));
      return;
    }
    if (path === '/jwks') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [published] }));
      return;
    }
    if (path === '/.well-known/openid-configuration' && options.foreignIssuer) {
      // The document names the URL it is served at; the tokens will name the provider's own issuer.
      const original = res.end.bind(res);
      res.end = ((chunk: unknown, ...rest: unknown[]) => {
        if (typeof chunk === 'string' || Buffer.isBuffer(chunk)) {
          // Without RFC 9207's flag, an answer without `iss` reaches the ID token's own check.
          const { authorization_response_iss_parameter_supported: _, ...document } = { ...JSON.parse(chunk.toString()), issuer };
          res.removeHeader('content-length');
          return original(JSON.stringify(document), ...(rest as []));
        }
        return original(chunk as undefined, ...(rest as []));
      }) as typeof res.end;
    }
    serve(req, res);
  });
  return idp;
}

/**
 * What a browser does at the IdP, without one: follows the authorization URL through the
 * IdP's sign-in form as `login`, keeping its cookies, and returns the URL it is sent back
 * to (our callback with `code`, `state` and `iss`, or an error).
 */
export async function signInAt(authorizationUrl: URL | string, login: string): Promise<URL> {
  const cookies = new Map<string, string>();
  let url = new URL(authorizationUrl);
  const origin = url.origin;
  let body: URLSearchParams | undefined;
  for (let hop = 0; hop < 10; hop++) {
    if (url.origin !== origin) return url;
    const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const answer = await fetch(url, {
      method: body ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { ...(cookie ? { cookie } : {}), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(body ? { body } : {}),
    });
    for (const line of answer.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    body = undefined;
    const location = answer.headers.get('location');
    if (location) {
      url = new URL(location, url);
      continue;
    }
    if (answer.status === 200 && url.pathname.startsWith('/interaction/')) {
      body = new URLSearchParams({ login });
      continue;
    }
    throw new Error(`The IdP answered ${answer.status} at ${url.pathname}: ${await answer.text()}`);
  }
  throw new Error('Too many redirects at the IdP');
}

/**
 * The tenant's OIDC connection to `idp`, stored as POST /admin/connections stores it (the
 * client secret sealed), with test defaults: `groups` mapped to roles, JIT provisioning,
 * the domain `<tenant>.example`.
 */
export async function storedOidcConnection(
  deps: Pick<Deps, 'store' | 'random' | 'mfaSecrets'>,
  tenantId: string,
  idp: Pick<TestIdp, 'issuer' | 'clientId' | 'clientSecret'>,
  change: Partial<OidcConnection> = {},
): Promise<OidcConnection> {
  const now = new Date().toISOString();
  const connection: OidcConnection = {
    id: deps.random.id(),
    tenantId,
    type: 'oidc',
    name: 'Merchant IdP',
    issuer: idp.issuer,
    clientId: idp.clientId,
    clientSecretSealed: '',
    scopes: ['openid', 'email', 'groups'],
    roleClaim: 'groups',
    roleMapping: { 'shop-admins': 'ADMIN', finance: 'FINANCE', staff: 'ANALYST' },
    domains: [`${tenantId}.example`],
    defaultRole: 'ANALYST',
    jitProvisioning: true,
    ssoRequired: false,
    enabled: true,
    createdAt: now,
    updatedAt: now,
    createdBy: 'admin',
    ...change,
  };
  connection.clientSecretSealed = await sealClientSecret(deps, connection, idp.clientSecret);
  if (!(await deps.store.connections.create(connection))) throw new Error(`connection ${connection.id} not stored`);
  return connection;
}
