/**
 * Test data written straight into the table with BatchWriteItem: users (profile and
 * username records, with their activity) each with one live session, in the shapes lib/store writes, and
 * the tokens a client of each would hold.
 */
import { randomBytes } from 'node:crypto';
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Config } from '../lib/config';
import { hashToken } from '../lib/crypto/token-hash';
import { formatRefreshToken } from '../lib/sessions/refresh-token';
import type { Session } from '../lib/sessions/session';
import { keys } from '../lib/store/keys';
import { TTL_ATTRIBUTE } from '../lib/store/table';
import { ACTIVITY_KEPT } from '../lib/store/user-activity';
import { type Identity, signAccessToken } from '../lib/tokens/access-token';
import type { KeySet } from '../lib/tokens/signing-keys';
import type { Role, User } from '../lib/users/user';

type Item = Record<string, unknown>;

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Writes items 25 at a time, `concurrency` batches in flight, retrying unprocessed items. */
export async function batchWrite(doc: DynamoDBDocumentClient, table: string, items: Item[], concurrency = 6): Promise<void> {
  let next = 0;
  async function worker() {
    while (next < items.length) {
      let batch = items.slice(next, next + 25);
      next += 25;
      for (let attempt = 0; batch.length > 0; attempt++) {
        if (attempt > 20) throw new Error('BatchWrite kept leaving items unprocessed');
        const { UnprocessedItems } = await doc.send(
          new BatchWriteCommand({ RequestItems: { [table]: batch.map((Item) => ({ PutRequest: { Item } })) } }),
        );
        batch = (UnprocessedItems?.[table] ?? []).map((request) => request.PutRequest?.Item as Item);
        if (batch.length > 0) await sleep(20 * (attempt + 1));
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** A seeded user with one session, and the refresh token its client holds. */
export interface SeededSession {
  identity: Identity;
  refreshToken: string;
  /** The user has an active authenticator app, seeded with a placeholder secret no function can open. */
  withTotp?: true;
}

const now = () => Math.floor(Date.now() / 1000);

export function userRecord(tenantId: string, username: string, passwordHash: string, role: Role = 'OPERATOR'): User {
  return {
    id: `u-${randomBytes(12).toString('base64url')}`,
    tenantId,
    shopId: 'shop-1',
    username,
    role,
    passwordHash,
    status: 'active',
    createdAt: new Date().toISOString(),
  };
}

export function userItems(user: User, activity: { lastSessionAt?: number; mfaEnrolled?: Array<'TOTP'> } = {}): Item[] {
  const { lastSessionAt, mfaEnrolled = [] } = activity;
  return [
    // With its tenant index entry and its activity, as the stores write them: GET /admin/users lists it.
    {
      ...keys.user(user.tenantId, user.id),
      ...user,
      ...keys.tenantUser(user.tenantId, user.createdAt, user.id),
      [ACTIVITY_KEPT]: true,
      ...(lastSessionAt === undefined ? {} : { lastSessionAt }),
      ...(mfaEnrolled.length > 0 ? { mfaEnrolled: new Set(mfaEnrolled) } : {}),
    },
    { ...keys.username(user.tenantId, user.username), userId: user.id },
  ];
}

/** A user's active methods as enrolment and activation leave them (each named in the user's activity, lib/store/user-activity.ts). */
export function methodItems(user: User, at: number, methods: Array<'TOTP'>): Item[] {
  return methods.map((method) => ({
    ...keys.mfaMethod(user.tenantId, user.id, method),
    tenantId: user.tenantId,
    userId: user.id,
    method,
    status: 'active',
    createdAt: at,
    activatedAt: at,
    sealedSecret: 'seeded',
  }));
}

export function tenantItem(tenantId: string): Item {
  return { ...keys.tenant(tenantId), tenantId, createdAt: new Date().toISOString(), createdBy: 'bench' };
}

/** A live session of `user` (as startSession stores it) and its generation-0 refresh token. */
export function sessionFor(user: User, config: Config): { item: Item; seeded: SeededSession } {
  const at = now();
  const id = randomBytes(16).toString('base64url');
  const refreshToken = formatRefreshToken({
    tenantId: user.tenantId,
    sessionId: id,
    generation: 0,
    secret: randomBytes(32).toString('base64url'),
  });
  const session: Session = {
    id,
    tenantId: user.tenantId,
    userId: user.id,
    amr: ['pwd'],
    createdAt: at,
    expiresAt: at + config.sessionMaxAgeSeconds,
    refreshHash: hashToken(refreshToken),
    refreshGeneration: 0,
    retired: {},
  };
  const identity: Identity = {
    userId: user.id,
    username: user.username,
    role: user.role,
    tenantId: user.tenantId,
    shopId: user.shopId,
    sessionId: id,
    amr: ['pwd'],
    authTime: at,
  };
  return {
    item: { ...keys.session(user.tenantId, id), ...session, [TTL_ATTRIBUTE]: session.expiresAt },
    seeded: { identity, refreshToken },
  };
}

/**
 * A browser session of `user` (docs/api.md 11.6), as a hosted sign-in starts one: the
 * session record with the hash of the cookie's secret, and the `__Host-session` cookie
 * the account page and the console read (docs/api.md 15.1).
 */
export function browserSessionFor(user: User, config: Config): { item: Item; cookie: string } {
  const { item } = sessionFor(user, config);
  const secret = randomBytes(32).toString('base64url');
  const cookie = `__Host-session=${Buffer.from(user.tenantId, 'utf8').toString('base64url')}.${String(item.id)}.${secret}`;
  return { item: { ...item, browserHash: hashToken(secret), seenAt: now() }, cookie };
}

/**
 * Adds `count` users, each with one live session, to `tenantId`. All share one
 * password hash (nobody logs in as them). Returns their sessions.
 */
export async function seedUsers(
  doc: DynamoDBDocumentClient,
  config: Config,
  tenantId: string,
  count: number,
  passwordHash: string,
  prefix = 'user',
): Promise<SeededSession[]> {
  const sessions: SeededSession[] = [];
  const chunk = 5_000;
  for (let start = 0; start < count; start += chunk) {
    const items: Item[] = [];
    for (let i = start; i < Math.min(count, start + chunk); i++) {
      const user = userRecord(tenantId, `${prefix}-${i}`, passwordHash);
      const { item, seeded } = sessionFor(user, config);
      // A quarter of them with an authenticator app, as the user list shows it.
      const methods: Array<'TOTP'> = i % 4 === 0 ? ['TOTP'] : [];
      const at = Number(item.createdAt);
      items.push(...userItems(user, { lastSessionAt: at, mfaEnrolled: methods }), item, ...methodItems(user, at, methods));
      sessions.push(methods.length > 0 ? { ...seeded, withTotp: true } : seeded);
    }
    await batchWrite(doc, config.tableName, items);
  }
  return sessions;
}

/** A first-party access token for a seeded session, as login would issue it. */
export async function accessTokenFor(keySet: KeySet, config: Config, identity: Identity): Promise<string> {
  const { token } = await signAccessToken(
    keySet,
    { issuer: config.issuer, audience: config.accessTokenAudience, ttlSeconds: config.accessTokenTtlSeconds },
    identity,
    randomBytes(16).toString('base64url'),
    now(),
  );
  return token;
}
