import { METADATA_MAX_CHARS } from '../../federation/admin-input';
import type { ConnectionType } from '../../federation/connection';
import type { ConnectionView } from '../../federation/connections';
import type { PostedForm } from './schema-form';

/*
 * The connection forms of the console (docs/api.md 15.3.7) and the bodies of
 * POST /admin/connections and PATCH /admin/connections/{id} they stand for: the same
 * fields, lists and the role mapping written as text, and parsed by the JSON routes'
 * schemas (lib/federation/admin-input.ts), so that a form is refused where the body
 * would be.
 */

const text = (form: PostedForm, name: string): string => {
  const value = form[name];
  return (Array.isArray(value) ? value[0] : value)?.trim() ?? '';
};
const checked = (form: PostedForm, name: string) => form[name] !== undefined;

/** Domains and scopes: separated by spaces, commas or lines. */
const words = (value: string) => value.split(/[\s,]+/).filter(Boolean);

/** One PEM certificate after the other, as an IdP's admin console hands them out. */
const certificates = (value: string) =>
  value
    .split(/(?<=-----END CERTIFICATE-----)/)
    .map((pem) => pem.trim())
    .filter(Boolean);

/**
 * `IdP value = ROLE`, one a line; the value may itself hold `=` (the last one splits). A
 * line without one maps to the empty role, which the schema refuses beside the field.
 */
export function roleMappingOf(value: string): Record<string, string> {
  const mapping: Record<string, string> = {};
  for (const line of value.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const at = line.lastIndexOf('=');
    mapping[(at < 0 ? line : line.slice(0, at)).trim()] = at < 0 ? '' : line.slice(at + 1).trim();
  }
  return mapping;
}

/** A role mapping as the form shows it. */
export const roleMappingText = (mapping: Record<string, string> | undefined) =>
  Object.entries(mapping ?? {})
    .map(([value, role]) => `${value} = ${role}`)
    .join('\n');

const optional = (value: string) => (value === '' ? undefined : value);

/** What both forms share. */
function common(form: PostedForm) {
  return {
    name: text(form, 'name'),
    domains: words(text(form, 'domains')),
    defaultRole: text(form, 'defaultRole'),
    jitProvisioning: checked(form, 'jitProvisioning'),
    ssoRequired: checked(form, 'ssoRequired'),
  };
}

/** The body of POST /admin/connections that the new-connection form of `type` stands for. */
export function newConnectionBody(type: ConnectionType, form: PostedForm): Record<string, unknown> {
  const mapping = text(form, 'roleMapping');
  const shared = { type, ...common(form), enabled: checked(form, 'enabled'), roleMapping: mapping ? roleMappingOf(mapping) : undefined };
  if (type === 'oidc') {
    const scopes = words(text(form, 'scopes'));
    return defined({
      ...shared,
      issuer: text(form, 'issuer'),
      clientId: text(form, 'clientId'),
      clientSecret: text(form, 'clientSecret'),
      scopes: scopes.length ? scopes : undefined,
      roleClaim: optional(text(form, 'roleClaim')),
    });
  }
  const pems = certificates(text(form, 'signingCertificates'));
  return defined({
    ...shared,
    metadataXml: optional(text(form, 'metadataXml')),
    entityId: optional(text(form, 'entityId')),
    ssoUrl: optional(text(form, 'ssoUrl')),
    signingCertificates: pems.length ? pems : undefined,
    roleAttribute: optional(text(form, 'roleAttribute')),
  });
}

/**
 * The body of PATCH /admin/connections/{id} that the edit form stands for: every field of
 * the form is set as shown (an emptied role mapping, claim or attribute is removed), but
 * the client secret, which is changed only when a new one is typed (it is never shown),
 * and SAML metadata, which replaces the entity id, SSO URL and certificates when given.
 */
export function connectionPatchBody(type: ConnectionType, form: PostedForm): Record<string, unknown> {
  const mapping = text(form, 'roleMapping');
  const shared = { ...common(form), roleMapping: mapping ? roleMappingOf(mapping) : null };
  if (type === 'oidc') {
    return defined({
      ...shared,
      issuer: text(form, 'issuer'),
      clientId: text(form, 'clientId'),
      clientSecret: optional(text(form, 'clientSecret')),
      scopes: words(text(form, 'scopes')),
      roleClaim: optional(text(form, 'roleClaim')) ?? null,
    });
  }
  const metadataXml = optional(text(form, 'metadataXml'));
  return defined({
    ...shared,
    ...(metadataXml !== undefined
      ? { metadataXml }
      : {
          entityId: text(form, 'entityId'),
          ssoUrl: text(form, 'ssoUrl'),
          signingCertificates: certificates(text(form, 'signingCertificates')),
        }),
    roleAttribute: optional(text(form, 'roleAttribute')) ?? null,
  });
}

/** The edit form's values for a stored connection: never the client secret. */
export function connectionFormValues(connection: ConnectionView): Record<string, string | boolean> {
  const shared = {
    name: connection.name,
    domains: connection.domains.join(' '),
    roleMapping: roleMappingText(connection.roleMapping),
    defaultRole: connection.defaultRole,
    jitProvisioning: connection.jitProvisioning,
    ssoRequired: connection.ssoRequired,
  };
  if (connection.type === 'oidc')
    return {
      ...shared,
      issuer: connection.issuer,
      clientId: connection.clientId,
      scopes: connection.scopes.join(' '),
      roleClaim: connection.roleClaim ?? '',
    };
  return {
    ...shared,
    entityId: connection.entityId,
    ssoUrl: connection.ssoUrl,
    signingCertificates: connection.signingCertificates.join('\n'),
    roleAttribute: connection.roleAttribute ?? '',
  };
}

/** A zod or domain path (`domains.0`, `roleMapping.Admins`) as the form's field it belongs to. */
export const fieldOfPath = (path: string) => path.split('.')[0] ?? path;

const defined = (fields: Record<string, unknown>) => Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));

/**
 * The largest console form (docs/api.md 15.3.7): SAML metadata at its largest, URL-encoded
 * (a character of markup takes up to three bytes, `%3C`), and the connection's other fields.
 */
export const CONNECTION_FORM_MAX_BYTES = 3 * METADATA_MAX_CHARS + 16 * 1024;

const COMMON_FIELDS = ['name', 'domains', 'roleMapping', 'defaultRole', 'jitProvisioning', 'ssoRequired'] as const;

/** The fields of each type's edit form; the new-connection forms add `enabled`. */
export const CONNECTION_FIELDS = {
  oidc: [...COMMON_FIELDS, 'issuer', 'clientId', 'clientSecret', 'scopes', 'roleClaim'],
  saml: [...COMMON_FIELDS, 'metadataXml', 'entityId', 'ssoUrl', 'signingCertificates', 'roleAttribute'],
} as const satisfies Record<ConnectionType, readonly string[]>;
