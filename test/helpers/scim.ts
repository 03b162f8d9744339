import { expect } from 'vitest';
import type { App } from './app';
import type { Response } from './http';

/** A SCIM request with a SCIM token, as Okta and Entra ID send them (docs/api.md 13.3). */
export function scimClient(app: App, token: string) {
  return (
    name: string,
    spec: { body?: unknown; query?: Record<string, string>; pathParameters?: Record<string, string>; method?: string } = {},
  ): Promise<Response> =>
    app.request(name, {
      ...spec,
      headers: { authorization: `Bearer ${token}`, ...(spec.body !== undefined ? { 'content-type': 'application/scim+json' } : {}) },
    });
}

/** Creates a SCIM token of the ADMIN's tenant; the token itself. */
export async function scimTokenOf(app: App, adminToken: string, name = 'Okta'): Promise<{ id: string; token: string }> {
  const response = await app.request('adminCreateScimToken', { token: adminToken, body: { name } });
  if (response.status !== 201) throw new Error(`SCIM token refused: ${JSON.stringify(response.body)}`);
  return { id: response.body.data.scimToken.id, token: response.body.data.token };
}

/** A SCIM error body (RFC 7644 3.12). */
export const scimError = (status: number, scimType?: string, detail: unknown = expect.any(String)) => ({
  schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
  status: String(status),
  ...(scimType ? { scimType } : {}),
  detail,
});
