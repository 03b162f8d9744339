/**
 * The peer: panva's oidc-provider with one confidential client allowed the
 * client_credentials grant, issuing ES256-signed JWT access tokens (as ours do) for
 * one resource server. Started by bench/main.ts on CPU 0, like our server; reports
 * its port over IPC. Two ways (BENCH_PEER_STORE): `memory`, its client in its static
 * configuration and no database at all; `dynamodb`, as a deployment keeps it, every
 * model behind an adapter on DynamoDB Local (bench/peer-adapter.ts) and the client a
 * record there, read on every request as ours is (docs/decisions/004-no-client-cache.md).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import Provider from 'oidc-provider';
import { dynamoAdapter, ensurePeerTable } from './peer-adapter';

function need(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

/** The DynamoDB adapter on the peer's own table, with the client stored in it. */
async function storedAdapter(client: { client_id: string }) {
  const tableName = need('BENCH_PEER_TABLE');
  const dynamo = new DynamoDBClient({
    endpoint: need('DYNAMODB_ENDPOINT'),
    region: need('AWS_REGION'),
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await ensurePeerTable(dynamo, tableName);
  const Adapter = dynamoAdapter(DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true } }), tableName);
  await new Adapter('Client').upsert(client.client_id, client);
  return Adapter;
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
  const client = {
    client_id: clientId,
    client_secret: clientSecret,
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
    // The only key is ES256 (the same key our functions sign with).
    id_token_signed_response_alg: 'ES256',
    scope,
  };
  const provider = new Provider(`http://127.0.0.1:${port}`, {
    ...(process.env.BENCH_PEER_STORE === 'dynamodb' ? { adapter: await storedAdapter(client) } : { clients: [client] }),
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
