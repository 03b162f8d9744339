import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app';
import { testDeps } from '../helpers/deps';

describe('GET /.well-known/oauth-authorization-server', () => {
  it('publishes the RFC 8414 document with absolute URLs under the issuer, cacheable', async () => {
    const deps = await testDeps({ ISSUER: 'https://id.example.com/' });
    const response = await testApp(deps).request('metadata');
    const methods = ['client_secret_basic', 'client_secret_post'];
    expect(response).toEqual({
      status: 200,
      headers: expect.objectContaining({ 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'public, max-age=3600' }),
      body: {
        issuer: 'https://id.example.com',
        authorization_endpoint: 'https://id.example.com/oauth2/authorize',
        token_endpoint: 'https://id.example.com/oauth2/token',
        jwks_uri: 'https://id.example.com/.well-known/jwks.json',
        revocation_endpoint: 'https://id.example.com/oauth2/revoke',
        introspection_endpoint: 'https://id.example.com/oauth2/introspect',
        device_authorization_endpoint: 'https://id.example.com/oauth2/device_authorization',
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        grant_types_supported: [
          'authorization_code',
          'refresh_token',
          'client_credentials',
          'urn:ietf:params:oauth:grant-type:device_code',
        ],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: [...methods, 'none'],
        revocation_endpoint_auth_methods_supported: [...methods, 'none'],
        introspection_endpoint_auth_methods_supported: methods,
        authorization_response_iss_parameter_supported: true,
        // docs/api.md 16.3.
        dpop_signing_alg_values_supported: ['ES256', 'ES384', 'PS256', 'RS256', 'EdDSA', 'Ed25519'],
      },
    });
  });
});
