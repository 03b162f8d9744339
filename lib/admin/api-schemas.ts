import { type AuditEvent, auditEventSchema } from '../audit/events';
import { MFA_METHODS } from '../mfa/methods';
import { ROLES } from '../users/user';
import * as z from '../zod';
import type { ImportResult } from './import';
import type { ShopView } from './shops';
import type { TenantView } from './tenant';
import type { AdminUserView } from './users';

/*
 * The answers of the tenant administration (docs/api.md 9) as schemas, like
 * lib/sessions/api-schemas.ts: docs/openapi.json is generated from them.
 */

/** docs/api.md 9: a user as an ADMIN sees it. */
export const adminUser = z.strictObject({
  id: z.string(),
  username: z.string(),
  role: z.enum(ROLES),
  shopId: z.string(),
  status: z.enum(['active', 'disabled']),
  email: z.nullable(z.string()),
  emailVerified: z.boolean(),
  mfaMethods: z.array(z.enum(MFA_METHODS)),
  createdAt: z.string(),
  lastLoginAt: z.nullable(z.string()),
}) satisfies z.ZodMiniType<AdminUserView>;

/** docs/api.md 9.1. */
export const userPage = z.strictObject({ users: z.array(adminUser), nextCursor: z.nullable(z.string()) });
/** docs/api.md 9.2, 9.3. */
export const oneUser = z.strictObject({ user: adminUser });
/** docs/api.md 13.2: what an import created, and each failed row's error (`index` from 0). */
export const importResult = z.strictObject({
  imported: z.number().check(z.int(), z.nonnegative()),
  failed: z.array(z.strictObject({ index: z.number().check(z.int(), z.nonnegative()), error: z.string() })),
}) satisfies z.ZodMiniType<ImportResult>;
/** docs/api.md 9.6. */
export const revokedCount = z.strictObject({ revoked: z.number().check(z.int(), z.nonnegative()) });

/** docs/api.md 9.7: a shop of the tenant. */
export const shop = z.strictObject({ shopId: z.string(), name: z.string(), createdAt: z.string() }) satisfies z.ZodMiniType<ShopView>;
/** docs/api.md 9.7. */
export const oneShop = z.strictObject({ shop });
/** docs/api.md 9.7. */
export const shopList = z.strictObject({ shops: z.array(shop) });

/** docs/api.md 9.8: an audit event. */
export const auditEvent = z.strictObject(auditEventSchema.shape) satisfies z.ZodMiniType<AuditEvent>;
/** docs/api.md 9.8. */
export const auditPage = z.strictObject({ events: z.array(auditEvent), nextCursor: z.nullable(z.string()) });

/** docs/api.md 9.14: the ADMIN's tenant. */
export const tenant = z.strictObject({
  id: z.string(),
  displayName: z.nullable(z.string()),
  createdAt: z.string(),
  defaultShopId: z.string(),
  scimDefaultRole: z.enum(ROLES),
  logoUrl: z.nullable(z.string()),
  accentColor: z.nullable(z.string()),
}) satisfies z.ZodMiniType<TenantView>;
/** docs/api.md 9.14. */
export const oneTenant = z.strictObject({ tenant });
