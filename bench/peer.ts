/**
 * The peer: panva's oidc-provider with one confidential client allowed the
 * client_credentials grant, issuing ES256-signed JWT access tokens (as ours do) for
 * one resource server. Started by bench/main.ts on CPU 0, like our server; reports
 * its port over IPC. Its client lives in memory (static configuration); ours is read
 * from DynamoDB and then kept by the Lambda instance for 60 s (lib/store/oauth-clients).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Provider from 'oidc-provider';

function need(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

async function main() {
  const clientId = need('BENCH_PEER_CLIENT_ID');
  const clientSecret = need('BENCH_PEER_CLIENT_SECRET');
  const scope = need('BENCH_PEER_SCOPE');
  const signingKey = JSON.parse(need('BENCH_PEER_SIGNING_JWK')) as Record<string, unknown>;

  let serve: ((request: IncomingMessage, response: ServerResponse) => void) | undefined;
  const server = createServer((request, response) => serve?.(request, response));
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  const resource = 'urn:bench:api';
  const provider = new Provider(`http://127.0.0.1:${port}`, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
        // The only key is ES256 (the same key our functions sign with).
        id_token_signed_response_alg: 'ES256',
        scope,
      },
    ],
    jwks: { keys: [{ ...signingKey, alg: 'ES256', use: 'sig' }] },
    scopes: scope.split(' '),
    cookies: { keys: ['bench-only-cookie-key'] },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope,
          audience: resource,
          accessTokenTTL: 3600,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'ES256' } },
        }),
      },
    },
  });
  serve = provider.callback();
  process.send?.({ port });
  process.on('disconnect', () => process.exit(0));
}

main().catch((error: unknown) => {
  process.stderr.write(`peer: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
