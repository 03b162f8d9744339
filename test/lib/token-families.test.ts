import { beforeAll, describe, expect, it } from 'vitest';
import { cryptoRandom } from '../../lib/crypto/random';
import { hashToken } from '../../lib/crypto/token-hash';
import type { OAuthGrant } from '../../lib/oauth/grant';
import type { Session } from '../../lib/sessions/session';
import { memoryTokenFamilies } from '../../lib/store/memory-token-families';
import {
  type FamilyRecord,
  type FamilyRef,
  formatRefreshToken,
  parseRefreshToken,
  RETIRED_KEPT,
  rotateRefreshToken,
  type TokenFamilyStore,
} from '../../lib/token-families/refresh-family';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';

const NOW = Math.floor(Date.now() / 1000);

/** A family store under test, with a way to create a family whose current token is returned. */
interface Subject {
  store: TokenFamilyStore<FamilyRecord>;
  /** Creates a live family (a session, or a grant of `clientId`); returns its ref and current token's hash. */
  create(options?: { expiresAt?: number }): Promise<{ ref: FamilyRef; hash: string }>;
  /** Whether the family is revoked, as the store keeps it. */
  isRevoked(ref: FamilyRef): Promise<boolean>;
}

const token = () => cryptoRandom.token();

function memorySubject(clientId: string | undefined): Subject {
  const store = memoryTokenFamilies<FamilyRecord & { revokedReason?: string }>();
  const revoked = new Map<string, boolean>();
  return {
    store: {
      rotate: store.rotate,
      async revoke(ref, now, reason) {
        revoked.set(ref.id, true);
        return store.revoke(ref, now, reason);
      },
    },
    async create({ expiresAt = NOW + 3600 } = {}) {
      const ref = { tenantId: uniqueTenant('family'), id: cryptoRandom.token(16), clientId };
      const hash = hashToken(token());
      store.put(ref, { expiresAt, refreshHash: hash, refreshGeneration: 0, retired: {}, clientId });
      return { ref, hash };
    },
    isRevoked: async (ref) => revoked.get(ref.id) === true,
  };
}

function sessionSubject(deps: TestDeps): Subject {
  return {
    store: deps.store.sessions,
    async create({ expiresAt = NOW + 3600 } = {}) {
      const hash = hashToken(token());
      const session: Session = {
        id: cryptoRandom.token(16),
        tenantId: uniqueTenant('family'),
        userId: cryptoRandom.id(),
        amr: ['pwd'],
        createdAt: NOW,
        expiresAt,
        refreshHash: hash,
        refreshGeneration: 0,
        retired: {},
      };
      await deps.store.sessions.create(session);
      return { ref: { tenantId: session.tenantId, id: session.id }, hash };
    },
    isRevoked: async (ref) => (await deps.store.sessions.find(ref.tenantId, ref.id))?.revokedAt !== undefined,
  };
}

function grantSubject(deps: TestDeps): Subject {
  return {
    store: deps.store.oauthGrants,
    async create({ expiresAt = NOW + 3600 } = {}) {
      const hash = hashToken(token());
      const grant: OAuthGrant = {
        id: cryptoRandom.token(16),
        tenantId: uniqueTenant('family'),
        clientId: 'family-client',
        kind: 'authorization_code',
        subject: cryptoRandom.id(),
        scope: ['orders:read'],
        createdAt: NOW,
        expiresAt,
        refreshHash: hash,
        refreshGeneration: 0,
        retired: {},
      };
      await deps.store.oauthGrants.save(grant);
      return { ref: { tenantId: grant.tenantId, id: grant.id, clientId: grant.clientId }, hash };
    },
    isRevoked: async (ref) => (await deps.store.oauthGrants.find(ref.tenantId, ref.id))?.revokedAt !== undefined,
  };
}

let deps: TestDeps;
beforeAll(async () => {
  deps = await testDeps();
});

describe.each([
  ['in memory, without a client', () => memorySubject(undefined)],
  ['in memory, with a client', () => memorySubject('family-client')],
  ['DynamoDB Local, sessions', () => sessionSubject(deps)],
  ['DynamoDB Local, OAuth grants', () => grantSubject(deps)],
])('the refresh-token family rules (%s)', (_name, subject) => {
  /** Rotates from `hash` at `generation`; returns the outcome and the successor's hash. */
  async function rotate(s: Subject, ref: FamilyRef, generation: number, hash: string, now = NOW) {
    const nextHash = hashToken(token());
    const result = await rotateRefreshToken(s.store, ref, { generation, presentedHash: hash, nextHash, now });
    return { outcome: result.outcome, nextHash };
  }

  it('rotates the current token: its successor is current, the family lives on', async () => {
    const s = subject();
    const { ref, hash } = await s.create();
    const first = await rotate(s, ref, 0, hash);
    expect(first.outcome).toBe('rotated');
    expect((await rotate(s, ref, 1, first.nextHash)).outcome).toBe('rotated');
    expect(await s.isRevoked(ref)).toBe(false);
  });

  it('treats a retired token presented again as reuse and revokes the family, so its current token dies too', async () => {
    const s = subject();
    const { ref, hash } = await s.create();
    const { nextHash } = await rotate(s, ref, 0, hash);
    expect((await rotate(s, ref, 0, hash)).outcome).toBe('reused');
    expect(await s.isRevoked(ref)).toBe(true);
    expect((await rotate(s, ref, 1, nextHash)).outcome).toBe('invalid');
  });

  it('lets exactly one of two concurrent rotations with one token win; the loser presented a retired token (reuse)', async () => {
    const s = subject();
    const { ref, hash } = await s.create();
    const outcomes = await Promise.all([rotate(s, ref, 0, hash), rotate(s, ref, 0, hash)]);
    expect(outcomes.map((o) => o.outcome).sort()).toEqual(['reused', 'rotated']);
    expect(await s.isRevoked(ref)).toBe(true);
  });

  it.each([
    ['a token never issued', async (s: Subject, ref: FamilyRef) => rotate(s, ref, 0, hashToken(token()))],
    ['the right token with another generation', async (s: Subject, ref: FamilyRef, hash: string) => rotate(s, ref, 1, hash)],
    ['an unknown family', async (s: Subject, ref: FamilyRef, hash: string) => rotate(s, { ...ref, id: cryptoRandom.token(16) }, 0, hash)],
    ['another tenant', async (s: Subject, ref: FamilyRef, hash: string) => rotate(s, { ...ref, tenantId: uniqueTenant('other') }, 0, hash)],
    ['after the family expired', async (s: Subject, ref: FamilyRef, hash: string) => rotate(s, ref, 0, hash, NOW + 3600)],
  ])('answers invalid, and revokes nothing, for %s', async (_case, attempt) => {
    const s = subject();
    const { ref, hash } = await s.create();
    expect((await attempt(s, ref, hash)).outcome).toBe('invalid');
    expect(await s.isRevoked(ref)).toBe(false);
  });

  it('answers other_client for a genuine token presented by another client than the family’s (or a client for a session), and changes nothing', async () => {
    const s = subject();
    const { ref, hash } = await s.create();
    const stranger = { ...ref, clientId: ref.clientId === undefined ? 'a-client' : undefined };
    expect((await rotate(s, stranger, 0, hash)).outcome).toBe('other_client');
    expect((await rotate(s, stranger, 0, 'not-a-token-of-the-family')).outcome).toBe('invalid');
    expect(await s.isRevoked(ref)).toBe(false);
    expect((await rotate(s, ref, 0, hash)).outcome).toBe('rotated');
  });

  it(`remembers the last ${RETIRED_KEPT} retired tokens: an older one is merely invalid`, async () => {
    const s = subject();
    const { ref, hash: first } = await s.create();
    let hash = first;
    for (let generation = 0; generation <= RETIRED_KEPT; generation++) {
      const next = await rotate(s, ref, generation, hash);
      expect(next.outcome).toBe('rotated');
      hash = next.nextHash;
    }
    expect((await rotate(s, ref, 0, first)).outcome).toBe('invalid');
    expect(await s.isRevoked(ref)).toBe(false);
  });
});

describe('refresh token text', () => {
  it.each([
    [['dGVuYW50', 'session-1'], 0],
    [['grant-id-0123456789'], 123456789],
  ])('formats and parses %j at generation %i', (route, generation) => {
    const text = formatRefreshToken(route, generation, 'secret-of-the-token');
    expect(parseRefreshToken(text, route.length, /^[A-Za-z0-9_-]+$/)).toEqual({ route, generation, secret: 'secret-of-the-token' });
  });

  it.each(['a.01.secret', 'a.-1.secret', 'a.1e3.secret', 'a.1234567890.secret', 'a.1.sec.ret', 'a..1.secret', 'a.1.', 'a b.1.secret'])(
    'refuses %j',
    (text) => {
      expect(parseRefreshToken(text, 1, /^[A-Za-z0-9_-]+$/)).toBeUndefined();
    },
  );
});
