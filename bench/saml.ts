/**
 * A SAML sign-in at the ACS under load (docs/api.md 14.5): POST /sso/saml/{id}/acs with a
 * fresh signed response per request. A SAML connection of the tenant and its verified
 * domain are written through the stores; each sign-in is set off as a browser does
 * (authorize with the address as login_hint, then GET /sso/begin, for the interaction,
 * the pending request and the federation cookie) and answered here by the test IdP
 * (test/helpers/saml-idp.ts), so the measured request costs what a returning user's
 * does: the signature check, the pending request taken, the assertion ID recorded, the
 * link read, the session and the code.
 */
import { createHash, randomBytes } from 'node:crypto';
import { systemClock } from '../lib/clock';
import type { Config } from '../lib/config';
import { cryptoRandom } from '../lib/crypto/random';
import { dynamoStores } from '../lib/deps';
import { createDynamo } from '../lib/store/dynamo';
import { makeSamlIdp, readAuthnRequest } from '../test/helpers/saml-idp';
import type { RequestShape } from './load';

export interface SamlLoad {
  path: string;
  /** The next request: the response to the next sign-in set off. */
  next: () => RequestShape;
}

const b64url = (bytes: Buffer) => bytes.toString('base64url');

/** Sets up the connection, then `count` sign-ins through the API at `url`, ten at a time. */
export async function seedSamlSignIns(options: {
  url: string;
  config: Config;
  tenantId: string;
  adminToken: string;
  count: number;
}): Promise<SamlLoad> {
  const { url, config, tenantId, adminToken, count } = options;
  const dynamo = createDynamo({ tableName: config.tableName, region: config.awsRegion, endpoint: config.dynamodbEndpoint });
  const stores = dynamoStores(dynamo, { random: cryptoRandom, clock: systemClock });
  const idp = await makeSamlIdp();
  const domain = `${tenantId}.bench.example`;
  const now = new Date().toISOString();
  const connectionId = cryptoRandom.id();
  await stores.connections.create({
    id: connectionId,
    tenantId,
    type: 'saml',
    name: 'Bench IdP',
    domains: [domain],
    defaultRole: 'ANALYST',
    jitProvisioning: true,
    ssoRequired: false,
    enabled: true,
    createdAt: now,
    updatedAt: now,
    createdBy: 'bench',
    idpEntityId: idp.entityId,
    ssoUrl: 'https://idp.bench.example/sso',
    signingCertificates: [idp.cert],
  });
  await stores.domains.create({ tenantId, domain, status: 'pending', token: 'bench', createdAt: now });
  await stores.domains.verify({ tenantId, domain }, now);

  const client = { id: `saml-bench-${b64url(randomBytes(4))}`, redirectUri: 'https://app.bench.example/callback' };
  const registered = await fetch(`${url}/oauth2/clients`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
    body: JSON.stringify({
      client_id: client.id,
      client_secret: b64url(randomBytes(32)),
      redirect_uri: client.redirectUri,
      grant_types: 'authorization_code',
      scope: 'orders:read',
      tenant_id: tenantId,
    }),
  });
  if (registered.status !== 201) throw new Error(`client registration answered ${registered.status}: ${await registered.text()}`);

  const email = `staff@${domain}`;
  /** One sign-in set off as a browser does: its cookies and the response the IdP posts. */
  const setOff = async (): Promise<RequestShape> => {
    const authorize = new URL('/oauth2/authorize', url);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.id,
      redirect_uri: client.redirectUri,
      scope: 'orders:read',
      state: b64url(randomBytes(8)),
      code_challenge: b64url(
        createHash('sha256')
          .update(b64url(randomBytes(32)))
          .digest(),
      ),
      code_challenge_method: 'S256',
      login_hint: email,
    }).toString();
    const discovered = await fetch(authorize, { redirect: 'manual', headers: { accept: 'text/html' } });
    const begin = discovered.headers.get('location');
    if (discovered.status !== 302 || !begin) throw new Error(`authorize answered ${discovered.status}`);
    const cookies = discovered.headers.getSetCookie().map((line) => line.split(';')[0]);
    // The Location names the configured issuer: the same path on the benchmark's server.
    const { pathname, search } = new URL(begin, url);
    const sent = await fetch(`${url}${pathname}${search}`, { redirect: 'manual', headers: { cookie: cookies.join('; ') } });
    const location = new URL(sent.headers.get('location') ?? '');
    if (sent.status !== 302) throw new Error(`GET /sso/begin answered ${sent.status}`);
    cookies.push(...sent.headers.getSetCookie().map((line) => line.split(';')[0]));
    const relayState = location.searchParams.get('RelayState') ?? '';
    const authn = await readAuthnRequest(location.searchParams.get('SAMLRequest') ?? '');
    const SAMLResponse = idp.encodedResponse({
      acsUrl: authn.acsUrl,
      spEntityId: authn.issuer,
      inResponseTo: authn.id,
      nameId: 'bench-staff',
      attributes: { email: [email] },
      now: Date.now(),
      notOnOrAfterMs: 30 * 60_000,
    });
    return {
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies.join('; ') },
      body: new URLSearchParams({ SAMLResponse, RelayState: relayState }).toString(),
    };
  };
  const ready: RequestShape[] = [];
  for (let i = 0; i < count; i += 10) ready.push(...(await Promise.all(Array.from({ length: Math.min(10, count - i) }, setOff))));
  let taken = 0;
  return {
    path: `/sso/saml/${connectionId}/acs`,
    next: () => ready[taken++ % ready.length] as RequestShape,
  };
}
