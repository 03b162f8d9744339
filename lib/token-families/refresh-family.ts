import { constantEquals } from '../crypto/constant-equals';
import type { Device } from '../sessions/device';
import * as z from '../zod';

/**
 * A refresh-token family: a login session or an OAuth grant. Its refresh tokens rotate
 * (RFC 9700 4.14.2): each is used once and answered with its successor. Only the hash of
 * the current token is stored, with the hashes of the last RETIRED_KEPT retired ones, so
 * that a retired token presented again is recognised as reuse (a stolen token raced its
 * owner) and ends the whole family. Sessions and grants follow these rules alike.
 */

/** How many retired refresh-token hashes a family remembers for reuse detection. */
export const RETIRED_KEPT = 16;

/** The refresh-token state every family record carries. */
export const refreshStateSchema = z.object({
  /** Epoch seconds: nothing of the family is valid after this. */
  expiresAt: z.number(),
  refreshHash: z.string(),
  refreshGeneration: z.number().check(z.int(), z.nonnegative()),
  /** Hashes of retired refresh tokens by generation (`g<n>`), the last RETIRED_KEPT of them. */
  retired: z.record(z.string(), z.string()),
  /** Epoch seconds of the last rotation. */
  refreshedAt: z.optional(z.number()),
  revokedAt: z.optional(z.number()),
  revokedReason: z.optional(z.string()),
});

export type RefreshState = z.output<typeof refreshStateSchema>;

/**
 * What the rules read of a family record. A grant issued without refresh tokens (its
 * client may not refresh) has no refresh state; nothing rotates it.
 */
export interface FamilyRecord {
  expiresAt: number;
  revokedAt?: number | undefined;
  refreshHash?: string | undefined;
  refreshGeneration?: number | undefined;
  retired?: Record<string, string> | undefined;
  clientId?: string | undefined;
}

/** Which family: its tenant and id, and for an OAuth grant the client it was issued to. */
export interface FamilyRef {
  tenantId: string;
  id: string;
  /** A grant rotates only for its own client. */
  clientId?: string | undefined;
}

export interface Rotation {
  /** The generation the presented token claims. */
  generation: number;
  presentedHash: string;
  nextHash: string;
  /** Epoch seconds. */
  now: number;
  /** Who presented the token (a session's device): recorded by the same write, never a write of its own. */
  device?: Device | undefined;
}

/**
 * The store primitive of every family: one conditional write. `applied`: the presented
 * token was current (its generation and hash), the family live and, for a grant, the
 * client its own; the successor is now current and `record` is the family after the
 * write. Otherwise `record` is the family as it is (undefined if there is none).
 */
export interface TokenFamilyStore<R extends FamilyRecord> {
  rotate(family: FamilyRef, rotation: Rotation): Promise<{ applied: boolean; record: R | undefined }>;
  /** Marks the family revoked (idempotent: the first revocation and its reason stay). */
  revoke(family: FamilyRef, now: number, reason: string): Promise<unknown>;
}

/** The attributes a rotation sets and removes: the successor current, the presented one retired, the oldest forgotten. */
export function rotationChanges({ generation, presentedHash, nextHash }: Rotation) {
  return {
    refreshHash: nextHash,
    refreshGeneration: generation + 1,
    retiring: `g${generation}`,
    retired: presentedHash,
    forgotten: generation >= RETIRED_KEPT ? `g${generation - RETIRED_KEPT}` : undefined,
  };
}

export function isLive(family: Pick<FamilyRecord, 'revokedAt' | 'expiresAt'>, now: number): boolean {
  return family.revokedAt === undefined && family.expiresAt > now;
}

/** Whether `hash` is the family's current refresh token or, with `includeRetired`, a retired one (constant time). */
export function isRefreshHashOf(family: Pick<FamilyRecord, 'refreshHash' | 'retired'>, hash: string, includeRetired: boolean): boolean {
  const current = family.refreshHash !== undefined && constantEquals(family.refreshHash, hash);
  return current || (includeRetired && Object.values(family.retired ?? {}).some((retired) => constantEquals(retired, hash)));
}

export type RotateOutcome<R> =
  | { outcome: 'rotated'; record: R }
  /** A retired token was presented: the family has been revoked. */
  | { outcome: 'reused'; record: R }
  /** A genuine token of a grant was presented by another client: nothing changed; the caller decides. */
  | { outcome: 'other_client'; record: R }
  | { outcome: 'invalid' };

/**
 * Exchanges the presented refresh token for its successor. A retired token of a live
 * family presented again revokes the family (`reused`), through the store `revoking`
 * gives for it (one that carries the revocation's event, docs/events.md). A genuine token of a grant
 * (current or retired) presented by another client than the grant's has leaked
 * (`other_client`): whether that ends the family is the grant's rule (docs/api.md 16.1).
 * Anything else that does not rotate is `invalid`, and changes nothing.
 */
export async function rotateRefreshToken<R extends FamilyRecord>(
  store: TokenFamilyStore<R>,
  family: FamilyRef,
  rotation: Rotation,
  revoking: (record: R) => Pick<TokenFamilyStore<R>, 'revoke'> = () => store,
): Promise<RotateOutcome<R>> {
  const { applied, record } = await store.rotate(family, rotation);
  if (!record || !isLive(record, rotation.now)) return { outcome: 'invalid' };
  if (record.clientId !== family.clientId) {
    // Only a token of the family proves a leak; a made-up one naming the grant is merely invalid.
    return isRefreshHashOf(record, rotation.presentedHash, true) ? { outcome: 'other_client', record } : { outcome: 'invalid' };
  }
  if (applied) return { outcome: 'rotated', record };
  // Only a retired token is reuse; the current one at another generation was never issued.
  const retired = isRefreshHashOf(record, rotation.presentedHash, true) && !isRefreshHashOf(record, rotation.presentedHash, false);
  if (!retired) return { outcome: 'invalid' };
  await revoking(record).revoke(family, rotation.now, 'refresh_token_reuse');
  return { outcome: 'reused', record };
}

/**
 * The text form of a refresh token: the segments that route it to its family, its
 * generation, and a secret of 256 random bits; only the SHA-256 of the whole is stored.
 * The generation is a decimal number, so a refresh token never parses as a JWT.
 */
export function formatRefreshToken(route: readonly string[], generation: number, secret: string): string {
  return [...route, String(generation), secret].join('.');
}

const GENERATION = /^(0|[1-9][0-9]{0,8})$/;

/** The parts of a refresh token with `routeSegments` routing segments, or undefined; each segment must pass `segment`. */
export function parseRefreshToken(
  token: string,
  routeSegments: number,
  segment: RegExp,
): { route: string[]; generation: number; secret: string } | undefined {
  const parts = token.split('.');
  if (parts.length !== routeSegments + 2) return undefined;
  const route = parts.slice(0, routeSegments);
  const [generation = '', secret = ''] = parts.slice(routeSegments);
  if (!GENERATION.test(generation) || !segment.test(secret) || !route.every((part) => segment.test(part))) return undefined;
  return { route, generation: Number(generation), secret };
}
