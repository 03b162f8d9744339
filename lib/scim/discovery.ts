import type { Deps } from '../deps';
import { COMMERCE_SCHEMA, GROUP_SCHEMA, LIST_SCHEMA, MAX_RESULTS, USER_SCHEMA } from './schema';

/*
 * The discovery documents of RFC 7644 4 (docs/api.md 13.3), honest about what the service
 * does: PATCH yes, filters yes (eq and and, at most MAX_RESULTS a page), no bulk, no sort,
 * no password change, ETags as `meta.version` only, bearer tokens.
 */

const base = (deps: Pick<Deps, 'config'>) => `${deps.config.issuer}/scim/v2`;

export function serviceProviderConfig(deps: Pick<Deps, 'config'>) {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
    documentationUri: `${deps.config.issuer}/docs/guides/scim.md`,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'OAuth Bearer Token',
        description: 'A SCIM token an ADMIN creates with POST /admin/scim-tokens, sent as Authorization: Bearer',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base(deps)}/ServiceProviderConfig` },
  };
}

export function resourceTypes(deps: Pick<Deps, 'config'>) {
  const resources = [
    {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      schema: USER_SCHEMA,
      schemaExtensions: [{ schema: COMMERCE_SCHEMA, required: false }],
      meta: { resourceType: 'ResourceType', location: `${base(deps)}/ResourceTypes/User` },
    },
    {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      schema: GROUP_SCHEMA,
      meta: { resourceType: 'ResourceType', location: `${base(deps)}/ResourceTypes/Group` },
    },
  ];
  return { schemas: [LIST_SCHEMA], totalResults: resources.length, itemsPerPage: resources.length, startIndex: 1, Resources: resources };
}

const attribute = (name: string, more: Record<string, unknown> = {}) => ({
  name,
  type: 'string',
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...more,
});

export function schemas(deps: Pick<Deps, 'config'>) {
  const schemaOf = (id: string, name: string, attributes: unknown[]) => ({
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
    id,
    name,
    attributes,
    meta: { resourceType: 'Schema', location: `${base(deps)}/Schemas/${id}` },
  });
  const resources = [
    schemaOf(USER_SCHEMA, 'User', [
      attribute('userName', { required: true, uniqueness: 'server', mutability: 'immutable' }),
      attribute('externalId', { caseExact: true, uniqueness: 'server' }),
      attribute('name', {
        type: 'complex',
        subAttributes: ['formatted', 'familyName', 'givenName', 'middleName', 'honorificPrefix', 'honorificSuffix'].map((sub) =>
          attribute(sub),
        ),
      }),
      attribute('displayName'),
      attribute('emails', {
        type: 'complex',
        multiValued: true,
        subAttributes: [attribute('value'), attribute('type'), attribute('primary', { type: 'boolean' }), attribute('display')],
      }),
      attribute('active', { type: 'boolean' }),
      attribute('groups', {
        type: 'complex',
        multiValued: true,
        mutability: 'readOnly',
        subAttributes: [attribute('value'), attribute('display')],
      }),
    ]),
    schemaOf(GROUP_SCHEMA, 'Group', [
      attribute('displayName', { required: true, uniqueness: 'server', mutability: 'readOnly' }),
      attribute('members', {
        type: 'complex',
        multiValued: true,
        subAttributes: [attribute('value', { caseExact: true }), attribute('display')],
      }),
    ]),
    schemaOf(COMMERCE_SCHEMA, 'Commerce user', [attribute('shopId', { caseExact: true })]),
  ];
  return { schemas: [LIST_SCHEMA], totalResults: resources.length, itemsPerPage: resources.length, startIndex: 1, Resources: resources };
}
