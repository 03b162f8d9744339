import { describe, expect, it } from 'vitest';
import { connectionPatchBody, newConnectionBody, roleMappingOf, roleMappingText } from '../../lib/console/admin/connection-form';
import { bodyOfForm, choiceName, formValuesOf, schemaFields } from '../../lib/console/admin/schema-form';
import { connectionPatch, newConnection } from '../../lib/federation/admin-input';
import { GRANT_TYPES } from '../../lib/oauth/client';
import { clientRegistration as createClientBody, clientUpdate as updateClientBody } from '../../lib/oauth/client-schemas';
import * as z from '../../lib/zod';

/** docs/api.md 15.3.6, 15.3.7: the console's forms stand for the JSON routes' bodies, parsed by their schemas. */
describe('forms made from a JSON body schema', () => {
  const choices = { grant_types: GRANT_TYPES };
  const fields = schemaFields(createClientBody, { omit: ['client_secret', 'tenant_id'], choices });

  it('leaves out a property of a type it has no field for, a string format among them', () => {
    const shape = z.strictObject({ name: z.string().check(z.maxLength(10)), email: z.email(), uri: z.optional(z.url()), at: z.number() });
    expect(schemaFields(shape).map((field) => field.name)).toEqual(['name']);
  });

  it('has one field per property of the registration, of the kind its type says, but those the page fills itself', () => {
    expect(fields.map((field) => [field.name, field.kind])).toEqual([
      ['client_id', 'text'],
      ['token_endpoint_auth_method', 'select'],
      ['allowed_origins', 'text'],
      ['redirect_uri', 'text'],
      ['grant_types', 'choices'],
      ['scope', 'text'],
      ['introspect_any', 'checkbox'],
      ['resources', 'text'],
      ['id_token_signed_response_alg', 'select'],
      ['post_logout_redirect_uris', 'text'],
      ['dpop_bound_access_tokens', 'checkbox'],
      ['backchannel_logout_uri', 'text'],
      ['backchannel_logout_session_required', 'checkbox'],
    ]);
    expect(fields.find((field) => field.name === 'redirect_uri')).toMatchObject({ required: true, multiline: true });
    expect(fields.find((field) => field.name === 'client_id')).toMatchObject({ required: true, multiline: false, maxLength: 128 });
  });

  it('turns the posted form into the body: lines joined by spaces, checked grant types, unchecked boxes false, empty optional fields left out', () => {
    const body = bodyOfForm(createClientBody, fields, {
      client_id: ' shop-app ',
      redirect_uri: 'https://shop.example/cb\r\n\r\nhttps://shop.example/cb2\n',
      [choiceName('grant_types', 'authorization_code')]: 'on',
      [choiceName('grant_types', 'refresh_token')]: 'on',
      scope: 'openid profile',
      resources: '',
      id_token_signed_response_alg: '',
      post_logout_redirect_uris: '',
    });
    expect(body).toEqual({
      client_id: 'shop-app',
      redirect_uri: 'https://shop.example/cb https://shop.example/cb2',
      grant_types: 'authorization_code refresh_token',
      scope: 'openid profile',
      introspect_any: false,
      // A list that may be empty (docs/api.md 16.2: no origins) is sent as it is.
      allowed_origins: '',
      dpop_bound_access_tokens: false,
      backchannel_logout_session_required: false,
    });
    expect(createClientBody.safeParse({ ...body, client_secret: 'x'.repeat(40), tenant_id: 't' }).success).toBe(true);
  });

  it('keeps a required field empty and no grant type as the empty string, for the schema to refuse beside the field', () => {
    const body = bodyOfForm(createClientBody, fields, { client_id: '', redirect_uri: 'https://a.example/cb', scope: 'openid' });
    expect(body).toMatchObject({ client_id: '', grant_types: '' });
    const issues = createClientBody.safeParse({ ...body, client_secret: 'x'.repeat(40), tenant_id: 't' }).error?.issues ?? [];
    expect([...new Set(issues.map((issue) => issue.path.join('.')))]).toEqual(['client_id', 'grant_types']);
  });

  it('empties a list that PATCH may empty, and leaves out a name left empty', () => {
    const editFields = schemaFields(updateClientBody, { choices });
    const body = bodyOfForm(updateClientBody, editFields, {
      redirect_uri: 'https://a.example/cb',
      [choiceName('grant_types', 'client_credentials')]: 'on',
      scope: 'api',
      client_name: '',
      post_logout_redirect_uris: '  ',
    });
    expect(body).toEqual({
      redirect_uri: 'https://a.example/cb',
      grant_types: 'client_credentials',
      scope: 'api',
      first_party: false,
      post_logout_redirect_uris: '',
      allowed_origins: '',
      dpop_bound_access_tokens: false,
      // docs/api.md 17.3: the empty string removes the URI.
      backchannel_logout_uri: '',
      backchannel_logout_session_required: false,
    });
    expect(updateClientBody.safeParse(body).success).toBe(true);
  });

  it('shows a stored client in the form: lists one a line, booleans and chosen grant types checked', () => {
    const editFields = schemaFields(updateClientBody, { choices });
    expect(
      formValuesOf(editFields, {
        redirect_uri: ['https://a.example/cb', 'https://a.example/cb2'],
        grant_types: ['authorization_code'],
        scope: 'openid',
        client_name: 'Shop',
        first_party: true,
        post_logout_redirect_uris: [],
      }),
    ).toMatchObject({
      redirect_uri: 'https://a.example/cb\nhttps://a.example/cb2',
      [choiceName('grant_types', 'authorization_code')]: true,
      [choiceName('grant_types', 'client_credentials')]: false,
      scope: 'openid',
      client_name: 'Shop',
      first_party: true,
      post_logout_redirect_uris: '',
    });
  });
});

describe('connection forms', () => {
  it('reads a role mapping one line at a time, splitting at the last =, and writes it back the same way', () => {
    const mapping = roleMappingOf('Store Admins = ADMIN\n\r\na=b = SOURCING\nno role here');
    expect(mapping).toEqual({ 'Store Admins': 'ADMIN', 'a=b': 'SOURCING', 'no role here': '' });
    expect(roleMappingText({ 'Store Admins': 'ADMIN' })).toBe('Store Admins = ADMIN');
  });

  it('turns the OIDC form into the body of POST /admin/connections', () => {
    const body = newConnectionBody('oidc', {
      name: 'Acme Okta',
      issuer: 'https://acme.okta.example',
      clientId: '0oa1',
      clientSecret: 'secret',
      scopes: '',
      domains: 'acme.example, shop.acme.example\nother.example',
      roleClaim: 'groups',
      roleMapping: 'Admins = ADMIN',
      defaultRole: 'ANALYST',
      jitProvisioning: 'on',
      enabled: 'on',
    });
    expect(body).toEqual({
      type: 'oidc',
      name: 'Acme Okta',
      issuer: 'https://acme.okta.example',
      clientId: '0oa1',
      clientSecret: 'secret',
      domains: ['acme.example', 'shop.acme.example', 'other.example'],
      roleClaim: 'groups',
      roleMapping: { Admins: 'ADMIN' },
      defaultRole: 'ANALYST',
      jitProvisioning: true,
      ssoRequired: false,
      enabled: true,
    });
    expect(newConnection.safeParse(body).success).toBe(true);
  });

  it('turns the SAML form with two certificates into the body, and refuses metadata given beside them', () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';
    const form = {
      name: 'Entra',
      entityId: 'urn:idp',
      ssoUrl: 'https://idp.example/sso',
      signingCertificates: `${pem}\n${pem}\n`,
      domains: 'a.example',
      defaultRole: 'OPERATOR',
    };
    const body = newConnectionBody('saml', form);
    expect(body).toMatchObject({ type: 'saml', signingCertificates: [pem, pem], jitProvisioning: false, enabled: false });
    expect(newConnection.safeParse(body).success).toBe(true);
    const both = newConnection.safeParse(newConnectionBody('saml', { ...form, metadataXml: '<md/>' }));
    expect(both.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['metadataXml']);
  });

  it('keeps the client secret unless a new one is typed, and removes an emptied role mapping and claim', () => {
    const body = connectionPatchBody('oidc', {
      name: 'Acme',
      issuer: 'https://acme.example',
      clientId: 'c',
      clientSecret: '',
      scopes: 'openid email',
      domains: 'acme.example',
      roleClaim: '',
      roleMapping: '',
      defaultRole: 'ANALYST',
      ssoRequired: 'on',
    });
    expect(body).toEqual({
      name: 'Acme',
      issuer: 'https://acme.example',
      clientId: 'c',
      scopes: ['openid', 'email'],
      domains: ['acme.example'],
      roleClaim: null,
      roleMapping: null,
      defaultRole: 'ANALYST',
      jitProvisioning: false,
      ssoRequired: true,
    });
    expect(connectionPatch.safeParse(body).success).toBe(true);
  });

  it('lets new SAML metadata replace the entity id, SSO URL and certificates of the edit form', () => {
    const body = connectionPatchBody('saml', {
      name: 'E',
      domains: 'a.example',
      defaultRole: 'ADMIN',
      metadataXml: '<md/>',
      entityId: 'urn:old',
      ssoUrl: 'https://old.example',
    });
    expect(body).toMatchObject({ metadataXml: '<md/>' });
    expect(body).not.toHaveProperty('entityId');
    expect(connectionPatch.safeParse(body).success).toBe(true);
  });
});
