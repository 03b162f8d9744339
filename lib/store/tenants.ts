import { ROLES } from '../caller';
import * as z from '../zod';
import { GetCommand, UpdateCommand } from './commands';
import type { Dynamo } from './dynamo';
import { keys } from './keys';
import { parseRecord } from './records';

/** A tenant record, written with the tenant's first user (UserStore.create). */
export const tenantSchema = z.object({
  tenantId: z.string(),
  /** ISO 8601. */
  createdAt: z.string(),
  /** The shop the tenant was created with; absent on tenants older than shops (docs/api.md 9.7). */
  defaultShopId: z.optional(z.string()),
  /** The name the hosted pages show (docs/api.md 9.14); absent until an ADMIN sets one. */
  displayName: z.optional(z.string()),
  /** The role of a user provisioned over SCIM without a group (docs/api.md 13.3); ANALYST when absent. */
  scimDefaultRole: z.optional(z.enum(ROLES)),
  /** The logo the pages show beside the name (docs/api.md 9.14, 15.1): an https URL. */
  logoUrl: z.optional(z.string()),
  /** The accent colour of the pages (docs/api.md 9.14, 15.1): `#rrggbb`. */
  accentColor: z.optional(z.string()),
});
export type Tenant = z.output<typeof tenantSchema>;

/** The creation time of a tenant older than tenant records (ISO 8601): unknown, so old. */
export const UNKNOWN_CREATION = new Date(0).toISOString();

/** Tenants are created with their first user (UserStore.create); here they are only looked up. */
export interface TenantStore {
  exists(tenantId: string): Promise<boolean>;
  find(tenantId: string): Promise<Tenant | undefined>;
  /** When the tenant was created (epoch seconds), or undefined without a tenant record. */
  createdAt(tenantId: string): Promise<number | undefined>;
  /**
   * Sets the tenant's settings given (docs/api.md 9.14): one update, the same again after a
   * lost answer. The tenant as changed, with the settings given as this update set them.
   */
  updateSettings(tenantId: string, settings: TenantSettings): Promise<Tenant>;
}

/** What an ADMIN sets of the tenant (docs/api.md 9.14); `null` removes a logo or an accent colour. */
export type TenantSettings = Partial<Pick<Tenant, 'displayName' | 'scimDefaultRole'>> & {
  logoUrl?: string | null | undefined;
  accentColor?: string | null | undefined;
};

export function dynamoTenantStore({ doc, table }: Dynamo): TenantStore {
  return {
    async exists(tenantId) {
      const { Item } = await doc.send(
        new GetCommand({ TableName: table, Key: keys.tenant(tenantId), ConsistentRead: true, ProjectionExpression: 'pk' }),
      );
      return Item !== undefined;
    },

    async find(tenantId) {
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: keys.tenant(tenantId), ConsistentRead: true }));
      return parseRecord(tenantSchema, 'tenant', Item);
    },
    async createdAt(tenantId) {
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: keys.tenant(tenantId), ProjectionExpression: 'createdAt' }));
      const created = typeof Item?.createdAt === 'string' ? Date.parse(Item.createdAt) : Number.NaN;
      return Number.isFinite(created) ? Math.floor(created / 1000) : undefined;
    },

    async updateSettings(tenantId, settings) {
      const given = Object.entries(settings).filter(([, value]) => value !== undefined && value !== null);
      const removed = Object.entries(settings).filter(([, value]) => value === null);
      const remove = removed.length ? ` REMOVE ${removed.map(([name]) => name).join(', ')}` : '';
      const { Attributes } = await doc.send(
        new UpdateCommand({
          TableName: table,
          Key: keys.tenant(tenantId),
          // A tenant older than tenant records gets one, of an unknown (so: old) creation time.
          UpdateExpression: `SET ${given.map(([name]) => `${name} = :${name}, `).join('')}tenantId = if_not_exists(tenantId, :tenant), createdAt = if_not_exists(createdAt, :unknown)${remove}`,
          ExpressionAttributeValues: {
            ...Object.fromEntries(given.map(([name, value]) => [`:${name}`, value])),
            ':tenant': tenantId,
            ':unknown': UNKNOWN_CREATION,
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      const tenant = parseRecord(tenantSchema, 'tenant', Attributes);
      if (!tenant) throw new Error('The tenant record did not parse after its update');
      // A write that carries events reads the item back after it (lib/events/outbox.ts): a
      // concurrent change may be in it by then, so what this one set is answered as set.
      const own = Object.fromEntries(given);
      for (const [name] of removed) delete (tenant as Record<string, unknown>)[name];
      return { ...tenant, ...own };
    },
  };
}
