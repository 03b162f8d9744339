import { describe, expect, it } from 'vitest';
import { BROWSER_IDLE_SECONDS, isLiveFor, type LivenessSession, type LivenessUser } from '../../lib/sessions/liveness';

const NOW = 1_800_000_000;

const user: LivenessUser = { id: 'u-1', tenantId: 'acme', status: 'active', sessionEpoch: 2, signInEpoch: 3 };
const session: LivenessSession = { tenantId: 'acme', userId: 'u-1', expiresAt: NOW + 60, userEpoch: 2, signInEpoch: 3 };
const browser: LivenessSession = { ...session, browserHash: 'hash', seenAt: NOW - BROWSER_IDLE_SECONDS + 1 };

describe('isLiveFor (docs/api.md 3, 8.3, 11.6)', () => {
  it('holds for an active user and a session of theirs that is open and of their current generations', () => {
    expect(isLiveFor(user, session, NOW)).toBe(true);
    expect(isLiveFor(user, browser, NOW)).toBe(true);
  });

  it('holds for records written before the generations were recorded (absent counts as 0)', () => {
    const { sessionEpoch: _s, signInEpoch: _i, ...oldUser } = user;
    const { userEpoch: _u, signInEpoch: _j, ...oldSession } = session;
    expect(isLiveFor(oldUser, oldSession, NOW)).toBe(true);
  });

  // One row per rule: each breaks exactly one thing of the live pair above.
  it.each<[string, LivenessUser | undefined, LivenessSession | undefined]>([
    ['no user (deleted)', undefined, session],
    ['no session', user, undefined],
    ["another user's session", user, { ...session, userId: 'u-2' }],
    ["another tenant's session", user, { ...session, tenantId: 'other' }],
    ['a revoked session', user, { ...session, revokedAt: NOW - 1 }],
    ['a session at its end', user, { ...session, expiresAt: NOW }],
    ['a session past its end', user, { ...session, expiresAt: NOW - 1 }],
    ['a browser session idle for the whole timeout', user, { ...browser, seenAt: NOW - BROWSER_IDLE_SECONDS }],
    ['a browser session never seen', user, { ...session, browserHash: 'hash' }],
    ['a disabled user', { ...user, status: 'disabled' }, session],
    [
      'a session of an earlier session generation (password change, reset, MFA reset, sign-out everywhere)',
      user,
      { ...session, userEpoch: 1 },
    ],
    ['a session of an earlier sign-in generation ("sign out my other sessions")', user, { ...session, signInEpoch: 2 }],
    ['a session of a later generation than the user (never written by this service)', user, { ...session, userEpoch: 3 }],
  ])('does not hold for %s', (_, who, which) => {
    expect(isLiveFor(who, which, NOW)).toBe(false);
  });
});

describe('isLiveFor: a federated session (docs/api.md 14.1)', () => {
  const federated: LivenessSession = { ...session, idp: 'conn-1' };
  const connection = { id: 'conn-1', tenantId: 'acme', enabled: true };

  it('holds while its connection exists and is enabled', () => {
    expect(isLiveFor(user, federated, NOW, connection)).toBe(true);
    // A session of no connection does not need one.
    expect(isLiveFor(user, session, NOW, undefined)).toBe(true);
  });

  it.each([
    ['its connection deleted (or not read)', undefined],
    ['its connection disabled', { ...connection, enabled: false }],
    ['another connection', { ...connection, id: 'conn-2' }],
    ["another tenant's connection of the same id", { ...connection, tenantId: 'other' }],
  ])('does not hold with %s', (_, given) => {
    expect(isLiveFor(user, federated, NOW, given)).toBe(false);
  });
});
