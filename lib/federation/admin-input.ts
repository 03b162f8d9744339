import { ROLES } from '../users/user';
import * as z from '../zod';

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
export const domainName = z.pipe(
  z.pipe(
    z.string().check(z.maxLength(254), z.trim(), z.toLowerCase()),
    z.transform((name) => name.replace(/\.$/, '')),
  ),
  z.string().check(z.regex(DOMAIN, INVALID_DOMAIN)),
);

/** An absolute http(s) URL of the IdP; whether plain http is allowed is the configuration's (connections.ts). */
const idpUrl = z.string().check(
  z.trim(),
  z.maxLength(2000),
  z.refine((value) => URL.canParse(value) && /^https?:\/\/[^#]+$/i.test(value), 'Invalid URL: expected an absolute https URL'),
);

const printable = (max: number) =>
  z.string().check(z.minLength(1), z.maxLength(max), z.regex(/^[\x21-\x7E]+$/, 'Invalid value: expected printable ASCII without spaces'));

/** RFC 6749 3.3 scope-token. */
const scope = z.string().check(z.minLength(1), z.maxLength(128), z.regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'Invalid scope'));

const roleMapping = z
  .record(z.string().check(z.minLength(1), z.maxLength(256)), z.enum(ROLES))
  .check(z.refine((mapping) => Object.keys(mapping).length <= 100, 'Too many entries: at most 100'));

const common = {
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(100), z.regex(ONE_LINE)),
  domains: z.array(domainName).check(z.minLength(1), z.maxLength(50)),
  roleMapping: z.optional(roleMapping),
  defaultRole: z.enum(ROLES),
  jitProvisioning: z.boolean(),
  ssoRequired: z.boolean(),
  /** A new connection is enabled unless said otherwise. */
  enabled: z.optional(z.boolean()),
};

const oidc = {
  issuer: idpUrl,
  clientId: printable(256),
  /** Stored sealed, never answered (docs/api.md 14.1). */
  clientSecret: z.string().check(z.minLength(1), z.maxLength(1024)),
  scopes: z.array(scope).check(z.minLength(1), z.maxLength(20)),
  roleClaim: printable(256),
};

const saml = {
  metadataXml: z.string().check(z.minLength(1), z.maxLength(METADATA_MAX_CHARS)),
  entityId: z.string().check(z.trim(), z.minLength(1), z.maxLength(1024), z.regex(ONE_LINE)),
  ssoUrl: idpUrl,
  signingCertificates: z.array(z.string().check(z.maxLength(16 * 1024))).check(z.minLength(1), z.maxLength(MAX_SIGNING_CERTIFICATES)),
  roleAttribute: z.string().check(z.trim(), z.minLength(1), z.maxLength(256), z.regex(ONE_LINE)),
};

/** The IdP of a SAML connection: its metadata, or the three things it says. */
const SAML_SOURCE = 'Give metadataXml, or entityId, ssoUrl and signingCertificates';

/** POST /admin/connections (docs/api.md 14.1). */
export const newConnection = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('oidc'),
    ...common,
    ...oidc,
    scopes: z.optional(oidc.scopes),
    roleClaim: z.optional(oidc.roleClaim),
  }),
  z
    .strictObject({
      type: z.literal('saml'),
      ...common,
      metadataXml: z.optional(saml.metadataXml),
      entityId: z.optional(saml.entityId),
      ssoUrl: z.optional(saml.ssoUrl),
      signingCertificates: z.optional(saml.signingCertificates),
      roleAttribute: z.optional(saml.roleAttribute),
    })
    .check(
      z.refine(
        (body) =>
          body.metadataXml !== undefined
            ? body.entityId === undefined && body.ssoUrl === undefined && body.signingCertificates === undefined
            : body.entityId !== undefined && body.ssoUrl !== undefined && body.signingCertificates !== undefined,
        { message: SAML_SOURCE, path: ['metadataXml'] },
      ),
    ),
]);
export type NewConnection = z.output<typeof newConnection>;

/**
 * PATCH /admin/connections/{id} (docs/api.md 14.1): any field of the connection's type but
 * `type`; `roleMapping`, `roleClaim` and `roleAttribute` set to null are removed.
 */
export const connectionPatch = z
  .partial(
    z.strictObject({
      name: common.name,
      domains: common.domains,
      roleMapping: z.nullable(roleMapping),
      defaultRole: common.defaultRole,
      jitProvisioning: common.jitProvisioning,
      ssoRequired: common.ssoRequired,
      enabled: z.boolean(),
      ...oidc,
      roleClaim: z.nullable(oidc.roleClaim),
      ...saml,
      roleAttribute: z.nullable(saml.roleAttribute),
    }),
  )
  .check(
    z.refine((body) => Object.keys(body).length > 0, { message: 'Nothing to change', path: [] }),
    z.refine((body) => body.metadataXml === undefined || (body.entityId ?? body.ssoUrl ?? body.signingCertificates) === undefined, {
      message: SAML_SOURCE,
      path: ['metadataXml'],
    }),
  );
export type ConnectionPatch = z.output<typeof connectionPatch>;

/** The fields only one type of connection has: another type's in a PATCH is refused. */
export const OIDC_ONLY = ['issuer', 'clientId', 'clientSecret', 'scopes', 'roleClaim'] as const;
export const SAML_ONLY = ['metadataXml', 'entityId', 'ssoUrl', 'signingCertificates', 'roleAttribute'] as const;

/** A connection id in a path (ids are UUIDs; any other value is simply not found). */
export const connectionPath = z.object({ id: z.string().check(z.minLength(1), z.maxLength(128)) });

/** POST /admin/domains (docs/api.md 14.2). */
export const newDomain = z.strictObject({ domain: domainName });

/** A domain in a path. */
export const domainPath = z.object({ domain: domainName });
