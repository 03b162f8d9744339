import { byAdmin, recordEvent } from '../audit/record';
import { importedHashError } from '../crypto/hash-formats';
import type { Deps } from '../deps';
import { AppError } from '../errors';
import { schemaFailure } from '../http/middlewares/validate';
import { shopId, username } from '../http/schemas';
import { normalizeUsername } from '../store/keys';
import type { Identity } from '../tokens/access-token';
import { userCreated } from '../users/events';
import { ROLES, type User } from '../users/user';
import * as z from '../zod';
import { tenantShop, UNKNOWN_SHOP } from './shops';

/** docs/api.md 13.2: the most rows one import takes. */
export const IMPORT_MAX_ROWS = 1000;

/** docs/api.md 13.2: the import's body limit (1 MiB), where every other route takes 16 KiB. */
export const IMPORT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * How many users are written at once: each is one two-item transaction, so 16 in flight
 * keep a batch of 1,000 within a few seconds without a burst DynamoDB would throttle.
 */
export const IMPORT_CONCURRENCY = 16;

/** The row error of a username the tenant has already, or an earlier row of the same batch. */
export const USER_EXISTS = 'User already exists';

/** One row of an import (docs/api.md 13.2), checked on its own: a bad row fails alone. */
export const importRow = z
  .strictObject({
    username,
    email: z.optional(z.email().check(z.maxLength(254))),
    emailVerified: z.optional(z.boolean()),
    role: z.enum(ROLES),
    shopId: z.optional(shopId),
    // Bounded here; its format and costs are checked by lib/crypto/hash-formats.ts.
    passwordHash: z.optional(z.string().check(z.minLength(1), z.maxLength(2048))),
  })
  .check(
    z.refine((row) => row.emailVerified !== true || row.email !== undefined, {
      path: ['emailVerified'],
      message: 'A verified email needs an email',
    }),
  );
export type ImportRow = z.output<typeof importRow>;

export interface ImportFailure {
  index: number;
  error: string;
}

export interface ImportResult {
  imported: number;
  failed: ImportFailure[];
}

type ImportDeps = Pick<Deps, 'config' | 'clock' | 'random' | 'log' | 'store' | 'source'>;

/** A row that passed its checks, as the user it becomes. */
interface ReadyRow {
  index: number;
  user: User;
}

/**
 * The shop of each distinct `shopId` of the rows (undefined: the tenant's default shop),
 * read once each; a shop that is not the tenant's maps to undefined.
 */
async function shopsOf(deps: ImportDeps, tenantId: string, rows: ImportRow[]): Promise<Map<string | undefined, string | undefined>> {
  const named = [...new Set(rows.map((row) => row.shopId))];
  const resolved = await Promise.all(
    named.map((shop) =>
      tenantShop(deps, tenantId, shop).catch((error: unknown) => {
        if (error instanceof AppError && error.code === 'UNKNOWN_SHOP') return undefined;
        throw error;
      }),
    ),
  );
  return new Map(named.map((shop, i) => [shop, resolved[i]]));
}

/** Runs `work` on each item, at most `limit` at once; the first failure stops new work and is thrown once the rest settle. */
async function eachBounded<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (failure === undefined && next < items.length) {
      const item = items[next++] as T;
      try {
        await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
}

/** The error of a row that parsed, or undefined: its shop (undefined when not the tenant's), then its hash. */
function rowError(row: ImportRow, shop: string | undefined): string | undefined {
  if (shop === undefined) return UNKNOWN_SHOP;
  return row.passwordHash === undefined ? undefined : importedHashError(row.passwordHash);
}

/**
 * The rows as users, or each bad row's error: its fields, its shop, its hash's format and
 * costs, then a username that an earlier good row of the batch has. Nothing is written.
 */
async function prepare(deps: ImportDeps, admin: Identity, rows: unknown[]): Promise<{ ready: ReadyRow[]; failed: ImportFailure[] }> {
  const failed: ImportFailure[] = [];
  const parsed: Array<{ index: number; row: ImportRow }> = [];
  for (const [index, raw] of rows.entries()) {
    const result = importRow.safeParse(raw);
    if (result.success) parsed.push({ index, row: result.data });
    else failed.push({ index, error: schemaFailure(result.error, 'row').message });
  }
  const shops = await shopsOf(
    deps,
    admin.tenantId,
    parsed.map(({ row }) => row),
  );
  const createdAt = new Date(deps.clock.now()).toISOString();
  const seen = new Set<string>();
  const ready: ReadyRow[] = [];
  for (const { index, row } of parsed) {
    const shop = shops.get(row.shopId);
    const error = rowError(row, shop);
    const key = normalizeUsername(row.username);
    if (shop === undefined || error !== undefined || seen.has(key)) {
      failed.push({ index, error: error ?? USER_EXISTS });
      continue;
    }
    seen.add(key);
    const user: User = {
      id: deps.random.id(),
      tenantId: admin.tenantId,
      shopId: shop,
      username: row.username,
      role: row.role,
      ...(row.email === undefined ? {} : { email: row.email, emailVerified: row.emailVerified ?? false }),
      ...(row.passwordHash === undefined ? {} : { passwordHash: row.passwordHash }),
      status: 'active',
      createdAt,
    };
    ready.push({ index, user });
  }
  return { ready, failed };
}

/**
 * docs/api.md 13.2: creates the tenant's users from an export of another platform, with
 * the password hashes it holds. Each row is checked on its own and either exists
 * completely (profile and username, one transaction: store.users.create) or not at all;
 * a username the tenant has fails its row, so a re-run is safe. Writes run
 * {@link IMPORT_CONCURRENCY} at a time. A store fault stops the import (the rows written
 * so far stay, complete) and is answered as a fault. One audit event per call, with the
 * counts; no hash is logged or recorded.
 */
export async function importUsers(deps: ImportDeps, admin: Identity, rows: unknown[]): Promise<ImportResult> {
  const { ready, failed } = await prepare(deps, admin, rows);
  let imported = 0;
  const record = (outcome: 'success' | 'failure') => {
    deps.log.info('users_imported', { tenantId: admin.tenantId, actorId: admin.userId, imported, failed: failed.length, outcome });
    return recordEvent(deps, {
      ...byAdmin(admin, null),
      type: 'users_imported',
      outcome,
      details: { imported, failed: failed.length },
    });
  };
  try {
    await eachBounded(ready, IMPORT_CONCURRENCY, async ({ index, user }) => {
      const created = userCreated(deps, user, byAdmin(admin).actor, 'import');
      const outcome = await deps.store.emitting([created]).users.create(user, { createTenant: false });
      if (outcome === 'created') imported++;
      else failed.push({ index, error: USER_EXISTS });
    });
  } catch (error) {
    // The rows written so far are users now: the trail says so, if the store lets it.
    await record('failure').catch(() => undefined);
    throw error;
  }
  await record('success');
  return { imported, failed: failed.sort((a, b) => a.index - b.index) };
}
