/**
 * A typed client of the identity service: openapi-fetch over the types openapi-typescript
 * generates from docs/openapi.json (`npm run client` writes ./schema.d.ts). Every route,
 * body, answer and error `code` is typed; a failure answer is `error`, a success `data`.
 *
 * @example
 * const api = createIdentityClient({ baseUrl: 'http://localhost:3000', token: () => store.token });
 * const { data, error } = await api.POST('/auth/login', { body: { username, password, tenantId } });
 * if (error?.code === 'MFA_REQUIRED') askForCode();
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema';

export type { components, paths };
/** The envelope of every failure answer (docs/api.md 2). */
export type Failure = components['schemas']['Failure'];
/** The stable codes a UI switches on (docs/api.md 2), never the English `error`. */
export type ErrorCode = Failure['code'];
/** What login, refresh and register answer (docs/api.md 5.2). */
export type AuthPayload = components['schemas']['AuthPayload'];
export type IdentityClient = Client<paths>;

export interface IdentityClientOptions {
  /** The API's base URL, e.g. `https://id.example.com`. */
  baseUrl: string;
  /** The session access token, asked for on every request (a refresh replaces it; it may refresh first). */
  token?: () => string | undefined | Promise<string | undefined>;
  fetch?: (request: Request) => Promise<Response>;
}

/** A client whose requests carry `Authorization: Bearer <token()>` when there is a token. */
export function createIdentityClient({ baseUrl, token, fetch }: IdentityClientOptions): IdentityClient {
  const client = createClient<paths>({ baseUrl, ...(fetch ? { fetch } : {}) });
  client.use({
    async onRequest({ request }) {
      const current = await token?.();
      if (current && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${current}`);
      return request;
    },
  });
  return client;
}
