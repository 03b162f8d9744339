import { ROLES } from '../users/user';
import * as z from '../zod';

/*
 * A tenant's connection to its own identity provider (docs/api.md 14): OpenID Connect or
 * SAML 2.0. The stored record holds what signs people in; answers use `connectionView`,
 * which never carries the client secret (stored sealed, lib/mfa/secret-box.ts).
 */

export const CONNECTION_TYPES = ['oidc', 'saml'] as const;
export type ConnectionType = (typeof CONNECTION_TYPES)[number];

/**
 * The stored records of connections and domains. Built on first use: every function carries
 * the federation stores (lib/deps.ts), few read a connection (docs/performance.md, Cold starts).
 */
function buildRecords() {
  /** What both kinds share. */
  const common = {
    id: z.string(),
    tenantId: z.string(),
    name: z.string(),
    /** Lower-case domain names; the connection signs in only emails at those of them its tenant verified (docs/api.md 14.2). */
    domains: z.array(z.string()),
    /** From the IdP's role value to one of our roles; re-applied at every sign-in when present. */
    roleMapping: z.optional(z.record(z.string(), z.enum(ROLES))),
    defaultRole: z.enum(ROLES),
    jitProvisioning: z.boolean(),
    ssoRequired: z.boolean(),
    /** A disabled connection signs nobody in, and its sessions end at their next request. */
    enabled: z.boolean(),
    /** ISO 8601. */
    createdAt: z.string(),
    updatedAt: z.string(),
    /** The ADMIN who created it. */
    createdBy: z.string(),
  };

  const oidc = z.object({
    ...common,
    type: z.literal('oidc'),
    /** The IdP's issuer identifier; its discovery document is `${issuer}/.well-known/openid-configuration`. */
    issuer: z.string(),
    clientId: z.string(),
    /** The client secret, sealed by the secret box (never in an answer or a log line). */
    clientSecretSealed: z.string(),
    scopes: z.array(z.string()),
    /** The ID token or userinfo claim whose value(s) `roleMapping` maps (e.g. `groups`). */
    roleClaim: z.optional(z.string()),
  });

  const saml = z.object({
    ...common,
    type: z.literal('saml'),
    /** The IdP's entity id: the `Issuer` its responses carry. */
    idpEntityId: z.string(),
    /** Where the AuthnRequest goes (HTTP-Redirect binding). */
    ssoUrl: z.string(),
    /** PEM certificates whose keys may sign the IdP's responses or assertions. */
    signingCertificates: z.array(z.string()).check(z.minLength(1)),
    /** The attribute whose value(s) `roleMapping` maps. */
    roleAttribute: z.optional(z.string()),
  });

  /** A tenant's domain (docs/api.md 14.2): pending until its TXT record is found, then verified for this tenant alone. */
  const tenantDomain = z.object({
    tenantId: z.string(),
    /** Lower-case, without a trailing dot. */
    domain: z.string(),
    status: z.enum(['pending', 'verified']),
    /** The random value the TXT record must hold (public: it proves control of the zone, not a secret). */
    token: z.string(),
    createdAt: z.string(),
    verifiedAt: z.optional(z.string()),
  });

  return { oidc, saml, connection: z.discriminatedUnion('type', [oidc, saml]), tenantDomain };
}

type FederationRecords = ReturnType<typeof buildRecords>;
let records: FederationRecords | undefined;
/** The record schemas (built at the first call). */
export const federationRecords = (): FederationRecords => (records ??= buildRecords());

export type OidcConnection = z.output<FederationRecords['oidc']>;
export type SamlConnection = z.output<FederationRecords['saml']>;
export type Connection = z.output<FederationRecords['connection']>;

/** Where the IdP sends people back, and what the merchant's IT admin enters on its side (docs/api.md 14.1). */
export const federationEndpoints = (issuer: string, connectionId: string) => ({
  /** The one OIDC redirect URI of the service, for every connection. */
  redirectUri: `${issuer}/sso/oidc/callback`,
  acsUrl: `${issuer}/sso/saml/${encodeURIComponent(connectionId)}/acs`,
  /** The SP entity id of a SAML connection: its metadata URL, unique per connection. */
  spEntityId: `${issuer}/sso/saml/${encodeURIComponent(connectionId)}/metadata`,
  spMetadataUrl: `${issuer}/sso/saml/${encodeURIComponent(connectionId)}/metadata`,
});

/** A connection as the admin routes answer it: never the secret. */
export function connectionView(connection: Connection, issuer: string) {
  const endpoints = federationEndpoints(issuer, connection.id);
  const shared = {
    id: connection.id,
    type: connection.type,
    name: connection.name,
    domains: connection.domains,
    ...(connection.roleMapping ? { roleMapping: connection.roleMapping } : {}),
    defaultRole: connection.defaultRole,
    jitProvisioning: connection.jitProvisioning,
    ssoRequired: connection.ssoRequired,
    enabled: connection.enabled,
    createdAt: connection.createdAt,
    updatedAt: connection.updatedAt,
  };
  if (connection.type === 'oidc') {
    return {
      ...shared,
      type: connection.type,
      issuer: connection.issuer,
      clientId: connection.clientId,
      scopes: connection.scopes,
      ...(connection.roleClaim ? { roleClaim: connection.roleClaim } : {}),
      redirectUri: endpoints.redirectUri,
    };
  }
  return {
    ...shared,
    type: connection.type,
    entityId: connection.idpEntityId,
    ssoUrl: connection.ssoUrl,
    signingCertificates: connection.signingCertificates,
    ...(connection.roleAttribute ? { roleAttribute: connection.roleAttribute } : {}),
    acsUrl: endpoints.acsUrl,
    spEntityId: endpoints.spEntityId,
    spMetadataUrl: endpoints.spMetadataUrl,
  };
}

/** A tenant's domain (docs/api.md 14.2), as stored. */
export type TenantDomain = z.output<FederationRecords['tenantDomain']>;

/** The TXT record that proves control of a domain (docs/api.md 14.2). */
export const domainVerification = (domain: Pick<TenantDomain, 'domain' | 'token'>) => ({
  type: 'dns-txt' as const,
  name: `_identity-verification.${domain.domain}`,
  value: `identity-verification=${domain.token}`,
});

/** The domain of an email address, lower-case; undefined when it has none. */
export function emailDomain(email: string): string | undefined {
  const at = email.lastIndexOf('@');
  if (at < 1 || at === email.length - 1) return undefined;
  return email
    .slice(at + 1)
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\.$/, '');
}

/**
 * What an identity provider asserted about the person, once its protocol checks passed
 * (lib/federation/oidc.ts, lib/federation/saml.ts): read only from what the IdP signed.
 */
export interface FederatedClaims {
  /** The OIDC `sub`, or the SAML persistent NameID (else the NameID as sent). */
  subject: string;
  /** The OIDC `email`, or the SAML NameID in emailAddress format or the usual email attributes. */
  email?: string | undefined;
  /** The values of the connection's role claim or attribute (empty when it has none). */
  roles: string[];
  /** The IdP asserted a multi-factor authentication (OIDC `amr`/`acr`, SAML `AuthnContextClassRef`). */
  mfa: boolean;
}
