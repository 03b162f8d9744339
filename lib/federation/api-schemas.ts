import { ROLES } from '../users/user';
import * as z from '../zod';
import type { ConnectionView } from './connections';
import type { DomainView } from './domains';

/*
 * The answers of the connection and domain routes (docs/api.md 14.1, 14.2) as schemas,
 * like lib/admin/api-schemas.ts: docs/openapi.json is generated from them.
 */

const shared = {
  id: z.string(),
  name: z.string(),
  domains: z.array(z.string()),
  roleMapping: z.optional(z.record(z.string(), z.enum(ROLES))),
  defaultRole: z.enum(ROLES),
  jitProvisioning: z.boolean(),
  ssoRequired: z.boolean(),
  enabled: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
};

/** docs/api.md 14.1: a connection as an ADMIN sees it, with what to enter at the IdP; never the client secret. */
export const connection = z.discriminatedUnion('type', [
  z.strictObject({
    ...shared,
    type: z.literal('oidc'),
    issuer: z.string(),
    clientId: z.string(),
    scopes: z.array(z.string()),
    roleClaim: z.optional(z.string()),
    redirectUri: z.string(),
  }),
  z.strictObject({
    ...shared,
    type: z.literal('saml'),
    entityId: z.string(),
    ssoUrl: z.string(),
    signingCertificates: z.array(z.string()),
    roleAttribute: z.optional(z.string()),
    acsUrl: z.string(),
    spEntityId: z.string(),
    spMetadataUrl: z.string(),
  }),
]) satisfies z.ZodMiniType<ConnectionView>;
export const oneConnection = z.strictObject({ connection });
export const connectionList = z.strictObject({ connections: z.array(connection) });

const verification = z.strictObject({ type: z.literal('dns-txt'), name: z.string(), value: z.string() });

/** docs/api.md 14.2: a domain of the tenant, with its TXT record while pending. */
export const domain = z.strictObject({
  domain: z.string(),
  status: z.enum(['pending', 'verified']),
  verification: z.optional(verification),
  createdAt: z.string(),
  verifiedAt: z.optional(z.string()),
}) satisfies z.ZodMiniType<DomainView>;
export const domainAdded = z.strictObject({
  domain: z.string(),
  status: z.literal('pending'),
  verification,
  createdAt: z.string(),
});
export const domainList = z.strictObject({ domains: z.array(domain) });
export const domainVerified = z.strictObject({ domain: z.string(), status: z.literal('verified') });
