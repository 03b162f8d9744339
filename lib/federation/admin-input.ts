import * as z from 'zod';
import { ROLES } from '../users/user';

/*
 * What a tenant's ADMIN sends to the connection and domain routes (docs/api.md 14.1,
 * 14.2), all at the top level of the body. The rules that need the
 * configuration (https, or http on loopback under `npm start`) or the stored connection
 * are lib/federation/connections.ts's.
 */

/** Larger than any IdP's metadata seen (ADFS's with its many roles is tens of KiB): lib/federation/metadata.ts. */
export const METADATA_MAX_CHARS = 128 * 1024;
/** Certificates a connection may list (an IdP rolls over with two or three at once). */
export const MAX_SIGNING_CERTIFICATES = 10;

/** One line of visible text: no control or format characters, no line or paragraph separator. */
const ONE_LINE = /^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+$/u;

/** A DNS name of letters, digits and hyphens (RFC 1123 2.1), two labels at least, the last not numeric (not an IP address). */
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?!\d+$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
export const INVALID_DOMAIN =
  'Invalid domain name: expected letters, digits, hyphens and dots (an internationalized name in its xn-- form)';

/** A domain name as stored: lower-case, without the trailing dot of a fully qualified name. */
export const domainName = z
  .string()
  .max(254)
  .trim()
  .toLowerCase()
  .transform((name) => name.replace(/\.$/, ''))
  .pipe(z.string().regex(DOMAIN, INVALID_DOMAIN));

/** An absolute http(s) URL of the IdP; whether plain http is allowed is the configuration's (connections.ts). */
const idpUrl = z
  .string()
  .trim()
  .max(2000)
  .refine((value) => URL.canParse(value) && /^https?:\/\/[^#]+$/i.test(value), 'Invalid URL: expected an absolute https URL');

const printable = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[\x21-\x7E]+$/, 'Invalid value: expected printable ASCII without spaces');

/** RFC 6749 3.3 scope-token. */
const scope = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'Invalid scope');

const roleMapping = z
  .record(z.string().min(1).max(256), z.enum(ROLES))
  .refine((mapping) => Object.keys(mapping).length <= 100, 'Too many entries: at most 100');

const common = {
  name: z.string().trim().min(1).max(100).regex(ONE_LINE),
  domains: z.array(domainName).min(1).max(50),
  roleMapping: roleMapping.optional(),
  defaultRole: z.enum(ROLES),
  jitProvisioning: z.boolean(),
  ssoRequired: z.boolean(),
  /** A new connection is enabled unless said otherwise. */
  enabled: z.boolean().optional(),
};

const oidc = {
  issuer: idpUrl,
  clientId: printable(256),
  /** Stored sealed, never answered (docs/api.md 14.1). */
  clientSecret: z.string().min(1).max(1024),
  scopes: z.array(scope).min(1).max(20),
  roleClaim: printable(256),
};

const saml = {
  metadataXml: z.string().min(1).max(METADATA_MAX_CHARS),
  entityId: z.string().trim().min(1).max(1024).regex(ONE_LINE),
  ssoUrl: idpUrl,
  signingCertificates: z
    .array(z.string().max(16 * 1024))
    .min(1)
    .max(MAX_SIGNING_CERTIFICATES),
  roleAttribute: z.string().trim().min(1).max(256).regex(ONE_LINE),
};

/** The IdP of a SAML connection: its metadata, or the three things it says. */
const SAML_SOURCE = 'Give metadataXml, or entityId, ssoUrl and signingCertificates';

/** POST /admin/connections (docs/api.md 14.1). */
export const newConnection = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('oidc'),
    ...common,
    ...oidc,
    scopes: oidc.scopes.optional(),
    roleClaim: oidc.roleClaim.optional(),
  }),
  z
    .strictObject({
      type: z.literal('saml'),
      ...common,
      metadataXml: saml.metadataXml.optional(),
      entityId: saml.entityId.optional(),
      ssoUrl: saml.ssoUrl.optional(),
      signingCertificates: saml.signingCertificates.optional(),
      roleAttribute: saml.roleAttribute.optional(),
    })
    .refine(
      (body) =>
        body.metadataXml !== undefined
          ? body.entityId === undefined && body.ssoUrl === undefined && body.signingCertificates === undefined
          : body.entityId !== undefined && body.ssoUrl !== undefined && body.signingCertificates !== undefined,
      { message: SAML_SOURCE, path: ['metadataXml'] },
    ),
]);
export type NewConnection = z.output<typeof newConnection>;

/**
 * PATCH /admin/connections/{id} (docs/api.md 14.1): any field of the connection's type but
 * `type`; `roleMapping`, `roleClaim` and `roleAttribute` set to null are removed.
 */
export const connectionPatch = z
  .strictObject({
    name: common.name,
    domains: common.domains,
    roleMapping: roleMapping.nullable(),
    defaultRole: common.defaultRole,
    jitProvisioning: common.jitProvisioning,
    ssoRequired: common.ssoRequired,
    enabled: z.boolean(),
    ...oidc,
    roleClaim: oidc.roleClaim.nullable(),
    ...saml,
    roleAttribute: saml.roleAttribute.nullable(),
  })
  .partial()
  .refine((body) => Object.keys(body).length > 0, { message: 'Nothing to change', path: [] })
  .refine((body) => body.metadataXml === undefined || (body.entityId ?? body.ssoUrl ?? body.signingCertificates) === undefined, {
    message: SAML_SOURCE,
    path: ['metadataXml'],
  });
export type ConnectionPatch = z.output<typeof connectionPatch>;

/** The fields only one type of connection has: another type's in a PATCH is refused. */
export const OIDC_ONLY = ['issuer', 'clientId', 'clientSecret', 'scopes', 'roleClaim'] as const;
export const SAML_ONLY = ['metadataXml', 'entityId', 'ssoUrl', 'signingCertificates', 'roleAttribute'] as const;

/** A connection id in a path (ids are UUIDs; any other value is simply not found). */
export const connectionPath = z.object({ id: z.string().min(1).max(128) });

/** POST /admin/domains (docs/api.md 14.2). */
export const newDomain = z.strictObject({ domain: domainName });

/** A domain in a path. */
export const domainPath = z.object({ domain: domainName });
