import { oneTenant as oneTenantAnswer } from '../lib/admin/api-schemas';
import { accentColorSetting, displayNameSetting, logoUrlSetting, updateTenant } from '../lib/admin/tenant';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { ROLES } from '../lib/users/user';
import * as z from '../lib/zod';

/**
 * docs/api.md 9.14: a display name is one line of text, as a shop's name (9.7); the role
 * SCIM users get without a group (13.3); the pages' logo and accent colour (null removes).
 */
export const body = z
  .strictObject({
    displayName: z.optional(displayNameSetting),
    scimDefaultRole: z.optional(z.enum(ROLES)),
    logoUrl: z.optional(z.nullable(logoUrlSetting)),
    accentColor: z.optional(z.nullable(accentColorSetting)),
  })
  .check(
    z.refine((settings) => Object.values(settings).some((value) => value !== undefined), {
      message: 'Expected displayName, scimDefaultRole, logoUrl or accentColor',
    }),
  );

/** The `data` of the success envelope (docs/api.md 5). */
export const response = oneTenantAnswer;

/** PATCH /admin/tenant (docs/api.md 9.14): names the ADMIN's tenant on the hosted pages. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', response, role: 'ADMIN', body }, async ({ body, identity, deps }) =>
    ok({ tenant: await updateTenant(deps, identity, body) }),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '9.14',
  summary: 'Set the display name, logo and accent colour the pages show, or the role of SCIM users without a group (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  bodyTypes: ['json'],
  answers: [{ status: 200, description: 'The tenant as changed.', body: 'TenantEnvelope', headers: noStore }],
  failures: [permissionDenied],
};
