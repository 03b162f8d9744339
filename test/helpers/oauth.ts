import { createHash, randomBytes } from 'node:crypto';
import { type App, registerAdmin } from './app';
import { uniqueTenant } from './deps';

export const FORM = 'application/x-www-form-urlencoded';

/** A form-encoded request body and its content type. */
export function form(fields: Record<string, string | undefined>) {
  const defined = Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return { body: new URLSearchParams(defined).toString(), headers: { 'content-type': FORM } };
}

/** HTTP Basic client credentials as RFC 6749 2.3.1 encodes them. */
export function basic(clientId: string, clientSecret: string): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString('base64')}`;
}

export function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export const newSecret = () => randomBytes(32).toString('base64url');

export interface TestClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  tenantId: string;
}

export interface OAuthTenant {
  tenantId: string;
  /** The ADMIN's session token: registers clients, and signs in to authorize. */
  adminToken: string;
  adminId: string;
  client: TestClient;
}

/** Registers a client with the admin's token; throws unless 201. */
export async function createClient(
  app: App,
  adminToken: string,
  tenantId: string,
  options: { grantTypes?: string; scope?: string; redirectUri?: string; clientId?: string; idTokenAlg?: 'ES256' | 'RS256' } = {},
): Promise<TestClient> {
  const client = {
    clientId: options.clientId ?? `client-${randomBytes(6).toString('hex')}`,
    clientSecret: newSecret(),
    redirectUri: options.redirectUri ?? 'https://app.example.com/callback',
    tenantId,
  };
  const response = await app.request('createOAuth2Client', {
    token: adminToken,
    body: {
      client_id: client.clientId,
      client_secret: client.clientSecret,
      redirect_uri: client.redirectUri,
      grant_types: options.grantTypes ?? 'authorization_code refresh_token client_credentials',
      scope: options.scope ?? 'orders:read orders:write',
      tenant_id: tenantId,
      ...(options.idTokenAlg ? { id_token_signed_response_alg: options.idTokenAlg } : {}),
    },
  });
  if (response.status !== 201) throw new Error(`client registration failed: ${JSON.stringify(response.body)}`);
  return client;
}

/** A new tenant with its ADMIN and one client allowed every grant. */
export async function oauthTenant(app: App, options: Parameters<typeof createClient>[3] = {}): Promise<OAuthTenant> {
  const tenantId = uniqueTenant('oauth');
  const admin = await registerAdmin(app, tenantId);
  const client = await createClient(app, admin.token, tenantId, options);
  return { tenantId, adminToken: admin.token, adminId: admin.user.id, client };
}

/** Runs the authorization request as the signed-in user and returns the code from the redirect. */
export async function authorizationCode(
  app: App,
  userToken: string,
  client: TestClient,
  options: { scope?: string; state?: string; challenge?: string; nonce?: string } = {},
): Promise<{ code: string; verifier: string; location: URL }> {
  const { verifier, challenge } = pkcePair();
  const response = await app.request('oauth2Authorize', {
    token: userToken,
    query: {
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      code_challenge: options.challenge ?? challenge,
      code_challenge_method: 'S256',
      ...(options.scope === undefined ? {} : { scope: options.scope }),
      ...(options.state === undefined ? {} : { state: options.state }),
      ...(options.nonce === undefined ? {} : { nonce: options.nonce }),
    },
  });
  if (response.status !== 302) throw new Error(`authorize failed: ${response.status} ${JSON.stringify(response.body)}`);
  const location = new URL(response.headers.Location ?? '');
  const code = location.searchParams.get('code');
  if (!code) throw new Error('no code in the redirect');
  return { code, verifier, location };
}

/** A code of `client` redeemed at the token endpoint, with its PKCE verifier: the whole answer. */
export function redeemCode(app: App, client: TestClient, issued: { code: string; verifier: string }) {
  return app.request(
    'oauth2Token',
    tokenRequest(client, {
      grant_type: 'authorization_code',
      code: issued.code,
      redirect_uri: client.redirectUri,
      code_verifier: issued.verifier,
    }),
  );
}

/** The user's authorization code for `client`, redeemed: the grant's token answer (fails the test unless 200). */
export async function grantTokens(
  app: App,
  userToken: string,
  client: TestClient,
): Promise<{ access_token: string; refresh_token: string; scope: string }> {
  const redeemed = await redeemCode(app, client, await authorizationCode(app, userToken, client));
  if (redeemed.status !== 200) throw new Error(`code redemption failed: ${redeemed.status} ${JSON.stringify(redeemed.body)}`);
  return redeemed.body;
}

/** A token request the RFC way (form body, client_secret_post unless `auth` is given). */
export function tokenRequest(client: TestClient, fields: Record<string, string | undefined>, auth: 'post' | 'basic' = 'post') {
  // A public client (docs/api.md 16.1, an empty `clientSecret` here) names itself and proves nothing.
  const secret = client.clientSecret === '' ? {} : { client_secret: client.clientSecret };
  const credentials = auth === 'post' ? { client_id: client.clientId, ...secret } : {};
  const request = form({ ...credentials, ...fields });
  return auth === 'basic'
    ? { ...request, headers: { ...request.headers, authorization: basic(client.clientId, client.clientSecret) } }
    : request;
}
